/**
 * Picks the backend from the database setting: a postgres:// (or
 * postgresql://) URL is PostgreSQL, anything else is a SQLite file path.
 * What differs between backends beyond the WalletStore contract is declared
 * here as capabilities, so that callers ask what a backend can do instead of
 * which one it is.
 *
 * The engines are imported when a store is opened, not with this module:
 * what only asks which backend a setting names (the CLI's usage errors and
 * help, configs, the sandbox's set-up) loads neither driver nor store.
 */
import type { RulesConfig } from '../ledger/rules.js';
import { DEFAULT_POSTGRES_SETTINGS, isPostgresUrl, redactUrl, type PostgresSettings } from '../platform/postgres/settings.js';
import type { WalletStore } from './operations.js';

export interface OpenStoreOptions {
  rules: RulesConfig;
  cryptoDecimals: Record<string, number>;
  /** PostgreSQL: pool and time-outs (default DEFAULT_POSTGRES_SETTINGS). */
  postgres?: PostgresSettings;
}

export interface BackendCapabilities {
  /**
   * Several processes (cluster workers, nodes on other machines) may write
   * the database at once and scale with it. SQLite allows one writer at a
   * time: a second process would only wait on the first one's lock.
   */
  sharedByProcesses: boolean;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  capabilities: BackendCapabilities;
  /** The database setting as it may be logged or printed (no password). */
  display: string;
}

export function backendOf(database: string): Backend {
  if (isPostgresUrl(database)) return { name: 'postgres', capabilities: { sharedByProcesses: true }, display: redactUrl(database) };
  return { name: 'sqlite', capabilities: { sharedByProcesses: false }, display: database };
}

export type OpenedStore = WalletStore & { onFatal?: (listener: (error: Error) => void) => void };

export async function openStore(database: string, options: OpenStoreOptions): Promise<OpenedStore> {
  if (backendOf(database).name === 'postgres') {
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    return PostgresStore.open({
      url: database,
      rules: options.rules,
      cryptoDecimals: options.cryptoDecimals,
      settings: options.postgres ?? DEFAULT_POSTGRES_SETTINGS,
    });
  }
  const { SqliteStore } = await import('./sqlite/sqlite-store.js');
  return SqliteStore.open({
    path: database,
    rules: options.rules,
    cryptoDecimals: options.cryptoDecimals,
  });
}

/** Applies the pending migrations of either backend without opening a store. Returns the versions applied. */
export async function migrateDatabase(database: string, settings: PostgresSettings = DEFAULT_POSTGRES_SETTINGS): Promise<number[]> {
  if (backendOf(database).name === 'postgres') {
    const [{ openDatabase: openPostgres }, { migrate: migratePostgres }, { WALLET_APPLICATION_NAME }] = await Promise.all([
      import('../platform/postgres/open-database.js'),
      import('./postgres/migrations.js'),
      import('./postgres/postgres-store.js'),
    ]);
    const sql = openPostgres(database, { ...settings, poolSize: 1 }, WALLET_APPLICATION_NAME);
    try {
      return await migratePostgres(sql);
    } finally {
      await sql.end();
    }
  }
  const [{ openDatabase: openSqlite }, { migrate: migrateSqlite }] = await Promise.all([
    import('../platform/sqlite/open-database.js'),
    import('./sqlite/migrations.js'),
  ]);
  const db = openSqlite(database);
  try {
    return migrateSqlite(db);
  } finally {
    db.close();
  }
}
