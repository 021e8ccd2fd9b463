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
   * Connections per process. Default 8: on a 2-core database, enough
   * statements in flight to keep both cores busy while others wait for their
   * commit's WAL flush, and few enough that they do not queue on each other.
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
   * Default 3 s: while the database is unreachable requests answer 503 within
   * the provider's wait instead of hanging on connect.
   */
  connectTimeoutS: number;
}

export const DEFAULT_POSTGRES_SETTINGS: PostgresSettings = {
  poolSize: 8, // connections
  statementTimeoutMs: 2_000, // ms
  idleTimeoutS: 60, // s
  connectTimeoutS: 3, // s
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
    connection: {
      application_name: APPLICATION_NAME,
      statement_timeout: settings.statementTimeoutMs,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
  });
}
