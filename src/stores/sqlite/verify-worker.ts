/**
 * Proves the books on a connection of its own, in a thread of its own, and
 * exits: a verify reads every row, which on a grown ledger takes seconds,
 * and neither the writer nor the HTTP thread waits for it. In WAL mode this
 * reader sees one snapshot while the writer goes on committing
 * (src/platform/sqlite/snapshot-read.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readSnapshot, type SnapshotAnswer } from '../../platform/sqlite/snapshot-read.js';
import { verifyLedger } from './verify-ledger.js';
import type { VerifyReport } from '../store.js';

export interface VerifyWorkerInit {
  path: string;
}

/** The thread's one message: the report, or why the proof could not be finished. */
export type VerifyWorkerAnswer = SnapshotAnswer<VerifyReport>;

const { path } = workerData as VerifyWorkerInit;
parentPort!.postMessage(readSnapshot(path, verifyLedger) satisfies VerifyWorkerAnswer);
