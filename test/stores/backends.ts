/**
 * The backends the store contract suite runs against. `STORES=sqlite`
 * narrows the list (comma-separated names: sqlite, postgres);
 * postgres runs when DATABASE_URL is set and is skipped, with the reason,
 * when it is not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RulesConfig } from '../../src/ledger/rules.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { tempDir } from '../helpers.js';
import { fillPostgresDisk, openPostgresStore, POSTGRES_UNAVAILABLE } from './postgres-fixtures.js';

/** What a backend holds at rest, read around the store: for tests of what must never be stored in clear. */
export interface AtRest {
  /** Every value of every column of every table, read with SQL. */
  everyValue(): Promise<unknown[]>;
  /** The bytes of the files the backend writes (SQLite: the database and its WAL), or none where the files are the database's own. */
  files(): Buffer[];
}

/** The values of `everyValue` that hold `text` in clear, as text or as bytes: a credential found there is kept in clear. */
export function holding(values: readonly unknown[], text: string): unknown[] {
  const bytes = Buffer.from(text, 'utf8');
  return values.filter((value) => (Buffer.isBuffer(value) || value instanceof Uint8Array ? Buffer.from(value).includes(bytes) : String(value).includes(text)));
}

export interface Backend {
  name: string;
  /** Why the backend cannot run here, or undefined when it can. */
  unavailable?: string;
  open(rules?: RulesConfig): Promise<{ store: WalletStore; atRest: AtRest; cleanup: () => Promise<void> }>;
  /**
   * A store on a disk that is full once `prepare` has run on it: writes that
   * need room fail as storage fails, reads still work. SQLite: the file may
   * not grow past the pages it has then (SqliteStoreOptions.databasePagesMax),
   * so writes fail once the room left inside those pages is used up.
   * PostgreSQL: every table raises disk_full (SQLSTATE 53100) on any write,
   * which is what PostgreSQL raises when it cannot extend a file.
   */
  openFull<T>(prepare: (store: WalletStore) => Promise<T>): Promise<{ store: WalletStore; prepared: T; cleanup: () => Promise<void> }>;
}

const ALL: Backend[] = [
  {
    name: 'sqlite',
    async open(rules) {
      const { dir, cleanup } = tempDir();
      const path = join(dir, 'wallet.db');
      const store = await SqliteStore.open({ path, ...(rules ? { rules } : {}) });
      const atRest: AtRest = {
        async everyValue() {
          // A second connection reads what the writer committed (WAL mode); it writes nothing.
          const db = new Database(path, { readonly: true });
          try {
            const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
            return tables.flatMap((table) => (db.prepare(`SELECT * FROM "${table}"`).raw().all() as unknown[][]).flat());
          } finally {
            db.close();
          }
        },
        files: () => [path, `${path}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file)),
      };
      return {
        store,
        atRest,
        cleanup: async () => {
          await store.close();
          cleanup();
        },
      };
    },
    async openFull(prepare) {
      const { dir, cleanup } = tempDir();
      const path = join(dir, 'wallet.db');
      try {
        const roomy = await SqliteStore.open({ path });
        const prepared = await prepare(roomy).finally(() => roomy.close());
        // Compacted, so that little room is left inside the pages the file keeps.
        const db = new Database(path);
        db.exec('VACUUM');
        const pages = Number(db.pragma('page_count', { simple: true }));
        db.close();
        const store = await SqliteStore.open({ path, databasePagesMax: pages });
        return {
          store,
          prepared,
          cleanup: async () => {
            await store.close();
            cleanup();
          },
        };
      } catch (error) {
        cleanup();
        throw error;
      }
    },
  },
  {
    // A schema of its own in DATABASE_URL's database, dropped afterwards.
    name: 'postgres',
    ...(POSTGRES_UNAVAILABLE ? { unavailable: POSTGRES_UNAVAILABLE } : {}),
    async open(rules) {
      const { store, schema, cleanup } = await openPostgresStore('contract', rules ? { rules } : {});
      const atRest: AtRest = {
        async everyValue() {
          const tables = await schema.admin<{ name: string }[]>`SELECT tablename AS name FROM pg_tables WHERE schemaname = ${schema.name}`;
          const values: unknown[] = [];
          for (const { name } of tables) {
            const rows = await schema.admin.unsafe(`SELECT * FROM ${schema.name}.${name}`).values();
            values.push(...rows.flat());
          }
          return values;
        },
        // The database's files are the database administrator's (docs/operator.md).
        files: () => [],
      };
      return { store, atRest, cleanup };
    },
    async openFull(prepare) {
      const { store, schema, cleanup } = await openPostgresStore('full');
      try {
        const prepared = await prepare(store);
        await fillPostgresDisk(schema);
        return { store, prepared, cleanup };
      } catch (error) {
        await cleanup();
        throw error;
      }
    },
  },
];

export const BACKENDS: Backend[] = (() => {
  const wanted = process.env.STORES?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return wanted ? ALL.filter((backend) => wanted.includes(backend.name)) : ALL;
})();
