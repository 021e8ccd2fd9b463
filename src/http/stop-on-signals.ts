/**
 * Graceful shutdown of a server process: on SIGTERM or SIGINT, in-flight
 * requests finish (new ones get 503), then its storage closes, then the
 * process exits 0; a failure on the way exits 1.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

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
