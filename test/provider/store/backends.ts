/**
 * The backends the provider store's contract suite runs against, each
 * opened fresh for one test with what the suite needs beside the store: a
 * view of what is committed (another connection, which sees nothing
 * uncommitted) and a way to make one kind of write fail inside the
 * database. `STORES=sqlite` narrows the list (comma-separated
 * names). A backend that cannot run here says why, and its tests are
 * skipped with that reason (the pattern of test/stores/backends.ts); a
 * PostgreSQL backend is one more entry, unavailable without DATABASE_URL.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ProviderStore } from '../../../src/provider/store/provider-store.js';
import { SqliteProviderStore } from '../../../src/provider/store/sqlite-provider-store.js';
import { tempDir } from '../../helpers.js';

/** A table of the provider store whose writes a test can make fail. */
export type BreakableTable = 'rounds' | 'payouts';

export interface OpenedProviderStore {
  store: ProviderStore;
  /**
   * Rows of a query on another connection: only what is committed. The SQL
   * is plain (no parameters, no backend-only syntax); integer columns come
   * back as bigint.
   */
  committed(sql: string): Promise<Record<string, unknown>[]>;
  /** From now on, every `event` on `table` fails with `message`, inside the database; the answer undoes it. */
  breakWrites(table: BreakableTable, event: 'INSERT' | 'UPDATE', message: string): Promise<() => Promise<void>>;
  cleanup(): Promise<void>;
}

export interface ProviderStoreBackend {
  name: string;
  /** Why the backend cannot run here, or undefined when it can. */
  unavailable?: string;
  open(): Promise<OpenedProviderStore>;
}

const ALL: ProviderStoreBackend[] = [
  {
    name: 'sqlite',
    async open() {
      const temp = tempDir('wagerlink-provider-store-');
      const path = join(temp.dir, 'provider.db');
      const store = SqliteProviderStore.open(path);
      const other = new Database(path, { readonly: true });
      const db = (store as unknown as { db: Database.Database }).db;
      return {
        store,
        async committed(sql) {
          return other.prepare(sql).safeIntegers(true).all() as Record<string, unknown>[];
        },
        async breakWrites(table, event, message) {
          const name = `break_${table}_${event.toLowerCase()}`;
          db.exec(`CREATE TEMP TRIGGER ${name} BEFORE ${event} ON ${table} BEGIN SELECT RAISE(ABORT, '${message}'); END`);
          return async () => void db.exec(`DROP TRIGGER ${name}`);
        },
        async cleanup() {
          other.close();
          await store.close();
          temp.cleanup();
        },
      };
    },
  },
];

export const PROVIDER_STORE_BACKENDS: ProviderStoreBackend[] = (() => {
  const wanted = process.env.STORES?.split(',').map((name) => name.trim()).filter(Boolean);
  return wanted ? ALL.filter((backend) => wanted.includes(backend.name)) : ALL;
})();
