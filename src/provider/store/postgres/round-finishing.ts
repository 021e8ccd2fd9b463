/**
 * The outbox's final hook on PostgreSQL: the final outcome of a round's, a
 * reels call's or a payout's request finishes what sent it (roundOutcomeOf,
 * payoutOutcomeOf), in the database transaction that records the outcome.
 * That transaction may run more than once, so the `onRoundFinished`
 * listeners hear of its rounds after its commit (`collect`). The same
 * transaction sends a notification (pg_notify, delivered on commit only),
 * by which every other node on the database calls its listeners too
 * (`listen`): a player waiting on one node for a round another node
 * delivered wakes at once, not at the end of the wait.
 */
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import type { FinalEvent } from '../../../dispatch/outbox.js';
import { PAYOUT_REQUEST } from '../../../rounds/bodies.js';
import { reelsCallStep } from '../../../rounds/completion.js';
import { roundOutcomeOf } from '../../../rounds/outcomes.js';
import type { Row, RoundCallRow, RoundRow } from '../provider-store.js';
import type { Payouts } from './payouts.js';
import type { ProviderDatabase } from './provider-database.js';
import { callsSelect, enqueueCall, readRound, returnToPool } from './rounds.js';
import { callOf, int, roundOf } from './rows.js';
import { setSessionBalance } from './sessions.js';

/**
 * The channel of finished rounds. Notifications are the whole database's:
 * the payload names the schema, so that deployments (or test runs) in
 * other schemas of one database ignore each other's.
 */
const ROUND_FINISHED_CHANNEL = 'wagerlink_provider_round_finished';

/** The rounds a call into the outbox finished, in the transaction run that committed. */
interface Finishing {
  dbTx: postgres.TransactionSql | undefined;
  rounds: RoundRow[];
}

export class RoundFinishing {
  private readonly roundListeners = new Set<(round: RoundRow) => void>();
  private readonly finishing = new AsyncLocalStorage<Finishing>();
  /** This store's name in its notifications, and its schema's: it ignores its own, and other schemas'. */
  private readonly nodeId = randomUUID();
  private schema = '';
  private stopped = false;

  constructor(
    private readonly database: ProviderDatabase,
    private readonly payouts: Payouts,
  ) {}

  onRoundFinished(listener: (round: RoundRow) => void): () => void {
    this.roundListeners.add(listener);
    return () => this.roundListeners.delete(listener);
  }

  /**
   * Listens for the rounds other nodes finish (a connection of its own,
   * remade by postgres.js after a loss; a notification missed meanwhile
   * only leaves a waiting player to the end of the wait, when the round is
   * read again).
   */
  async listen(): Promise<void> {
    const { sql } = this.database;
    const [row] = await this.database.read(sql<{ schema: string }[]>`SELECT current_schema() AS schema`);
    this.schema = row!.schema;
    await sql.listen(ROUND_FINISHED_CHANNEL, (payload) => {
      const [schema, nodeId, pk] = payload.split('/');
      if (schema !== this.schema || nodeId === this.nodeId || this.roundListeners.size === 0 || this.stopped) return;
      this.database.read(readRound(sql, int(pk))).then(
        (round) => this.announce(round),
        () => {
          // Closing, or the database away: the waiting player reads the round again at the end of the wait.
        },
      );
    });
  }

  /** From now on, notifications are ignored: the store is closing. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Runs a call into the outbox, as a write under the call deadline; when
   * `applied` says its outcome committed, the rounds it finished are told to
   * the listeners.
   */
  async collect<R>(applied: (result: R) => boolean, call: () => Promise<R>): Promise<R> {
    const finishing: Finishing = { dbTx: undefined, rounds: [] };
    const result = await this.database.track(this.database.bounded(() => this.finishing.run(finishing, call)));
    if (applied(result)) for (const round of finishing.rounds) this.announce(round);
    return result;
  }

  /**
   * The outbox's hook (`onFinal`), in the database transaction of the
   * outcome. The rounds finished are noted for the listeners; a run that is
   * rolled back and run again starts the note afresh, so only the committed
   * run's rounds are announced.
   */
  readonly finishFromOutbox = async (dbTx: postgres.TransactionSql, event: FinalEvent): Promise<void> => {
    const finishing = this.finishing.getStore();
    if (finishing && finishing.dbTx !== dbTx) {
      finishing.dbTx = dbTx;
      finishing.rounds = [];
    }
    if (event.item.kind === PAYOUT_REQUEST.kind) return this.payouts.finishPayout(dbTx, event);
    const [call] = await dbTx<Row[]>`${callsSelect(dbTx)} WHERE c.dispatch_item_id = ${event.item.id}`;
    const round = call === undefined ? await this.finishRound(dbTx, event) : await this.finishCall(dbTx, callOf(call), int(call.round_pk), event);
    if (round === undefined) return;
    // Delivered to the other nodes when (and only if) this transaction commits.
    await dbTx`SELECT pg_notify(${ROUND_FINISHED_CHANNEL}, ${`${this.schema}/${this.nodeId}/${round.pk}`})`;
    finishing?.rounds.push(round);
  };

  /** Records how a pending dice round ended; a settled round with a known balance sets the session's. */
  private async finishRound(dbTx: postgres.TransactionSql, event: FinalEvent): Promise<RoundRow | undefined> {
    const { item } = event;
    const [found] = await dbTx<Row[]>`SELECT id, currency, status FROM rounds WHERE dispatch_item_id = ${item.id}`;
    if (found === undefined || found.status !== 'pending') return undefined;
    const outcome = roundOutcomeOf(event, found.currency as string, this.database.currencies);
    const [code, detail] = outcome.status === 'settled' ? [null, null] : [outcome.code, outcome.detail];
    const [row] = await dbTx<Row[]>`
      UPDATE rounds SET status = ${outcome.status}, refusal_code = ${code}, refusal_detail = ${detail},
        balance_after = ${outcome.balanceAfterMinor?.toString() ?? null}, attempts = ${item.attempts}, settled_at = ${item.finishedAt ?? item.createdAt}
      WHERE id = ${found.id as string} AND status = 'pending'
      RETURNING *`;
    assert.ok(row, 'only a pending round is finished');
    // The row as updated, with its body from the item this outcome is of (the round keeps none of its own).
    const round = roundOf({ ...row, item_body: item.body.toString('utf8') });
    if (round.status === 'settled' && round.balanceAfterMinor !== null) await setSessionBalance(dbTx, round.sessionPk, round.balanceAfterMinor);
    return round;
  }

  /**
   * A reels call's final outcome, in its transaction: the call and the
   * round record it, and the round goes on as reelsCallStep says. The
   * round's row is updated first, so its lock orders this against
   * playFreeSpins on any node: whichever commits second sees the other's
   * write and enqueues the feature's call, once (the call's `waiting`
   * status is claimed by a conditional update).
   */
  private async finishCall(dbTx: postgres.TransactionSql, call: RoundCallRow, roundPk: number, event: FinalEvent): Promise<RoundRow | undefined> {
    if (call.status !== 'pending') return undefined;
    const { item } = event;
    const at = item.finishedAt ?? item.createdAt;
    const [currencyRow] = await dbTx<Row[]>`SELECT currency FROM rounds WHERE id = ${roundPk}`;
    const outcome = roundOutcomeOf(event, currencyRow!.currency as string, this.database.currencies);
    const accepted = outcome.status === 'settled';
    const [code, detail] = accepted ? [null, null] : [outcome.code, outcome.detail];
    const balance = outcome.balanceAfterMinor?.toString() ?? null;
    const [updated] = await dbTx<Row[]>`
      UPDATE rounds SET calls_done = calls_done + 1, balance_after = COALESCE(${accepted ? balance : null}::bigint, balance_after), attempts = attempts + ${item.attempts}
      WHERE id = ${roundPk} RETURNING *`;
    await dbTx`UPDATE round_calls SET status = ${accepted ? 'accepted' : 'refused'}, refusal_code = ${code}, refusal_detail = ${detail},
      balance_after = ${balance}, finished_at = ${at} WHERE round_pk = ${roundPk} AND call_index = ${call.index} AND status = 'pending'`;
    const round = roundOf(updated!);
    if (accepted && outcome.balanceAfterMinor !== null) await setSessionBalance(dbTx, round.sessionPk, outcome.balanceAfterMinor);
    const step = reelsCallStep(round.reels!, call.index, accepted);
    if (step.finish === 'refused') {
      await dbTx`UPDATE rounds SET status = 'refused', refusal_code = ${code}, refusal_detail = ${detail}, balance_after = ${balance}, settled_at = ${at}
        WHERE id = ${roundPk} AND status = 'pending'`;
      await returnToPool(dbTx, round);
    } else {
      if (!accepted) await dbTx`UPDATE rounds SET refusal_code = ${code}, refusal_detail = ${`call ${call.index}: ${detail}`} WHERE id = ${roundPk}`;
      if (step.finish === 'settled') await dbTx`UPDATE rounds SET status = 'settled', settled_at = ${at} WHERE id = ${roundPk} AND status = 'pending'`;
      if (step.next !== null) await enqueueCall(dbTx, round, step.next, at);
    }
    return readRound(dbTx, roundPk);
  }

  private announce(round: RoundRow): void {
    for (const listener of this.roundListeners) listener(round);
  }
}
