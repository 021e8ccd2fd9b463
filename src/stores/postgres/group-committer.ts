/**
 * PostgreSQL group commit. A commit is durable only once its WAL is flushed,
 * and on a small database that flush, not the work, bounds the rate of
 * commits. So the hot-path calls (/transaction, /payout) that arrive while
 * every connection of the pool is busy queue here, and the next free
 * connection takes them all (up to a limit) as ONE statement, wl_batch: one
 * round trip, one database transaction, one WAL flush for all of them. When
 * the node is quiet a call goes out alone at once; the busier it gets, the
 * larger the batches, as with the SQLite writer.
 *
 * Calls never see each other's refusals: wl_batch decides each one before it
 * writes anything, so a refused call leaves nothing behind. A batch fails as
 * a whole only on an error: when the error is retryable or the database is
 * unavailable, every call of it gets that error (its caller retries or
 * answers 503); any other error (a bug) sends each call of the batch again
 * alone, so that only the call that causes it fails.
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import { isRetryable, isUnavailable } from './postgres-errors.js';

/** One call as wl_batch takes it (see migrations.ts); int8 values as text. */
export type HotCall = Record<string, unknown> & { k: 't' | 'p' };

/** What wl_batch answers for one call, int8 as text. */
export interface DecisionRow {
  o_index: number;
  o_outcome: string | null;
  o_balance: string | null;
  o_booked: number | null;
  o_player_id: string | null;
  o_session_game: string | null;
  o_last_active_at: string | null;
  o_currency: string | null;
  o_balance_before: string | null;
  o_blocked: boolean | null;
  /** The request's ids seen before: [1-based index, kind, player, round, campaign, amount, jpAmount]. */
  o_seen: [number, string, string, string | null, string | null, string, string][] | null;
  o_round_player_id: string | null;
  o_round_game: string | null;
  o_round_finished: boolean | null;
  o_campaign_finished: boolean | null;
}

export interface GroupCommitterOptions {
  /** Batches sent at once; each holds one connection. The pool size. */
  batchesInFlightMax: number;
  /** Calls in one batch; see BATCH_CALLS_MAX. */
  batchCallsMax: number;
  sessionIdleMs: number;
  touchIntervalMs: number;
}

/**
 * Calls that share one statement and one commit. Default 100: past a few
 * dozen the flush is already shared well, and a batch holds the row locks of
 * all its players until it commits, so a larger one would only make calls
 * wait longer on each other.
 */
export const BATCH_CALLS_MAX = 100;

interface Pending {
  call: HotCall;
  resolve: (row: DecisionRow) => void;
  reject: (error: unknown) => void;
  /** Sent in a batch of its own: its last batch failed with an error that is not its peers'. */
  alone: boolean;
}

export class GroupCommitter {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly sql: postgres.Sql,
    private readonly options: GroupCommitterOptions,
  ) {
    assert.ok(options.batchesInFlightMax >= 1 && options.batchCallsMax >= 1);
  }

  submit(call: HotCall): Promise<DecisionRow> {
    return new Promise<DecisionRow>((resolve, reject) => {
      this.queue.push({ call, resolve, reject, alone: false });
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

  /** The next batch: the front of the queue, up to the limit, a call marked alone on its own. */
  private take(): Pending[] {
    if (this.queue[0]!.alone) return this.queue.splice(0, 1);
    let count = 0;
    while (count < this.queue.length && count < this.options.batchCallsMax && !this.queue[count]!.alone) count++;
    return this.queue.splice(0, count);
  }

  private async send(batch: Pending[]): Promise<void> {
    let rows: DecisionRow[];
    try {
      // Sent as text and cast by the server: a text parameter is never re-encoded on the way.
      rows = await this.sql<DecisionRow[]>`SELECT * FROM wl_batch(${JSON.stringify(batch.map((p) => p.call))}::text::jsonb,
        ${this.options.sessionIdleMs}::bigint, ${this.options.touchIntervalMs}::bigint)`;
    } catch (error) {
      if (batch.length > 1 && !isRetryable(error) && !isUnavailable(error)) {
        for (const pending of batch) pending.alone = true;
        this.queue.unshift(...batch);
        return;
      }
      for (const pending of batch) pending.reject(error);
      return;
    }
    try {
      assert.equal(rows.length, batch.length, 'wl_batch answers every call');
      rows.forEach((row, index) => {
        assert.equal(row.o_index, index + 1, 'wl_batch answers in order');
        batch[index]!.resolve(row);
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }
}
