/**
 * Proves that a wallet call is checked once, at the edge, into the type the
 * rules and stores take: ids canonical (and the ids as sent kept only when
 * they differ, for refusals to quote), amounts exact decimals, and the rules
 * that need no storage judged there (transactions per request, an id twice,
 * jpAmount over amount, a free-bets campaign without its id), exactly and in
 * the order and words the wire has always answered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { canonicalUuid, checkPayout, checkTransaction, shownId } from '../../src/protocol/checked-requests.js';
import type { TransactionRequest } from '../../src/protocol/schemas.js';

const request = (transactions: TransactionRequest['transactions'], extra: Partial<TransactionRequest> = {}): TransactionRequest => ({
  sessionId: randomUUID(),
  playerId: 'p1',
  game: 'dice',
  transactions,
  round: { id: randomUUID(), finished: true },
  ...extra,
});
const bet = (amount: number, extra: Partial<TransactionRequest['transactions'][number]> = {}) => ({ id: randomUUID(), type: 'bet' as const, amount, ...extra });

test('ids become canonical once; those sent otherwise are kept to be quoted as sent', () => {
  const sent = request([bet(1, { id: randomUUID().toUpperCase() })], { campaign: { id: randomUUID().toUpperCase(), type: 'freeBets' } });
  const checked = checkTransaction(sent, 100);
  assert.ok(checked.ok);
  const call = checked.value;
  assert.equal(call.transactions[0]!.id, canonicalUuid(sent.transactions[0]!.id));
  assert.equal(call.campaign?.id, canonicalUuid(sent.campaign!.id!));
  assert.equal(shownId(call, call.transactions[0]!.id), sent.transactions[0]!.id);
  assert.equal(shownId(call, call.sessionId), sent.sessionId, 'an id sent canonical is quoted as it is');
  const lower = checkTransaction(request([bet(1)]), 100);
  assert.ok(lower.ok && lower.value.shown === undefined, 'nothing kept when every id was sent canonical');
});

test('amounts become exact decimals; jpAmount is judged against amount exactly', () => {
  const checked = checkTransaction(request([bet(10.5, { jpAmount: 10.5 }), bet(0.07)]), 100);
  assert.ok(checked.ok);
  assert.deepEqual(
    checked.value.transactions.map((tx) => [tx.amount, tx.jpAmount]),
    [
      [
        { units: 105n, scale: 1 },
        { units: 105n, scale: 1 },
      ],
      [{ units: 7n, scale: 2 }, undefined],
    ],
  );
  const over = checkTransaction(request([bet(1), bet(0.1, { jpAmount: 0.10000000000001 })]), 100);
  assert.ok(!over.ok);
  assert.equal(over.detail, 'transactions[1].jpAmount: 0.10000000000001 is more than amount 0.1');
});

test('the rules that need no storage refuse in the order and words of the wire', () => {
  const twice = randomUUID();
  const checks: [TransactionRequest, number, string][] = [
    [request([bet(1), bet(1), bet(1)]), 2, 'transactions: at most 2 items are allowed, got 3'],
    [
      request([bet(1, { id: twice }), bet(1, { id: twice.toUpperCase(), jpAmount: 2 })]),
      100,
      `transactions[1].id: ${twice.toUpperCase()} appears twice in the request`,
    ],
    [request([bet(1)], { campaign: { type: 'freeBets' } }), 100, 'campaign.id: is required for a freeBets campaign'],
    [request([bet(1)], { campaign: { finished: true } }), 100, 'campaign.id: is required with campaign.finished'],
  ];
  for (const [sent, max, detail] of checks) {
    const checked = checkTransaction(sent, max);
    assert.ok(!checked.ok && checked.code === 'INVALID_REQUEST');
    assert.equal(checked.detail, detail);
  }
  const empty = checkTransaction(request([bet(1)], { campaign: {} }), 100);
  assert.ok(empty.ok && empty.value.campaign !== undefined && empty.value.campaign.id === undefined, 'an empty campaign is kept as sent');
});

test('a payout is checked into canonical ids and an exact amount', () => {
  const payoutId = randomUUID().toUpperCase();
  const checked = checkPayout({ sessionId: randomUUID(), payoutId, amount: 25.05, campaign: { id: randomUUID(), type: 'tournament' } });
  assert.equal(checked.payoutId, payoutId.toLowerCase());
  assert.deepEqual(checked.amount, { units: 2505n, scale: 2 });
  assert.equal(shownId(checked, checked.payoutId), payoutId);
});
