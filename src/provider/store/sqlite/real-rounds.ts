/**
 * Real dice rounds on SQLite: a round written pending with its request
 * enqueued and the session's next seed, in one savepoint; and the move of a
 * real round's session that reels rounds make too (`advance`): a free
 * round still fits its campaign, and the session is at the round's nonce.
 */
import { ROUND_REQUEST } from '../../../rounds/bodies.js';
import type { GameSessionRow, NewRound, NextSeed, RoundRow, RoundWrite } from '../provider-store.js';
import type { Campaigns } from './campaigns.js';
import type { ProviderDatabase } from './provider-database.js';
import { insertRound } from './rounds.js';
import { readSession } from './sessions.js';

/** Why a real round's session did not move: nothing was written. */
export type RealConflict = { ok: false; conflict: 'nonce-moved' | 'campaign-used'; session: GameSessionRow };

export class RealRounds {
  private readonly statements;

  constructor(
    private readonly database: ProviderDatabase,
    private readonly campaigns: Campaigns,
  ) {
    this.statements = {
      advanceSeed: database.db.prepare(
        'UPDATE game_sessions SET server_seed_sealed = ?, server_seed_hash = ?, nonce = nonce + 1, last_active_at = ? WHERE id = ? AND nonce = ?',
      ),
    };
  }

  async beginRealRound(round: NewRound & { requestBody: string }, nextSeed: NextSeed): Promise<RoundWrite> {
    return this.database.savepoint((): RoundWrite => {
      const conflict = this.advance(round, nextSeed);
      if (conflict) return conflict;
      const itemId = this.database.enqueue(
        { operatorId: round.operatorId, orderingKey: round.roundId, ...ROUND_REQUEST, body: round.requestBody },
        round.createdAt,
      );
      // The body is the item's alone: the round reads it through dispatch_item_id.
      const pk = insertRound(this.database.db, {
        ...round,
        requestBody: null,
        campaignFinished: round.campaignFinished === null ? null : round.campaignFinished ? 1 : 0,
        status: 'pending',
        balanceAfterMinor: null,
        dispatchItemId: itemId,
        settledAt: null,
      });
      // The row as inserted, without reading it back.
      const row: RoundRow = {
        ...round,
        pk,
        kind: 'dice',
        reels: null,
        status: 'pending',
        refusalCode: null,
        refusalDetail: null,
        balanceAfterMinor: null,
        attempts: 0,
        dispatchItemId: itemId,
        settledAt: null,
      };
      return { ok: true, round: row };
    });
  }

  /**
   * A real round's move of its session, in the round's savepoint: a free
   * round must still fit its campaign, and the session must be at the nonce
   * the round was drawn at. Answers the conflict, or nothing once the
   * session has its next seed.
   */
  advance(round: NewRound, nextSeed: NextSeed): RealConflict | undefined {
    const { db } = this.database;
    if (round.campaignId !== null && !this.campaigns.freeRoundFits(round))
      return { ok: false, conflict: 'campaign-used', session: readSession(db, round.sessionPk) };
    const moved = this.statements.advanceSeed.run(nextSeed.sealed, nextSeed.hash, round.createdAt, round.sessionPk, round.nonce);
    if (moved.changes === 0) return { ok: false, conflict: 'nonce-moved', session: readSession(db, round.sessionPk) };
    return undefined;
  }
}
