/**
 * The free-bet campaigns of the provider's config: read at start by the
 * rules of POST /admin/campaigns (`campaignsOf`), and joined to those
 * created through the back office. The server (serve-provider.ts) writes
 * them when it starts, before it listens, so that the app's builder writes
 * nothing. The same id must mean the same campaign: a config whose campaign
 * the database holds with other content stops the start.
 */
import type { Currencies } from '../protocol/money.js';
import { Catalog, noLadderDetail, offLadderDetail } from './catalog.js';
import type { ExchangeRates, GameSettings } from './config-games.js';
import type { OperatorSettings } from './config-operators.js';
import type { ProviderConfigFile } from './config-schema.js';
import { fail, knownCurrency, minorOf, ProviderConfigError, unique } from './config-values.js';
import type { ProviderStore } from './store/provider-store.js';
import type { CampaignTerms } from '../rounds/facts.js';

/** Writes the config's campaigns, durably; a campaign's players are added to those it has. `now` is their creation time. */
export async function importConfigCampaigns(config: { campaigns: readonly CampaignSettings[] }, store: ProviderStore, now: number): Promise<void> {
  for (const [index, campaign] of config.campaigns.entries()) {
    const { players, ...row } = campaign;
    if ((await store.putCampaign({ ...row, createdAt: now }, players)) === 'conflict') {
      throw new ProviderConfigError(`campaigns[${index}].id: campaign ${campaign.campaignId} exists in the database with other content`);
    }
  }
  await store.durable();
}

/** A campaign of the config: the terms the store keeps, and the players it is put with. */
export interface CampaignSettings extends CampaignTerms {
  players: string[];
}

type CampaignFile = NonNullable<ProviderConfigFile['campaigns']>[number];

/** What a config's campaigns are checked against: the operators and games read before them. */
interface CampaignContext {
  operators: readonly OperatorSettings[];
  games: GameSettings[];
  currencies: Currencies;
  exchangeRates: ExchangeRates | undefined;
}

/** The config's `campaigns`, each read for meaning; no id twice. */
export function campaignsOf(campaignsIn: readonly CampaignFile[], context: CampaignContext): CampaignSettings[] {
  // Campaigns follow the rules of POST /admin/campaigns: a free round is played on the game's ladder in that currency.
  const catalog = new Catalog({ games: context.games, currencies: context.currencies, exchangeRates: context.exchangeRates });
  const campaigns = campaignsIn.map((campaign, i) => campaignOf(`campaigns[${i}]`, campaign, catalog, context));
  unique(
    'campaigns',
    campaigns.map((c) => c.campaignId),
    'id',
  );
  return campaigns;
}

function campaignOf(
  member: string,
  campaign: CampaignFile,
  catalog: Catalog<GameSettings>,
  { operators, games, currencies }: CampaignContext,
): CampaignSettings {
  const operator = operators.find((op) => op.operatorId === campaign.operatorId);
  if (!operator) fail(`${member}.operatorId`, `${campaign.operatorId} is not a configured operator`);
  if (!games.some((game) => game.slug === campaign.game)) fail(`${member}.game`, `${campaign.game} is not a configured game`);
  const decimals = knownCurrency(`${member}.currency`, campaign.currency, currencies);
  const ladder = catalog.offeredLadder(campaign.game, campaign.currency, operator);
  if (!ladder) fail(`${member}.currency`, noLadderDetail(campaign.game, campaign.currency, campaign.operatorId));
  const betMinor = minorOf(`${member}.betAmount`, campaign.betAmount, campaign.currency, decimals);
  if (betMinor === 0n) fail(`${member}.betAmount`, 'must be greater than 0');
  if (!ladder.includes(betMinor))
    fail(`${member}.betAmount`, offLadderDetail(String(campaign.betAmount).trim(), campaign.game, campaign.currency, ladder, decimals));
  return {
    campaignId: campaign.id.toLowerCase(),
    operatorId: campaign.operatorId,
    game: campaign.game,
    currency: campaign.currency,
    betMinor,
    rounds: campaign.rounds,
    players: [...new Set(campaign.players)],
    expiresAt: campaign.expiresAt === undefined ? null : Date.parse(campaign.expiresAt),
  };
}
