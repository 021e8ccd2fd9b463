/**
 * The operator's configuration: environment variables, which command-line
 * flags may override. Every `wagerlink operator ...` command reads it the
 * same way; only `serve` needs the secrets and tokens.
 */
import { availableParallelism } from 'node:os';
import { CONFIG_VARIABLES } from './config-variables.js';
import { cryptoDecimalsProblem, DEFAULT_CRYPTO_DECIMALS } from '../protocol/money.js';
import { TRANSACTIONS_PER_REQUEST_MAX } from '../protocol/schemas.js';
import { DEFAULT_RULES, type RulesConfig } from '../ledger/rules.js';
import { positiveWholeNumber, readPostgresSettings, type PostgresSettings } from '../platform/postgres/settings.js';
import { DEFAULT_STAFF_LIMITS, parseStaffLimits, type StaffLimits } from '../access/limits.js';
import { isRole } from '../access/roles.js';
import { BODY_BYTES_MAX, REQUEST_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS } from '../http/limits.js';

export interface OperatorConfig {
  host: string;
  port: number;
  /** A SQLite file path (a postgres:// URL selects PostgreSQL). */
  database: string;
  /** Pool and time-outs, when the database is PostgreSQL. */
  postgres: PostgresSettings;
  /** Processes that `serve` runs (node:cluster), sharing the port. */
  workers: number;
  secret: string | undefined;
  secretNext: string | undefined;
  accessTokens: string[];
  /** WAGERLINK_INTEGRATION_KEYS as given: `id:key,...`, the keys stored integrations' secrets are sealed under (read by `serve`). */
  integrationKeys: string | undefined;
  adminToken: string | undefined;
  /** Reads /metrics and nothing else (a scraper's); the admin token reads it too. */
  metricsToken: string | undefined;
  logLevel: string;
  rules: RulesConfig;
  bodyBytesMax: number;
  transactionsPerRequestMax: number;
  /** A request's headers and body must arrive within this (ms), else 408 (docs/protocol.md §9). */
  requestTimeoutMs: number;
  /** A graceful stop closes the connections still open after this (ms) (docs/protocol.md §9). */
  shutdownTimeoutMs: number;
  cryptoDecimals: Record<string, number>;
  /** Money limits of the staff roles per call (access/limits.ts). */
  staffLimits: StaffLimits;
  /** Settings that were given but mean nothing any more, each with what replaced it: `serve` logs each as a warning. */
  warnings: string[];
}

/** Variables earlier versions read and this one does not, and why: one left set is named at start, not silently dropped. */
export const RETIRED_VARIABLES: Readonly<Record<string, string>> = {
  WAGERLINK_SQLITE_WRITER: 'the SQLite batch writer always runs on a thread of its own (docs/decisions/0001-sqlite-writer-placement.md)',
  WAGERLINK_SQLITE_DURABILITY: 'SQLite commits are always made durable by synchronous=FULL (docs/decisions/0002-sqlite-commit-durability.md)',
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** The variable of each PostgreSQL setting (settings.ts checks them, as it does the provider config's). */
const POSTGRES_VARIABLES: Record<keyof PostgresSettings, keyof typeof CONFIG_VARIABLES> = {
  poolSize: 'WAGERLINK_PG_POOL_SIZE',
  statementTimeoutMs: 'WAGERLINK_PG_STATEMENT_TIMEOUT_MS',
  idleTimeoutS: 'WAGERLINK_PG_IDLE_TIMEOUT_S',
  connectTimeoutS: 'WAGERLINK_PG_CONNECT_TIMEOUT_S',
};

/**
 * `serve` runs at most this many processes: one per core is the useful
 * number, and a typo such as 1000 should not fork a thousand processes.
 */
export const WORKERS_MAX = 256;

/**
 * The HTTP time-outs above this are refused (ms). Node's timers hold at most
 * 2^31 - 1 ms and fire at once beyond it, which would turn a long time-out
 * into none; ten minutes is far past any useful wait for a request's bytes
 * or a graceful stop.
 */
export const HTTP_TIMEOUT_MS_MAX = 600_000;

function positiveInteger(env: Env, name: keyof typeof CONFIG_VARIABLES, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = positiveWholeNumber(text, name, (message) => new ConfigError(message));
  if (value > max) throw new ConfigError(`${name} must be at most ${max}, got "${text}"`);
  return value;
}

/** WAGERLINK_WORKERS or --workers: a count, or "auto" for one process per core. */
export function parseWorkers(text: string | undefined, name: string, cores: number): number {
  if (text === undefined || text === '') return 1;
  if (text === 'auto') return Math.min(cores, WORKERS_MAX);
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > WORKERS_MAX) {
    throw new ConfigError(`${name} must be "auto" or a whole number 1..${WORKERS_MAX}, got "${text}"`);
  }
  return Number(text);
}

function cryptoDecimals(text: string | undefined): Record<string, number> {
  if (text === undefined || text.trim() === '') return { ...DEFAULT_CRYPTO_DECIMALS };
  const table: Record<string, number> = {};
  for (const part of text.split(',')) {
    const match = /^\s*([A-Z0-9]{2,10})=(\d{1,2})\s*$/.exec(part);
    if (!match) throw new ConfigError(`WAGERLINK_CRYPTO_DECIMALS: "${part}" is not CODE=DECIMALS`);
    const [code, decimals] = [match[1]!, Number(match[2])];
    // The rule is the one the stores apply (money.ts); checked here so that start-up stops with this message.
    const problem = cryptoDecimalsProblem(code, decimals);
    if (problem !== undefined) throw new ConfigError(`WAGERLINK_CRYPTO_DECIMALS: ${problem}`);
    table[code] = decimals;
  }
  return table;
}

function staffLimitsFrom(text: string | undefined): StaffLimits {
  if (text === undefined || text.trim() === '') return DEFAULT_STAFF_LIMITS;
  try {
    return parseStaffLimits(text, isRole);
  } catch (error) {
    throw new ConfigError(`WAGERLINK_STAFF_LIMITS: ${(error as Error).message}`);
  }
}

export function readOperatorConfig(
  env: Env = process.env,
  flags: Partial<Pick<OperatorConfig, 'host' | 'port' | 'database' | 'workers'>> = {},
  cores = availableParallelism(),
): OperatorConfig {
  const port = flags.port ?? positiveInteger(env, 'WAGERLINK_PORT', 8080);
  if (port > 65_535) throw new ConfigError(`WAGERLINK_PORT must be at most 65535, got ${port}`);
  const tokens = (env.WAGERLINK_ACCESS_TOKENS ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
  return {
    host: flags.host ?? (env.WAGERLINK_HOST || '127.0.0.1'),
    port,
    database: flags.database ?? (env.WAGERLINK_DATABASE || './data/operator.db'),
    postgres: readPostgresSettings({
      value: (key) => env[POSTGRES_VARIABLES[key]],
      name: (key) => POSTGRES_VARIABLES[key],
      error: (message) => new ConfigError(message),
    }),
    workers: flags.workers ?? parseWorkers(env.WAGERLINK_WORKERS, 'WAGERLINK_WORKERS', cores),
    secret: env.WAGERLINK_SECRET || undefined,
    secretNext: env.WAGERLINK_SECRET_NEXT || undefined,
    accessTokens: tokens,
    integrationKeys: env.WAGERLINK_INTEGRATION_KEYS || undefined,
    adminToken: env.WAGERLINK_ADMIN_TOKEN || undefined,
    metricsToken: env.WAGERLINK_METRICS_TOKEN || undefined,
    logLevel: env.WAGERLINK_LOG_LEVEL || 'info',
    rules: {
      sessionIdleMs: positiveInteger(env, 'WAGERLINK_SESSION_IDLE_MINUTES', DEFAULT_RULES.sessionIdleMs / 60_000) * 60_000,
      launchKeyTtlMs: positiveInteger(env, 'WAGERLINK_LAUNCH_KEY_TTL_MINUTES', DEFAULT_RULES.launchKeyTtlMs / 60_000) * 60_000,
    },
    bodyBytesMax: positiveInteger(env, 'WAGERLINK_BODY_LIMIT_BYTES', BODY_BYTES_MAX),
    transactionsPerRequestMax: positiveInteger(env, 'WAGERLINK_TRANSACTIONS_MAX', TRANSACTIONS_PER_REQUEST_MAX),
    requestTimeoutMs: positiveInteger(env, 'WAGERLINK_REQUEST_TIMEOUT_MS', REQUEST_TIMEOUT_MS, HTTP_TIMEOUT_MS_MAX),
    shutdownTimeoutMs: positiveInteger(env, 'WAGERLINK_SHUTDOWN_TIMEOUT_MS', SHUTDOWN_TIMEOUT_MS, HTTP_TIMEOUT_MS_MAX),
    cryptoDecimals: cryptoDecimals(env.WAGERLINK_CRYPTO_DECIMALS),
    staffLimits: staffLimitsFrom(env.WAGERLINK_STAFF_LIMITS),
    warnings: Object.entries(RETIRED_VARIABLES)
      .filter(([name]) => env[name] !== undefined && env[name] !== '')
      .map(([name, why]) => `${name} is no longer read: ${why}`),
  };
}

/** What `serve` needs beyond the database. */
export interface ServeCredentials {
  /** The `default` integration of WAGERLINK_SECRET(_NEXT) and WAGERLINK_ACCESS_TOKENS, when they are set. */
  environment: { secrets: string[]; accessTokens: string[] } | undefined;
  /** WAGERLINK_INTEGRATION_KEYS, as given. */
  integrationKeys: string | undefined;
  adminToken: string;
}

/**
 * What `serve` needs beyond the database: the admin token, and at least one
 * way for an integration to call: the environment's (a secret and its
 * tokens, both) or WAGERLINK_INTEGRATION_KEYS for stored ones. The message
 * names every missing variable.
 */
export function requireServeSecrets(config: OperatorConfig): ServeCredentials {
  const missing: string[] = [];
  const halfEnvironment = (config.secret !== undefined) !== config.accessTokens.length > 0;
  if (halfEnvironment) missing.push(config.secret ? 'WAGERLINK_ACCESS_TOKENS' : 'WAGERLINK_SECRET');
  else if (!config.secret && !config.integrationKeys) missing.push('WAGERLINK_SECRET and WAGERLINK_ACCESS_TOKENS (or WAGERLINK_INTEGRATION_KEYS)');
  if (!config.adminToken) missing.push('WAGERLINK_ADMIN_TOKEN');
  if (missing.length > 0) {
    throw new ConfigError(
      `cannot serve without ${missing.join(', ')}. Set ${missing.length > 1 ? 'them' : 'it'} in the environment ` +
        '(see examples/operator.env for a local set-up).',
    );
  }
  const environment = config.secret
    ? { secrets: [config.secret, ...(config.secretNext ? [config.secretNext] : [])], accessTokens: config.accessTokens }
    : undefined;
  return { environment, integrationKeys: config.integrationKeys, adminToken: config.adminToken! };
}
