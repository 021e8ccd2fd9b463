/**
 * The stored integrations, over every backend (the store contract of
 * operations.ts: listIntegrations, integrationsVersion, addIntegration,
 * updateIntegration, removeIntegration): an add, an update and a removal
 * each move the version once and write their audit row in the same
 * database transaction; refusals are values (INTEGRATION_EXISTS,
 * INTEGRATION_NOT_FOUND, STATE_CONFLICT for a change made from an old
 * revision) that move nothing and write no row; and no column of any
 * table, nor (SQLite) any byte of the files, holds a secret or a token in
 * clear: only sealed secrets and tokens' hashes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  integrationKeyring,
  newIntegrationSecret,
  newIntegrationToken,
  openSecret,
  sealSecret,
  type StoredIntegration,
} from '../../src/access/integrations.js';
import type { AuditEntry } from '../../src/access/staff.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { BACKENDS, type AtRest } from './backends.js';
import { NOW } from './store-fixtures.js';

const ring = integrationKeyring(new Map([['k1', randomBytes(32)]]), 'k1');

function audit(route: string, target: string): AuditEntry {
  return {
    at: NOW,
    actor: 'cli:tester',
    tokenId: null,
    method: 'CLI',
    route,
    target,
    amount: null,
    currency: null,
    address: null,
    operatorId: null,
    status: 200,
    code: null,
  };
}

function made(id: string) {
  const secret = newIntegrationSecret(randomBytes);
  const { token, tokenHash } = newIntegrationToken(randomBytes);
  const integration: Omit<StoredIntegration, 'createdAt' | 'updatedAt' | 'revision'> = {
    id,
    name: `Studio ${id}`,
    state: 'active',
    secretSealed: sealSecret(ring, id, 'current', secret),
    secretNextSealed: null,
    tokenHashes: [tokenHash],
    ranges: ['10.0.0.0/8'],
    providerUrl: 'https://studio.example/api',
  };
  return { secret, token, integration };
}

/** The values that hold `text` in clear, as text or as bytes. */
function holding(values: readonly unknown[], text: string): unknown[] {
  const bytes = Buffer.from(text, 'utf8');
  return values.filter((value) => (Buffer.isBuffer(value) || value instanceof Uint8Array ? Buffer.from(value).includes(bytes) : String(value).includes(text)));
}

async function auditRoutes(store: WalletStore): Promise<string[]> {
  return (await store.listAudit({ limit: 100 })).items.map((row) => `${row.route} ${row.target}`);
}

for (const backend of BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`stored integrations: ${backend.name}`, { skip: backend.unavailable }, () => {
    let store: WalletStore;
    let atRest: AtRest;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, atRest, cleanup } = await backend.open());
    });
    after(async () => cleanup());

    test('add, list, update and remove, each moving the version once and writing its audit row', async () => {
      assert.deepEqual(await store.listIntegrations(), { version: 0, integrations: [] });
      assert.equal(await store.integrationsVersion(), 0);
      const a = made('studio-a');
      const added = await store.addIntegration({ integration: a.integration, now: NOW, audit: audit('integrations add', 'integration=studio-a') });
      assert.ok(added.ok);
      assert.deepEqual(added.integration, { ...a.integration, createdAt: NOW, updatedAt: NOW, revision: 1 });
      assert.equal(await store.integrationsVersion(), 1);
      assert.equal(openSecret(ring, 'studio-a', 'current', added.integration.secretSealed), a.secret);

      const b = made('studio-b');
      assert.ok(await store.addIntegration({ integration: b.integration, now: NOW }).then((r) => r.ok));
      const listing = await store.listIntegrations();
      assert.equal(listing.version, 2);
      assert.deepEqual(
        listing.integrations.map((i) => i.id),
        ['studio-a', 'studio-b'],
      );

      const updated = await store.updateIntegration({
        id: 'studio-a',
        revision: 1,
        changes: { state: 'paused', ranges: [], providerUrl: null },
        now: NOW + 5,
        audit: audit('integrations pause', 'integration=studio-a'),
      });
      assert.ok(updated.ok);
      assert.deepEqual(updated.integration, { ...added.integration, state: 'paused', ranges: [], providerUrl: null, updatedAt: NOW + 5, revision: 2 });
      assert.equal(await store.integrationsVersion(), 3);

      const removed = await store.removeIntegration({ id: 'studio-b', now: NOW + 6, audit: audit('integrations remove', 'integration=studio-b') });
      assert.deepEqual(removed, { ok: true, id: 'studio-b' });
      assert.equal(await store.integrationsVersion(), 4);
      assert.deepEqual(
        (await store.listIntegrations()).integrations.map((i) => i.id),
        ['studio-a'],
      );
      assert.deepEqual(await auditRoutes(store), [
        'integrations remove integration=studio-b',
        'integrations pause integration=studio-a',
        'integrations add integration=studio-a',
      ]);
    });

    test('refusals are values that move nothing and write no audit row', async () => {
      const version = await store.integrationsVersion();
      const rows = (await auditRoutes(store)).length;
      const again = await store.addIntegration({ integration: made('studio-a').integration, now: NOW, audit: audit('integrations add', 'x') });
      assert.equal(!again.ok && again.code, 'INTEGRATION_EXISTS');
      const missing = await store.updateIntegration({ id: 'nobody', revision: 1, changes: { state: 'off' }, now: NOW, audit: audit('u', 'x') });
      assert.equal(!missing.ok && missing.code, 'INTEGRATION_NOT_FOUND');
      const gone = await store.removeIntegration({ id: 'nobody', now: NOW, audit: audit('r', 'x') });
      assert.equal(!gone.ok && gone.code, 'INTEGRATION_NOT_FOUND');
      const stale = await store.updateIntegration({ id: 'studio-a', revision: 1, changes: { state: 'off' }, now: NOW, audit: audit('u', 'x') });
      assert.equal(!stale.ok && stale.code, 'STATE_CONFLICT', 'revision 1 is behind: studio-a was paused since');
      assert.equal(await store.integrationsVersion(), version);
      assert.equal((await auditRoutes(store)).length, rows);
      assert.equal((await store.listIntegrations()).integrations[0]!.state, 'paused');
    });

    test('no column and no file holds a secret or a token in clear', async () => {
      const c = made('studio-c');
      const next = newIntegrationSecret(randomBytes);
      assert.ok((await store.addIntegration({ integration: c.integration, now: NOW })).ok);
      const nextSealed = sealSecret(ring, 'studio-c', 'next', next);
      assert.ok((await store.updateIntegration({ id: 'studio-c', revision: 1, changes: { secretNextSealed: nextSealed }, now: NOW })).ok);
      const values = await atRest.everyValue();
      const files = atRest.files();
      for (const credential of [c.secret, c.token, next]) {
        assert.deepEqual(holding(values, credential), [], 'no column holds it');
        for (const file of files) assert.ok(!file.includes(Buffer.from(credential)), 'no file holds it');
      }
      assert.ok(holding(values, c.integration.tokenHashes[0]!).length > 0, "the token's hash is what is kept");
    });
  });
}
