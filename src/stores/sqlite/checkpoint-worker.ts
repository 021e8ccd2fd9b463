/**
 * The background checkpointer's thread (checkpointer.ts): on a connection of
 * its own, it copies the WAL's committed pages into the database file every
 * CHECKPOINT_PASS_MS, so that the writer's own checkpoint, when its commit
 * takes the WAL past WAL_CHECKPOINT_PAGES, finds almost everything copied.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { openCheckpointConnection, type Durability } from './open-database.js';

export interface CheckpointWorkerInit {
  path: string;
  durability: Durability;
  passMs: number;
}

/** What the thread tells its owner, once, if it could not open the database or a pass failed (it then stops). */
export interface CheckpointFailure {
  failed: string;
}

const { path, durability, passMs } = workerData as CheckpointWorkerInit;
let db: Database.Database | undefined;
let timer: NodeJS.Timeout | undefined;

/**
 * Said in a message of its own: a SQLite error thrown out of a thread
 * arrives without its message. Nothing is lost when the passes stop: the
 * pages stay in the WAL, and the writer's own checkpoint copies them, as
 * it did before this thread existed.
 */
function stop(error: unknown): void {
  parentPort!.postMessage({ failed: (error as Error).message } satisfies CheckpointFailure);
  close();
}

function close(): void {
  clearTimeout(timer);
  db?.close();
  db = undefined;
  parentPort!.close();
}

parentPort!.on('message', (message: 'close') => {
  if (message === 'close') close();
});
try {
  db = openCheckpointConnection(path, durability);
  // PASSIVE: it never waits for the writer or a reader, and never makes them wait.
  const pass = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const run = () => {
    try {
      pass.get();
    } catch (error) {
      stop(error);
      return;
    }
    timer = setTimeout(run, passMs);
  };
  timer = setTimeout(run, passMs);
} catch (error) {
  stop(error);
}
