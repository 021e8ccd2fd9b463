/**
 * The round log's statements on SQLite: real, fun and reels rounds, a reels
 * round's calls, each enqueued by the answer before it, the sealed and
 * revealed seeds, and the jackpot pools. Prepared once, when the store
 * opens; provider-store.ts runs them in its turns.
 */
import type Database from 'better-sqlite3';
import { IN_SCOPE, prepared } from './rows.js';

export function roundStatements(db: Database.Database) {
  // A round as read: its outbox item's attempts while it is pending.
  const roundsWhere = (where: string) =>
    db.prepare(`SELECT r.*, d.attempts AS item_attempts FROM rounds r LEFT JOIN dispatch_items d ON d.id = r.dispatch_item_id ${where}`);
  return prepared({
    insertRound: db.prepare(`INSERT INTO rounds
      (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id, campaign_id, campaign_finished,
       chance_pct, threshold, roll, server_seed, server_seed_sealed, server_seed_hash, client_seed, nonce, request_body, status, balance_after, dispatch_item_id,
       created_at, settled_at)
      VALUES (@roundId, @sessionPk, @mode, @operatorId, @playerId, @game, @currency, @betMinor, @winMinor, @betTxId, @winTxId, @campaignId, @campaignFinished,
       @chancePct, @threshold, @roll, @serverSeed, @sealedSeed, @serverSeedHash, @clientSeed, @nonce, @requestBody, @status, @balanceAfterMinor, @dispatchItemId,
       @createdAt, @settledAt)`),
    finishRound: db.prepare(
      "UPDATE rounds SET status = ?, refusal_code = ?, refusal_detail = ?, balance_after = ?, attempts = ?, settled_at = ? WHERE id = ? AND status = 'pending' RETURNING *",
    ),
    roundByPk: roundsWhere('WHERE r.id = ?'),
    // What an outcome needs of its round, not the whole row: the hook runs once per round, in the turn.
    roundOfItem: db.prepare('SELECT id, status, currency FROM rounds WHERE dispatch_item_id = ?'),
    pendingOfSession: roundsWhere("WHERE r.session_pk = ? AND r.status = 'pending' ORDER BY r.id"),
    recentOfSession: roundsWhere("WHERE r.session_pk = ? AND r.status <> 'refused' ORDER BY r.id DESC LIMIT ?"),
    roundOfSession: roundsWhere("WHERE r.session_pk = ? AND r.round_id = ? AND r.status <> 'refused'"),
    // A scope is a JSON array of operator ids, or NULL for all (a staff account's, access/staff.ts).
    listRounds: roundsWhere(`WHERE r.id < ? AND ${IN_SCOPE('r')} ORDER BY r.id DESC LIMIT ?`),
    insertReelsRound: db.prepare(`INSERT INTO rounds
      (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id, campaign_id, campaign_finished,
       chance_pct, threshold, roll, server_seed, server_seed_sealed, server_seed_hash, client_seed, nonce, request_body, status, balance_after, dispatch_item_id, created_at, settled_at,
       kind, reels_rtp_bp, reels_jackpot_bp, base_win, feature_win, jackpot_contribution, jackpot_win, jackpot_seed, free_spins, free_spins_played, calls, calls_done)
      VALUES (@roundId, @sessionPk, @mode, @operatorId, @playerId, @game, @currency, @betMinor, @winMinor, @betTxId, @winTxId, @campaignId, @campaignFinished,
       0, 0, 0, @serverSeed, @sealedSeed, @serverSeedHash, @clientSeed, @nonce, NULL, @status, @balanceAfterMinor, NULL, @createdAt, @settledAt,
       'reels', @rtpBp, @jackpotBp, @baseWinMinor, @featureWinMinor, @jackpotContributionMinor, @jackpotWinMinor, @jackpotSeedMinor, @freeSpins, 0, @calls, 0)`),
    setRoundItem: db.prepare('UPDATE rounds SET dispatch_item_id = ? WHERE id = ?'),
    insertCall: db.prepare("INSERT INTO round_calls (round_pk, call_index, request_body, status) VALUES (?, ?, ?, 'waiting')"),
    waitingCall: db.prepare("SELECT request_body FROM round_calls WHERE round_pk = ? AND call_index = ? AND status = 'waiting'"),
    callEnqueued: db.prepare("UPDATE round_calls SET status = 'pending', dispatch_item_id = ? WHERE round_pk = ? AND call_index = ? AND status = 'waiting'"),
    callOfItem: db.prepare('SELECT * FROM round_calls WHERE dispatch_item_id = ?'),
    callsOfRound: db.prepare('SELECT * FROM round_calls WHERE round_pk = ? ORDER BY call_index'),
    finishCall: db.prepare(
      "UPDATE round_calls SET status = ?, refusal_code = ?, refusal_detail = ?, balance_after = ?, finished_at = ? WHERE round_pk = ? AND call_index = ? AND status = 'pending'",
    ),
    callDone: db.prepare('UPDATE rounds SET calls_done = calls_done + 1, balance_after = COALESCE(?, balance_after), attempts = attempts + ? WHERE id = ?'),
    endReels: db.prepare("UPDATE rounds SET status = ?, settled_at = ? WHERE id = ? AND status = 'pending'"),
    noteRefusal: db.prepare('UPDATE rounds SET refusal_code = ?, refusal_detail = ? WHERE id = ?'),
    refuseReels: db.prepare("UPDATE rounds SET status = 'refused', refusal_code = ?, refusal_detail = ?, balance_after = ?, settled_at = ? WHERE id = ? AND status = 'pending'"),
    revealSpins: db.prepare(`UPDATE rounds SET free_spins_played = ?, completed_at = COALESCE(?, completed_at)
      WHERE id = ? AND kind = 'reels' AND status = 'pending' AND free_spins_played = ? AND ? <= free_spins`),
    revealSeed: db.prepare('UPDATE rounds SET server_seed = ?, server_seed_sealed = NULL WHERE id = ?'),
    roundsUnsealed: db.prepare(
      "SELECT id, round_id, server_seed FROM rounds WHERE kind = 'reels' AND server_seed IS NOT NULL AND free_spins_played < free_spins ORDER BY id",
    ),
    sealRound: db.prepare('UPDATE rounds SET server_seed_sealed = ?, server_seed = NULL WHERE id = ? AND server_seed = ?'),
    funFeatureSettled: db.prepare("UPDATE rounds SET status = 'settled', settled_at = ?, balance_after = ? WHERE id = ? AND status = 'pending'"),
    unfinishedFeatures: roundsWhere(
      "WHERE r.kind = 'reels' AND r.status = 'pending' AND r.free_spins_played < r.free_spins AND r.created_at <= ? ORDER BY r.created_at, r.id LIMIT ?",
    ),
    insertPool: db.prepare('INSERT INTO jackpot_pools (operator_id, game, currency, amount) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
    poolAmount: db.prepare('SELECT amount FROM jackpot_pools WHERE operator_id = ? AND game = ? AND currency = ?').pluck(),
    setPool: db.prepare('UPDATE jackpot_pools SET amount = ? WHERE operator_id = ? AND game = ? AND currency = ?'),
    addPool: db.prepare('UPDATE jackpot_pools SET amount = MAX(amount + ?, 0) WHERE operator_id = ? AND game = ? AND currency = ?'),
  });
}
