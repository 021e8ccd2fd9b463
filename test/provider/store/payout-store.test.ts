/**
 * Payouts in the provider store: a payout and its /payout request in the
 * outbox are written in one transaction (a failure leaves neither); the same
 * payout id with the same content answers the payout there is, with no
 * second item, and with other content a conflict; a player with no real
 * session at the operator, or a currency other than the session's, is
 * refused with nothing written; the request's final outcome pays or refuses
 * the payout in the transaction that records it. On every provider store
 * backend.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CLAIM_LIMITS, type Answer } from '../../../src/dispatch/outbox.js';
import type { NewPayout, ProviderStore } from '../../../src/provider/store/provider-store.js';
import { PROVIDER_STORE_BACKENDS, type OpenedProviderStore } from './backends.js';
import { realSession } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const CAMPAIGN = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const OK = (balance: string): Answer => ({ status: 200, detail: 'HTTP 200', balance });

const payoutOf = (overrides: Partial<NewPayout> = {}): NewPayout => ({
  payoutId: randomUUID(),
  operatorId: 'op',
  playerId: 'p-1',
  currency: 'EUR',
  amountMinor: 5_000n,
  campaignId: CAMPAIGN,
  createdAt: NOW,
  ...overrides,
});

for (const backend of PROVIDER_STORE_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`payouts in the provider store: ${backend.name}`, { skip: backend.unavailable }, () => {
    let opened: OpenedProviderStore;
    let store: ProviderStore;
    beforeEach(async () => {
      opened = await backend.open();
      store = opened.store;
    });
    afterEach(async () => opened.cleanup());

    const count = async (table: string) => Number((await opened.committed(`SELECT count(*) AS n FROM ${table}`))[0]!.n);

    test("a payout and its /payout request, naming the player's latest real session, are written in one transaction", async () => {
      await realSession(store, { operatorId: 'op', now: NOW - 2_000 });
      const latest = await realSession(store, { operatorId: 'op', now: NOW - 1_000 });
      await realSession(store, { operatorId: 'other-op', now: NOW });
      const asked = payoutOf({ amountMinor: 5_050n });
      const written = await store.createPayout(asked);
      assert.ok(
        written.ok && written.kind === 'created',
        JSON.stringify(written, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      );
      assert.equal(written.payout.status, 'pending');
      assert.equal(written.payout.operatorSessionId, latest.operatorSessionId);
      await store.durable();
      assert.equal(await count('payouts'), 1);
      const [item] = (await opened.committed(`SELECT * FROM dispatch_items WHERE id = ${written.payout.dispatchItemId}`)) as Record<string, unknown>[];
      assert.equal(item!.kind, 'payout');
      assert.equal(item!.path, '/payout');
      assert.equal(item!.operator_id, 'op');
      assert.equal(item!.ordering_key, asked.payoutId);
      assert.equal(
        Buffer.from(item!.body as Uint8Array).toString('utf8'),
        `{"sessionId":"${latest.operatorSessionId}","payoutId":"${asked.payoutId}","amount":50.5,"campaign":{"id":"${CAMPAIGN}","type":"tournament"}}`,
      );
    });

    test('a payout whose insert fails enqueues nothing', async () => {
      await realSession(store, { operatorId: 'op', now: NOW });
      await store.durable();
      // The payout's insert fails after its request was enqueued, in the same transaction.
      await opened.breakWrites('payouts', 'INSERT', 'payout insert failed');
      await assert.rejects(store.createPayout(payoutOf()), /payout insert failed/);
      await store.durable();
      assert.equal(await count('dispatch_items'), 0);
      assert.equal(await count('payouts'), 0);
    });

    test('the same payout id again answers the payout there is, with no second item; other content is a conflict', async () => {
      await realSession(store, { operatorId: 'op', now: NOW });
      const asked = payoutOf();
      const first = await store.createPayout(asked);
      assert.ok(first.ok && first.kind === 'created');
      const again = await store.createPayout({ ...asked, createdAt: NOW + 5_000 });
      assert.ok(again.ok && again.kind === 'exists');
      assert.equal(again.payout.dispatchItemId, first.payout.dispatchItemId);
      for (const other of [{ amountMinor: 5_001n }, { playerId: 'p-2' }, { campaignId: randomUUID() }, { currency: 'USD' }, { operatorId: 'op-2' }]) {
        const conflict = await store.createPayout({ ...asked, ...other });
        assert.ok(conflict.ok && conflict.kind === 'conflict', JSON.stringify(Object.keys(other)));
      }
      await store.durable();
      assert.equal(await count('dispatch_items'), 1);
      assert.equal(await count('payouts'), 1);
    });

    test('a player with no real session at the operator is refused, and nothing is written', async () => {
      await realSession(store, { operatorId: 'other-op', now: NOW });
      const refused = await store.createPayout(payoutOf());
      assert.ok(!refused.ok);
      assert.equal(refused.code, 'SESSION_NOT_FOUND');
      assert.match(refused.detail, /player p-1 has no real game session at operator op/);
      await store.durable();
      assert.equal(await count('payouts'), 0);
      assert.equal(await count('dispatch_items'), 0);
    });

    test("a currency other than the session's is refused, and nothing is written", async () => {
      await realSession(store, { operatorId: 'op', now: NOW });
      const refused = await store.createPayout(payoutOf({ currency: 'USD' }));
      assert.ok(!refused.ok);
      assert.equal(refused.code, 'INVALID_REQUEST');
      assert.match(refused.detail, /plays in EUR .*not USD/);
      await store.durable();
      assert.equal(await count('payouts'), 0);
      assert.equal(await count('dispatch_items'), 0);
    });

    test("the request's final outcome pays or refuses the payout in the transaction that records it", async () => {
      await realSession(store, { operatorId: 'op', now: NOW });
      const payouts = [];
      for (let n = 0; n < 3; n++) {
        const written = await store.createPayout(payoutOf());
        assert.ok(written.ok);
        payouts.push(written.payout);
      }
      const [paid, refused, resolved] = payouts;
      await store.durable();
      const claimed = await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
      assert.equal(claimed.length, 3);
      assert.ok(await store.outbox.sent(paid!.dispatchItemId, 'node', OK('167.44'), NOW + 1));
      const refusal = { status: 404, code: 'SESSION_NOT_FOUND', detail: 'no session 3f8e…' };
      assert.ok((await store.outbox.refused(refused!.dispatchItemId, 'node', refusal, NOW + 2)).applied);
      await store.outbox.retryLater(resolved!.dispatchItemId, 'node', NOW + 10, { status: 503, detail: 'busy' });
      assert.ok(await store.outbox.resolve(resolved!.dispatchItemId, 'OP-REF-7', NOW + 3));
      await store.durable();
      const committed = async (id: string) => (await opened.committed(`SELECT status FROM payouts WHERE payout_id = '${id}'`))[0]?.status;
      assert.equal(await committed(paid!.payoutId), 'paid');

      const afterPaid = (await store.payout(paid!.payoutId))!;
      assert.equal(afterPaid.balanceAfterMinor, 16_744n);
      assert.equal(afterPaid.settledAt, NOW + 1);
      assert.equal(afterPaid.attempts, 1);
      const afterRefused = (await store.payout(refused!.payoutId))!;
      assert.equal(afterRefused.status, 'refused');
      assert.equal(afterRefused.refusalCode, 'SESSION_NOT_FOUND');
      assert.equal(afterRefused.refusalDetail, 'no session 3f8e…');
      const afterResolved = (await store.payout(resolved!.payoutId))!;
      assert.equal(afterResolved.status, 'paid');
      assert.equal(afterResolved.balanceAfterMinor, null);

      const pages = await store.listPayouts(2, { status: 'paid' });
      assert.deepEqual(
        pages.payouts.map((p) => p.payoutId),
        [resolved!.payoutId, paid!.payoutId],
      );
      assert.deepEqual(
        (await store.listPayouts(10, { status: 'refused' })).payouts.map((p) => p.payoutId),
        [refused!.payoutId],
      );
      assert.equal((await store.listPayouts(10, { before: pages.cursors[0]! })).payouts.length, 2);
    });

    test('a payout whose hook fails is not finished: the outcome rolls back with it', async () => {
      await realSession(store, { operatorId: 'op', now: NOW });
      const written = await store.createPayout(payoutOf());
      assert.ok(written.ok);
      await store.durable();
      await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
      await opened.breakWrites('payouts', 'UPDATE', 'finish failed');
      await assert.rejects(store.outbox.sent(written.payout.dispatchItemId, 'node', OK('1'), NOW + 1), /finish failed/);
      await store.durable();
      assert.equal((await store.payout(written.payout.payoutId))!.status, 'pending');
      assert.equal((await store.outbox.item(written.payout.dispatchItemId))!.status, 'pending');
    });
  });
}
