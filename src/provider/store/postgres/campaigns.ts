/**
 * The free-bet campaigns' queries on PostgreSQL that several of the store's
 * operations share: the rounds a player has used of a campaign.
 */
import { int, type Querier } from './rows.js';

export async function roundsUsedIn(db: Querier, campaignId: string, operatorId: string, playerId: string): Promise<number> {
  const [row] = await db<{ used: string }[]>`
    SELECT count(*) AS used FROM rounds WHERE campaign_id = ${campaignId} AND operator_id = ${operatorId} AND player_id = ${playerId} AND status <> 'refused'`;
  return int(row!.used);
}
