/**
 * Proves the books on a connection of its own, in a thread of its own: a
 * verify reads every row, which on a grown ledger takes seconds, and
 * neither the writer nor the HTTP thread waits for it. In WAL mode this
 * reader sees one snapshot while the writer goes on committing
 * (src/platform/sqlite/snapshot-read.ts).
 *
 * The thread is the store's for as long as the store is open, and proves
 * the books once per message: starting a thread (a fresh isolate that
 * loads the driver and these modules) cost more than proving a small
 * ledger, and a server's checks ask for verify again and again. Each proof
 * opens a connection of its own and closes it, so that nothing is held
 * open between two proofs and each sees the file as it is when it starts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readSnapshot, type SnapshotAnswer } from '../../platform/sqlite/snapshot-read.js';
import { verifyLedger } from './verify-ledger.js';
import type { VerifyReport } from '../store.js';

export interface VerifyWorkerInit {
  path: string;
}

/**
 * What the store sends: prove the books once. (A type, not a constant: the
 * store must not import this module's code, which runs as the thread.)
 */
export type VerifyWorkerRequest = 'verify';

/** The thread's answer to each request: the report, or why the proof could not be finished. */
export type VerifyWorkerAnswer = SnapshotAnswer<VerifyReport>;

const { path } = workerData as VerifyWorkerInit;
const port = parentPort!;
port.on('message', (message: unknown) => {
  // Anything else is a bug in the store: the thread fails, and the store says so to the verify that waits.
  if (message !== ('verify' satisfies VerifyWorkerRequest)) throw new Error(`the verify thread got an unknown message: ${String(message)}`);
  port.postMessage(readSnapshot(path, verifyLedger) satisfies VerifyWorkerAnswer);
});
