/**
 * Applies calls to the SQLite ledger in batches: reads first, then every
 * write of the batch in one database transaction, each behind its own
 * savepoint so that a failed call rolls back alone (a refused one keeps
 * what makes it final, docs/protocol.md §6.4, and nothing else). Replies are
 * returned only after COMMIT has returned, so an answer is never sent for
 * something that could still be lost.
 *
 * It runs on a writer thread of its own (batch-writer-worker.ts). The
 * batch is whatever the store queued meanwhile (sqlite-store.ts), of every
 * operation. (PostgreSQL's counterpart of the queue is its hot batcher,
 * postgres/hot-batcher.ts, which batches only the hot calls and leaves
 * running them to its ledger: a different job, hence a different name.)
 */
import { AssertionError } from 'node:assert';
import type Database from 'better-sqlite3';
import { refuse } from '../../protocol/errors.js';
import { createCurrencies } from '../../protocol/money.js';
import type { RulesConfig } from '../../ledger/rules.js';
import { OPERATIONS } from '../operations.js';
import { migrate } from './migrations.js';
import { openDatabase } from '../../platform/sqlite/open-database.js';
import { BackgroundCheckpointer } from '../../platform/sqlite/checkpointer.js';
import { SqliteLedger } from './sqlite-ledger.js';
import { SqliteStaff } from '../../staff/sqlite-staff.js';
import { SqliteIntegrations } from './integrations.js';
import { runCall, type Call, type Reply, type SqliteHandlerContext } from './sqlite-operations.js';

export interface BatchWriterOptions {
  path: string;
  rules: RulesConfig;
  cryptoDecimals: Record<string, number>;
  /** SqliteStoreOptions.databasePagesMax. */
  databasePagesMax?: number | undefined;
}

/** The reply to a call that storage failed: nothing of it was applied, and the store rejects it (UnavailableError). */
function failed(call: Call, error: unknown): Reply {
  const { message, code } = error as { message?: string; code?: unknown };
  return { id: call.id, op: call.op, failed: `${message ?? String(error)}${typeof code === 'string' ? ` (${code})` : ''}` };
}

export class BatchWriter {
  private readonly db: Database.Database;
  private readonly ledger: SqliteLedger;
  /** What the operations' handlers run on (sqlite-operations.ts). */
  private readonly writer: SqliteHandlerContext;
  private readonly sql;
  private readonly checkpointer: BackgroundCheckpointer | undefined;

  /** The database is opened with synchronous=FULL: COMMIT returns once the WAL is synced (open-database.ts). */
  constructor(options: BatchWriterOptions) {
    this.db = openDatabase(options.path, 'full');
    if (options.databasePagesMax !== undefined) this.db.pragma(`max_page_count = ${options.databasePagesMax}`);
    migrate(this.db);
    this.ledger = new SqliteLedger(this.db, createCurrencies(options.cryptoDecimals), options.rules);
    this.ledger.warm();
    const staff = new SqliteStaff(this.db);
    this.writer = { db: this.db, ledger: this.ledger, staff, integrations: new SqliteIntegrations(this.db, staff) };
    // After the migrations: the checkpointer's connection needs the database in WAL mode.
    this.checkpointer = options.path !== ':memory:' ? new BackgroundCheckpointer(options.path, 'full') : undefined;
    this.sql = {
      begin: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
      savepoint: this.db.prepare('SAVEPOINT call'),
      rollbackTo: this.db.prepare('ROLLBACK TO call'),
      release: this.db.prepare('RELEASE call'),
    };
  }

  /**
   * Runs one batch and hands its replies to `answer` once what it committed
   * is on stable storage, which COMMIT's return means (synchronous=FULL).
   * Every reply of a batch waits, reads too: a read may show what an
   * earlier batch committed. `commitSeconds` is the time COMMIT took
   * (undefined if nothing was committed): the disk's share of every answer.
   * A call that storage failed is answered with why (Reply.failed); an
   * AssertionError (a broken invariant) is thrown, never answered.
   *
   * Calls whose operation may share a database transaction (dbTx 'shared',
   * operations.ts) are the batch's writes; the others run first, each on
   * its own: reads, and what needs a database transaction of its own.
   */
  run(calls: readonly Call[], answer: (replies: Reply[], commitSeconds: number | undefined) => void): void {
    const reads: Call[] = [];
    const writes: Call[] = [];
    for (const c of calls) (OPERATIONS[c.op].dbTx === 'shared' ? writes : reads).push(c);
    const replies: Reply[] = [];
    this.runReads(reads, replies);
    const committing = writes.length > 0 ? this.runWrites(writes, replies) : undefined;
    const since = (started: number | undefined) => (started === undefined ? undefined : (performance.now() - started) / 1_000);
    answer(replies, since(committing));
  }

  /**
   * Closes the database; the caller has waited for every answer. The
   * checkpointer's connection closes first, so that the writer's is the
   * last and SQLite checkpoints and removes the WAL, as it always did.
   */
  async close(): Promise<void> {
    await this.checkpointer?.close();
    this.db.close();
  }

  private runReads(calls: Call[], replies: Reply[]): void {
    for (const c of calls) {
      try {
        // A read of many tables ('snapshot': verify) sees them as of one moment, in one read transaction.
        if (OPERATIONS[c.op].dbTx === 'snapshot') {
          this.db.exec('BEGIN');
          try {
            replies.push({ id: c.id, op: c.op, result: runCall(this.writer, c) });
          } finally {
            this.db.exec('COMMIT');
          }
        } else {
          replies.push({ id: c.id, op: c.op, result: runCall(this.writer, c) });
        }
      } catch (error) {
        if (error instanceof AssertionError) throw error;
        replies.push(failed(c, error));
      }
    }
  }

  /** Returns when COMMIT began (performance.now()), or undefined if the batch did not commit. */
  private runWrites(calls: Call[], replies: Reply[]): number | undefined {
    const { sql, db } = this;
    // Answered only once the batch committed.
    const answers: Reply[] = [];
    try {
      sql.begin.run();
      this.ledger.startWriting();
    } catch (error) {
      if (db.inTransaction) sql.rollback.run();
      for (const c of calls) replies.push(failed(c, error));
      return undefined;
    }
    for (const c of calls) {
      sql.savepoint.run();
      try {
        const result = runCall(this.writer, c);
        // A refusal writes nothing but what makes it final (docs/protocol.md §6.4): it is kept like a booking.
        sql.release.run();
        answers.push({ id: c.id, op: c.op, result });
      } catch (error) {
        this.ledger.forgetCache();
        if (error instanceof AssertionError) {
          // A broken invariant is a bug: crash rather than answer, and land nothing of this batch.
          if (db.inTransaction) sql.rollback.run();
          throw error;
        }
        if (!db.inTransaction) {
          // SQLite rolled the whole transaction back (I/O error, disk full).
          for (const each of calls) replies.push(failed(each, error));
          return undefined;
        }
        sql.rollbackTo.run();
        sql.release.run();
        answers.push({ id: c.id, op: c.op, result: refuse('INTERNAL_ERROR', `nothing was applied: ${(error as Error).message}`) });
      }
    }
    let committing: number;
    try {
      this.ledger.beforeCommit();
      committing = performance.now();
      sql.commit.run();
    } catch (error) {
      if (db.inTransaction) sql.rollback.run();
      // A merge that found an id held twice: crash, as for any broken invariant.
      if (error instanceof AssertionError) throw error;
      this.ledger.forgetCache();
      for (const c of calls) replies.push(failed(c, error));
      return undefined;
    }
    for (const answer of answers) replies.push(answer);
    return committing;
  }
}
