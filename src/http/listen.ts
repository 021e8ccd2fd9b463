/**
 * Listening, with the failure a newcomer meets first told in words: a port
 * another process holds is named, with the setting that moves the server.
 */
import type { FastifyInstance } from 'fastify';

/** The port (or the address) is taken or not ours to use: nothing listens, and the message says what to change. */
export class ListenError extends Error {
  override name = 'ListenError';
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
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new ListenError(`port ${where.port} on ${where.host} is already in use: stop what holds it, or choose another port with ${change}`, { cause: error });
    if (code === 'EACCES') throw new ListenError(`port ${where.port} on ${where.host} needs privileges this process does not have: choose a port above 1023 with ${change}`, { cause: error });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new ListenError(`cannot listen on ${where.host}: it is not an address of this machine`, { cause: error });
    throw error;
  }
}
