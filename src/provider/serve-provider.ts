/**
 * `wagerlink provider serve --config provider.json`: reads and checks the
 * config, opens the provider's database, writes the config's campaigns,
 * listens, starts the outbox, logs one line when ready, and shuts down
 * gracefully on SIGTERM or SIGINT (in-flight requests finish, new ones get
 * 503, then the outbox stops, the operator clients close and the database
 * closes); past limits.shutdownTimeoutMs, or on a second signal, open
 * connections are closed at once.
 *
 * This is where the provider's work starts: the app it builds has none of
 * its own (provider-app.ts).
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { importConfigCampaigns } from './config-campaigns.js';
import { createGameService, REAL_PROVIDER_WORLD } from './game-service.js';
import { startOutbox } from './outbox.js';
import { buildProviderApp } from './provider-app.js';
import { readProviderConfig } from './provider-config.js';
import { ProviderStore } from './provider-store.js';
import { exitOnStorageFailure, stopOnSignals } from '../http/stop-on-signals.js';

export interface ServeProviderFlags {
  host?: string;
  port?: number;
}

/**
 * The public base URL once `--port` moves the server. Launch URLs are built
 * on publicBaseUrl: one that names the config's own port reaches this
 * server directly, so it moves with it; any other (a proxy, a public name)
 * stays, and the server says so rather than hand out URLs that may lead
 * nowhere.
 */
export function movedPublicBaseUrl(publicBaseUrl: string, configPort: number, port: number): { url: string; warning?: string } {
  if (port === configPort) return { url: publicBaseUrl };
  const url = new URL(publicBaseUrl);
  const named = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (named === configPort) {
    url.port = String(port);
    return { url: url.toString().replace(/\/$/, '') };
  }
  return { url: publicBaseUrl, warning: `--port ${port}: launch URLs still use publicBaseUrl ${publicBaseUrl}; set publicBaseUrl in the config if it should change` };
}

export async function serveProvider(configPath: string, flags: ServeProviderFlags = {}): Promise<void> {
  const config = readProviderConfig(configPath);
  const logger = pino({ level: config.logLevel, base: { service: 'wagerlink-provider' } });
  if (flags.host !== undefined) config.host = flags.host;
  if (flags.port !== undefined) {
    const moved = movedPublicBaseUrl(config.publicBaseUrl, config.port, flags.port);
    if (moved.warning) logger.warn(moved.warning);
    config.publicBaseUrl = moved.url;
    config.port = flags.port;
  }
  // The WAL could not be synced (wal-flusher.ts): nothing more is answered; pending rounds are resent after the restart.
  const store = ProviderStore.open(config.database, exitOnStorageFailure(logger));
  const games = createGameService({ config, store });
  let app: FastifyInstance;
  let address: string;
  try {
    // Before listening: the first request may already be a free round of one of them.
    await importConfigCampaigns(config, store, REAL_PROVIDER_WORLD.clock());
    app = await buildProviderApp({ config, store, games, logger });
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await games.close();
    await store.close();
    throw error;
  }
  const outbox = startOutbox({ games, intervalMs: config.limits.outboxIntervalMs, log: app.log });
  logger.info(
    { address, database: config.database, publicBaseUrl: config.publicBaseUrl, operators: config.operators.length, games: config.games.length },
    `wagerlink provider ready on ${address}`,
  );

  stopOnSignals(
    logger,
    app,
    async () => {
      // The pass in progress ends first: it may be recording an answer the operator gave.
      await outbox.stop();
      await games.close();
      await store.close();
    },
    { shutdownTimeoutMs: config.limits.shutdownTimeoutMs },
  );
}
