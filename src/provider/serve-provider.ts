/**
 * `wagerlink provider serve --config provider.json`: reads and checks the
 * config, opens the provider's database, listens, logs one line when ready,
 * and shuts down gracefully on SIGTERM or SIGINT (in-flight requests
 * finish, new ones get 503, then the database closes).
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildProviderApp } from './provider-app.js';
import { readProviderConfig } from './provider-config.js';
import { ProviderStore } from './provider-store.js';
import { stopOnSignals } from '../http/stop-on-signals.js';

export interface ServeProviderFlags {
  host?: string;
  port?: number;
}

export async function serveProvider(configPath: string, flags: ServeProviderFlags = {}): Promise<void> {
  const config = readProviderConfig(configPath);
  if (flags.host !== undefined) config.host = flags.host;
  if (flags.port !== undefined) config.port = flags.port;
  const logger = pino({ level: config.logLevel, base: { service: 'wagerlink-provider' } });
  const store = ProviderStore.open(config.database, (error) => {
    // The WAL could not be synced: die without answering (see wal-flusher.ts); pending rounds are resent after the restart.
    logger.fatal({ err: error }, 'storage stopped; exiting');
    process.exit(70);
  });
  let app: FastifyInstance;
  let address: string;
  try {
    app = await buildProviderApp({ config, store, logger });
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    store.close();
    throw error;
  }
  logger.info(
    { address, database: config.database, publicBaseUrl: config.publicBaseUrl, operators: config.operators.length, games: config.games.length },
    `wagerlink provider ready on ${address}`,
  );

  stopOnSignals(logger, app, () => store.close());
}
