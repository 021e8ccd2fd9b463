/**
 * The outbox's final hook on SQLite: the final outcome of a round's, a
 * reels call's or a payout's request finishes what sent it (roundOutcomeOf,
 * payoutOutcomeOf), in the database transaction that records the outcome,
 * so that the two never disagree, whatever stops the process in between.
 * Each round it finishes is told to the `onRoundFinished` listeners inside
 * the open turn; an answer built from it waits for durable().
 */
import assert from 'node:assert/strict';
import type { FinalEvent } from '../../../dispatch/outbox.js';
import { PAYOUT_REQUEST } from '../../../rounds/bodies.js';
import { reelsCallStep } from '../../../rounds/completion.js';
import { roundOutcomeOf } from '../../../rounds/outcomes.js';
import type { Row, RoundCallRow, RoundRow } from '../provider-store.js';
import type { Payouts } from './payouts.js';
import type { ProviderDatabase } from './provider-database.js';
import { callsWhere, enqueueCall, readRound, returnToPool } from './rounds.js';
import { callOf, num, roundOf } from './rows.js';
import { setSessionBalance } from './sessions.js';

export class RoundFinishing {
  private readonly statements;
  private readonly roundListeners = new Set<(round: RoundRow) => void>();

  constructor(
    private readonly database: ProviderDatabase,
    private readonly payouts: Payouts,
  ) {
    const { db } = database;
    this.statements = {
      finishRound: db.prepare(
        "UPDATE rounds SET status = ?, refusal_code = ?, refusal_detail = ?, balance_after = ?, attempts = ?, settled_at = ? WHERE id = ? AND status = 'pending' RETURNING *",
      ),
      // What an outcome needs of its round, not the whole row: the hook runs once per round, in the turn.
      roundOfItem: db.prepare('SELECT id, status, currency FROM rounds WHERE dispatch_item_id = ?'),
      callOfItem: callsWhere(db, 'WHERE c.dispatch_item_id = ?'),
      finishCall: db.prepare(
        "UPDATE round_calls SET status = ?, refusal_code = ?, refusal_detail = ?, balance_after = ?, finished_at = ? WHERE round_pk = ? AND call_index = ? AND status = 'pending'",
      ),
      callDone: db.prepare('UPDATE rounds SET calls_done = calls_done + 1, balance_after = COALESCE(?, balance_after), attempts = attempts + ? WHERE id = ?'),
      endReels: db.prepare("UPDATE rounds SET status = ?, settled_at = ? WHERE id = ? AND status = 'pending'"),
      noteRefusal: db.prepare('UPDATE rounds SET refusal_code = ?, refusal_detail = ? WHERE id = ?'),
      refuseReels: db.prepare(
        "UPDATE rounds SET status = 'refused', refusal_code = ?, refusal_detail = ?, balance_after = ?, settled_at = ? WHERE id = ? AND status = 'pending'",
      ),
    };
  }

  onRoundFinished(listener: (round: RoundRow) => void): () => void {
    this.roundListeners.add(listener);
    return () => this.roundListeners.delete(listener);
  }

  /**
   * The outbox's hook (`onFinal`), in the database transaction of the
   * outcome. The rounds finished are told to the listeners at once: the
   * transaction is the turn's, and runs once.
   */
  readonly finishFromOutbox = (event: FinalEvent): void => {
    if (event.item.kind === PAYOUT_REQUEST.kind) return this.payouts.finishPayout(event);
    const call = this.statements.callOfItem.get(event.item.id) as Row | undefined;
    const round = call === undefined ? this.finishRound(event) : this.finishCall(callOf(call), num(call.round_pk), event);
    if (round === undefined) return;
    this.announce(round);
  };

  /** Records how a pending dice round ended; a settled round with a known balance sets the session's. */
  private finishRound(event: FinalEvent): RoundRow | undefined {
    const { item } = event;
    const found = this.statements.roundOfItem.get(item.id) as Row | undefined;
    if (found === undefined || found.status !== 'pending') return undefined;
    const outcome = roundOutcomeOf(event, found.currency as string, this.database.currencies);
    const [code, detail] = outcome.status === 'settled' ? [null, null] : [outcome.code, outcome.detail];
    const row = this.statements.finishRound.get(
      outcome.status,
      code,
      detail,
      outcome.balanceAfterMinor,
      item.attempts,
      item.finishedAt ?? item.createdAt,
      found.id,
    ) as Row | undefined;
    assert.ok(row, 'only a pending round is finished');
    // The row as updated, with its body from the item this outcome is of (the round keeps none of its own).
    const round = roundOf({ ...row, item_body: item.body.toString('utf8') });
    if (round.status === 'settled' && round.balanceAfterMinor !== null) setSessionBalance(this.database.db, round.sessionPk, round.balanceAfterMinor);
    return round;
  }

  /**
   * A reels call's final outcome, in its transaction: the call and the
   * round record it, and the round goes on as reelsCallStep says.
   */
  private finishCall(call: RoundCallRow, roundPk: number, event: FinalEvent): RoundRow | undefined {
    if (call.status !== 'pending') return undefined;
    const { db } = this.database;
    const { item } = event;
    const at = item.finishedAt ?? item.createdAt;
    const before = readRound(db, roundPk);
    const outcome = roundOutcomeOf(event, before.currency, this.database.currencies);
    const accepted = outcome.status === 'settled';
    const [code, detail] = accepted ? [null, null] : [outcome.code, outcome.detail];
    this.statements.callDone.run(accepted ? outcome.balanceAfterMinor : null, item.attempts, roundPk);
    this.statements.finishCall.run(accepted ? 'accepted' : 'refused', code, detail, outcome.balanceAfterMinor, at, roundPk, call.index);
    const round = readRound(db, roundPk);
    if (accepted && outcome.balanceAfterMinor !== null) setSessionBalance(db, round.sessionPk, outcome.balanceAfterMinor);
    const step = reelsCallStep(round.reels!, call.index, accepted);
    if (step.finish === 'refused') {
      this.statements.refuseReels.run(code, detail, outcome.balanceAfterMinor, at, roundPk);
      returnToPool(db, round);
    } else {
      if (!accepted) this.statements.noteRefusal.run(code, `call ${call.index}: ${detail}`, roundPk);
      if (step.finish === 'settled') this.statements.endReels.run('settled', at, roundPk);
      if (step.next !== null) enqueueCall(this.database, round, step.next, at);
    }
    return readRound(db, roundPk);
  }

  private announce(round: RoundRow): void {
    for (const listener of this.roundListeners) listener(round);
  }
}
