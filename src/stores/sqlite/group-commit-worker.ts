/**
 * The SQLite writer thread. It owns the only connection of this process and
 * applies calls in batches: every call that arrived while the previous commit
 * was being fsynced joins the next database transaction, each behind its own
 * savepoint so that a refused or failed call rolls back alone. Results are
 * posted only after COMMIT has returned, so an answer is never sent for
 * something that could still be lost.
 *
 * Running here keeps the fsync off the HTTP thread: while one batch commits,
 * the main thread goes on parsing and checking the next requests.
 */
import { AssertionError } from 'node:assert';
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { refuse, type Refusal } from '../../protocol/errors.js';
import { createCurrencies } from '../../protocol/money.js';
import type { RulesConfig } from '../../ledger/rules.js';
import { migrate } from './migrations.js';
import { openDatabase } from './open-database.js';
import { SqliteLedger } from './sqlite-ledger.js';

export interface WorkerInit {
  path: string;
  rules: RulesConfig;
  cryptoDecimals: Record<string, number>;
  port: MessagePort;
  groupCommitCallsMax: number;
}

export interface Call {
  id: number;
  op: Op;
  args: unknown;
}

export interface Reply {
  id: number;
  result: unknown;
}

export type ReadOp = 'getPlayer' | 'listRounds' | 'listTransfers' | 'verify' | 'ping';
export type WriteOp = 'transact' | 'payout' | 'authenticate' | 'createPlayer' | 'createLaunchKey' | 'adjust' | 'setBlocked';
export type Op = ReadOp | WriteOp;

const READ_OPS = new Set<Op>(['getPlayer', 'listRounds', 'listTransfers', 'verify', 'ping']);

const init = workerData as WorkerInit;
const db = openDatabase(init.path);
migrate(db);
const ledger = new SqliteLedger(db, createCurrencies(init.cryptoDecimals), init.rules);
const port = init.port;

const sql = {
  begin: db.prepare('BEGIN IMMEDIATE'),
  commit: db.prepare('COMMIT'),
  rollback: db.prepare('ROLLBACK'),
  savepoint: db.prepare('SAVEPOINT call'),
  rollbackTo: db.prepare('ROLLBACK TO call'),
  release: db.prepare('RELEASE call'),
};

function unavailable(error: unknown): Refusal {
  return refuse('SERVICE_UNAVAILABLE', `storage failed, nothing was applied: ${(error as Error).message}`);
}

function call(op: Op, args: unknown): unknown {
  const method = ledger[op] as (args: unknown) => unknown;
  return method.call(ledger, args);
}

function runReads(calls: Call[], replies: Reply[]): void {
  for (const c of calls) {
    try {
      // verify reads many tables: one read transaction gives it one snapshot.
      if (c.op === 'verify') {
        db.exec('BEGIN');
        try {
          replies.push({ id: c.id, result: call(c.op, c.args) });
        } finally {
          db.exec('COMMIT');
        }
      } else {
        replies.push({ id: c.id, result: call(c.op, c.args) });
      }
    } catch (error) {
      if (error instanceof AssertionError) throw error;
      replies.push({ id: c.id, result: unavailable(error) });
    }
  }
}

function runWrites(calls: Call[], replies: Reply[]): void {
  const results: unknown[] = [];
  try {
    sql.begin.run();
  } catch (error) {
    for (const c of calls) replies.push({ id: c.id, result: unavailable(error) });
    return;
  }
  for (const c of calls) {
    sql.savepoint.run();
    try {
      const result = call(c.op, c.args) as { ok: boolean };
      // Plans refuse before writing, but a savepoint keeps that a local matter.
      if (!result.ok) sql.rollbackTo.run();
      sql.release.run();
      results.push(result);
    } catch (error) {
      // A broken invariant is a bug: crash rather than answer (the open
      // transaction dies with the connection, so nothing of it lands).
      if (error instanceof AssertionError) throw error;
      if (!db.inTransaction) {
        // SQLite rolled the whole transaction back (I/O error, disk full).
        for (const each of calls) replies.push({ id: each.id, result: unavailable(error) });
        return;
      }
      sql.rollbackTo.run();
      sql.release.run();
      results.push(refuse('INTERNAL_ERROR', `nothing was applied: ${(error as Error).message}`));
    }
  }
  try {
    sql.commit.run();
  } catch (error) {
    if (db.inTransaction) sql.rollback.run();
    for (const c of calls) replies.push({ id: c.id, result: unavailable(error) });
    return;
  }
  calls.forEach((c, index) => replies.push({ id: c.id, result: results[index] }));
}

function runBatch(calls: Call[]): void {
  const reads: Call[] = [];
  const writes: Call[] = [];
  for (const c of calls) (READ_OPS.has(c.op) ? reads : writes).push(c);
  const replies: Reply[] = [];
  runReads(reads, replies);
  if (writes.length > 0) runWrites(writes, replies);
  port.postMessage(replies);
}

port.on('message', (first: Call[] | 'close') => {
  if (first === 'close') {
    db.close();
    port.close();
    return;
  }
  // Everything that queued up during the last commit joins this one, up to
  // the batch limit; the rest stays queued and starts the next batch.
  const calls = [...first];
  let closing = false;
  for (
    let next = calls.length < init.groupCommitCallsMax ? receiveMessageOnPort(port) : undefined;
    next !== undefined;
    next = calls.length < init.groupCommitCallsMax ? receiveMessageOnPort(port) : undefined
  ) {
    if (next.message === 'close') {
      closing = true;
      break;
    }
    calls.push(...(next.message as Call[]));
  }
  runBatch(calls);
  if (closing) {
    db.close();
    port.close();
  }
});
port.postMessage('ready');
