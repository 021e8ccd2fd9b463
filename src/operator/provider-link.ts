/**
 * The operator's side of the provider endpoints (docs/protocol.md §8): where
 * the provider is and who this operator is to it, from the environment or
 * flags, and the calls made through the provider client. The operator signs
 * with the same secret it verifies the provider's calls with (docs/protocol.md
 * §2: one secret per integration, both directions).
 */
import { NO_RETRY, type CallOutcome } from '../clients/http-call.js';
import { createProviderClient, type GameBets } from '../clients/provider-client.js';
import type { GenerateLaunchUrlRequest } from '../protocol/schemas.js';

class ProviderLinkError extends Error {
  override name = 'ProviderLinkError';
}

export interface ProviderLink {
  providerUrl: string;
  operatorId: string;
  walletId: string;
  secret: string;
}

type Env = Record<string, string | undefined>;

export function readProviderLink(env: Env, flags: { provider?: string; operatorId?: string; walletId?: string } = {}): ProviderLink {
  const link = {
    providerUrl: flags.provider ?? env.WAGERLINK_PROVIDER_URL,
    operatorId: flags.operatorId ?? env.WAGERLINK_OPERATOR_ID,
    walletId: flags.walletId ?? env.WAGERLINK_WALLET_ID,
    secret: env.WAGERLINK_SECRET,
  };
  const missing = [
    link.providerUrl ? undefined : 'WAGERLINK_PROVIDER_URL (or --provider)',
    link.operatorId ? undefined : 'WAGERLINK_OPERATOR_ID (or --operator-id)',
    link.walletId ? undefined : 'WAGERLINK_WALLET_ID (or --wallet-id)',
    link.secret ? undefined : 'WAGERLINK_SECRET',
  ].filter((name) => name !== undefined);
  if (missing.length > 0) throw new ProviderLinkError(`calling the provider needs ${missing.join(', ')} (see examples/operator.env)`);
  return link as ProviderLink;
}

/** One attempt: a person at a terminal retries, and sees every refusal. */
export async function requestLaunchUrl(
  link: ProviderLink,
  input: Omit<GenerateLaunchUrlRequest, 'walletId' | 'operatorId'>,
): Promise<CallOutcome<{ url: string }>> {
  const client = createProviderClient({ endpoint: link.providerUrl, secret: link.secret, retry: NO_RETRY });
  try {
    return await client.generateLaunchUrl({ ...input, walletId: link.walletId, operatorId: link.operatorId });
  } finally {
    await client.close();
  }
}

export async function requestGameBets(link: ProviderLink, games: string[], currencies: string[]): Promise<CallOutcome<GameBets>> {
  const client = createProviderClient({ endpoint: link.providerUrl, secret: link.secret, retry: NO_RETRY });
  try {
    return await client.gameBets({ walletId: link.walletId, operatorId: link.operatorId, games, currencies });
  } finally {
    await client.close();
  }
}
