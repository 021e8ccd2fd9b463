/**
 * The round log on PostgreSQL, as several families use it: a round read with
 * its outbox item's attempts, a dice round written, a reels round's waiting
 * call enqueued, and the jackpot pool moved. Each runs in the caller's
 * database transaction.
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import { PostgresOutbox } from '../../../dispatch/postgres/outbox.js';
import { ROUND_REQUEST } from '../../../rounds/bodies.js';
import type { NewRound, Row, RoundRow, RoundStatus } from '../provider-store.js';
import { roundOf, type Querier } from './rows.js';

/** Rounds as read, followed by the caller's WHERE: with their outbox item's attempts while they are pending, and its body (a dice round's). */
export function roundsSelect(db: Querier) {
  return db`SELECT r.*, d.attempts AS item_attempts, convert_from(d.body, 'UTF8') AS item_body
    FROM rounds r LEFT JOIN dispatch_items d ON d.id = r.dispatch_item_id`;
}

/** A reels round's calls as read, followed by the caller's WHERE: an enqueued call with its outbox item's body. */
export function callsSelect(db: Querier) {
  return db`SELECT c.*, convert_from(d.body, 'UTF8') AS item_body FROM round_calls c LEFT JOIN dispatch_items d ON d.id = c.dispatch_item_id`;
}

/** The round as the caller's transaction (or the pool) sees it now; it must exist. */
export async function readRound(db: Querier, pk: number): Promise<RoundRow> {
  const [row] = await db<Row[]>`${roundsSelect(db)} WHERE r.id = ${pk}`;
  assert.ok(row, `round ${pk} exists`);
  return roundOf(row);
}

/** Writes a dice round (real or fun) as given; answers its row as written. */
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

/** A reels round's call is in the outbox as `itemId`: no longer waiting, its body the item's alone. */
export async function callEnqueued(dbTx: postgres.TransactionSql, roundPk: number, index: number, itemId: number): Promise<void> {
  await dbTx`UPDATE round_calls SET status = 'pending', dispatch_item_id = ${itemId}, request_body = NULL
    WHERE round_pk = ${roundPk} AND call_index = ${index} AND status = 'waiting'`;
}

/** Enqueues a waiting call of a round (once: the conditional update claims it). Runs in the caller's database transaction. */
export async function enqueueCall(dbTx: postgres.TransactionSql, round: RoundRow, index: number, now: number): Promise<void> {
  const [call] = await dbTx<
    Row[]
  >`SELECT request_body FROM round_calls WHERE round_pk = ${round.pk} AND call_index = ${index} AND status = 'waiting' FOR UPDATE`;
  if (call === undefined) return;
  const body = call.request_body as string;
  const item = await PostgresOutbox.enqueue(
    dbTx,
    { operatorId: round.operatorId, orderingKey: round.roundId, kind: 'win', path: ROUND_REQUEST.path, body },
    now,
  );
  await callEnqueued(dbTx, round.pk, index, item.id);
}

/** Adds `amountMinor` (negative: takes) to a pool, never below 0. */
export async function addToPool(dbTx: postgres.TransactionSql, round: Pick<RoundRow, 'operatorId' | 'game' | 'currency'>, amountMinor: bigint): Promise<void> {
  await dbTx`UPDATE jackpot_pools SET amount = GREATEST(amount + ${amountMinor.toString()}::bigint, 0)
    WHERE operator_id = ${round.operatorId} AND game = ${round.game} AND currency = ${round.currency}`;
}

/** A refused bet's round gives back what it took from the pool: its contribution, or the pool it won less the seed it left. */
export async function returnToPool(dbTx: postgres.TransactionSql, round: RoundRow): Promise<void> {
  const reels = round.reels!;
  const back =
    reels.jackpotWinMinor === null ? -reels.jackpotContributionMinor : reels.jackpotWinMinor - reels.jackpotContributionMinor - reels.jackpotSeedMinor;
  await addToPool(dbTx, round, back);
}
