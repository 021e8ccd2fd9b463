/**
 * Payouts in the provider store: a payout and its /payout request in the
 * outbox are written in one transaction (a failure leaves neither); the same
 * payout id with the same content answers the payout there is, with no
 * second item, and with other content a conflict; a player with no real
 * session at the operator, or a currency other than the session's, is
 * refused with nothing written; the request's final outcome pays or refuses
 * the payout in the transaction that records it.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CLAIM_LIMITS, type Answer } from '../../src/dispatch/outbox.js';
import { ProviderStore, type NewPayout } from '../../src/provider/provider-store.js';
import { tempDir } from '../helpers.js';
import { realSession } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const CAMPAIGN = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const OK = (body: string): Answer => ({ status: 200, detail: 'HTTP 200', body });

let temp: ReturnType<typeof tempDir>;
let store: ProviderStore;
/** Another connection to the same file: it sees only what was committed. */
let other: Database.Database;

beforeEach(() => {
  temp = tempDir('wagerlink-payout-store-');
  const path = join(temp.dir, 'provider.db');
  store = ProviderStore.open(path);
  other = new Database(path, { readonly: true });
});

afterEach(async () => {
  other.close();
  await store.close();
  temp.cleanup();
});

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

const count = (table: string) => Number(other.prepare(`SELECT count(*) FROM ${table}`).pluck().get());

test("a payout and its /payout request, naming the player's latest real session, are written in one transaction", async () => {
  realSession(store, { operatorId: 'op', now: NOW - 2_000 });
  const latest = realSession(store, { operatorId: 'op', now: NOW - 1_000 });
  realSession(store, { operatorId: 'other-op', now: NOW });
  const asked = payoutOf({ amountMinor: 5_050n });
  const written = store.createPayout(asked);
  assert.ok(written.ok && written.kind === 'created', JSON.stringify(written, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
  assert.equal(written.payout.status, 'pending');
  assert.equal(written.payout.operatorSessionId, latest.operatorSessionId);
  assert.equal(count('payouts'), 0, 'nothing is committed before the turn ends');
  await store.durable();
  assert.equal(count('payouts'), 1);
  const item = other.prepare('SELECT * FROM dispatch_items WHERE id = ?').get(written.payout.dispatchItemId) as Record<string, unknown>;
  assert.equal(item.kind, 'payout');
  assert.equal(item.path, '/payout');
  assert.equal(item.operator_id, 'op');
  assert.equal(item.ordering_key, asked.payoutId);
  assert.equal(
    (item.body as Buffer).toString('utf8'),
    `{"sessionId":"${latest.operatorSessionId}","payoutId":"${asked.payoutId}","amount":50.5,"campaign":{"id":"${CAMPAIGN}","type":"tournament"}}`,
  );
});

test('a payout whose insert fails enqueues nothing', async () => {
  realSession(store, { operatorId: 'op', now: NOW });
  await store.durable();
  // The payout's insert fails after its request was enqueued, in the same transaction.
  const db = (store as unknown as { db: Database.Database }).db;
  db.exec("CREATE TRIGGER fail_payout BEFORE INSERT ON payouts BEGIN SELECT RAISE(ABORT, 'payout insert failed'); END");
  assert.throws(() => store.createPayout(payoutOf()), /payout insert failed/);
  await store.durable();
  assert.equal(count('dispatch_items'), 0);
  assert.equal(count('payouts'), 0);
});

test('the same payout id again answers the payout there is, with no second item; other content is a conflict', async () => {
  realSession(store, { operatorId: 'op', now: NOW });
  const asked = payoutOf();
  const first = store.createPayout(asked);
  assert.ok(first.ok && first.kind === 'created');
  const again = store.createPayout({ ...asked, createdAt: NOW + 5_000 });
  assert.ok(again.ok && again.kind === 'exists');
  assert.equal(again.payout.dispatchItemId, first.payout.dispatchItemId);
  for (const other of [{ amountMinor: 5_001n }, { playerId: 'p-2' }, { campaignId: randomUUID() }, { currency: 'USD' }, { operatorId: 'op-2' }]) {
    const conflict = store.createPayout({ ...asked, ...other });
    assert.ok(conflict.ok && conflict.kind === 'conflict', JSON.stringify(Object.keys(other)));
  }
  await store.durable();
  assert.equal(count('dispatch_items'), 1);
  assert.equal(count('payouts'), 1);
});

test('a player with no real session at the operator is refused, and nothing is written', async () => {
  realSession(store, { operatorId: 'other-op', now: NOW });
  const refused = store.createPayout(payoutOf());
  assert.ok(!refused.ok);
  assert.equal(refused.code, 'SESSION_NOT_FOUND');
  assert.match(refused.detail, /player p-1 has no real game session at operator op/);
  await store.durable();
  assert.equal(count('payouts'), 0);
  assert.equal(count('dispatch_items'), 0);
});

test("a currency other than the session's is refused, and nothing is written", async () => {
  realSession(store, { operatorId: 'op', now: NOW });
  const refused = store.createPayout(payoutOf({ currency: 'USD' }));
  assert.ok(!refused.ok);
  assert.equal(refused.code, 'INVALID_REQUEST');
  assert.match(refused.detail, /plays in EUR .*not USD/);
  await store.durable();
  assert.equal(count('payouts'), 0);
  assert.equal(count('dispatch_items'), 0);
});

test("the request's final outcome pays or refuses the payout in the transaction that records it", async () => {
  realSession(store, { operatorId: 'op', now: NOW });
  const [paid, refused, resolved] = [0, 1, 2].map(() => {
    const written = store.createPayout(payoutOf());
    assert.ok(written.ok);
    return written.payout;
  });
  await store.durable();
  const claimed = await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  assert.equal(claimed.length, 3);
  assert.ok(await store.outbox.sent(paid!.dispatchItemId, 'node', OK('{"balance":167.44}'), NOW + 1));
  const refusal = { status: 404, code: 'SESSION_NOT_FOUND', detail: 'no session 3f8e…' };
  assert.ok((await store.outbox.refused(refused!.dispatchItemId, 'node', refusal, NOW + 2)).applied);
  await store.outbox.retryLater(resolved!.dispatchItemId, 'node', NOW + 10, { status: 503, detail: 'busy' });
  assert.ok(await store.outbox.resolve(resolved!.dispatchItemId, 'OP-REF-7', NOW + 3));
  const committed = (id: string) => other.prepare('SELECT status FROM payouts WHERE payout_id = ?').pluck().get(id);
  assert.equal(committed(paid!.payoutId), 'pending', 'nothing is committed before the turn ends');
  await store.durable();
  assert.equal(committed(paid!.payoutId), 'paid');

  const afterPaid = store.payout(paid!.payoutId)!;
  assert.equal(afterPaid.balanceAfterMinor, 16_744n);
  assert.equal(afterPaid.settledAt, NOW + 1);
  assert.equal(afterPaid.attempts, 1);
  const afterRefused = store.payout(refused!.payoutId)!;
  assert.equal(afterRefused.status, 'refused');
  assert.equal(afterRefused.refusalCode, 'SESSION_NOT_FOUND');
  assert.equal(afterRefused.refusalDetail, 'no session 3f8e…');
  const afterResolved = store.payout(resolved!.payoutId)!;
  assert.equal(afterResolved.status, 'paid');
  assert.equal(afterResolved.balanceAfterMinor, null);

  const pages = store.listPayouts(2, { status: 'paid' });
  assert.deepEqual(pages.payouts.map((p) => p.payoutId), [resolved!.payoutId, paid!.payoutId]);
  assert.deepEqual(store.listPayouts(10, { status: 'refused' }).payouts.map((p) => p.payoutId), [refused!.payoutId]);
  assert.equal(store.listPayouts(10, { before: pages.cursors[0]! }).payouts.length, 2);
});

test('a payout whose hook fails is not finished: the outcome rolls back with it', async () => {
  realSession(store, { operatorId: 'op', now: NOW });
  const written = store.createPayout(payoutOf());
  assert.ok(written.ok);
  await store.durable();
  await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  const db = (store as unknown as { db: Database.Database }).db;
  db.exec("CREATE TRIGGER fail_finish BEFORE UPDATE ON payouts BEGIN SELECT RAISE(ABORT, 'finish failed'); END");
  await assert.rejects(store.outbox.sent(written.payout.dispatchItemId, 'node', OK('{"balance":1}'), NOW + 1), /finish failed/);
  await store.durable();
  assert.equal(store.payout(written.payout.payoutId)!.status, 'pending');
  assert.equal((await store.outbox.item(written.payout.dispatchItemId))!.status, 'pending');
});
