/**
 * Picks the backend from the database setting: a file path is SQLite.
 */
import type { RulesConfig } from '../ledger/rules.js';
import { SqliteStore, type WriterPlacement } from './sqlite/sqlite-store.js';
import type { WalletStore } from './store.js';

export interface OpenStoreOptions {
  rules: RulesConfig;
  cryptoDecimals: Record<string, number>;
  /** SQLite: where the group committer runs (default 'thread'). */
  sqliteWriter?: WriterPlacement;
}

export class UnsupportedDatabaseError extends Error {
  override name = 'UnsupportedDatabaseError';
}

export async function openStore(database: string, options: OpenStoreOptions): Promise<WalletStore & { onFatal?: (listener: (error: Error) => void) => void }> {
  if (/^postgres(ql)?:\/\//i.test(database)) {
    throw new UnsupportedDatabaseError('WAGERLINK_DATABASE is a PostgreSQL URL, but this build stores to SQLite only: give a file path');
  }
  return SqliteStore.open({
    path: database,
    rules: options.rules,
    cryptoDecimals: options.cryptoDecimals,
    ...(options.sqliteWriter ? { placement: options.sqliteWriter } : {}),
  });
}
