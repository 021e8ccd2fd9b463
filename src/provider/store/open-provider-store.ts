/**
 * Picks the provider store's backend from the config's `database`, as the
 * wallet's does (src/stores/open-store.ts): a postgres:// (or
 * postgresql://) URL is PostgreSQL, shared by any number of provider nodes;
 * anything else is a SQLite file, one process's.
 */
import { DEFAULT_POSTGRES_SETTINGS, isPostgresUrl, type PostgresSettings } from '../../platform/postgres/settings.js';
import type { Currencies } from '../../protocol/money.js';
import { PostgresProviderStore } from './postgres/provider-store.js';
import type { ProviderStore, SeedSealing } from './provider-store.js';
import { SqliteProviderStore, type OnFatal } from './sqlite/provider-store.js';

export interface OpenProviderStoreOptions {
  currencies: Currencies;
  /**
   * Seals what a database upgraded from plain seeds still lacks (ProviderStore.sealPlainSeeds), before anything is played.
   * Absent for a command that plays nothing and only reads (`provider verify`): nothing is sealed.
   */
  seeds?: SeedSealing;
  /** SQLite: called if the WAL cannot be synced (sqlite/provider-store.ts). PostgreSQL reports a failed commit on the write itself. */
  onFatal?: OnFatal;
  /** PostgreSQL: the pool and its time-outs (default DEFAULT_POSTGRES_SETTINGS). */
  postgres?: PostgresSettings;
  /** PostgreSQL: the schema of the provider's tables, made if missing (postgres/provider-store.ts); default the URL's search_path. */
  schema?: string | undefined;
}

export function providerBackendOf(database: string): 'sqlite' | 'postgres' {
  return isPostgresUrl(database) ? 'postgres' : 'sqlite';
}

/** Opens the store, migrated, with every seed not yet revealed sealed (docs/games.md, Server seeds at rest). */
export async function openProviderStore(database: string, options: OpenProviderStoreOptions): Promise<ProviderStore> {
  const store =
    providerBackendOf(database) === 'postgres'
      ? await PostgresProviderStore.open({
          url: database,
          schema: options.schema,
          settings: options.postgres ?? DEFAULT_POSTGRES_SETTINGS,
          currencies: options.currencies,
        })
      : SqliteProviderStore.open(database, { currencies: options.currencies, ...(options.onFatal ? { onFatal: options.onFatal } : {}) });
  try {
    if (options.seeds) await store.sealPlainSeeds(options.seeds);
    await store.durable();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
