/**
 * The environment variables the operator's commands read, with what each
 * does: the names operator-config.ts and provider-link.ts read, and the
 * words the CLI's help prints. Data alone, so that the help loads no
 * schema library.
 */
import { CRYPTO_DECIMALS_MAX } from '../protocol/money.js';
import { REQUEST_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS } from '../http/limits.js';
import { DEFAULT_POSTGRES_SETTINGS } from '../platform/postgres/settings.js';

export const CONFIG_VARIABLES = {
  WAGERLINK_HOST: 'address to listen on (default 127.0.0.1)',
  WAGERLINK_PORT: 'port to listen on (default 8080)',
  WAGERLINK_DATABASE: 'SQLite file path, or a postgres:// URL (default ./data/operator.db)',
  WAGERLINK_WORKERS: 'serve: processes sharing the port, a number or "auto" for one per core; more than 1 needs PostgreSQL (default 1)',
  WAGERLINK_PG_POOL_SIZE: `PostgreSQL connections per process (default ${DEFAULT_POSTGRES_SETTINGS.poolSize})`,
  WAGERLINK_PG_STATEMENT_TIMEOUT_MS: `PostgreSQL statement time-out in ms; past it a request answers 503 (default ${DEFAULT_POSTGRES_SETTINGS.statementTimeoutMs})`,
  WAGERLINK_PG_IDLE_TIMEOUT_S: `PostgreSQL idle connections close after this many seconds (default ${DEFAULT_POSTGRES_SETTINGS.idleTimeoutS})`,
  WAGERLINK_PG_CONNECT_TIMEOUT_S: `PostgreSQL connection attempt time-out in seconds (default ${DEFAULT_POSTGRES_SETTINGS.connectTimeoutS})`,
  WAGERLINK_SECRET: 'HMAC secret shared with the provider: the `default` integration (it, or WAGERLINK_INTEGRATION_KEYS, is required to serve)',
  WAGERLINK_SECRET_NEXT: 'the next HMAC secret, also accepted during a rotation',
  WAGERLINK_ACCESS_TOKENS: 'comma-separated bearer tokens accepted from the provider: the `default` integration (required with WAGERLINK_SECRET)',
  WAGERLINK_INTEGRATION_KEYS:
    "keys that seal stored integrations' secrets, id:key,... (32 bytes, hex or base64), the first sealing; required to add or serve stored integrations",
  WAGERLINK_ADMIN_TOKEN:
    'bearer token of the /admin back-office API, a built-in admin account; or sha256:<hex> of it (required to serve); it reads /metrics too',
  WAGERLINK_STAFF_LIMITS: 'staff money limits per call, e.g. payments:EUR=2500,*=5000;admin:*=50000 (default payments:*=5000,BTC=0.1,ETH=2; admin none)',
  WAGERLINK_METRICS_TOKEN: 'bearer token that reads /metrics and nothing else, for a Prometheus scraper (default none)',
  WAGERLINK_LOG_LEVEL: 'pino log level (default info)',
  WAGERLINK_SESSION_IDLE_MINUTES: 'session idle expiry in minutes (default 30)',
  WAGERLINK_LAUNCH_KEY_TTL_MINUTES: 'launch key life until first use in minutes (default 10)',
  WAGERLINK_BODY_LIMIT_BYTES: 'request body limit in bytes (default 262144)',
  WAGERLINK_TRANSACTIONS_MAX: 'transactions per /transaction request (default 100)',
  WAGERLINK_REQUEST_TIMEOUT_MS: `a request's headers and body must arrive within this many ms, else 408; also the keep-alive idle time-out (default ${REQUEST_TIMEOUT_MS})`,
  WAGERLINK_SHUTDOWN_TIMEOUT_MS: `serve: on SIGTERM/SIGINT, ms to finish answering before open connections are closed (default ${SHUTDOWN_TIMEOUT_MS})`,
  WAGERLINK_CRYPTO_DECIMALS: `crypto currencies and decimals (0..${CRYPTO_DECIMALS_MAX}), e.g. BTC=8,USDT=6 (default BTC=8,ETH=8,LTC=8,USDT=6,USDC=6)`,
} as const;

/** The variables of the operator's link to its provider (provider-link.ts reads them). */
export const PROVIDER_LINK_VARIABLES = {
  WAGERLINK_PROVIDER_URL: "the provider endpoint's base URL, for launch-url and game-bets (or --provider)",
  WAGERLINK_OPERATOR_ID: "this operator's id at the provider (or --operator-id)",
  WAGERLINK_WALLET_ID: 'the walletId the provider issued to this operator (or --wallet-id)',
} as const;
