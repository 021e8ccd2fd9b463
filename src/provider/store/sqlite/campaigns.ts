/**
 * The free-bet campaigns on SQLite: a campaign put with its players, read,
 * listed for a player, and the rounds a player has used of it, which a free
 * round's savepoint counts before it is written (`freeRoundFits`).
 */
import type { AuditEntry } from '../../../access/staff.js';
import { freeRoundFits, sameCampaign } from '../../../rounds/sameness.js';
import type { CampaignRow, CampaignWrite, NewRound, Row } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { campaignOf, num } from './rows.js';

export class Campaigns {
  private readonly statements;

  constructor(private readonly database: ProviderDatabase) {
    const { db } = database;
    this.statements = {
      insertCampaign: db.prepare(`INSERT INTO campaigns (campaign_id, operator_id, game, currency, bet, rounds, expires_at, created_at)
        VALUES (@campaignId, @operatorId, @game, @currency, @betMinor, @rounds, @expiresAt, @createdAt)`),
      campaignById: db.prepare('SELECT * FROM campaigns WHERE campaign_id = ?'),
      insertCampaignPlayer: db.prepare('INSERT INTO campaign_players (campaign_pk, player_id) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      playersOfCampaign: db.prepare('SELECT player_id FROM campaign_players WHERE campaign_pk = ? ORDER BY player_id'),
      campaignsOfPlayer: db.prepare(`SELECT c.* FROM campaigns c JOIN campaign_players p ON p.campaign_pk = c.id
        WHERE p.player_id = ? AND c.operator_id = ? AND c.game = ? AND c.currency = ? AND (c.expires_at IS NULL OR c.expires_at > ?)
        ORDER BY c.id`),
      campaignRoundsUsed: db.prepare("SELECT count(*) AS used FROM rounds WHERE campaign_id = ? AND operator_id = ? AND player_id = ? AND status <> 'refused'"),
    };
  }

  async putCampaign(campaign: CampaignRow, players: readonly string[], audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<CampaignWrite> {
    return this.database.savepoint((): CampaignWrite => {
      const found = this.statements.campaignById.get(campaign.campaignId) as Row | undefined;
      if (found) {
        if (!sameCampaign(campaignOf(found), campaign)) return 'conflict';
        // Players may be added to a campaign; none is ever removed.
        for (const player of players) this.statements.insertCampaignPlayer.run(found.id, player);
        if (audit) this.database.staff.appendAudit(audit('exists'));
        return 'exists';
      }
      const inserted = this.statements.insertCampaign.run({ ...campaign });
      for (const player of players) this.statements.insertCampaignPlayer.run(inserted.lastInsertRowid, player);
      // In the campaign's savepoint: the campaign and its audit row commit together.
      if (audit) this.database.staff.appendAudit(audit('created'));
      return 'created';
    });
  }

  async campaign(campaignId: string): Promise<(CampaignRow & { players: string[] }) | undefined> {
    const row = this.statements.campaignById.get(campaignId) as Row | undefined;
    if (!row) return undefined;
    const players = (this.statements.playersOfCampaign.all(row.id) as Row[]).map((p) => p.player_id as string);
    return { ...campaignOf(row), players };
  }

  async campaignsOf(operatorId: string, playerId: string, game: string, currency: string, now: number): Promise<CampaignRow[]> {
    return (this.statements.campaignsOfPlayer.all(playerId, operatorId, game, currency, now) as Row[]).map(campaignOf);
  }

  async campaignRoundsUsed(campaignId: string, operatorId: string, playerId: string): Promise<number> {
    return this.roundsUsed(campaignId, operatorId, playerId);
  }

  /**
   * A free round's campaign, as the round's savepoint sees it: a round left,
   * and the round the last exactly when it says so. Nothing else writes in
   * between: the count and the round's write are one synchronous step.
   */
  freeRoundFits(round: NewRound): boolean {
    const campaign = this.statements.campaignById.get(round.campaignId) as Row | undefined;
    if (campaign === undefined || round.playerId === null) return false;
    return freeRoundFits(round, this.roundsUsed(round.campaignId!, round.operatorId, round.playerId), num(campaign.rounds));
  }

  private roundsUsed(campaignId: string, operatorId: string, playerId: string): number {
    const row = this.statements.campaignRoundsUsed.get(campaignId, operatorId, playerId) as Row;
    return num(row.used);
  }
}
