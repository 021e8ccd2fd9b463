/**
 * Reels rounds and their free spins on SQLite: a round written whole with
 * its jackpot pool's move and every call's body (real: the bet's call
 * enqueued), in one savepoint; free spins revealed under a condition on
 * how many were, the feature's call enqueued or its fun wins paid when they
 * are all played.
 */
import { ROUND_REQUEST } from '../../../rounds/bodies.js';
import { assertRevealable, featureDone } from '../../../rounds/completion.js';
import type { FreeSpinWrite, NewReelsRound, NextSeed, RoundWrite } from '../provider-store.js';
import type { FunRounds } from './fun-rounds.js';
import type { ProviderDatabase } from './provider-database.js';
import type { RealRounds } from './real-rounds.js';
import { addToPool, callEnqueued, enqueueCall, readRound } from './rounds.js';

export class ReelsRounds {
  private readonly statements;

  constructor(
    private readonly database: ProviderDatabase,
    private readonly real: RealRounds,
    private readonly fun: FunRounds,
  ) {
    const { db } = database;
    this.statements = {
      insertReelsRound: db.prepare(`INSERT INTO rounds
        (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id, campaign_id, campaign_finished,
         chance_pct, threshold, roll, server_seed, server_seed_sealed, server_seed_hash, client_seed, nonce, request_body, status, balance_after, dispatch_item_id,
         created_at, settled_at, kind, reels_rtp_bp, reels_jackpot_bp, base_win, feature_win, jackpot_contribution, jackpot_win, jackpot_seed, free_spins,
         free_spins_played, calls, calls_done)
        VALUES (@roundId, @sessionPk, @mode, @operatorId, @playerId, @game, @currency, @betMinor, @winMinor, @betTxId, @winTxId, @campaignId, @campaignFinished,
         0, 0, 0, @serverSeed, @sealedSeed, @serverSeedHash, @clientSeed, @nonce, NULL, @status, @balanceAfterMinor, NULL, @createdAt, @settledAt,
         'reels', @rtpBp, @jackpotBp, @baseWinMinor, @featureWinMinor, @jackpotContributionMinor, @jackpotWinMinor, @jackpotSeedMinor, @freeSpins, 0, @calls, 0)`),
      setRoundItem: db.prepare('UPDATE rounds SET dispatch_item_id = ? WHERE id = ?'),
      insertCall: db.prepare("INSERT INTO round_calls (round_pk, call_index, request_body, status) VALUES (?, ?, ?, 'waiting')"),
      insertPool: db.prepare('INSERT INTO jackpot_pools (operator_id, game, currency, amount) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
      poolAmount: db.prepare('SELECT amount FROM jackpot_pools WHERE operator_id = ? AND game = ? AND currency = ?').pluck(),
      setPool: db.prepare('UPDATE jackpot_pools SET amount = ? WHERE operator_id = ? AND game = ? AND currency = ?'),
      revealSpins: db.prepare(`UPDATE rounds SET free_spins_played = ?, completed_at = COALESCE(?, completed_at)
        WHERE id = ? AND kind = 'reels' AND status = 'pending' AND free_spins_played = ? AND ? <= free_spins`),
      revealSeed: db.prepare('UPDATE rounds SET server_seed = ?, server_seed_sealed = NULL WHERE id = ?'),
      funFeaturePaid: db.prepare('UPDATE game_sessions SET balance = balance + ?, last_active_at = ? WHERE id = ? RETURNING balance').pluck(),
      funFeatureSettled: db.prepare("UPDATE rounds SET status = 'settled', settled_at = ?, balance_after = ? WHERE id = ? AND status = 'pending'"),
    };
  }

  async beginReelsRound(round: NewReelsRound, nextSeed: NextSeed): Promise<RoundWrite> {
    const { plan } = round;
    return this.database.savepoint((): RoundWrite => {
      let jackpotWinMinor: bigint | null = null;
      let balanceAfterMinor: bigint | null = null;
      if (round.mode === 'fun') {
        // A fun jackpot pays the seed: play money has no pool.
        jackpotWinMinor = plan.jackpotHit ? plan.jackpotSeedMinor : null;
        const moved = this.fun.move(round, plan.baseWinMinor + (jackpotWinMinor ?? 0n), nextSeed);
        if (!moved.ok) return moved;
        balanceAfterMinor = moved.balanceAfterMinor;
      } else {
        const conflict = this.real.advance(round, nextSeed);
        if (conflict) return conflict;
        jackpotWinMinor = this.takeFromPool(round);
      }
      const bodies = round.mode === 'real' ? round.callBodies!(jackpotWinMinor ?? undefined) : [];
      const settledNow = round.mode === 'fun' && plan.freeSpins === 0;
      const inserted = this.statements.insertReelsRound.run({
        ...round,
        winMinor: round.winMinor + (jackpotWinMinor ?? 0n),
        campaignFinished: round.campaignFinished === null ? null : round.campaignFinished ? 1 : 0,
        status: settledNow ? 'settled' : 'pending',
        balanceAfterMinor,
        settledAt: settledNow ? round.createdAt : null,
        ...plan,
        jackpotWinMinor,
        calls: bodies.length,
      });
      const pk = Number(inserted.lastInsertRowid);
      bodies.forEach((body, index) => this.statements.insertCall.run(pk, index + 1, body));
      if (bodies.length > 0) {
        const itemId = this.database.enqueue({ operatorId: round.operatorId, orderingKey: round.roundId, ...ROUND_REQUEST, body: bodies[0]! }, round.createdAt);
        callEnqueued(this.database.db, pk, 1, itemId);
        this.statements.setRoundItem.run(itemId, pk);
      }
      return { ok: true, round: readRound(this.database.db, pk) };
    });
  }

  /**
   * A real round's move of its jackpot pool (made at the seed): the bet's
   * contribution in, or, on a jackpot, the pool (the contribution included)
   * taken and reset to the seed. Answers the jackpot won, if any.
   */
  private takeFromPool(round: NewReelsRound): bigint | null {
    const { plan } = round;
    const pool = [round.operatorId, round.game, round.currency] as const;
    this.statements.insertPool.run(...pool, plan.jackpotSeedMinor);
    if (!plan.jackpotHit) {
      addToPool(this.database.db, round, plan.jackpotContributionMinor);
      return null;
    }
    const won = (this.statements.poolAmount.get(...pool) as bigint) + plan.jackpotContributionMinor;
    this.statements.setPool.run(plan.jackpotSeedMinor, ...pool);
    return won;
  }

  async playFreeSpins(roundPk: number, played: number, upTo: number, now: number, serverSeed: string, completedAt?: number): Promise<FreeSpinWrite> {
    const { db } = this.database;
    if (upTo <= played) return { ok: false, conflict: 'moved', round: readRound(db, roundPk) };
    return this.database.savepoint((): FreeSpinWrite => {
      const moved = this.statements.revealSpins.run(upTo, completedAt ?? null, roundPk, played, upTo);
      if (moved.changes === 0) return { ok: false, conflict: 'moved', round: readRound(db, roundPk) };
      const round = readRound(db, roundPk);
      const reels = round.reels!;
      if (featureDone(reels)) {
        assertRevealable(round, serverSeed);
        this.statements.revealSeed.run(serverSeed, roundPk);
        if (round.mode === 'fun') {
          const balance = this.statements.funFeaturePaid.get(reels.featureWinMinor, now, round.sessionPk) as bigint;
          this.statements.funFeatureSettled.run(now, balance, roundPk);
        } else if (reels.callsDone >= 2) {
          enqueueCall(this.database, round, 3, now);
        }
      }
      return { ok: true, round: readRound(db, roundPk) };
    });
  }
}
