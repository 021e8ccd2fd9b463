/**
 * PostgreSQL as a config names it, with no driver loaded: what a database
 * URL and a schema name must look like, the pool and its time-outs with
 * their defaults, and the one reading of those settings that the
 * operator's and the provider's configs share. Configs of either side
 * import this module, so that reading a config connects to nothing and
 * neither side's config reaches into the other's store; open-database.ts
 * opens a pool with these settings.
 */

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/**
 * A schema that Wagerlink creates and names in search_path: lower-case
 * letters, digits and _ (what PostgreSQL keeps of an unquoted name), so that
 * the name means the same quoted or not and needs no escaping in a URL.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL without its password, for logs and CLI output; a multi-host URL (`db1:5432,db2:5432`) too. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/**
 * The URL split at its query, which is read as URLSearchParams. Not `new
 * URL(url)`: it refuses the multi-host form (`postgres://db1:5432,db2:5432/
 * wallet?target_session_attrs=read-write`) that postgres.js and libpq take,
 * and that a client of a failover formation is given.
 */
function splitQuery(url: string): { base: string; query: URLSearchParams } {
  const at = url.indexOf('?');
  return at === -1 ? { base: url, query: new URLSearchParams() } : { base: url.slice(0, at), query: new URLSearchParams(url.slice(at + 1)) };
}

/** A query parameter of a postgres:// URL, single- or multi-host; null when it has none. */
export function urlParameter(url: string, name: string): string | null {
  return splitQuery(url).query.get(name);
}

/** The postgres:// URL, single- or multi-host, with the query parameter `name` set to `value`. */
export function withUrlParameter(url: string, name: string, value: string): string {
  const { base, query } = splitQuery(url);
  query.set(name, value);
  return `${base}?${query.toString()}`;
}

/** Why `schema` cannot name a schema of ours, or undefined when it can. */
export function schemaNameProblem(schema: string): string | undefined {
  return SCHEMA_NAME.test(schema) ? undefined : `"${schema}" must be 1 to 63 lower-case letters, digits or _, not starting with a digit`;
}

/** The pool and its time-outs, for every pool of ours (open-database.ts opens it with them). */
export interface PostgresSettings {
  /**
   * Connections per process; the wallet's hot batcher keeps at most this
   * many batches in flight. Default 4: on 2 cores, two batches per core keep
   * both busy while others wait for their commit's WAL flush, and fewer,
   * larger batches share more of the per-statement work (8 measured slower
   * here). Every node and every worker has its own pool: keep their sum
   * under the server's max_connections.
   */
  poolSize: number;
  /**
   * A statement (including its wait for a player's row lock) that runs longer
   * is cancelled and the request answers 503. Default 2,000 ms: well inside
   * the provider's 5 s wait (docs/protocol.md §9), so it gets an answer and resends.
   */
  statementTimeoutMs: number;
  /** An idle connection is closed after this long (s). Default 60 s: a quiet node holds no connections. */
  idleTimeoutS: number;
  /**
   * A connection attempt that has not completed in this long fails (s).
   * Default 2 s: with the statement time-out it makes the call deadline
   * (callTimeoutMs), 4 s, so that while the database is unreachable a
   * request answers 503 inside the provider's 5 s wait.
   */
  connectTimeoutS: number;
}

export const DEFAULT_POSTGRES_SETTINGS: PostgresSettings = {
  poolSize: 4, // connections
  statementTimeoutMs: 2_000, // ms
  idleTimeoutS: 60, // s
  connectTimeoutS: 2, // s
};

/** Where a config reads each PostgreSQL setting from, and the error it throws: the operator's environment, the provider's JSON file. */
export interface PostgresSettingsSource {
  /** The value as written: text from an environment variable, a number from a JSON file; undefined or '' when not set. */
  value: (key: keyof PostgresSettings) => string | number | undefined;
  /** How the config names the setting in its message, e.g. WAGERLINK_PG_POOL_SIZE or postgres.poolSize. */
  name: (key: keyof PostgresSettings) => string;
  /** The config's own error, so that start-up stops with the config's message. */
  error: (message: string) => Error;
}

/** A config's value as written, which must be a positive whole number (a safe integer); else the config's error, naming it. */
export function positiveWholeNumber(text: string, name: string, error: (message: string) => Error): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw error(`${name} must be a positive whole number, got "${text}"`);
  }
  return Number(text);
}

/**
 * The PostgreSQL settings of a config, each a positive whole number or its
 * default: the one check that both the operator's and the provider's
 * configs apply, so that the two read the same setting the same way.
 */
export function readPostgresSettings(source: PostgresSettingsSource): PostgresSettings {
  const read = (key: keyof PostgresSettings): number => {
    const value = source.value(key);
    if (value === undefined || value === '') return DEFAULT_POSTGRES_SETTINGS[key];
    return positiveWholeNumber(String(value), source.name(key), source.error);
  };
  return {
    poolSize: read('poolSize'),
    statementTimeoutMs: read('statementTimeoutMs'),
    idleTimeoutS: read('idleTimeoutS'),
    connectTimeoutS: read('connectTimeoutS'),
  };
}

/**
 * A call that has no answer by then answers 503 (ms): one statement time-out
 * plus one connection attempt. With the defaults, 4 s: inside the provider's
 * 5 s wait for the operator, and well inside a player's wait on a game page.
 * It also bounds the wait when a connection is accepted and then never
 * answered (a proxy in front of a database that is down, a stuck server).
 */
export function callTimeoutMs(settings: PostgresSettings): number {
  return settings.statementTimeoutMs + settings.connectTimeoutS * 1_000;
}
