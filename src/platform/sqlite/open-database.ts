/**
 * Opens a SQLite database the way Wagerlink's stores need it: durable, and
 * fast within that. The wallet's store (src/stores/sqlite) and the
 * provider's round log (src/provider/store/sqlite/provider-store.ts) both open theirs
 * here, so that both get the same pragmas and the same durability rule.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { ownerOnlyFile, ownerOnlyFolder, tightenFile } from '../owner-only-files.js';

/** How long a writer waits for another process's lock (ms), e.g. a CLI command beside the server. */
export const BUSY_TIMEOUT_MS = 5_000;
/** Page cache per connection (KiB): keeps the UUID indexes of a grown ledger in memory. */
export const CACHE_KIB = 256 * 1024;
/**
 * WAL pages after which a commit checkpoints them into the database file
 * (SQLite's default is 1,000). A bet dirties index pages at random places,
 * and a checkpoint writes each page once however many commits dirtied it
 * since the last one, so a longer interval writes fewer pages per bet. But
 * the commit that crosses it does the checkpoint while its batch waits, so
 * a longer interval also means a longer wait now and then. On this
 * project's bench machine, 4,000 pages let the writer alone book about 60%
 * more bets per second on a ledger of a million rounds; a 99th percentile
 * batch took 40 ms against 33 ms with 1,000 and 84 ms with 16,000
 * (docs/performance.md). (Those waits were measured before the background
 * checkpointer, checkpointer.ts, which now copies most pages before that
 * commit comes.) The WAL file grows to about this many pages (16 MiB at
 * 4 KiB pages) and is reused from its start after each checkpoint.
 * Durability does not depend on it.
 */
export const WAL_CHECKPOINT_PAGES = 4_000;
/**
 * The WAL file is cut back to this size when it is reused from its start.
 * It only grows past about WAL_CHECKPOINT_PAGES pages while a reader holds
 * an old snapshot (a verify of a grown ledger reads for seconds while bets
 * go on), and would keep that size for good otherwise. Twice the usual size,
 * so that ordinary checkpoints never truncate.
 */
export const WAL_SIZE_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * How a commit becomes durable. `full`: synchronous=FULL, COMMIT itself
 * fsyncs the WAL. `flusher`: synchronous=NORMAL, and nothing is answered
 * until a WalFlusher has fdatasync'ed the WAL after the commit (as durable
 * as FULL, argued in wal-flusher.ts). Never a setting that answers before
 * the data is on stable storage.
 *
 * `full` is the default and the wallet's store always uses it: while
 * COMMIT waits for the disk, the requests that arrive queue up and form the
 * next, larger batch, so fewer commits write and sync fewer WAL pages in
 * all. With the flusher the wallet's writer committed again at once, in
 * smaller batches, and measured fewer bets per second in every round
 * (docs/decisions/0002-sqlite-commit-durability.md), so the wallet no
 * longer offers it. The provider's round log (store/sqlite/provider-store.ts) commits on
 * the HTTP thread and uses the flusher to keep the fsync off that thread.
 */
export type Durability = 'full' | 'flusher';

/**
 * The files SQLite keeps beside a database: the WAL, its shared-memory
 * index, and the rollback journal (used before WAL mode is set, and by
 * nothing after). SQLite makes each with the database file's mode.
 */
export const SIDE_FILE_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

/**
 * better-sqlite3 is not installed, or installed without its compiled part:
 * it is an optional dependency (package.json), so that the clients and the
 * conformance kit install no native code, and only a server or command on a
 * SQLite database needs it.
 */
export class SqliteDriverMissing extends Error {
  override name = 'SqliteDriverMissing';
}

const DRIVER_MISSING =
  'install better-sqlite3 to run the wallet or the provider on SQLite (npm install better-sqlite3, beside wagerlink), ' + 'or give them a postgres:// database';

let driver: typeof Database | undefined;

/**
 * The driver, loaded the first time a SQLite database is opened rather than
 * when this module is: the `wagerlink` command imports every server, and
 * must still run the clients' commands and the kit where the driver is not
 * installed. Throws SqliteDriverMissing when it is not.
 */
export function sqliteDriver(): typeof Database {
  if (driver !== undefined) return driver;
  try {
    driver = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes('better-sqlite3')) {
      throw new SqliteDriverMissing(`better-sqlite3 is not installed: ${DRIVER_MISSING}`);
    }
    throw error;
  }
  return driver;
}

/** A connection; the driver's compiled part is loaded by the first one, and a driver installed without it (its build failed) says so. */
function connect(path: string, options: Database.Options): Database.Database {
  const Driver = sqliteDriver();
  try {
    return new Driver(path, options);
  } catch (error) {
    if (String((error as Error).message).startsWith('Could not locate the bindings file')) {
      throw new SqliteDriverMissing(`better-sqlite3 is installed without its compiled part (its build failed or was skipped): ${DRIVER_MISSING}`);
    }
    throw error;
  }
}

export function openDatabase(path: string, durability: Durability = 'full'): Database.Database {
  // A missing driver is told before the file is made: a command that cannot open it leaves nothing behind.
  sqliteDriver();
  if (path !== ':memory:' && path !== '') ownerOnlyDatabase(path);
  const db = connect(path, { timeout: BUSY_TIMEOUT_MS });
  // WAL: readers never block the writer, and a commit appends to one file.
  db.pragma('journal_mode = WAL');
  db.pragma(synchronous(durability));
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  // Foreign keys stay off: the wallet writes every row in one place, and its
  // `verify` checks the references instead of every insert paying for it. A
  // store that wants them checked (the provider's) turns them on.
  db.pragma('foreign_keys = OFF');
  db.defaultSafeIntegers(true);
  return db;
}

/**
 * Readable by its owner alone (owner-only-files.ts): the folders made for
 * it 0700 (a folder that exists is the caller's, and left as it is), the
 * database file made 0600 before SQLite opens it, so that the side files
 * SQLite makes with its mode are 0600 too, and any of them an earlier
 * version left wider narrowed to 0600.
 */
function ownerOnlyDatabase(path: string): void {
  ownerOnlyFolder(dirname(path));
  ownerOnlyFile(path);
  for (const suffix of SIDE_FILE_SUFFIXES) tightenFile(`${path}${suffix}`);
}

/**
 * The background checkpointer's connection (checkpointer.ts): it writes
 * only the database file, from the WAL, and syncs it as the writer would.
 * The database must exist, in WAL mode (a writer opened it).
 */
export function openCheckpointConnection(path: string, durability: Durability): Database.Database {
  const db = connect(path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  db.pragma(synchronous(durability));
  return db;
}

function synchronous(durability: Durability): string {
  return durability === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL';
}

/**
 * A connection that can only read, for a verify beside the writer: in WAL
 * mode it never blocks the writer and the writer never blocks it. The
 * database must exist, migrated, with its WAL files (a writer opened it).
 */
export function openReader(path: string): Database.Database {
  const db = connect(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  db.defaultSafeIntegers(true);
  return db;
}
