/**
 * The free-bet campaigns' statements on SQLite: a campaign, its players,
 * and the rounds a player has used of it. Prepared once, when the store
 * opens; provider-store.ts runs them in its turns.
 */
import type Database from 'better-sqlite3';
import { prepared } from './rows.js';

export function campaignStatements(db: Database.Database) {
  return prepared({
    insertCampaign: db.prepare(`INSERT INTO campaigns (campaign_id, operator_id, game, currency, bet, rounds, expires_at, created_at)
      VALUES (@campaignId, @operatorId, @game, @currency, @betMinor, @rounds, @expiresAt, @createdAt)`),
    campaignById: db.prepare('SELECT * FROM campaigns WHERE campaign_id = ?'),
    insertCampaignPlayer: db.prepare('INSERT INTO campaign_players (campaign_pk, player_id) VALUES (?, ?) ON CONFLICT DO NOTHING'),
    playersOfCampaign: db.prepare('SELECT player_id FROM campaign_players WHERE campaign_pk = ? ORDER BY player_id'),
    campaignsOfPlayer: db.prepare(`SELECT c.* FROM campaigns c JOIN campaign_players p ON p.campaign_pk = c.id
      WHERE p.player_id = ? AND c.operator_id = ? AND c.game = ? AND c.currency = ? AND (c.expires_at IS NULL OR c.expires_at > ?)
      ORDER BY c.id`),
    campaignRoundsUsed: db.prepare(
      "SELECT count(*) AS used FROM rounds WHERE campaign_id = ? AND operator_id = ? AND player_id = ? AND status <> 'refused'",
    ),
  });
}
