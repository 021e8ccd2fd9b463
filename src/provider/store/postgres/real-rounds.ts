/**
 * Real dice rounds on PostgreSQL: a round written pending with its request
 * enqueued and the session's next seed, in one transaction; and the move of
 * a real round's session that reels rounds make too (`advance`): a free
 * round still fits its campaign, and the session is at the round's nonce.
 */
import type postgres from 'postgres';
import { PostgresOutbox } from '../../../dispatch/postgres/outbox.js';
import { ROUND_REQUEST } from '../../../rounds/bodies.js';
import type { GameSessionRow, NewRound, NextSeed, RoundWrite } from '../provider-store.js';
import type { Campaigns } from './campaigns.js';
import type { ProviderDatabase } from './provider-database.js';
import { insertRound } from './rounds.js';
import { roundOf } from './rows.js';
import { readSession } from './sessions.js';

/** Why a real round's session did not move: nothing was written. */
export type RealConflict = { ok: false; conflict: 'nonce-moved' | 'campaign-used'; session: GameSessionRow };

export class RealRounds {
  constructor(
    private readonly database: ProviderDatabase,
    private readonly campaigns: Campaigns,
  ) {}

  beginRealRound(round: NewRound & { requestBody: string }, nextSeed: NextSeed): Promise<RoundWrite> {
    return this.database.transaction(async (dbTx): Promise<RoundWrite> => {
      const conflict = await this.advance(dbTx, round, nextSeed);
      if (conflict) return conflict;
      const item = await PostgresOutbox.enqueue(
        dbTx,
        { operatorId: round.operatorId, orderingKey: round.roundId, ...ROUND_REQUEST, body: round.requestBody },
        round.createdAt,
      );
      // The body is the item's alone: the round reads it through dispatch_item_id.
      const [row] = await insertRound(
        dbTx,
        { ...round, requestBody: null },
        { status: 'pending', balanceAfterMinor: null, dispatchItemId: item.id, settledAt: null },
      );
      return { ok: true, round: roundOf({ ...row!, item_attempts: 0, item_body: round.requestBody }) };
    });
  }

  /**
   * A real round's move of its session, in the round's transaction: a free
   * round must still fit its campaign, and the session must be at the nonce
   * the round was drawn at (a concurrent round's row lock is waited for, and
   * then its nonce has moved: nothing is written). Answers the conflict, or
   * nothing once the session has its next seed.
   */
  async advance(dbTx: postgres.TransactionSql, round: NewRound, nextSeed: NextSeed): Promise<RealConflict | undefined> {
    if (round.campaignId !== null && !(await this.campaigns.freeRoundFits(dbTx, round))) {
      return { ok: false, conflict: 'campaign-used', session: await readSession(dbTx, round.sessionPk) };
    }
    const moved = await dbTx`
      UPDATE game_sessions SET server_seed_sealed = ${nextSeed.sealed}, server_seed_hash = ${nextSeed.hash}, nonce = nonce + 1, last_active_at = ${round.createdAt}
      WHERE id = ${round.sessionPk} AND nonce = ${round.nonce}`;
    if (moved.count === 0) return { ok: false, conflict: 'nonce-moved', session: await readSession(dbTx, round.sessionPk) };
    return undefined;
  }
}
