/**
 * Opens a PostgreSQL connection pool (postgres.js) the way the wallet needs
 * it: bounded, with every statement held to a time-out, and failing fast
 * when the database is unreachable so that a request answers 503 instead of
 * hanging. Connections are made lazily and remade after a loss, so a node
 * recovers by itself when the database is back.
 */
import postgres from 'postgres';

export interface PostgresSettings {
  /**
   * Connections per process; the group committer keeps at most this many
   * batches in flight. Default 4: on 2 cores, two batches per core keep both
   * busy while others wait for their commit's WAL flush, and fewer, larger
   * batches share more of the per-statement work (8 measured slower here).
   * Every node and every worker has its own pool: keep their sum under the
   * server's max_connections.
   */
  poolSize: number;
  /**
   * A statement (including its wait for a player's row lock) that runs longer
   * is cancelled and the request answers 503. Default 2,000 ms: well inside
   * the provider's 5 s wait (PROTOCOL.md §9), so it gets an answer and resends.
   */
  statementTimeoutMs: number;
  /** An idle connection is closed after this long (s). Default 60 s: a quiet node holds no connections. */
  idleTimeoutS: number;
  /**
   * A connection attempt that has not completed in this long fails (s).
   * Default 2 s: with the statement time-out it makes the call deadline
   * (postgres-store.ts), 4 s, so that while the database is unreachable a
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

/**
 * A transaction left open by a stalled process releases its locks after this
 * long (ms). Only the back-office paths open multi-statement transactions.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;

/** What the database sees as the client: pg_stat_activity shows it, and operators can find a node's connections. */
export const APPLICATION_NAME = 'wagerlink-operator';

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/** The URL without its password, for logs and CLI output. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

export function openDatabase(url: string, settings: PostgresSettings = DEFAULT_POSTGRES_SETTINGS): postgres.Sql {
  return postgres(url, {
    max: settings.poolSize,
    idle_timeout: settings.idleTimeoutS,
    connect_timeout: settings.connectTimeoutS,
    // Server notices (e.g. "relation already exists, skipping") are not ours to print.
    onnotice: () => {},
    // postgres.js would read the server's array types on every new
    // connection, in a query of its own that the statement time-out can
    // cancel, and then reject a promise nobody handles. The wallet sends
    // arrays as literals (pgArray) and reads none back, so it needs none.
    fetch_types: false,
    connection: {
      application_name: APPLICATION_NAME,
      statement_timeout: settings.statementTimeoutMs,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
      // Every statement of the wallet reaches its rows through a unique
      // index. Statements are prepared once per connection and soon run with
      // a generic plan; one planned while a table was small (a new database,
      // or before autovacuum's first ANALYZE) would scan that table on every
      // call as it grows. With sequential scans priced out, the planner takes
      // the index whatever its statistics say. `verify`, which must read
      // everything, turns them back on for its transaction.
      enable_seqscan: 'off',
    },
  });
}
