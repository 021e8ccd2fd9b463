/**
 * Proves the request bodies the provider sends (src/rounds/bodies.ts): every
 * body built, of a dice round, of each call of a reels round (bet, base
 * spin, jackpot, feature, free bets) and of a payout, passes the
 * protocol's own schema (src/protocol/schemas.ts through
 * src/protocol/validate.ts); amounts are written as exact text in major
 * units, however many decimals or digits, never through a double; members
 * come in the order operators have always been sent, byte for byte; a
 * payout on no session, in another currency, unknown or not positive, is
 * refused with nothing built.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { CURRENCIES } from '../../src/protocol/money.js';
import { PayoutRequest, TransactionRequest } from '../../src/protocol/schemas.js';
import { compile } from '../../src/protocol/validate.js';
import { bodyText, diceRoundBody, payoutBody, payoutRequest, transactionBody } from '../../src/rounds/bodies.js';
import { planReelsRound } from '../../src/rounds/plan.js';
import { REELS_RULES, round, seedWithFeature, session } from './round-fixtures.js';

const transactionCheck = compile(TransactionRequest);
const payoutCheck = compile(PayoutRequest);

function assertTransaction(text: string): void {
  const checked = transactionCheck.check(JSON.parse(text));
  assert.ok(checked.ok, `${text}: ${checked.ok ? '' : checked.detail}`);
}

test("a dice round's body is its bet and win in one request that finishes the round, in the order always sent", () => {
  const real = session();
  const dice = round({ betMinor: 150n, winMinor: 0n });
  const text = diceRoundBody(dice, real, 2);
  assertTransaction(text);
  assert.equal(
    text,
    `{"sessionId":"${real.operatorSessionId}","playerId":"player-1","game":"lucky-reels","transactions":[` +
      `{"id":"${dice.betTxId}","type":"bet","amount":1.5},{"id":"${dice.winTxId}","type":"win","amount":0}],` +
      `"round":{"id":"${dice.roundId}","finished":true}}`,
  );
});

test("a free dice round carries its campaign, finished on the campaign's last round", () => {
  const campaignId = randomUUID();
  for (const finished of [true, false]) {
    const text = diceRoundBody(round({ campaignId, campaignFinished: finished }), session(), 2);
    assertTransaction(text);
    assert.deepEqual(JSON.parse(text).campaign, { id: campaignId, type: 'freeBets', finished });
    assert.ok(text.endsWith(`"campaign":{"id":"${campaignId}","type":"freeBets","finished":${finished}}}`));
  }
});

test('amounts are exact text in major units, whatever the decimals and digits', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), fc.constantFrom(0, 2, 3, 8), (minor, decimals) => {
      const body = transactionBody(
        { session: session(), roundId: randomUUID(), finished: true, transactions: [{ id: randomUUID(), type: 'bet', amountMinor: minor }] },
        decimals,
      );
      const text = bodyText(body);
      const amount = /"amount":([0-9.]+)/.exec(text)![1]!;
      const [whole, fraction = ''] = amount.split('.');
      assert.equal(BigInt(whole! + fraction.padEnd(decimals, '0')), minor, text);
      assert.ok(!/e/i.test(amount), `no exponent: ${amount}`);
    }),
  );
  assert.match(
    diceRoundBody(round({ betMinor: 1n, winMinor: 123_456_789_012_345_678n }), session(), 8),
    /"amount":0\.00000001}.*"amount":1234567890\.12345678}/,
  );
});

test('every call of a reels round passes the schema: bet with jpAmount, base spin, jackpot, feature, free bets', () => {
  const betMinor = 100n;
  const serverSeed = seedWithFeature(betMinor);
  for (const campaign of [undefined, { row: { campaignId: randomUUID() }, finished: true }]) {
    const real = session();
    let n = 0;
    const { round: planned, drawn } = planReelsRound({
      game: { rules: REELS_RULES, jackpotSeeds: new Map([['EUR', 5_000n]]) },
      session: real,
      betMinor,
      clientSeed: 'client',
      roundId: randomUUID(),
      createdAt: 0,
      newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
      campaign,
      decimals: 2,
      serverSeed,
      sealForRound: (seed) => `sealed:${seed}`,
    });
    assert.ok(drawn.freeSpins.length > 0);
    // The pool as the store would give it, whether or not the draw hit it: only a hit takes it.
    const bodies = planned.callBodies!(drawn.jackpot ? 7_000n : undefined);
    assert.equal(bodies.length, 3, 'bet, base spin, feature');
    for (const text of bodies) assertTransaction(text);
    const [bet, , feature] = bodies.map((text) => JSON.parse(text));
    assert.equal(bet.transactions[0].type, 'bet');
    assert.ok('jpAmount' in bet.transactions[0]);
    assert.equal(feature.round.finished, true);
    if (campaign) for (const body of [bet, feature]) assert.equal(body.campaign.id, campaign.row.campaignId);
    // Built again (a retried store transaction), the bodies are the same bytes: the ids were made once.
    assert.deepEqual(planned.callBodies!(drawn.jackpot ? 7_000n : undefined), bodies);
  }
});

test('a jackpot win is written as a win whose jpAmount is its whole amount, after the base win', () => {
  const real = session();
  const [baseId, jackpotId, roundId] = [randomUUID(), randomUUID(), randomUUID()];
  const text = bodyText(
    transactionBody(
      {
        session: real,
        roundId,
        finished: true,
        transactions: [
          { id: baseId, type: 'win', amountMinor: 0n },
          { id: jackpotId, type: 'win', amountMinor: 123_456n, jpAmountMinor: 123_456n },
        ],
      },
      2,
    ),
  );
  assertTransaction(text);
  assert.ok(text.includes(`{"id":"${baseId}","type":"win","amount":0},{"id":"${jackpotId}","type":"win","amount":1234.56,"jpAmount":1234.56}`), text);
});

test("a payout's body passes the schema, in the order always sent", () => {
  const payoutId = randomUUID();
  const campaignId = randomUUID();
  const sessionId = randomUUID();
  const body = payoutBody({ payoutId, amountMinor: 2_500n, campaignId }, sessionId, 2);
  const text = bodyText(body);
  assert.ok(payoutCheck.check(JSON.parse(text)).ok, text);
  assert.equal(text, `{"sessionId":"${sessionId}","payoutId":"${payoutId}","amount":25,"campaign":{"id":"${campaignId}","type":"tournament"}}`);
});

test('a payout is refused, with nothing built, on no session, another currency, an unknown currency or an amount not positive', () => {
  const asked = { payoutId: randomUUID(), operatorId: 'op-1', playerId: 'player-1', currency: 'EUR', amountMinor: 100n, campaignId: randomUUID() };
  const real = session();
  const made = payoutRequest(asked, real, CURRENCIES);
  assert.ok(made.ok);
  assert.equal(made.operatorSessionId, real.operatorSessionId);
  assert.ok(payoutCheck.check(JSON.parse(made.body)).ok);
  const code = (outcome: ReturnType<typeof payoutRequest>) => (outcome.ok ? 'ok' : outcome.code);
  assert.equal(code(payoutRequest(asked, undefined, CURRENCIES)), 'SESSION_NOT_FOUND');
  assert.equal(code(payoutRequest(asked, { ...real, operatorSessionId: null }, CURRENCIES)), 'SESSION_NOT_FOUND');
  assert.equal(code(payoutRequest(asked, { ...real, currency: 'USD' }, CURRENCIES)), 'INVALID_REQUEST');
  assert.equal(code(payoutRequest({ ...asked, currency: 'XXXX' }, real, CURRENCIES)), 'INVALID_REQUEST');
  assert.equal(code(payoutRequest({ ...asked, amountMinor: 0n }, real, CURRENCIES)), 'INVALID_REQUEST');
});

test('a request of a session with no operator session is a bug, not a body', () => {
  assert.throws(() => diceRoundBody(round(), session('fun'), 2), /real session/);
});
