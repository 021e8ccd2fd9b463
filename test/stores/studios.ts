/**
 * Studios for the wallet's tests of several integrations (docs/protocol.md
 * §2.6): one keyring, and an integration added straight to a store with a
 * fresh secret and token, as the admin API would add it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { integrationKeyring, newIntegrationSecret, newIntegrationToken, sealSecret } from '../../src/access/integrations.js';
import type { WalletStore } from '../../src/stores/operations.js';

export const ring = integrationKeyring(new Map([['k1', randomBytes(32)]]), 'k1');

export interface Studio {
  id: string;
  secret: string;
  token: string;
}

export async function addStudio(store: WalletStore, id: string, extra: { ranges?: string[] } = {}): Promise<Studio> {
  const secret = newIntegrationSecret(randomBytes);
  const { token, tokenHash } = newIntegrationToken(randomBytes);
  const added = await store.addIntegration({
    integration: {
      id,
      name: id,
      state: 'active',
      secretSealed: sealSecret(ring, id, 'current', secret),
      secretNextSealed: null,
      tokenHashes: [tokenHash],
      ranges: extra.ranges ?? [],
      providerUrl: null,
    },
    now: Date.now(),
  });
  assert.ok(added.ok);
  return { id, secret, token };
}
