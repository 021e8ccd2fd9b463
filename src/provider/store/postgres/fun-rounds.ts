/**
 * Fun rounds on PostgreSQL: play money moves on the session itself. The
 * move (`move`) is written once for both games: a dice round's bet out and
 * win in, a reels round's bet out and its base spin's win and jackpot in,
 * each with the seed advanced, by one conditional update, never a balance
 * read first and written after.
 */
import type postgres from 'postgres';
import type { GameSessionRow, NewRound, NextSeed, Row, RoundWrite } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { insertRound } from './rounds.js';
import { money, roundOf } from './rows.js';
import { readSession } from './sessions.js';

/** A fun move's result: the balance it moved to, or why nothing moved. */
export type FunMove = { ok: true; balanceAfterMinor: bigint } | { ok: false; conflict: 'nonce-moved' | 'insufficient-funds'; session: GameSessionRow };

export class FunRounds {
  constructor(private readonly database: ProviderDatabase) {}

  playFunRound(round: NewRound, nextSeed: NextSeed): Promise<RoundWrite> {
    return this.database.transaction(async (dbTx): Promise<RoundWrite> => {
      const moved = await this.move(dbTx, round, round.winMinor, nextSeed);
      if (!moved.ok) return moved;
      const { balanceAfterMinor } = moved;
      const [row] = await insertRound(
        dbTx,
        { ...round, campaignFinished: null },
        { status: 'settled', balanceAfterMinor, dispatchItemId: null, settledAt: round.createdAt },
      );
      return { ok: true, round: roundOf(row!) };
    });
  }

  /**
   * A fun round's move of its session, in the round's transaction: the bet
   * out and `creditMinor` in, the seed advanced, only if the session is at
   * the round's nonce and its balance covers the bet. Answers the balance
   * after, or the conflict with the session as it is.
   */
  async move(dbTx: postgres.TransactionSql, round: NewRound, creditMinor: bigint, nextSeed: NextSeed): Promise<FunMove> {
    const [moved] = await dbTx<Row[]>`
      UPDATE game_sessions SET balance = balance - ${round.betMinor.toString()} + ${creditMinor.toString()}, server_seed_sealed = ${nextSeed.sealed},
        server_seed_hash = ${nextSeed.hash}, nonce = nonce + 1, last_active_at = ${round.createdAt}
      WHERE id = ${round.sessionPk} AND nonce = ${round.nonce} AND balance >= ${round.betMinor.toString()}
      RETURNING balance`;
    if (moved === undefined) {
      const session = await readSession(dbTx, round.sessionPk);
      return { ok: false, conflict: session.nonce === round.nonce ? 'insufficient-funds' : 'nonce-moved', session };
    }
    return { ok: true, balanceAfterMinor: money(moved.balance) };
  }
}
