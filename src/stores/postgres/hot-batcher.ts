/**
 * PostgreSQL group commit of the hot calls: the queue that gathers them
 * into batches. (It only queues and sends; the ledger runs a batch,
 * PostgresLedger.applyBatch. SQLite's batch writer, sqlite/batch-writer.ts,
 * does the other job: it runs a batch of calls of every kind in one
 * database transaction.) A commit is durable only once its WAL is flushed,
 * and on a small database that flush and the per-statement work, not the
 * rows, bound the rate of commits. So the hot-path calls (/transaction,
 * /payout) that arrive while every batch slot is busy queue here, and the
 * next free slot takes them all (up to a limit) as one batch: one database
 * transaction, a handful of set-based statements, one WAL flush. When the
 * node is quiet a call goes out alone at once; the busier it gets, the
 * larger the batches, as with the SQLite writer.
 *
 * The batch runner (PostgresLedger.applyBatch) may answer DEFER for a call
 * that depends on what an earlier call of the same batch writes (the same
 * player, id or round): it goes first into the next batch, which reads the
 * database again. A batch fails as a whole only on an error: when the error
 * is retryable, the database is unavailable or an invariant broke, every
 * call of it gets that error (its caller retries, answers 503 or stops); any
 * other error (a bug) sends each call of the batch again alone, so that only
 * the call that causes it fails.
 */
import assert, { AssertionError } from 'node:assert/strict';
import type { CallSignal } from '../../platform/postgres/call-deadlines.js';
import { isRetryable, isUnavailable } from '../../platform/postgres/errors.js';

/** A batch runner's answer for a call that must wait for the next batch. */
export const DEFER = Symbol('defer');
/** A batch runner's answer for a call it dropped because its caller gave up (see abandoned()). */
export const ABANDONED = Symbol('abandoned');

export interface HotBatcherOptions {
  /** Batches in flight at once; each holds one connection. The pool size. */
  batchesInFlightMax: number;
  /** Calls in one batch; see BATCH_CALLS_MAX. */
  batchCallsMax: number;
  /**
   * A batch still unsettled after this long (ms) means its connection is
   * lost in a way nothing reported, and the batcher calls its stall
   * listener (see onStall). Every wait a batch can meet is bounded well
   * inside it: a connection attempt by the connect time-out, each statement
   * (its lock waits included) by the statement time-out.
   */
  batchStallMs: number;
}

/**
 * Calls that share one database transaction. Default 100: past a few dozen
 * the flush and the statements are already shared well, and a batch holds
 * the row locks of all its players until it commits, so a larger one would
 * only make calls wait longer on each other.
 */
export const BATCH_CALLS_MAX = 100;

interface Pending<C, R> {
  call: C;
  /** Aborted when the caller stops waiting (its deadline passed). */
  signal: CallSignal | undefined;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
  /** Sent in a batch of its own: its last batch failed with an error that may not be its own. */
  alone: boolean;
}

export class HotBatcher<C, R> {
  private queue: Pending<C, R>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private stallListener: ((error: Error) => void) | undefined;
  private stalled = false;

  constructor(
    /** Runs a batch; abandoned(i) says that call i's caller gave up, and it must not be written. */
    private readonly run: (calls: C[], abandoned: (index: number) => boolean) => Promise<(R | typeof DEFER | typeof ABANDONED)[]>,
    private readonly options: HotBatcherOptions,
  ) {
    assert.ok(options.batchesInFlightMax >= 1 && options.batchCallsMax >= 1);
  }

  /**
   * Called once, with the first batch that outlives batchStallMs. Its
   * connection may never answer: a database that failed over or a network
   * that dropped the route without a reset leaves the socket open, and TCP
   * notices only after many minutes. Its callers had their 503 at their
   * deadline, but its batch slot stays taken, and once every slot is, the
   * node answers nothing but 503. The listener stops the store.
   */
  onStall(listener: (error: Error) => void): void {
    this.stallListener = listener;
  }

  submit(call: C, signal?: CallSignal): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const pending: Pending<C, R> = { call, signal, resolve, reject, alone: false };
      // A call given up while still queued leaves the queue: the queue stays bounded by the callers still waiting.
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.queue.indexOf(pending);
          if (index >= 0) this.queue.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
      this.queue.push(pending);
      if (!this.scheduled && this.inFlight < this.options.batchesInFlightMax) {
        this.scheduled = true;
        // After this turn's I/O callbacks: the calls parsed in the same turn travel together.
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    while (this.inFlight < this.options.batchesInFlightMax && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        // The calls that queued meanwhile have waited one commit already: they go now.
        if (!this.scheduled) this.flush();
      });
    }
  };

  /** The next batch: the front of the queue up to the limit; a call marked alone on its own. */
  private take(): Pending<C, R>[] {
    if (this.queue[0]!.alone) return this.queue.splice(0, 1);
    let count = 0;
    while (count < this.queue.length && count < this.options.batchCallsMax && !this.queue[count]!.alone) count++;
    return this.queue.splice(0, count);
  }

  private async send(batch: Pending<C, R>[]): Promise<void> {
    let results: (R | typeof DEFER | typeof ABANDONED)[];
    // Unreferenced: a stalled batch must not be what keeps a process alive.
    const watchdog = setTimeout(() => this.stall(batch.length), this.options.batchStallMs).unref();
    try {
      results = await this.run(
        batch.map((pending) => pending.call),
        (index) => batch[index]!.signal?.aborted === true,
      );
      assert.equal(results.length, batch.length, 'a batch answers every call');
      assert.ok(results[0] !== DEFER, 'the first call of a batch depends on no other');
    } catch (error) {
      clearTimeout(watchdog);
      if (batch.length > 1 && !(error instanceof AssertionError) && !isRetryable(error) && !isUnavailable(error)) {
        for (const pending of batch) pending.alone = true;
        this.queue.unshift(...batch);
        return;
      }
      for (const pending of batch) pending.reject(error);
      return;
    }
    clearTimeout(watchdog);
    const deferred: Pending<C, R>[] = [];
    results.forEach((result, index) => {
      if (result === DEFER) {
        if (!batch[index]!.signal?.aborted) deferred.push(batch[index]!);
      } else if (result !== ABANDONED) {
        batch[index]!.resolve(result);
      }
    });
    this.queue.unshift(...deferred);
  }

  private stall(calls: number): void {
    if (this.stalled) return;
    this.stalled = true;
    this.stallListener?.(
      new Error(
        `a batch of ${calls} calls has had no answer from PostgreSQL for ${this.options.batchStallMs} ms, past every time-out: ` +
          'its connection is lost without a word (a fail-over, a dropped route), and the node stops so that a restart opens new connections',
      ),
    );
  }
}
