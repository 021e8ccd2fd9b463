/**
 * The free-bet campaigns on PostgreSQL: a campaign put with its players,
 * read, listed for a player, and the rounds a player has used of it, which
 * a free round's transaction counts before it is written (`freeRoundFits`).
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import type { AuditEntry } from '../../../access/staff.js';
import { freeRoundFits, sameCampaign } from '../../../rounds/sameness.js';
import { insertAudit } from '../../../staff/postgres-staff.js';
import type { CampaignRow, CampaignWrite, NewRound, Row } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { campaignOf, int, type Querier } from './rows.js';

export class Campaigns {
  constructor(private readonly database: ProviderDatabase) {}

  putCampaign(campaign: CampaignRow, players: readonly string[], audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<CampaignWrite> {
    return this.database.transaction(async (dbTx): Promise<CampaignWrite> => {
      const [inserted] = await dbTx<Row[]>`
        INSERT INTO campaigns (campaign_id, operator_id, game, currency, bet, rounds, expires_at, created_at)
        VALUES (${campaign.campaignId}, ${campaign.operatorId}, ${campaign.game}, ${campaign.currency}, ${campaign.betMinor.toString()},
          ${campaign.rounds}, ${campaign.expiresAt}, ${campaign.createdAt})
        ON CONFLICT (campaign_id) DO NOTHING
        RETURNING id`;
      let pk: string;
      if (inserted) pk = inserted.id as string;
      else {
        // Another put got there first (its insert committed before this one's did nothing): compare with it.
        const [found] = await dbTx<Row[]>`SELECT * FROM campaigns WHERE campaign_id = ${campaign.campaignId}`;
        assert.ok(found, 'the campaign exists after its insert');
        if (!sameCampaign(campaignOf(found), campaign)) return 'conflict';
        pk = found.id as string;
      }
      // Players may be added to a campaign; none is ever removed.
      for (const player of players) await dbTx`INSERT INTO campaign_players (campaign_pk, player_id) VALUES (${pk}, ${player}) ON CONFLICT DO NOTHING`;
      // On the campaign's transaction: the campaign and its audit row commit together.
      if (audit) await insertAudit(dbTx, audit(inserted ? 'created' : 'exists'));
      return inserted ? 'created' : 'exists';
    });
  }

  async campaign(campaignId: string): Promise<(CampaignRow & { players: string[] }) | undefined> {
    const { sql } = this.database;
    const [row] = await this.database.read(sql<Row[]>`SELECT * FROM campaigns WHERE campaign_id = ${campaignId}`);
    if (!row) return undefined;
    const players = await this.database.read(
      sql<{ player_id: string }[]>`SELECT player_id FROM campaign_players WHERE campaign_pk = ${row.id as string} ORDER BY player_id`,
    );
    return { ...campaignOf(row), players: players.map((p) => p.player_id) };
  }

  async campaignsOf(operatorId: string, playerId: string, game: string, currency: string, now: number): Promise<CampaignRow[]> {
    const rows = await this.database.read(this.database.sql<Row[]>`
      SELECT c.* FROM campaigns c JOIN campaign_players p ON p.campaign_pk = c.id
      WHERE p.player_id = ${playerId} AND c.operator_id = ${operatorId} AND c.game = ${game} AND c.currency = ${currency}
        AND (c.expires_at IS NULL OR c.expires_at > ${now})
      ORDER BY c.id`);
    return rows.map(campaignOf);
  }

  async campaignRoundsUsed(campaignId: string, operatorId: string, playerId: string): Promise<number> {
    return this.database.read(this.roundsUsed(this.database.sql, campaignId, operatorId, playerId));
  }

  /**
   * A free round's campaign, as the round's transaction sees it: a round
   * left, and the round the last exactly when it says so. The count is
   * made under a lock on (campaign, operator, player) held to the commit,
   * and READ COMMITTED reads it on a snapshot taken after the lock: it
   * counts every free round of the player committed before, on any node.
   */
  async freeRoundFits(dbTx: postgres.TransactionSql, round: NewRound): Promise<boolean> {
    if (round.playerId === null) return false;
    await dbTx`SELECT pg_advisory_xact_lock(hashtext(current_schema()),
      hashtext('campaign:' || ${round.campaignId}::text || ':' || ${round.operatorId}::text || ':' || ${round.playerId}::text))`;
    const [campaign] = await dbTx<Row[]>`SELECT rounds FROM campaigns WHERE campaign_id = ${round.campaignId}`;
    if (campaign === undefined) return false;
    return freeRoundFits(round, await this.roundsUsed(dbTx, round.campaignId!, round.operatorId, round.playerId), int(campaign.rounds));
  }

  private async roundsUsed(db: Querier, campaignId: string, operatorId: string, playerId: string): Promise<number> {
    const [row] = await db<{ used: string }[]>`
      SELECT count(*) AS used FROM rounds WHERE campaign_id = ${campaignId} AND operator_id = ${operatorId} AND player_id = ${playerId} AND status <> 'refused'`;
    return int(row!.used);
  }
}
