/**
 * Listening, with the failure a newcomer meets first told in words: a port
 * another process holds is named, with the setting that moves the server;
 * and holding the port from the start, so that a server that cannot listen
 * fails before it creates or migrates a database.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** The port (or the address) is taken or not ours to use: nothing listens, and the message says what to change. */
export class ListenError extends Error {
  override name = 'ListenError';
}

/** A failure to bind `where`, told in words: a ListenError for the failures a setting mends, else the error itself. */
function listenFailure(error: unknown, where: { host: string; port: number }, change: string): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE')
    return new ListenError(`port ${where.port} on ${where.host} is already in use: stop what holds it, or choose another port with ${change}`, {
      cause: error,
    });
  if (code === 'EACCES')
    return new ListenError(`port ${where.port} on ${where.host} needs privileges this process does not have: choose a port above 1023 with ${change}`, {
      cause: error,
    });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new ListenError(`cannot listen on ${where.host}: it is not an address of this machine`, { cause: error });
  return error;
}

/**
 * `app.listen`, whose failure to bind is a ListenError naming the port and
 * `change` (the option or variable that sets another), rather than Node's
 * `listen EADDRINUSE: address already in use 127.0.0.1:8080` with a stack.
 */
export async function listenOn(app: FastifyInstance, where: { host: string; port: number }, change: string): Promise<string> {
  try {
    return await app.listen(where);
  } catch (error) {
    throw listenFailure(error, where, change);
  }
}

/** A port bound before its server exists (holdPort). */
export interface HeldPort {
  /** Frees the port at once, so that the server's listen can follow; releasing again does nothing. */
  release(): void;
}

/**
 * Binds `where` with a socket of its own before anything else starts, and
 * keeps it while the database is opened, migrated and seeded: a start
 * that cannot serve fails first, with listenOn's words, and creates
 * nothing, so that the next start on the same database is still a first
 * one. The caller releases it just before its server listens.
 *
 * Why a socket of its own rather than the server's: Fastify listens only
 * on a server it created itself and has not yet listened (a server handed
 * in by `serverFactory` that already listens is refused by its `listen`,
 * and is not closed by its `close`), and the app is built only once its
 * store is open. So another process can take the port only between the
 * release and the listen, which follow each other without a wait for
 * anything outside; a start that loses that race still fails with the
 * same words. A connection made to the held port meanwhile is closed at
 * the release: its client tries again, and finds the server.
 *
 * Port 0 (any free port) is not held: there is nothing to find taken.
 */
export async function holdPort(where: { host: string; port: number }, change: string): Promise<HeldPort> {
  if (where.port === 0) return { release: () => {} };
  const accepted = new Set<Socket>();
  // Unreferenced: a start that fails before its release is not kept alive by it. Exclusive: a cluster worker's
  // hold must not share the primary's handle.
  const server: Server = createServer({ pauseOnConnect: true }, (socket) => {
    accepted.add(socket);
    socket.once('close', () => accepted.delete(socket));
  }).unref();
  server.listen({ host: where.host, port: where.port, exclusive: true });
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  } catch (error) {
    server.close();
    throw listenFailure(error, where, change);
  }
  let held = true;
  return {
    release: () => {
      if (!held) return;
      held = false;
      // close() gives the port back before it returns; the listen that follows finds it free.
      server.close();
      for (const socket of accepted) socket.destroy();
    },
  };
}
