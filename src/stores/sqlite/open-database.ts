/**
 * Opens a SQLite database the way the wallet needs it: durable, and fast
 * within that.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** How long a writer waits for another process's lock (ms), e.g. a CLI command beside the server. */
export const BUSY_TIMEOUT_MS = 5_000;
/** Page cache per connection (KiB): keeps the UUID indexes of a grown ledger in memory. */
export const CACHE_KIB = 256 * 1024;

/**
 * How a commit becomes durable. `full`: synchronous=FULL, COMMIT itself
 * fsyncs the WAL. `flusher`: synchronous=NORMAL, and nothing is answered
 * until a WalFlusher has fdatasync'ed the WAL after the commit (as durable
 * as FULL, argued in wal-flusher.ts). Never a setting that answers before
 * the data is on stable storage.
 *
 * `full` is the default: while COMMIT waits for the disk, the requests that
 * arrive queue up and form the next, larger batch, so fewer commits write
 * and sync fewer WAL pages in all. With the flusher the writer commits again
 * at once, in smaller batches; on this project's bench machine that measured
 * 2% to 21% fewer bets per second (docs/performance.md). A disk whose syncs
 * are much slower than its CPU's work per batch may favour the flusher.
 */
export type Durability = 'full' | 'flusher';

export function openDatabase(path: string, durability: Durability = 'full'): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  // WAL: readers never block the writer, and a commit appends to one file.
  db.pragma('journal_mode = WAL');
  db.pragma(durability === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  // Foreign keys stay off: every row is written by this code in one place,
  // and `verify` checks the references instead of every insert paying for it.
  db.pragma('foreign_keys = OFF');
  db.defaultSafeIntegers(true);
  return db;
}
