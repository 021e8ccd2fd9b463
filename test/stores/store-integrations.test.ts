/**
 * The stored integrations, over every backend (the store contract of
 * operations.ts: listIntegrations, integrationsVersion, addIntegration,
 * updateIntegration, removeIntegration): an add, an update and a removal
 * each move the version once and write their audit row in the same
 * database transaction; refusals are values (INTEGRATION_EXISTS,
 * INTEGRATION_NOT_FOUND, STATE_CONFLICT for a change made from an old
 * revision) that move nothing and write no row; and no column of any
 * table, nor (SQLite) any byte of the files, holds a secret or a token in
 * clear: only sealed secrets and tokens' hashes. And what each studio's
 * calls make is its own at the store: a launch key made for one opens for
 * it alone, its round refuses another's bet, the same campaign id runs
 * apart at each, a payout on its session is its own, and its games and
 * campaigns are accounts under its id.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { newIntegrationSecret, openSecret, sealSecret } from '../../src/access/integrations.js';
import type { AuditEntry } from '../../src/access/staff.js';
import { checkedTransaction, checkPayout } from '../../src/protocol/checked-requests.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { DAY_MS } from '../../src/stores/store.js';
import { BACKENDS, holding, type AtRest } from './backends.js';
import { NOW } from './store-fixtures.js';
import { newStudio, ring } from './studios.js';

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

/** A studio as these tests add it: a name, a caller range and a provider endpoint, to see each kept. */
const made = (id: string) => newStudio(id, { name: `Studio ${id}`, ranges: ['10.0.0.0/8'], providerUrl: 'https://studio.example/api' });

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

    test("a studio's launch keys, sessions, rounds, payouts, games and campaigns are its own (docs/protocol.md §2.6)", async () => {
      for (const id of ['studio-d', 'studio-e']) assert.ok((await store.addIntegration({ integration: made(id).integration, now: NOW })).ok);
      const playerId = 'studio-player';
      assert.ok((await store.createPlayer({ playerId, currency: 'EUR', balance: 100, depositId: randomUUID(), now: NOW })).ok);
      const missing = await store.createLaunchKey({ playerId, game: 'dice', key: randomUUID(), now: NOW, integration: 'studio-z' });
      assert.equal(!missing.ok && missing.code, 'INTEGRATION_NOT_FOUND');
      /** A session of `integrationId`, from a key made for it. */
      const open = async (integrationId: string) => {
        const key = await store.createLaunchKey({ playerId, game: 'dice', key: randomUUID(), now: NOW, integration: integrationId });
        assert.ok(key.ok);
        const other = await store.authenticate({ key: key.key, game: 'dice', now: NOW, newSessionId: randomUUID(), integrationId: 'default' });
        assert.equal(!other.ok && other.code, 'INTEGRATION_MISMATCH', "another integration opens no studio's key");
        const opened = await store.authenticate({ key: key.key, game: 'dice', now: NOW, newSessionId: randomUUID(), integrationId });
        assert.ok(opened.ok, JSON.stringify(opened));
        return { sessionId: opened.sessionId, playerId, game: 'dice' };
      };
      const d = await open('studio-d');
      const e = await open('studio-e');
      const campaign = { id: randomUUID(), type: 'freeBets' as const, finished: true };
      const round = randomUUID();
      const bet = (session: typeof d, integrationId: string, extra: object = {}, roundId = randomUUID()) =>
        store.transact({
          request: checkedTransaction({
            ...session,
            transactions: [{ id: randomUUID(), type: 'bet', amount: 1 }],
            round: { id: roundId, finished: false },
            ...extra,
          }),
          now: NOW + 1,
          integrationId,
        });
      assert.ok((await bet(d, 'studio-d', {}, round)).ok);
      const theirs = await bet(e, 'studio-e', {}, round);
      assert.equal(!theirs.ok && theirs.code, 'INTEGRATION_MISMATCH', "studio-d's round, on studio-e's own session");
      // The same campaign id at each studio is two campaigns: finished at d, still open at e.
      assert.ok((await bet(d, 'studio-d', { campaign })).ok);
      assert.equal(await bet(d, 'studio-d', { campaign }).then((o) => !o.ok && o.code), 'CAMPAIGN_FINISHED');
      assert.ok((await bet(e, 'studio-e', { campaign })).ok);
      const payout = { sessionId: d.sessionId, payoutId: randomUUID(), amount: 2, campaign: { id: randomUUID(), type: 'tournament' as const } };
      const foreign = await store.payout({ request: checkPayout(payout), now: NOW + 2, integrationId: 'studio-e' });
      assert.equal(!foreign.ok && foreign.code, 'INTEGRATION_MISMATCH');
      const paid = await store.payout({ request: checkPayout(payout), now: NOW + 2, integrationId: 'studio-d' });
      assert.ok(paid.ok && paid.balance === '101', JSON.stringify(paid));
      // Each studio's game and campaigns are accounts of its own, under its id; the books balance.
      const values = await atRest.everyValue();
      for (const name of ['studio-d/dice', 'studio-e/dice', `studio-d/${campaign.id}`, `studio-e/${campaign.id}`, `studio-d/${payout.campaign.id}`]) {
        assert.ok(holding(values, name).length > 0, `an account named ${name}`);
      }
      // Studio e booked one bet, the free one: its refused bet on d's round is in no sum.
      const ggr = await store.ggr({ from: NOW, to: NOW + DAY_MS, integration: 'studio-e' });
      assert.deepEqual(
        ggr.rows.map((row) => [row.integration, row.game, row.bets, row.freeBets]),
        [['studio-e', 'dice', '0', '1']],
      );
      assert.ok((await store.verify()).ok);
    });
  });
}
