/**
 * The backends the provider store's contract suite runs against, each
 * opened fresh for one test with what the suite needs beside the store: a
 * view of what is committed (another connection, which sees nothing
 * uncommitted) and a way to make one kind of write fail inside the
 * database. `STORES=sqlite` narrows the list (comma-separated
 * names). A backend that cannot run here says why, and its tests are
 * skipped with that reason (the pattern of test/stores/backends.ts):
 * PostgreSQL, on a schema of its own in DATABASE_URL's database, is
 * unavailable without DATABASE_URL.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { DEFAULT_POSTGRES_SETTINGS } from '../../../src/platform/postgres/settings.js';
import { PostgresProviderStore } from '../../../src/provider/store/postgres/provider-store.js';
import type { ProviderStore } from '../../../src/provider/store/provider-store.js';
import { SqliteProviderStore } from '../../../src/provider/store/sqlite/provider-store.js';
import { tempDir } from '../../helpers.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../../stores/postgres-fixtures.js';

/** Small pools: test files run two at a time. The statement time-out is generous: a busy shared host is no failure here. */
export const PROVIDER_TEST_POOL = { ...DEFAULT_POSTGRES_SETTINGS, poolSize: 3, statementTimeoutMs: 10_000, connectTimeoutS: 5 };

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
  /**
   * Runs `sql` (plain statements, no parameters) on another connection that
   * may write, past the store and its checks (SQLite: without foreign keys
   * or CHECK constraints): a test's corruption of what the store wrote.
   * Call it once the store's writes are durable.
   */
  corrupt(sql: string): Promise<void>;
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
        async corrupt(sql) {
          const writer = new Database(path, { timeout: 5_000 });
          try {
            writer.pragma('ignore_check_constraints = ON');
            writer.exec(sql);
          } finally {
            writer.close();
          }
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
  {
    name: 'postgres',
    ...(POSTGRES_UNAVAILABLE ? { unavailable: POSTGRES_UNAVAILABLE } : {}),
    async open() {
      const schema = await freshSchema('provider_store');
      let store: PostgresProviderStore | undefined;
      // Another client: it sees only what is committed. int8 as bigint, and every other integer made one, as SQLite's reader answers.
      const other = postgres(schema.url(), { max: 1, onnotice: () => {}, types: { bigint: postgres.BigInt } });
      try {
        store = await PostgresProviderStore.open({ url: schema.url(), settings: PROVIDER_TEST_POOL });
      } catch (error) {
        await other.end({ timeout: 5 });
        await schema.drop();
        throw error;
      }
      const opened = store;
      return {
        store: opened,
        async committed(sql) {
          const rows = await other.unsafe(sql);
          return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'number' ? BigInt(value) : value])));
        },
        async corrupt(sql) {
          await other.unsafe(sql);
        },
        async breakWrites(table, event, message) {
          const name = `${schema.name}.break_${table}_${event.toLowerCase()}`;
          const trigger = `break_${table}_${event.toLowerCase()}`;
          await schema.admin.unsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$`);
          await schema.admin.unsafe(`CREATE TRIGGER ${trigger} BEFORE ${event} ON ${schema.name}.${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
          return async () => {
            await schema.admin.unsafe(`DROP TRIGGER ${trigger} ON ${schema.name}.${table}`);
            await schema.admin.unsafe(`DROP FUNCTION ${name}()`);
          };
        },
        async cleanup() {
          try {
            await other.end({ timeout: 5 });
            await opened.close();
          } finally {
            await schema.drop();
          }
        },
      };
    },
  },
];

export const PROVIDER_STORE_BACKENDS: ProviderStoreBackend[] = (() => {
  const wanted = process.env.STORES?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return wanted ? ALL.filter((backend) => wanted.includes(backend.name)) : ALL;
})();
