/**
 * Opens a PostgreSQL connection pool (postgres.js) the way every part of
 * Wagerlink on PostgreSQL needs it: bounded, with every statement held to a
 * time-out, and failing fast when the database is unreachable so that a
 * caller answers 503 instead of hanging. Connections are made lazily and
 * remade after a loss, so a node recovers by itself when the database is
 * back. The wallet's store (src/stores/postgres), the provider's store
 * (src/provider/store/postgres) and the outbox open their pools here, each
 * with its own application name and settings as data.
 */
import postgres from 'postgres';
import { schemaNameProblem, withUrlParameter, type PostgresSettings } from './settings.js';

/**
 * A transaction left open by a stalled process releases its locks after this
 * long (ms). Every transaction here is a few statements with no wait on
 * anything but the database in between.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;

/**
 * The URL with its search_path set to `schema` alone, so that every
 * connection of a pool opened on it reads and writes that schema's tables,
 * and unqualified names (`rounds`, `schema_migrations`) never meet another
 * schema's of the same name.
 */
export function urlInSchema(url: string, schema: string): string {
  const problem = schemaNameProblem(schema);
  if (problem) throw new Error(`schema: ${problem}`);
  return withUrlParameter(url, 'search_path', schema);
}

/** SQLSTATEs of a CREATE SCHEMA IF NOT EXISTS that lost a race to another node's: the schema exists, which is what was asked. */
const SCHEMA_RACE_CODES = new Set(['23505', '42P06']);

/**
 * Creates `schema` unless it exists, on one short-lived connection: nodes that
 * start together may race, and the loser finds it made.
 */
export async function createSchema(url: string, schema: string, settings: PostgresSettings): Promise<void> {
  const problem = schemaNameProblem(schema);
  if (problem) throw new Error(`schema: ${problem}`);
  const sql = openDatabase(url, { ...settings, poolSize: 1 }, 'wagerlink-schema');
  try {
    await sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    if (!SCHEMA_RACE_CODES.has((error as { code?: string }).code ?? '')) throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** `applicationName`: what pg_stat_activity shows as the client, so that operators can find a node's connections. */
export function openDatabase(url: string, settings: PostgresSettings, applicationName: string): postgres.Sql {
  return postgres(url, {
    max: settings.poolSize,
    idle_timeout: settings.idleTimeoutS,
    connect_timeout: settings.connectTimeoutS,
    // Server notices (e.g. "relation already exists, skipping") are not ours to print.
    onnotice: () => {},
    // postgres.js would read the server's array types on every new
    // connection, in a query of its own that the statement time-out can
    // cancel, and then reject a promise nobody handles. Arrays are sent as
    // literals or IN lists, and none is read back, so none is needed.
    fetch_types: false,
    connection: {
      application_name: applicationName,
      statement_timeout: settings.statementTimeoutMs,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
      // Every statement reaches its rows through an index. Statements are
      // prepared once per connection and soon run with a generic plan; one
      // planned while a table was small (a new database, or before
      // autovacuum's first ANALYZE) would scan that table on every call as
      // it grows. With sequential scans priced out, the planner takes the
      // index whatever its statistics say. The wallet's `verify`, which must
      // read everything, turns them back on for its transaction.
      enable_seqscan: 'off',
    },
  });
}
