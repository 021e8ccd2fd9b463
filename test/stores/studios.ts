/**
 * Studios for the wallet's tests of several integrations (docs/protocol.md
 * §2.6): one keyring, and an integration added straight to a store with a
 * fresh secret and token, as the admin API would add it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { integrationKeyring, newIntegrationSecret, newIntegrationToken, sealSecret, type StoredIntegration } from '../../src/access/integrations.js';
import type { WalletStore } from '../../src/stores/operations.js';

export const ring = integrationKeyring(new Map([['k1', randomBytes(32)]]), 'k1');

export interface Studio {
  id: string;
  secret: string;
  token: string;
}

/** A new integration's row as a store takes it, with its secret and token in clear as the caller is shown them once. */
export function newStudio(id: string, extra: { name?: string; ranges?: string[]; providerUrl?: string | null } = {}) {
  const secret = newIntegrationSecret(randomBytes);
  const { token, tokenHash } = newIntegrationToken(randomBytes);
  const integration: Omit<StoredIntegration, 'createdAt' | 'updatedAt' | 'revision'> = {
    id,
    name: extra.name ?? id,
    state: 'active',
    secretSealed: sealSecret(ring, id, 'current', secret),
    secretNextSealed: null,
    tokenHashes: [tokenHash],
    ranges: extra.ranges ?? [],
    providerUrl: extra.providerUrl ?? null,
  };
  return { secret, token, integration };
}

export async function addStudio(store: WalletStore, id: string, extra: { ranges?: string[] } = {}): Promise<Studio> {
  const { secret, token, integration } = newStudio(id, extra);
  const added = await store.addIntegration({ integration, now: Date.now() });
  assert.ok(added.ok);
  return { id, secret, token };
}
