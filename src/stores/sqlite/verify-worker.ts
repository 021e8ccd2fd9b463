/**
 * Proves the books on a connection of its own, in a thread of its own, and
 * exits: a verify reads every row, which on a grown ledger takes seconds,
 * and neither the writer nor the HTTP thread waits for it. In WAL mode this
 * reader sees one snapshot while the writer goes on committing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openReader } from './open-database.js';
import { verifyLedger } from './verify-ledger.js';

export interface VerifyWorkerInit {
  path: string;
}

const { path } = workerData as VerifyWorkerInit;
const db = openReader(path);
try {
  // One read transaction: every query of the proof sees the same snapshot.
  db.exec('BEGIN');
  try {
    parentPort!.postMessage(verifyLedger(db));
  } finally {
    db.exec('COMMIT');
  }
} finally {
  db.close();
}
