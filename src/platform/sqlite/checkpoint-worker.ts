/**
 * The background checkpointer's thread (checkpointer.ts): on a connection of
 * its own, it copies the WAL's committed pages into the database file every
 * CHECKPOINT_PASS_MS, so that the writer's own checkpoint, when its commit
 * takes the WAL past WAL_CHECKPOINT_PAGES, finds almost everything copied.
 *
 * A pass that fails (a full disk, an I/O error, a database it cannot open)
 * is tried again after a back-off that doubles from the first retry delay up
 * to its cap, on a connection opened afresh, until one succeeds; then the
 * passes go on at their interval. Nothing is lost meanwhile: the pages stay
 * in the WAL, and the writer's own checkpoint copies them, as it did before
 * this thread existed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { openCheckpointConnection, type Durability } from './open-database.js';
import { checkpointRetryDelayMs } from './checkpoint-retry.js';

export interface CheckpointWorkerInit {
  path: string;
  durability: Durability;
  passMs: number;
  retryDelayMsFirst: number;
  retryDelayMsMax: number;
  /**
   * Tests only: while its first element is not 0, every pass fails before
   * it reaches SQLite, as a pass on a full disk would. Unset in the product.
   */
  faults?: Int32Array | undefined;
}

/**
 * What the thread tells its owner: the first failure of a streak (said in a
 * message of its own, because a SQLite error thrown out of a thread arrives
 * without its message), and the end of a streak, with the attempts that
 * failed in it. Nothing in between: the owner says each once.
 */
export type CheckpointReport = { failed: string } | { recovered: number };

const { path, durability, passMs, retryDelayMsFirst, retryDelayMsMax, faults } = workerData as CheckpointWorkerInit;
let db: Database.Database | undefined;
let pass: Database.Statement | undefined;
let timer: NodeJS.Timeout | undefined;
let closed = false;
/** Attempts that failed since the last pass that succeeded. */
let failures = 0;

function report(message: CheckpointReport): void {
  parentPort!.postMessage(message);
}

/** Closes the connection; the next attempt opens another. A connection that failed is not trusted again. */
function closeConnection(): void {
  pass = undefined;
  try {
    db?.close();
  } catch {
    // Already unusable: nothing more to release.
  }
  db = undefined;
}

function run(): void {
  if (closed) return;
  try {
    if (faults !== undefined && Atomics.load(faults, 0) !== 0) throw new Error('database or disk is full (an injected failure)');
    db ??= openCheckpointConnection(path, durability);
    // PASSIVE: it never waits for the writer or a reader, and never makes them wait.
    pass ??= db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    pass.get();
  } catch (error) {
    failures++;
    if (failures === 1) report({ failed: (error as Error).message || String((error as { code?: unknown }).code ?? error) });
    closeConnection();
    timer = setTimeout(run, checkpointRetryDelayMs(failures, retryDelayMsFirst, retryDelayMsMax));
    return;
  }
  if (failures > 0) {
    report({ recovered: failures });
    failures = 0;
  }
  timer = setTimeout(run, passMs);
}

function close(): void {
  closed = true;
  clearTimeout(timer);
  closeConnection();
  parentPort!.close();
}

parentPort!.on('message', (message: 'close') => {
  if (message === 'close') close();
});
run();
