/**
 * The provider's HTTP server (docs/protocol.md §8.1, §8.2, §2), the
 * game page and its JSON API, and a small back office for free-bet
 * campaigns. `buildProviderApp` returns the app without listening: tests
 * call `app.inject()`, `serve` listens. Building has no side effects: it
 * writes nothing to the store and starts no timer. The server
 * (serve-provider.ts) writes the config's campaigns (config-campaigns.ts)
 * and runs the outbox (outbox.ts).
 *
 * The routes are Fastify plugins by audience, each a file of routes/: the
 * signed interface operators call (routes/signed.ts, with the order of its
 * checks), what a player's browser calls (routes/game.ts), and the back
 * office under /admin (routes/admin.ts). What applies to every route is
 * set on the app itself and inherited by each plugin, which is
 * encapsulated (no skip-override): the JSON parser that keeps the raw body
 * for the signature, problem+json for every failure, the request log and
 * the metrics (src/http). What a plugin adds (the staff guard's hooks, the
 * call limits) applies to its own routes only.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { createJsonApi } from '../http/json-api.js';
import { STORAGE_RETRY_AFTER_S } from '../http/limits.js';
import type { StaffGuard } from '../http/staff-guard.js';
import { exposeMetrics } from '../http/request-metrics.js';
import { serveHomePage } from '../http/home-page.js';
import { REAL_PROVIDER_WORLD, type GameService, type ProviderWorld, type RoundDelivery } from './game-service.js';
import type { ProviderConfig } from './provider-config.js';
import type { ProviderStore } from './store/provider-store.js';
import { providerHomeSections } from './provider-home.js';
import { ProviderMetrics } from './metrics.js';
import { providerOpenApi } from './provider-openapi.js';
import { adminRoutes } from './routes/admin.js';
import { gameRoutes } from './routes/game.js';
import { sendJson } from './routes/send-json.js';
import { signedRoutes } from './routes/signed.js';

export { gamePagePolicy } from './routes/game.js';

export interface ProviderAppOptions {
  config: ProviderConfig;
  /** Hands over the back office's guard once built: its route table, for tests that walk every route. */
  onGuard?: (guard: StaffGuard) => void;
  store: ProviderStore;
  /**
   * The use-cases behind the game page (createGameService). The outbox
   * shares it, so that a launch's rounds run one at a time whoever plays
   * them; whoever created it closes it, after the app.
   */
  games: GameService;
  /** The clock of campaigns created through the back office; default REAL_PROVIDER_WORLD. */
  world?: ProviderWorld;
  logger?: FastifyBaseLogger | boolean;
  /** Where the game page's files are; by default the project's web/ folder. */
  webDir?: string;
  /**
   * Served at /metrics. Default: the app's own series (its requests, the
   * outbox's backlog), without the process metrics, whose sampling would
   * outlive the app; the server passes metrics with them, which its round
   * delivery also counts attempts in.
   */
  metrics?: ProviderMetrics;
  /** The authorities (host:port) it answers for, others refused (json-api.ts); default any: the sandbox sets its own. */
  allowedHosts?: readonly string[];
  /** The outbox's dispatcher, woken once a payout or a retried item is durable (round-delivery.ts). */
  delivery?: RoundDelivery;
}

export async function buildProviderApp(options: ProviderAppOptions): Promise<FastifyInstance> {
  const { config, store, games } = options;
  const world = options.world ?? REAL_PROVIDER_WORLD;
  const app = createJsonApi({
    bodyBytesMax: config.limits.bodyBytesMax,
    requestTimeoutMs: config.limits.requestTimeoutMs,
    logger: options.logger,
    storageRetryAfterS: STORAGE_RETRY_AFTER_S,
    allowedHosts: options.allowedHosts,
  });
  const metrics = options.metrics ?? new ProviderMetrics({ outbox: store.outbox, clock: world.clock });

  await app.register(signedRoutes, { config, games });
  await app.register(gameRoutes, { config, games, ...(options.webDir === undefined ? {} : { webDir: options.webDir }) });

  // Operations: health, metrics behind their token, the OpenAPI document, the home page.
  app.get('/health', async (_request, reply) => sendJson(reply, 200, '{"status":"ok"}'));
  exposeMetrics(app, metrics.requests, metrics.registry, [config.metricsToken ?? '', config.adminToken ?? '']);
  const openApiText = JSON.stringify(providerOpenApi(), null, 2);
  app.get('/openapi.json', async (_request, reply) => sendJson(reply, 200, openApiText));
  serveHomePage(app, 'Wagerlink provider', providerHomeSections(config));

  // The back office exists only with an admin token configured.
  const adminToken = config.adminToken;
  if (adminToken !== undefined) {
    await app.register(adminRoutes, {
      prefix: '/admin',
      config: { ...config, adminToken },
      store,
      catalog: games.catalog,
      world,
      ...(options.onGuard === undefined ? {} : { onGuard: options.onGuard }),
      ...(options.delivery === undefined ? {} : { delivery: options.delivery }),
    });
  }
  return app;
}
