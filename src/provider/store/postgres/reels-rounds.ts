/**
 * Reels rounds and their free spins on PostgreSQL: a round written whole
 * with its jackpot pool's move and every call's body (real: the bet's call
 * enqueued), in one transaction; free spins revealed under a condition on
 * how many were, the feature's call enqueued or its fun wins paid when they
 * are all played.
 */
import type postgres from 'postgres';
import { PostgresOutbox } from '../../../dispatch/postgres/outbox.js';
import { ROUND_REQUEST } from '../../../rounds/bodies.js';
import { assertRevealable, featureDone } from '../../../rounds/completion.js';
import type { FreeSpinWrite, NewReelsRound, NextSeed, Row, RoundWrite } from '../provider-store.js';
import type { FunRounds } from './fun-rounds.js';
import type { ProviderDatabase } from './provider-database.js';
import type { RealRounds } from './real-rounds.js';
import { addToPool, callEnqueued, enqueueCall, readRound } from './rounds.js';
import { int, money, roundOf } from './rows.js';

export class ReelsRounds {
  constructor(
    private readonly database: ProviderDatabase,
    private readonly real: RealRounds,
    private readonly fun: FunRounds,
  ) {}

  beginReelsRound(round: NewReelsRound, nextSeed: NextSeed): Promise<RoundWrite> {
    const { plan } = round;
    return this.database.transaction(async (dbTx): Promise<RoundWrite> => {
      let jackpotWinMinor: bigint | null = null;
      let balanceAfterMinor: bigint | null = null;
      if (round.mode === 'fun') {
        // A fun jackpot pays the seed: play money has no pool.
        jackpotWinMinor = plan.jackpotHit ? plan.jackpotSeedMinor : null;
        const moved = await this.fun.move(dbTx, round, plan.baseWinMinor + (jackpotWinMinor ?? 0n), nextSeed);
        if (!moved.ok) return moved;
        balanceAfterMinor = moved.balanceAfterMinor;
      } else {
        const conflict = await this.real.advance(dbTx, round, nextSeed);
        if (conflict) return conflict;
        jackpotWinMinor = await this.takeFromPool(dbTx, round);
      }
      const bodies = round.mode === 'real' ? round.callBodies!(jackpotWinMinor ?? undefined) : [];
      const settledNow = round.mode === 'fun' && plan.freeSpins === 0;
      const win = round.winMinor + (jackpotWinMinor ?? 0n);
      const [row] = await dbTx<Row[]>`
        INSERT INTO rounds
          (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id, campaign_id, campaign_finished,
           chance_pct, threshold, roll, server_seed, server_seed_sealed, server_seed_hash, client_seed, nonce, request_body, status, balance_after,
           dispatch_item_id, created_at, settled_at, kind, reels_rtp_bp, reels_jackpot_bp, base_win, feature_win, jackpot_contribution, jackpot_win, jackpot_seed,
           free_spins, free_spins_played, calls, calls_done)
        VALUES (${round.roundId}, ${round.sessionPk}, ${round.mode}, ${round.operatorId}, ${round.playerId}, ${round.game}, ${round.currency},
          ${round.betMinor.toString()}, ${win.toString()}, ${round.betTxId}, ${round.winTxId}, ${round.campaignId}, ${round.campaignFinished},
          0, 0, 0, ${round.serverSeed}, ${round.sealedSeed}, ${round.serverSeedHash}, ${round.clientSeed}, ${round.nonce}, NULL, ${settledNow ? 'settled' : 'pending'},
          ${balanceAfterMinor?.toString() ?? null}, NULL, ${round.createdAt}, ${settledNow ? round.createdAt : null}, 'reels', ${plan.rtpBp},
          ${plan.jackpotBp}, ${plan.baseWinMinor.toString()}, ${plan.featureWinMinor.toString()}, ${plan.jackpotContributionMinor.toString()},
          ${jackpotWinMinor?.toString() ?? null}, ${plan.jackpotSeedMinor.toString()}, ${plan.freeSpins}, 0, ${bodies.length}, 0)
        RETURNING id`;
      const pk = int(row!.id);
      for (const [index, body] of bodies.entries()) {
        await dbTx`INSERT INTO round_calls (round_pk, call_index, request_body, status) VALUES (${pk}, ${index + 1}, ${body}, 'waiting')`;
      }
      if (bodies.length > 0) {
        const item = await PostgresOutbox.enqueue(
          dbTx,
          { operatorId: round.operatorId, orderingKey: round.roundId, ...ROUND_REQUEST, body: bodies[0]! },
          round.createdAt,
        );
        await callEnqueued(dbTx, pk, 1, item.id);
        await dbTx`UPDATE rounds SET dispatch_item_id = ${item.id} WHERE id = ${pk}`;
      }
      return { ok: true, round: await readRound(dbTx, pk) };
    });
  }

  /**
   * A real round's move of its jackpot pool (made at the seed): the bet's
   * contribution in, or, on a jackpot, the pool (the contribution included)
   * taken and reset to the seed, under the pool's row lock to the commit:
   * of two nodes' jackpot rounds, the later reads the pool the earlier left.
   * Answers the jackpot won, if any.
   */
  private async takeFromPool(dbTx: postgres.TransactionSql, round: NewReelsRound): Promise<bigint | null> {
    const { plan } = round;
    await dbTx`INSERT INTO jackpot_pools (operator_id, game, currency, amount)
      VALUES (${round.operatorId}, ${round.game}, ${round.currency}, ${plan.jackpotSeedMinor.toString()}) ON CONFLICT DO NOTHING`;
    const [pool] = await dbTx<Row[]>`SELECT amount FROM jackpot_pools
      WHERE operator_id = ${round.operatorId} AND game = ${round.game} AND currency = ${round.currency} FOR UPDATE`;
    if (!plan.jackpotHit) {
      await addToPool(dbTx, round, plan.jackpotContributionMinor);
      return null;
    }
    const won = money(pool!.amount) + plan.jackpotContributionMinor;
    await dbTx`UPDATE jackpot_pools SET amount = ${plan.jackpotSeedMinor.toString()}
      WHERE operator_id = ${round.operatorId} AND game = ${round.game} AND currency = ${round.currency}`;
    return won;
  }

  playFreeSpins(roundPk: number, played: number, upTo: number, now: number, serverSeed: string, completedAt?: number): Promise<FreeSpinWrite> {
    return this.database.transaction(async (dbTx): Promise<FreeSpinWrite> => {
      const moved = async (): Promise<FreeSpinWrite> => ({ ok: false, conflict: 'moved', round: await readRound(dbTx, roundPk) });
      if (upTo <= played) return moved();
      // The row lock orders this against the hook of the base spin's call (finishCall).
      const [updated] = await dbTx<Row[]>`
        UPDATE rounds SET free_spins_played = ${upTo}, completed_at = COALESCE(${completedAt ?? null}::bigint, completed_at)
        WHERE id = ${roundPk} AND kind = 'reels' AND status = 'pending' AND free_spins_played = ${played} AND ${upTo} <= free_spins
        RETURNING *`;
      if (updated === undefined) return moved();
      const round = roundOf(updated);
      const reels = round.reels!;
      if (featureDone(reels)) {
        assertRevealable(round, serverSeed);
        await dbTx`UPDATE rounds SET server_seed = ${serverSeed}, server_seed_sealed = NULL WHERE id = ${roundPk}`;
        if (round.mode === 'fun') {
          const [session] = await dbTx<Row[]>`UPDATE game_sessions SET balance = balance + ${reels.featureWinMinor.toString()}, last_active_at = ${now}
            WHERE id = ${round.sessionPk} RETURNING balance`;
          await dbTx`UPDATE rounds SET status = 'settled', settled_at = ${now}, balance_after = ${session!.balance as string} WHERE id = ${roundPk} AND status = 'pending'`;
        } else if (reels.callsDone >= 2) {
          await enqueueCall(dbTx, round, 3, now);
        }
      }
      return { ok: true, round: await readRound(dbTx, roundPk) };
    });
  }
}
