/**
 * `wagerlink operator serve`: listens, logs one line when ready, and shuts
 * down gracefully on SIGTERM or SIGINT (in-flight requests finish, new ones
 * get 503, then the database closes).
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { openStore } from '../stores/open-store.js';
import { buildOperatorApp } from './operator-app.js';
import { requireServeSecrets, type OperatorConfig } from './operator-config.js';

export async function serveOperator(config: OperatorConfig): Promise<void> {
  const credentials = requireServeSecrets(config);
  const logger = pino({ level: config.logLevel, base: { service: 'wagerlink-operator' } });
  const store = await openStore(config.database, { rules: config.rules, cryptoDecimals: config.cryptoDecimals, sqliteWriter: config.sqliteWriter });
  let app: FastifyInstance;
  let address: string;
  try {
    app = await buildOperatorApp({
      store,
      ...credentials,
      bodyBytesMax: config.bodyBytesMax,
      transactionsPerRequestMax: config.transactionsPerRequestMax,
      logger,
    });
    // A dead writer thread means a broken invariant or a crashed database:
    // stop answering rather than serve from a state nobody can vouch for.
    store.onFatal?.((error) => {
      logger.fatal({ err: error }, 'storage stopped; exiting');
      process.exit(70);
    });
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // The writer thread would otherwise keep alive a process that cannot serve
    // (a port in use, say), and a supervisor would never see it fail.
    await store.close();
    throw error;
  }
  logger.info({ address, database: config.database, backend: store.backend }, `wagerlink operator ready on ${address}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    app
      .close()
      .then(() => store.close())
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
