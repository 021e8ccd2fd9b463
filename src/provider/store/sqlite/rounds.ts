/**
 * The round log on SQLite, as several families use it: a round read with
 * its outbox item's attempts, a dice round written, a reels round's waiting
 * call enqueued, and the jackpot pool moved. Each runs in the caller's
 * savepoint, on statements prepared once per connection.
 */
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { ROUND_REQUEST } from '../../../rounds/bodies.js';
import type { Row, RoundRow } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { perConnection, roundOf } from './rows.js';

/** Rounds as read, selected by `where`: with their outbox item's attempts while they are pending, and its body (a dice round's). */
export function roundsWhere(db: Database.Database, where: string): Database.Statement {
  return db.prepare(`SELECT r.*, d.attempts AS item_attempts, CAST(d.body AS TEXT) AS item_body
    FROM rounds r LEFT JOIN dispatch_items d ON d.id = r.dispatch_item_id ${where}`);
}

/** A reels round's calls as read, selected by `where`: an enqueued call with its outbox item's body. */
export function callsWhere(db: Database.Database, where: string): Database.Statement {
  return db.prepare(`SELECT c.*, CAST(d.body AS TEXT) AS item_body FROM round_calls c LEFT JOIN dispatch_items d ON d.id = c.dispatch_item_id ${where}`);
}

const shared = perConnection((db) => ({
  roundByPk: roundsWhere(db, 'WHERE r.id = ?'),
  insertRound: db.prepare(`INSERT INTO rounds
    (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id, campaign_id, campaign_finished,
     chance_pct, threshold, roll, server_seed, server_seed_sealed, server_seed_hash, client_seed, nonce, request_body, status, balance_after, dispatch_item_id,
     created_at, settled_at)
    VALUES (@roundId, @sessionPk, @mode, @operatorId, @playerId, @game, @currency, @betMinor, @winMinor, @betTxId, @winTxId, @campaignId, @campaignFinished,
     @chancePct, @threshold, @roll, @serverSeed, @sealedSeed, @serverSeedHash, @clientSeed, @nonce, @requestBody, @status, @balanceAfterMinor, @dispatchItemId,
     @createdAt, @settledAt)`),
  waitingCall: db.prepare("SELECT request_body FROM round_calls WHERE round_pk = ? AND call_index = ? AND status = 'waiting'").pluck(),
  callEnqueued: db.prepare(
    "UPDATE round_calls SET status = 'pending', dispatch_item_id = ?, request_body = NULL WHERE round_pk = ? AND call_index = ? AND status = 'waiting'",
  ),
  addPool: db.prepare('UPDATE jackpot_pools SET amount = MAX(amount + ?, 0) WHERE operator_id = ? AND game = ? AND currency = ?'),
}));

/** The round as this connection sees it now (the open turn's writes included); it must exist. */
export function readRound(db: Database.Database, pk: number): RoundRow {
  const row = shared(db).roundByPk.get(pk) as Row | undefined;
  assert.ok(row, `round ${pk} exists`);
  return roundOf(row);
}

/** Writes a dice round (real or fun) as given; answers its pk. */
export function insertRound(db: Database.Database, values: Record<string, unknown>): number {
  return Number(shared(db).insertRound.run(values).lastInsertRowid);
}

/** A reels round's call is in the outbox as `itemId`: no longer waiting, its body the item's alone. */
export function callEnqueued(db: Database.Database, roundPk: number, index: number, itemId: number): void {
  shared(db).callEnqueued.run(itemId, roundPk, index);
}

/** Enqueues a waiting call of a round (once: a call already enqueued is left as it is). Runs in the caller's database transaction. */
export function enqueueCall(database: ProviderDatabase, round: RoundRow, index: number, now: number): void {
  const body = shared(database.db).waitingCall.get(round.pk, index) as string | undefined;
  if (body === undefined) return;
  const itemId = database.enqueue({ operatorId: round.operatorId, orderingKey: round.roundId, kind: 'win', path: ROUND_REQUEST.path, body }, now);
  callEnqueued(database.db, round.pk, index, itemId);
}

/** Adds `amountMinor` (negative: takes) to a pool, never below 0. */
export function addToPool(db: Database.Database, round: Pick<RoundRow, 'operatorId' | 'game' | 'currency'>, amountMinor: bigint): void {
  shared(db).addPool.run(amountMinor, round.operatorId, round.game, round.currency);
}

/** A refused bet's round gives back what it took from the pool: its contribution, or the pool it won less the seed it left. */
export function returnToPool(db: Database.Database, round: RoundRow): void {
  const reels = round.reels!;
  const back =
    reels.jackpotWinMinor === null ? -reels.jackpotContributionMinor : reels.jackpotWinMinor - reels.jackpotContributionMinor - reels.jackpotSeedMinor;
  addToPool(db, round, back);
}
