/**
 * Opens a PostgreSQL connection pool (postgres.js) the way the wallet needs
 * it: bounded, with every statement held to a time-out, and failing fast
 * when the database is unreachable so that a request answers 503 instead of
 * hanging. Connections are made lazily and remade after a loss, so a node
 * recovers by itself when the database is back.
 */
import postgres from 'postgres';
import { DEFAULT_POSTGRES_SETTINGS, type PostgresSettings } from '../settings.js';

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
