/**
 * Opens the wallet's PostgreSQL connection pool: the shared opening
 * (src/platform/postgres/open-database.ts: bounded, every statement held to
 * a time-out, failing fast when the database is unreachable so that a
 * request answers 503 instead of hanging) under the wallet's name.
 */
import type postgres from 'postgres';
import { openDatabase as openPool } from '../../platform/postgres/open-database.js';
import { DEFAULT_POSTGRES_SETTINGS, type PostgresSettings } from '../settings.js';

export { IDLE_IN_TRANSACTION_TIMEOUT_MS, isPostgresUrl, redactUrl } from '../../platform/postgres/open-database.js';

/** What the database sees as the client: pg_stat_activity shows it, and operators can find a node's connections. */
export const APPLICATION_NAME = 'wagerlink-operator';

export function openDatabase(url: string, settings: PostgresSettings = DEFAULT_POSTGRES_SETTINGS): postgres.Sql {
  return openPool(url, settings, APPLICATION_NAME);
}
