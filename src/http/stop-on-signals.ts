/**
 * How a server process stops. Gracefully on SIGTERM or SIGINT, or when npm
 * started it and is gone (stopWhenOrphaned): in-flight
 * requests finish (new ones get 503), then its storage closes, then the
 * process exits 0; a failure on the way exits 1. The graceful part has
 * `shutdownTimeoutMs` (docs/protocol.md §9): past it, or on a second signal, the
 * connections still open are closed at once, then the storage closes and the
 * process exits. At once, without answering, when its storage fails beyond
 * repair: exit STORAGE_FAILURE_EXIT_CODE.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { SHUTDOWN_TIMEOUT_MS } from './limits.js';

/** EX_SOFTWARE (sysexits.h): the process stopped itself on an internal failure; a supervisor restarts it. */
const STORAGE_FAILURE_EXIT_CODE = 70;

/**
 * A handler for a storage failure nobody can vouch for the state after (a
 * dead writer thread, a broken invariant, a WAL that could not be synced),
 * or that only new connections mend (a PostgreSQL connection gone silent):
 * log it and exit at once rather than answer from that state. Requests in
 * flight get no answer, and callers resend; every call is idempotent. The
 * supervisor (systemd, Kubernetes) sees the exit; under `--workers` the
 * primary stops the other workers and exits with it.
 */
export function exitOnStorageFailure(logger: FastifyBaseLogger): (error: Error) => void {
  return (error) => {
    logger.fatal({ err: error }, 'storage stopped; exiting');
    process.exit(STORAGE_FAILURE_EXIT_CODE);
  };
}

/**
 * The parent as this module is loaded, among the command's first imports
 * (src/cli/main.ts): a stop sent to npm while the server still loads its
 * code, opens its database and builds its app orphans it before it
 * watches, and must count too.
 */
const PARENT_AT_LOAD = process.ppid;

/**
 * How often a server that npm started checks that the process that started
 * it is still its parent (ms): a stop sent to npm reaches it within about
 * this, for one system call a second.
 */
const PARENT_CHECK_MS = 1_000;

/**
 * Calls `stop` once if npm started this process (`npx wagerlink ...`,
 * `npm exec`, `npm start`: npm sets `npm_command`) and the process that
 * started it goes away. npm runs a package's command through `sh -c`, and
 * passes a SIGTERM or SIGINT it gets to that shell; a shell that did not
 * exec the command (dash, Debian's sh, does not) dies of the signal without
 * passing it on, and the server would go on running under another parent
 * (PID 1) with nobody to stop it. Its parent changing is the one trace that
 * leaves. Outside npm a parent that exits is no reason to stop: `nohup
 * wagerlink ... &` outlives its shell on purpose. Answers a function that
 * stops watching.
 */
export function stopWhenOrphaned(stop: () => void, env: NodeJS.ProcessEnv = process.env): () => void {
  if (env.npm_command === undefined) return () => {};
  const parent = PARENT_AT_LOAD;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, PARENT_CHECK_MS).unref();
  return () => clearInterval(timer);
}

export interface StopOptions {
  /** A graceful stop closes the connections still open after this (ms); default SHUTDOWN_TIMEOUT_MS. */
  shutdownTimeoutMs?: number;
}

/** The two ways to stop a server, for callers other than signals (a cluster primary's message). */
export interface Stopper {
  /** Starts a graceful stop; does nothing once a stop has started. */
  stop(reason: string): void;
  /** Closes every connection now, then the storage, and exits; does nothing once that has started. */
  stopNow(reason: string): void;
}

/**
 * Stops the process on SIGTERM and SIGINT: the first signal gracefully, a
 * second one at once. Storage closes last either way, and the stores let the
 * calls in flight finish first: a request cut off after its money moved is
 * committed whole, and its caller's resend answers it (docs/protocol.md §6.4).
 */
export function stopOnSignals(logger: FastifyBaseLogger, app: FastifyInstance, closeStorage: () => unknown, options: StopOptions = {}): Stopper {
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS;
  let state: 'serving' | 'draining' | 'closing' = 'serving';
  let deadline: NodeJS.Timeout | undefined;

  const closeAndExit = () => {
    state = 'closing';
    clearTimeout(deadline);
    Promise.resolve()
      .then(() => closeStorage())
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };

  const stopNow = (reason: string) => {
    if (state === 'closing') return;
    logger.warn({ reason }, 'stopping now: closing the connections still open');
    // In-flight handlers lose their sockets, not their work: the storage below waits for their calls.
    app.server.closeAllConnections();
    closeAndExit();
  };

  const stop = (reason: string) => {
    if (state !== 'serving') return;
    state = 'draining';
    logger.info({ reason, shutdownTimeoutMs }, 'shutting down: finishing in-flight requests');
    deadline = setTimeout(() => stopNow(`still open after ${shutdownTimeoutMs} ms`), shutdownTimeoutMs);
    app.close().then(
      () => {
        if (state === 'draining') closeAndExit();
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (state === 'serving') stop(signal);
    else stopNow(`second signal: ${signal}`);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // A stop that npm was sent and its shell did not pass on: as the first signal, never as a second.
  stopWhenOrphaned(() => stop('the process that started this one is gone'));
  return { stop, stopNow };
}
