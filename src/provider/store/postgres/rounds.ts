/**
 * The round log's queries on PostgreSQL that several of the store's
 * operations share: a round as read, a round written, a reels round's
 * waiting call enqueued, and a refused round's jackpot contribution given
 * back; each runs in the caller's database transaction.
 */
import type postgres from 'postgres';
import { PostgresOutbox } from '../../../dispatch/postgres/outbox.js';
import { ROUND_REQUEST } from '../../../rounds/bodies.js';
import {
  type NewRound,
  type Row,
  type RoundRow,
  type RoundStatus,
} from '../provider-store.js';
import type { Querier } from './rows.js';

/** A round as read: its outbox item's attempts while it is pending. */
export function roundsSelect(db: Querier) {
  return db`SELECT r.*, d.attempts AS item_attempts FROM rounds r LEFT JOIN dispatch_items d ON d.id = r.dispatch_item_id`;
}

/** Enqueues a waiting call of a round (once: the conditional update claims it). Runs in the caller's database transaction. */
export async function enqueueCall(dbTx: postgres.TransactionSql, round: RoundRow, index: number, now: number): Promise<void> {
  const [call] = await dbTx<Row[]>`SELECT request_body FROM round_calls WHERE round_pk = ${round.pk} AND call_index = ${index} AND status = 'waiting' FOR UPDATE`;
  if (call === undefined) return;
  const item = await PostgresOutbox.enqueue(
    dbTx,
    { operatorId: round.operatorId, orderingKey: round.roundId, kind: 'win', path: ROUND_REQUEST.path, body: call.request_body as string },
    now,
  );
  await dbTx`UPDATE round_calls SET status = 'pending', dispatch_item_id = ${item.id} WHERE round_pk = ${round.pk} AND call_index = ${index} AND status = 'waiting'`;
}

/** A refused bet's round gives back what it took from the pool: its contribution, or the pool it won less the seed it left. Never below 0. */
export async function returnToPool(dbTx: postgres.TransactionSql, round: RoundRow): Promise<void> {
  const reels = round.reels!;
  const back = reels.jackpotWinMinor === null ? -reels.jackpotContributionMinor : reels.jackpotWinMinor - reels.jackpotContributionMinor - reels.jackpotSeedMinor;
  await dbTx`UPDATE jackpot_pools SET amount = GREATEST(amount + ${back.toString()}::bigint, 0)
    WHERE operator_id = ${round.operatorId} AND game = ${round.game} AND currency = ${round.currency}`;
}

export function insertRound(
  dbTx: postgres.TransactionSql,
  round: NewRound,
  state: { status: RoundStatus; balanceAfterMinor: bigint | null; dispatchItemId: number | null; settledAt: number | null },
) {
  return dbTx<Row[]>`
    INSERT INTO rounds
      (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id, campaign_id, campaign_finished,
       chance_pct, threshold, roll, server_seed, server_seed_sealed, server_seed_hash, client_seed, nonce, request_body, status, balance_after,
       dispatch_item_id, created_at, settled_at)
    VALUES (${round.roundId}, ${round.sessionPk}, ${round.mode}, ${round.operatorId}, ${round.playerId}, ${round.game}, ${round.currency},
      ${round.betMinor.toString()}, ${round.winMinor.toString()}, ${round.betTxId}, ${round.winTxId}, ${round.campaignId}, ${round.campaignFinished},
      ${round.chancePct}, ${round.threshold}, ${round.roll}, ${round.serverSeed}, ${round.sealedSeed}, ${round.serverSeedHash}, ${round.clientSeed}, ${round.nonce},
      ${round.requestBody}, ${state.status}, ${state.balanceAfterMinor?.toString() ?? null}, ${state.dispatchItemId}, ${round.createdAt}, ${state.settledAt})
    RETURNING *`;
}
