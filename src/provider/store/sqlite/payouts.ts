/**
 * The tournament payouts' statements on SQLite: a payout written with its
 * /payout request's outbox item, the session it is paid into, and its
 * finish. Prepared once, when the store opens; provider-store.ts runs them
 * in its turns.
 */
import type Database from 'better-sqlite3';
import { IN_SCOPE, prepared } from './rows.js';

export function payoutStatements(db: Database.Database) {
  // A payout as read, with its outbox item's attempts.
  const payoutsWhere = (where: string) =>
    db.prepare(`SELECT p.*, d.attempts AS item_attempts FROM payouts p JOIN dispatch_items d ON d.id = p.dispatch_item_id ${where}`);
  return prepared({
    latestRealSession: db.prepare(`SELECT * FROM game_sessions
      WHERE mode = 'real' AND operator_id = ? AND player_id = ? AND operator_session_id IS NOT NULL
      ORDER BY last_active_at DESC, id DESC LIMIT 1`),
    insertPayout: db.prepare(`INSERT INTO payouts
      (payout_id, operator_id, player_id, currency, amount, campaign_id, operator_session_id, dispatch_item_id, status, created_at)
      VALUES (@payoutId, @operatorId, @playerId, @currency, @amountMinor, @campaignId, @operatorSessionId, @dispatchItemId, 'pending', @createdAt)`),
    payoutById: payoutsWhere('WHERE p.payout_id = ?'),
    payoutOfItem: payoutsWhere('WHERE p.dispatch_item_id = ?'),
    listPayouts: payoutsWhere(`WHERE p.id < ? AND ${IN_SCOPE('p')} ORDER BY p.id DESC LIMIT ?`),
    listPayoutsByStatus: payoutsWhere(`WHERE p.status = ? AND p.id < ? AND ${IN_SCOPE('p')} ORDER BY p.id DESC LIMIT ?`),
    finishPayout: db.prepare(
      "UPDATE payouts SET status = ?, balance_after = ?, refusal_code = ?, refusal_detail = ?, settled_at = ? WHERE id = ? AND status = 'pending'",
    ),

  });
}
