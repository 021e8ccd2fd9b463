/**
 * Proves the books on a connection of its own, in a thread of its own, and
 * exits: a verify reads every row, which on a grown ledger takes seconds,
 * and neither the writer nor the HTTP thread waits for it. In WAL mode this
 * reader sees one snapshot while the writer goes on committing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openReader } from '../../platform/sqlite/open-database.js';
import { verifyLedger } from './verify-ledger.js';
import type { VerifyReport } from '../store.js';

export interface VerifyWorkerInit {
  path: string;
}

/**
 * The thread's one message: the report, or why the proof could not be
 * finished. A failure is said in a message of its own because an error
 * thrown out of a thread loses its message on the way when it comes from
 * SQLite (the store would only learn that something failed, not what).
 */
export type VerifyWorkerAnswer = { report: VerifyReport } | { failed: string; code?: string };

function failure(error: unknown): VerifyWorkerAnswer {
  const { message, code } = error as { message?: unknown; code?: unknown };
  return {
    failed: typeof message === 'string' && message !== '' ? message : String(error),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

const { path } = workerData as VerifyWorkerInit;
let answer: VerifyWorkerAnswer;
try {
  const db = openReader(path);
  try {
    // One read transaction: every query of the proof sees the same snapshot.
    db.exec('BEGIN');
    try {
      answer = { report: verifyLedger(db) };
    } finally {
      db.exec('COMMIT');
    }
  } finally {
    db.close();
  }
} catch (error) {
  answer = failure(error);
}
parentPort!.postMessage(answer);
