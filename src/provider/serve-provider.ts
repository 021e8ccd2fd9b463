/**
 * `wagerlink provider serve --config provider.json`: reads and checks the
 * config, opens the provider's database, listens, logs one line when ready,
 * and shuts down gracefully on SIGTERM or SIGINT (in-flight requests
 * finish, new ones get 503, then the database closes); past
 * limits.shutdownTimeoutMs, or on a second signal, open connections are
 * closed at once.
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildProviderApp } from './provider-app.js';
import { readProviderConfig } from './provider-config.js';
import { ProviderStore } from './provider-store.js';
import { exitOnStorageFailure, stopOnSignals } from '../http/stop-on-signals.js';

export interface ServeProviderFlags {
  host?: string;
  port?: number;
}

export async function serveProvider(configPath: string, flags: ServeProviderFlags = {}): Promise<void> {
  const config = readProviderConfig(configPath);
  if (flags.host !== undefined) config.host = flags.host;
  if (flags.port !== undefined) config.port = flags.port;
  const logger = pino({ level: config.logLevel, base: { service: 'wagerlink-provider' } });
  // The WAL could not be synced (wal-flusher.ts): nothing more is answered; pending rounds are resent after the restart.
  const store = ProviderStore.open(config.database, exitOnStorageFailure(logger));
  let app: FastifyInstance;
  let address: string;
  try {
    app = await buildProviderApp({ config, store, logger });
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await store.close();
    throw error;
  }
  logger.info(
    { address, database: config.database, publicBaseUrl: config.publicBaseUrl, operators: config.operators.length, games: config.games.length },
    `wagerlink provider ready on ${address}`,
  );

  stopOnSignals(logger, app, () => store.close(), { shutdownTimeoutMs: config.limits.shutdownTimeoutMs });
}
