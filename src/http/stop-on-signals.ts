/**
 * How a server process stops. Gracefully on SIGTERM or SIGINT: in-flight
 * requests finish (new ones get 503), then its storage closes, then the
 * process exits 0; a failure on the way exits 1. At once when its storage
 * fails beyond repair: exit STORAGE_FAILURE_EXIT_CODE without answering.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** EX_SOFTWARE (sysexits.h): the process stopped itself on an internal failure; a supervisor restarts it. */
export const STORAGE_FAILURE_EXIT_CODE = 70;

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

export function stopOnSignals(logger: FastifyBaseLogger, app: FastifyInstance, closeStorage: () => unknown): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    app
      .close()
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
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
