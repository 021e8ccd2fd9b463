/**
 * The backends the outbox's contract suite runs against, each as one
 * database that several nodes share, with a table of the caller's own
 * beside the outbox's. `STORES=sqlite` narrows the list (comma-separated
 * names: sqlite, postgres), as it does the store suite; postgres runs when
 * DATABASE_URL is set and is skipped, with the reason, when it is not.
 *
 * SQLite: one file, each node a connection on it. PostgreSQL: one schema,
 * each node a pool of its own on it.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type postgres from 'postgres';
import type { FinalEvent, NewItem, Outbox } from '../../src/dispatch/outbox.js';
import { openOutboxDatabase as openPostgresOutbox, PostgresOutbox } from '../../src/dispatch/postgres/outbox.js';
import { openOutboxDatabase as openSqliteOutbox, SqliteOutbox } from '../../src/dispatch/sqlite/outbox.js';
import { openDatabase as openPool } from '../../src/platform/postgres/open-database.js';
import type { PostgresSettings } from '../../src/platform/postgres/settings.js';
import { tempDir } from '../helpers.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';

/**
 * The caller's side of a final outcome, as a test sees it: called inside
 * the database transaction that applies the outcome, after the backend has
 * written the caller's own row for it (a note: item id and outcome), so
 * that a hook that throws rolls the note back with the outcome.
 */
export type TestHook = (event: FinalEvent) => void;

export interface OutboxDatabase {
  /** PostgreSQL: the URL of the schema the nodes share, for a test's own connection. */
  url?: string;
  /** A node: an outbox on a connection (SQLite) or pool (PostgreSQL) of its own. */
  node(options?: { onFinal?: TestHook }): Outbox;
  /**
   * Enqueues `items` in one database transaction that also writes one row
   * per item in the caller's own table (`causes`); with `fail`, the
   * transaction then fails and rolls back. Answers the items' ids.
   */
  enqueue(items: NewItem[], now: number, options?: { fail?: boolean }): Promise<number[]>;
  /** Enqueues inside a database transaction left open until `commit` is called. */
  enqueueOpen(item: NewItem, now: number): Promise<{ commit: () => Promise<void> }>;
  /** Enqueues with no database transaction open: refused, whatever the backend. */
  enqueueOutside(item: NewItem, now: number): Promise<unknown>;
  /**
   * A node's retry and resolve by hand, each carrying work of the caller's
   * own into its database transaction (SqliteAlongside, PostgresAlongside):
   * a note (the item id, `retried by hand` or `resolved by hand`), then,
   * with `fail`, a failure after it.
   */
  byHand(): {
    retryNow(id: number, now: number, options?: { fail?: boolean }): Promise<boolean>;
    resolve(id: number, reference: string, now: number, options?: { fail?: boolean }): Promise<boolean>;
  };
  /** Rows of the caller's own tables: causes written with items, notes written by the hook. */
  causes(): Promise<number>;
  notes(): Promise<{ itemId: number; outcome: string }[]>;
  /** Deletes every item and row, for a property's next run. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

export interface OutboxBackend {
  name: 'sqlite' | 'postgres';
  /** Why the backend cannot run here, or undefined when it can. */
  unavailable?: string;
  open(label: string): Promise<OutboxDatabase>;
}

const CALLER_TABLES = ['CREATE TABLE causes (ordering_key TEXT NOT NULL)', 'CREATE TABLE notes (item_id BIGINT NOT NULL, outcome TEXT NOT NULL)'];

export const CAUSE_FAILED = 'the cause failed after its outbox row was written';
export const ALONGSIDE_FAILED = "the caller's work beside a change by hand failed after its row was written";

const temp = tempDir('wagerlink-outbox-backends-');
process.on('exit', () => temp.cleanup());
let files = 0;

function openSqlite(): OutboxDatabase {
  const path = join(temp.dir, `outbox-${++files}.db`);
  const first = openSqliteOutbox(path);
  for (const statement of CALLER_TABLES) first.exec(statement);
  const connections: Database.Database[] = [first];
  let firstTaken = false;
  return {
    node(options = {}) {
      // The first node shares the connection the caller enqueues on, as a provider's own node does; each other has its own.
      const db = firstTaken ? openSqliteOutbox(path) : first;
      firstTaken = true;
      if (db !== first) connections.push(db);
      const note = db.prepare('INSERT INTO notes (item_id, outcome) VALUES (?, ?)');
      const onFinal = options.onFinal;
      return new SqliteOutbox(db, {
        onFinal: (event) => {
          note.run(event.item.id, event.outcome);
          onFinal?.(event);
        },
      });
    },
    byHand() {
      const outbox = new SqliteOutbox(first);
      const note = first.prepare('INSERT INTO notes (item_id, outcome) VALUES (?, ?)');
      const alongside = (id: number, outcome: string, fail: boolean | undefined) => () => {
        note.run(id, outcome);
        if (fail) throw new Error(ALONGSIDE_FAILED);
      };
      return {
        retryNow: (id, now, options = {}) => outbox.retryNow(id, now, alongside(id, 'retried by hand', options.fail)),
        resolve: (id, reference, now, options = {}) => outbox.resolve(id, reference, now, alongside(id, 'resolved by hand', options.fail)),
      };
    },
    async enqueue(items, now, options = {}) {
      const cause = first.prepare('INSERT INTO causes (ordering_key) VALUES (?)');
      return first.transaction(() => {
        const ids = items.map((item) => {
          cause.run(item.orderingKey);
          return SqliteOutbox.enqueue(first, item, now).id;
        });
        if (options.fail) throw new Error(CAUSE_FAILED);
        return ids;
      })();
    },
    async enqueueOpen(item, now) {
      first.exec('BEGIN');
      SqliteOutbox.enqueue(first, item, now);
      return { commit: async () => void first.exec('COMMIT') };
    },
    async enqueueOutside(item, now) {
      return SqliteOutbox.enqueue(first, item, now);
    },
    async causes() {
      return Number(first.prepare('SELECT COUNT(*) FROM causes').pluck().get());
    },
    async notes() {
      return (first.prepare('SELECT item_id, outcome FROM notes ORDER BY rowid').all() as { item_id: number | bigint; outcome: string }[]).map((row) => ({
        itemId: Number(row.item_id),
        outcome: row.outcome,
      }));
    },
    async clear() {
      first.exec('DELETE FROM dispatch_items; DELETE FROM causes; DELETE FROM notes');
    },
    async close() {
      for (const db of connections) db.close();
    },
  };
}

/** Small pools: test files run two at a time, and a test may open three nodes. */
export const TEST_POOL: PostgresSettings = { poolSize: 2, statementTimeoutMs: 10_000, idleTimeoutS: 10, connectTimeoutS: 5 };

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
async function openPostgres(label: string): Promise<OutboxDatabase> {
  const schema = await freshSchema(`outbox_${label}`);
  const pools: postgres.Sql[] = [];
  try {
    const first = await openPostgresOutbox(schema.url(), TEST_POOL);
    pools.push(first);
    for (const statement of CALLER_TABLES) await first.unsafe(statement);
    let firstTaken = false;
    return {
      url: schema.url(),
      node(options = {}) {
        // The first node shares the caller's pool; each other has a pool of its own, on the schema migrated already.
        const pool = firstTaken ? openPostgresOutboxPool(schema.url()) : first;
        firstTaken = true;
        if (pool !== first) pools.push(pool);
        const onFinal = options.onFinal;
        return new PostgresOutbox(pool, {
          onFinal: async (dbTx, event) => {
            await dbTx`INSERT INTO notes (item_id, outcome) VALUES (${event.item.id}, ${event.outcome})`;
            onFinal?.(event);
          },
        });
      },
      byHand() {
        const outbox = new PostgresOutbox(first);
        const alongside = (id: number, outcome: string, fail: boolean | undefined) => async (dbTx: postgres.TransactionSql) => {
          await dbTx`INSERT INTO notes (item_id, outcome) VALUES (${id}, ${outcome})`;
          if (fail) throw new Error(ALONGSIDE_FAILED);
        };
        return {
          retryNow: (id, now, options = {}) => outbox.retryNow(id, now, alongside(id, 'retried by hand', options.fail)),
          resolve: (id, reference, now, options = {}) => outbox.resolve(id, reference, now, alongside(id, 'resolved by hand', options.fail)),
        };
      },
      async enqueue(items, now, options = {}) {
        return first.begin(async (dbTx) => {
          const ids: number[] = [];
          for (const item of items) {
            await dbTx`INSERT INTO causes (ordering_key) VALUES (${item.orderingKey})`;
            ids.push((await PostgresOutbox.enqueue(dbTx, item, now)).id);
          }
          if (options.fail) throw new Error(CAUSE_FAILED);
          return ids;
        });
      },
      async enqueueOpen(item, now) {
        let commit!: () => void;
        const committing = new Promise<void>((resolve) => (commit = resolve));
        let enqueued!: () => void;
        const written = new Promise<void>((resolve) => (enqueued = resolve));
        const done = first.begin(async (dbTx) => {
          await PostgresOutbox.enqueue(dbTx, item, now);
          enqueued();
          await committing;
        });
        await Promise.race([written, done]);
        return {
          commit: async () => {
            commit();
            await done;
          },
        };
      },
      async enqueueOutside(item, now) {
        return PostgresOutbox.enqueue(first as unknown as postgres.TransactionSql, item, now);
      },
      async causes() {
        const [row] = await first<{ n: number }[]>`SELECT COUNT(*)::int AS n FROM causes`;
        return row!.n;
      },
      async notes() {
        const rows = await first<{ item_id: string; outcome: string }[]>`SELECT item_id, outcome FROM notes ORDER BY ctid`;
        return rows.map((row) => ({ itemId: Number(row.item_id), outcome: row.outcome }));
      },
      async clear() {
        await first`TRUNCATE dispatch_items, causes, notes`;
      },
      async close() {
        try {
          for (const pool of pools) await pool.end({ timeout: 5 });
        } finally {
          await schema.drop();
        }
      },
    };
  } catch (error) {
    for (const pool of pools) await pool.end({ timeout: 5 });
    await schema.drop();
    throw error;
  }
}

/** Another node's pool on a schema already migrated. */
function openPostgresOutboxPool(url: string): postgres.Sql {
  return openPool(url, TEST_POOL, 'wagerlink-outbox-test');
}

const ALL: OutboxBackend[] = [
  { name: 'sqlite', open: async () => openSqlite() },
  { name: 'postgres', ...(POSTGRES_UNAVAILABLE ? { unavailable: POSTGRES_UNAVAILABLE } : {}), open: openPostgres },
];

export const OUTBOX_BACKENDS: OutboxBackend[] = (() => {
  const wanted = process.env.STORES?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return wanted ? ALL.filter((backend) => wanted.includes(backend.name)) : ALL;
})();
