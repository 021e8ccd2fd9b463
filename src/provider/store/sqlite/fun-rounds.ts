/**
 * Fun rounds on SQLite: play money moves on the session itself. The move
 * (`move`) is written once for both games: a dice round's bet out and win
 * in, a reels round's bet out and its base spin's win and jackpot in, each
 * with the seed advanced, by one conditional update, never a balance read
 * first and written after.
 */
import assert from 'node:assert/strict';
import type { GameSessionRow, NewRound, NextSeed, RoundWrite } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { insertRound, readRound } from './rounds.js';
import { readSession } from './sessions.js';

/** A fun move's result: the balance it moved to, or why nothing moved. */
export type FunMove = { ok: true; balanceAfterMinor: bigint } | { ok: false; conflict: 'nonce-moved' | 'insufficient-funds'; session: GameSessionRow };

export class FunRounds {
  private readonly statements;

  constructor(private readonly database: ProviderDatabase) {
    this.statements = {
      funMove: database.db
        .prepare(
          `UPDATE game_sessions SET balance = balance - ? + ?, server_seed_sealed = ?, server_seed_hash = ?, nonce = nonce + 1,
          last_active_at = ?
        WHERE id = ? AND nonce = ? AND balance >= ?
        RETURNING balance`,
        )
        .pluck(),
    };
  }

  async playFunRound(round: NewRound, nextSeed: NextSeed): Promise<RoundWrite> {
    return this.database.savepoint((): RoundWrite => {
      const moved = this.move(round, round.winMinor, nextSeed);
      if (!moved.ok) return moved;
      const { balanceAfterMinor } = moved;
      const pk = insertRound(this.database.db, {
        ...round,
        campaignFinished: null,
        status: 'settled',
        balanceAfterMinor,
        dispatchItemId: null,
        settledAt: round.createdAt,
      });
      const logged = readRound(this.database.db, pk);
      assert.equal(logged.balanceAfterMinor, balanceAfterMinor, 'the round log holds the balance it moved to');
      return { ok: true, round: logged };
    });
  }

  /**
   * A fun round's move of its session, in the round's savepoint: the bet
   * out and `creditMinor` in, the seed advanced, only if the session is at
   * the round's nonce and its balance covers the bet. Answers the balance
   * after, or the conflict with the session as it is.
   */
  move(round: NewRound, creditMinor: bigint, nextSeed: NextSeed): FunMove {
    const moved = this.statements.funMove.get(
      round.betMinor,
      creditMinor,
      nextSeed.sealed,
      nextSeed.hash,
      round.createdAt,
      round.sessionPk,
      round.nonce,
      round.betMinor,
    );
    if (moved === undefined) {
      const session = readSession(this.database.db, round.sessionPk);
      return { ok: false, conflict: session.nonce === round.nonce ? 'insufficient-funds' : 'nonce-moved', session };
    }
    return { ok: true, balanceAfterMinor: moved as bigint };
  }
}
