/**
 * The operator's HTTP server (docs/protocol.md §1–§7, §11).
 * `buildOperatorApp` returns the app without listening: tests call
 * `app.inject()`, `serve` listens. Building starts no work: no timer, and
 * no sampling of the process (serve-operator.ts hands in metrics that
 * sample it).
 *
 * The routes are Fastify plugins by audience, each a file of routes/: the
 * signed interface the provider calls (routes/signed.ts, with the order of
 * its checks) and the back office under /admin (routes/admin.ts); the
 * sandbox adds the lobby's (lobby-routes.ts). What applies to every route
 * is set on the app itself and inherited by each plugin, which is
 * encapsulated (no skip-override): the JSON parser that keeps the raw body
 * for the signature, problem+json for every failure, the request log and
 * the metrics (src/http). What a plugin adds (the staff guard's hooks, the
 * check of :playerId) applies to its own routes only.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { createJsonApi, sendJson } from '../http/json-api.js';
import { serveHomePage, type HomeSection } from '../http/home-page.js';
import { BODY_BYTES_MAX, STORAGE_RETRY_AFTER_S } from '../http/limits.js';
import { TRANSACTIONS_PER_REQUEST_MAX } from '../protocol/schemas.js';
import type { WalletStore } from '../stores/operations.js';
import { operatorOpenApi } from './operator-openapi.js';
import { OperatorMetrics } from './metrics.js';
import { exposeMetrics } from '../http/request-metrics.js';
import { OperatorService, REAL_WORLD, type World } from './operator-service.js';
import type { StaffGuard } from '../http/staff-guard.js';
import { DEFAULT_STAFF_LIMITS, type StaffLimits } from '../access/limits.js';
import { adminRoutes } from './routes/admin.js';
import { signedRoutes } from './routes/signed.js';
import { IntegrationRegistry } from './integration-registry.js';

export interface OperatorAppOptions {
  store: WalletStore;
  /**
   * The integrations that may call, as `serve` builds and loads them
   * (integration-registry.ts). Without it, the app serves the one
   * integration of `secrets` and `accessTokens`, and no stored one.
   */
  integrations?: IntegrationRegistry;
  /** The environment integration's HMAC secrets: the current one, and the next one during a rotation. */
  secrets?: readonly string[];
  /** The environment integration's bearer tokens. */
  accessTokens?: readonly string[];
  /**
   * Bearer token of the back-office API: a built-in admin account, named
   * `admin-token` in the audit log; it reads /metrics too. Given as `sha256:<hex>`, it is checked
   * by its hash and the configuration holds no usable credential.
   */
  adminToken: string;
  /** Money limits of the staff roles, per call and currency; default DEFAULT_STAFF_LIMITS (access/limits.ts). */
  staffLimits?: StaffLimits;
  /** Hands over the back office's guard once built: its route table, for tests that walk every route. */
  onGuard?: (guard: StaffGuard) => void;
  /** Bearer token that reads /metrics and nothing else: a scraper's. Default none (the admin token reads it). */
  metricsToken?: string | undefined;
  bodyBytesMax?: number;
  transactionsPerRequestMax?: number;
  /** A request's headers and body must arrive within this (ms); default REQUEST_TIMEOUT_MS (docs/protocol.md §9). */
  requestTimeoutMs?: number;
  world?: World;
  logger?: FastifyBaseLogger | boolean;
  /**
   * Default: the app's own series, without the process metrics, whose
   * collection starts an event-loop monitor that nothing stops; the server
   * passes metrics with them.
   */
  metrics?: OperatorMetrics;
  /** The authorities (host:port) it answers for, others refused (json-api.ts); default any: the sandbox sets its own. */
  allowedHosts?: readonly string[];
  /** Sections the page at `/` shows before its own: the sandbox's lobby and back office, which a bare server does not serve. */
  homeSections?: readonly HomeSection[];
}

export async function buildOperatorApp(options: OperatorAppOptions): Promise<FastifyInstance> {
  const bodyBytesMax = options.bodyBytesMax ?? BODY_BYTES_MAX;
  const transactionsPerRequestMax = options.transactionsPerRequestMax ?? TRANSACTIONS_PER_REQUEST_MAX;
  const staffLimits = options.staffLimits ?? DEFAULT_STAFF_LIMITS;
  const onGuard = options.onGuard;
  const service = new OperatorService(options.store, options.world ?? REAL_WORLD);
  const metrics = options.metrics ?? new OperatorMetrics({ processMetrics: false });
  const integrations = options.integrations ?? environmentOnly(options);
  if (options.adminToken.length === 0) throw new Error('an admin token is required');

  // A 503 of storage says when to come back (docs/protocol.md §3.3), as the provider's does: a provider honours
  // it on top of its own back-off, and a fail-over of the database (docs/scaling.md) is over within seconds.
  const app = createJsonApi({
    bodyBytesMax,
    requestTimeoutMs: options.requestTimeoutMs,
    logger: options.logger,
    allowedHosts: options.allowedHosts,
    storageRetryAfterS: STORAGE_RETRY_AFTER_S,
  });

  // Wiring, not work: the store calls it as it commits, and nothing runs meanwhile.
  options.store.onCommit?.((seconds) => metrics.observeCommit(seconds));

  exposeMetrics(app, metrics.requests, metrics.registry, [options.metricsToken ?? '', options.adminToken]);

  await app.register(signedRoutes, { service, metrics, integrations, transactionsPerRequestMax });

  // ----------------------------------------------------------- operations

  // 503 SERVICE_UNAVAILABLE, naming why, while the database cannot be reached or refuses writes
  // (store.ping: an UnavailableError, mapped in json-api.ts), so a load balancer sends bets elsewhere.
  app.get('/health', async (_request, reply) => {
    await service.store.ping();
    return sendJson(reply, 200, '{"status":"ok","database":"ok"}');
  });

  const openApiText = JSON.stringify(operatorOpenApi(), null, 2);
  app.get('/openapi.json', async (_request, reply) => sendJson(reply, 200, openApiText));
  serveHomePage(app, 'Wagerlink operator wallet', [
    ...(options.homeSections ?? []),
    {
      heading: 'This server',
      text: 'The wallet a game provider calls: POST /authenticate, /transaction and /payout, signed (docs/protocol.md). The back office is under /admin, with its bearer token; Prometheus metrics at /metrics, with the metrics or admin token.',
      links: [
        { href: '/openapi.json', text: 'OpenAPI document of every endpoint' },
        { href: '/health', text: 'Health: the server and its database' },
      ],
    },
  ]);

  // ---------------------------------------------------------- back office

  await app.register(adminRoutes, { prefix: '/admin', service, metrics, adminToken: options.adminToken, staffLimits, integrations, onGuard });

  return app;
}

/** The registry of an app given only the environment's integration: built from it, reading nothing. */
function environmentOnly(options: OperatorAppOptions): IntegrationRegistry {
  const secrets = options.secrets ?? [];
  const accessTokens = options.accessTokens ?? [];
  if (secrets.length === 0 || secrets.some((s) => s.length === 0)) throw new Error('an HMAC secret is required');
  if (accessTokens.length === 0) throw new Error('at least one access token is required');
  return new IntegrationRegistry({ store: options.store, environment: { secrets, accessTokens } });
}
