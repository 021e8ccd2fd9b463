/**
 * The free-bet campaigns of the provider's config join those created
 * through the back office. The server (serve-provider.ts) writes them when
 * it starts, before it listens, so that the app's builder writes nothing.
 * The same id must mean the same campaign: a config whose campaign the
 * database holds with other content stops the start.
 */
import { ProviderConfigError, type ProviderConfig } from './provider-config.js';
import type { ProviderStore } from './store/provider-store.js';

/** Writes the config's campaigns, durably; a campaign's players are added to those it has. `now` is their creation time. */
export async function importConfigCampaigns(config: ProviderConfig, store: ProviderStore, now: number): Promise<void> {
  for (const [index, campaign] of config.campaigns.entries()) {
    const { players, ...row } = campaign;
    if ((await store.putCampaign({ ...row, createdAt: now }, players)) === 'conflict') {
      throw new ProviderConfigError(`campaigns[${index}].id: campaign ${campaign.campaignId} exists in the database with other content`);
    }
  }
  await store.durable();
}
