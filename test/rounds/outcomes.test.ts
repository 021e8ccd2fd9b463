/**
 * Proves how an operator's final answer is read (src/rounds/outcomes.ts):
 * `sent` settles a round or pays a payout with the 200's balance when it
 * reads exactly in the currency, else with none; `resolved` settles or
 * pays with no balance; `refused` refuses with the operator's code (or
 * HTTP_<status>, or REFUSED with no answer), its detail and its balance;
 * `skipped` refuses as SKIPPED (fast-check: a round and a payout read one
 * answer alike). A refused round is told to the page with its code when
 * the registry knows it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CURRENCIES } from '../../src/protocol/money.js';
import { finalAnswerOf, minorOf, payoutOutcomeOf, roundOutcomeOf, roundRefusal, type FinalAnswerFacts } from '../../src/rounds/outcomes.js';

const sent = (balance?: string): FinalAnswerFacts => ({
  outcome: 'sent',
  answer: { status: 200, detail: 'ok', ...(balance === undefined ? {} : { balance }) },
});

test('a 200 settles a round and pays a payout with its balance, exact in the currency', () => {
  assert.deepEqual(roundOutcomeOf(sent('12.5'), 'EUR', CURRENCIES), { status: 'settled', balanceAfterMinor: 1250n });
  assert.deepEqual(payoutOutcomeOf(sent('12.5'), 'EUR', CURRENCIES), { status: 'paid', balanceAfterMinor: 1250n });
});

test('a 200 whose balance cannot be read exactly still settles: the operator booked it, only the balance is unknown', () => {
  for (const balance of ['12.345', 'twelve', undefined]) {
    assert.deepEqual(roundOutcomeOf(sent(balance), 'EUR', CURRENCIES), { status: 'settled', balanceAfterMinor: null }, balance);
    assert.deepEqual(payoutOutcomeOf(sent(balance), 'EUR', CURRENCIES), { status: 'paid', balanceAfterMinor: null }, balance);
  }
});

test('resolved by hand settles and pays with no balance', () => {
  const resolved: FinalAnswerFacts = { outcome: 'resolved', answer: { detail: 'ref-1' } };
  assert.deepEqual(roundOutcomeOf(resolved, 'EUR', CURRENCIES), { status: 'settled', balanceAfterMinor: null });
  assert.deepEqual(payoutOutcomeOf(resolved, 'EUR', CURRENCIES), { status: 'paid', balanceAfterMinor: null });
});

test("a refusal keeps the operator's code, detail and balance; without a code, the status; without an answer, REFUSED", () => {
  const refused = (answer: FinalAnswerFacts['answer']): FinalAnswerFacts => ({ outcome: 'refused', answer });
  assert.deepEqual(roundOutcomeOf(refused({ status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'no', balance: '3.5' }), 'EUR', CURRENCIES), {
    status: 'refused',
    code: 'INSUFFICIENT_FUNDS',
    detail: 'no',
    balanceAfterMinor: 350n,
  });
  assert.equal((roundOutcomeOf(refused({ status: 418, detail: 'teapot' }), 'EUR', CURRENCIES) as { code: string }).code, 'HTTP_418');
  assert.equal((payoutOutcomeOf(refused({ detail: 'gone' }), 'EUR', CURRENCIES) as { code: string }).code, 'REFUSED');
  // A balance the currency cannot hold exactly is not believed.
  assert.equal(finalAnswerOf(refused({ status: 402, code: 'X', detail: 'd', balance: '1.001' }), 'EUR', CURRENCIES).balanceAfterMinor, null);
});

test('skipped refuses as SKIPPED, with no balance', () => {
  assert.deepEqual(roundOutcomeOf({ outcome: 'skipped', answer: { detail: 'an earlier item was refused' } }, 'EUR', CURRENCIES), {
    status: 'refused',
    code: 'SKIPPED',
    detail: 'an earlier item was refused',
    balanceAfterMinor: null,
  });
});

test('a round and a payout read one final answer alike: accepted is settled and paid, refused is refused', () => {
  const answers = fc.record({
    outcome: fc.constantFrom('sent', 'refused', 'skipped', 'resolved' as const),
    answer: fc.record(
      {
        status: fc.integer({ min: 100, max: 599 }),
        code: fc.constantFrom('INSUFFICIENT_FUNDS', 'SESSION_EXPIRED', 'X'),
        detail: fc.string(),
        balance: fc.oneof(fc.constant('1.5'), fc.constant('1.25'), fc.string()),
      },
      { requiredKeys: ['detail'] },
    ),
  });
  fc.assert(
    fc.property(answers, fc.constantFrom('EUR', 'JPY', 'BTC', 'NOPE'), (event, currency) => {
      const final = finalAnswerOf(event, currency, CURRENCIES);
      const ofRound = roundOutcomeOf(event, currency, CURRENCIES);
      const ofPayout = payoutOutcomeOf(event, currency, CURRENCIES);
      assert.equal(final.status === 'accepted', event.outcome === 'sent' || event.outcome === 'resolved');
      assert.equal(ofRound.status, final.status === 'accepted' ? 'settled' : 'refused');
      assert.equal(ofPayout.status, final.status === 'accepted' ? 'paid' : 'refused');
      assert.equal(ofRound.balanceAfterMinor, final.balanceAfterMinor);
      assert.equal(ofPayout.balanceAfterMinor, final.balanceAfterMinor);
      if (event.outcome === 'resolved' || event.outcome === 'skipped') assert.equal(final.balanceAfterMinor, null);
    }),
  );
});

test('an amount text is believed only when the currency holds it exactly', () => {
  assert.equal(minorOf('12.34', 'EUR', CURRENCIES), 1234n);
  assert.equal(minorOf('12.345', 'EUR', CURRENCIES), null);
  assert.equal(minorOf('12', 'NOPE', CURRENCIES), null);
  assert.equal(minorOf(undefined, 'EUR', CURRENCIES), null);
  assert.equal(minorOf('twelve', 'EUR', CURRENCIES), null);
});

test("a refused round is told to the page with the operator's code when the registry knows it, else SERVICE_UNAVAILABLE", () => {
  const known = roundRefusal({ refusalCode: 'INSUFFICIENT_FUNDS', refusalDetail: 'bet 5 exceeds balance 1', balanceAfterMinor: 100n }, 2);
  assert.deepEqual([known.code, known.detail, known.balance], ['INSUFFICIENT_FUNDS', 'the casino refused: bet 5 exceeds balance 1', '1']);
  const unknown = roundRefusal({ refusalCode: 'HTTP_418', refusalDetail: null, balanceAfterMinor: null }, 2);
  assert.deepEqual([unknown.code, unknown.detail, unknown.balance], ['SERVICE_UNAVAILABLE', 'the casino refused: HTTP_418', undefined]);
});
