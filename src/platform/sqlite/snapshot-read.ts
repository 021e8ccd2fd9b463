/**
 * A read of a whole SQLite file on one snapshot, in a thread of its own:
 * what the wallet's and the provider's `verify` do. Such a read takes
 * seconds on a grown file, and neither the writer nor the HTTP thread may
 * wait for it. In WAL mode a reader of its own sees the snapshot its read
 * transaction started with while the writer goes on committing.
 *
 * Two halves: `readSnapshot` runs in the thread (a worker module calls it
 * with its read and posts the answer), `readSnapshotInThread` starts such a
 * module and answers its result.
 */
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { openReader } from './open-database.js';

/**
 * The thread's one message: the result, or why the read could not be
 * finished. A failure is said in a message of its own because an error
 * thrown out of a thread loses its message on the way when it comes from
 * SQLite (the caller would only learn that something failed, not what).
 */
export type SnapshotAnswer<T> = { result: T } | { failed: string; code?: string };

function failure(error: unknown): { failed: string; code?: string } {
  const { message, code } = error as { message?: unknown; code?: unknown };
  return {
    failed: typeof message === 'string' && message !== '' ? message : String(error),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

/** In the thread: `read` on a reader of its own of `path`, in one read transaction, so that every query sees one snapshot. */
export function readSnapshot<T>(path: string, read: (db: Database.Database) => T): SnapshotAnswer<T> {
  try {
    const db = openReader(path);
    try {
      db.exec('BEGIN');
      try {
        return { result: read(db) };
      } finally {
        db.exec('COMMIT');
      }
    } finally {
      db.close();
    }
  } catch (error) {
    return failure(error);
  }
}

/** A read started in its thread: its result, and a way to stop it (a store that closes under it). */
export interface SnapshotReading<T> {
  result: Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts the worker module at `module`, which posts one SnapshotAnswer,
 * with `workerData`. A failed read, a thread that could not start, and a
 * thread stopped before it answered all reject with `failed(reason)`.
 */
export function readSnapshotInThread<T>(module: URL, workerData: unknown, failed: (reason: string, cause?: unknown) => Error): SnapshotReading<T> {
  const worker = new Worker(module, { workerData });
  const result = new Promise<T>((resolve, reject) => {
    worker.once('message', (answer: SnapshotAnswer<T>) => {
      if ('result' in answer) resolve(answer.result);
      else reject(failed(answer.code === undefined ? answer.failed : `${answer.failed} (${answer.code})`));
    });
    // The thread itself failed (it could not start): its error may come without a message, but with a code.
    worker.once('error', (error: Error & { code?: unknown }) => reject(failed(error.message || String(error.code ?? error), error)));
    // After an answer or an error this changes nothing; otherwise the thread was stopped under the read.
    worker.once('exit', () => reject(failed('the read was stopped before it answered')));
  });
  return {
    result,
    stop: async () => {
      await worker.terminate();
    },
  };
}
