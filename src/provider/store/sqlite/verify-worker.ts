/**
 * The provider's records judged in a thread of its own, on a connection of
 * its own, in one read transaction, and the thread exits
 * (verify-rounds.ts): reading and judging 100,000 rounds takes seconds,
 * and neither the writer nor the HTTP thread waits for it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readSnapshot, type SnapshotAnswer } from '../../../platform/sqlite/snapshot-read.js';
import { createCurrencies } from '../../../protocol/money.js';
import type { RoundBooksVerdict } from '../../../rounds/books.js';
import { judgeRecords, type VerifyWorkerInit } from './verify-rounds.js';

const { path, cryptoDecimals } = workerData as VerifyWorkerInit;
const currencies = createCurrencies(cryptoDecimals);
parentPort!.postMessage(readSnapshot(path, (db) => judgeRecords(db, currencies)) satisfies SnapshotAnswer<RoundBooksVerdict>);
