/**
 * Proves POST /game-bets (SPEC.md §4.4; PROTOCOL.md §8) through
 * app.inject(): the ladders come back exact in each currency's decimals and
 * strictly ascending, for written and derived ladders alike; and each rule
 * has its refusal: signature, wallet pair, unknown games, currencies without
 * a ladder, malformed bodies.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SECRET } from '../helpers.js';
import {
  assertProblem,
  makeProvider,
  OPERATOR_ID,
  operatorCall,
  OTHER_NEXT_SECRET,
  OTHER_OPERATOR_ID,
  OTHER_SECRET,
  OTHER_WALLET_ID,
  WALLET_ID,
  type Provider,
} from './provider-helpers.js';

let provider: Provider;
before(async () => {
  provider = await makeProvider();
});
after(async () => {
  await provider.close();
});

const bets = (body: unknown, options?: Parameters<typeof operatorCall>[3]) => operatorCall(provider.app, '/game-bets', body, options);
const body = (games: string[], currencies: string[], extra: Record<string, unknown> = {}) => ({ walletId: WALLET_ID, operatorId: OPERATOR_ID, games, currencies, ...extra });

describe('the ladders', () => {
  test('written and derived ladders, exact JSON numbers, strictly ascending', async () => {
    const answer = await bets(body(['dice', 'dice-high-roller'], ['EUR', 'JPY', 'BTC', 'USD']));
    assert.equal(answer.status, 200, answer.raw);
    assert.match(String(answer.headers['content-type']), /^application\/json/);
    // The exact text: numbers as the currency's decimals allow, no float artefacts.
    assert.match(answer.raw, /"dice":\{"EUR":\[0\.1,0\.2,0\.5,1,2,5,10,20,50,100\]/);
    assert.match(answer.raw, /"JPY":\[20,25,100,200,250,1000,2000,2500,10000,20000\]/);
    assert.match(answer.raw, /"BTC":\[0\.000002,0\.0000025,0\.00001,/);
    const ladders = answer.body as Record<string, Record<string, number[]>>;
    assert.deepEqual(Object.keys(ladders), ['dice', 'dice-high-roller']);
    assert.deepEqual(ladders['dice-high-roller']!.USD, [1, 5, 10, 25, 50, 100, 250, 500]);
    for (const byCurrency of Object.values(ladders)) {
      assert.deepEqual(Object.keys(byCurrency), ['EUR', 'JPY', 'BTC', 'USD']);
      for (const [currency, amounts] of Object.entries(byCurrency)) {
        for (let i = 1; i < amounts.length; i++) assert.ok(amounts[i]! > amounts[i - 1]!, `${currency} ascends`);
        if (currency === 'JPY') for (const amount of amounts) assert.ok(Number.isInteger(amount));
      }
    }
  });

  test('repeated games and currencies answer once; unknown members are ignored', async () => {
    const answer = await bets(body(['dice', 'dice'], ['EUR', 'EUR'], { extra: 1 }));
    assert.equal(answer.status, 200, answer.raw);
    assert.deepEqual(Object.keys(answer.body), ['dice']);
  });

  test('there is no IP rule here, and the next secret is accepted', async () => {
    const answer = await bets({ walletId: OTHER_WALLET_ID, operatorId: OTHER_OPERATOR_ID, games: ['dice'], currencies: ['USD'] }, { secret: OTHER_NEXT_SECRET, remoteAddress: '203.0.113.1' });
    assert.equal(answer.status, 200, answer.raw);
  });
});

describe('refusals', () => {
  test('401 INVALID_SIGNATURE: missing, wrong, or another operator\'s', async () => {
    assertProblem(await bets(body(['dice'], ['EUR']), { headers: { 'x-server-authorization': '' } }), 'INVALID_SIGNATURE');
    assertProblem(await bets(body(['dice'], ['EUR']), { secret: 'wrong' }), 'INVALID_SIGNATURE');
    assertProblem(await bets(body(['dice'], ['EUR']), { secret: OTHER_SECRET }), 'INVALID_SIGNATURE');
  });

  test('404 WALLET_NOT_FOUND: an unknown operator, or a walletId not of that operator', async () => {
    assertProblem(await bets(body(['dice'], ['EUR'], { operatorId: 'nobody' })), 'WALLET_NOT_FOUND');
    assertProblem(await bets(body(['dice'], ['EUR'], { walletId: 'nope' })), 'WALLET_NOT_FOUND');
    assertProblem(await bets(body(['dice'], ['EUR'], { walletId: OTHER_WALLET_ID })), 'WALLET_NOT_FOUND');
  });

  test('404 WALLET_NOT_FOUND is answered only after the signature when the operator is known', async () => {
    assertProblem(await bets(body(['dice'], ['EUR'], { walletId: 'nope' }), { secret: 'wrong' }), 'INVALID_SIGNATURE');
  });

  test('404 GAME_NOT_FOUND lists the unknown games', async () => {
    const answer = await bets(body(['dice', 'poker', 'slots'], ['EUR']));
    assertProblem(answer, 'GAME_NOT_FOUND');
    assert.match(answer.body.detail as string, /unknown games: poker, slots/);
  });

  test('422 UNSUPPORTED_CURRENCY lists each game and currency without a ladder', async () => {
    // NOK has no exchange rate; CHF has one but the operator does not use it; XYZ is no currency.
    const answer = await bets(body(['dice', 'dice-high-roller'], ['EUR', 'NOK', 'CHF', 'XYZ']));
    assertProblem(answer, 'UNSUPPORTED_CURRENCY');
    for (const pair of ['dice: NOK', 'dice: CHF', 'dice: XYZ', 'dice-high-roller: NOK']) assert.ok((answer.body.detail as string).includes(pair), pair);
  });

  const malformed: [string, unknown, RegExp][] = [
    ['no games', body([], ['EUR']), /^games:/],
    ['currencies missing', { walletId: WALLET_ID, operatorId: OPERATOR_ID, games: ['dice'] }, /^currencies:/],
    ['a currency in lower case', body(['dice'], ['eur']), /^currencies\[0\]:/],
    ['a game that is no slug', body(['di ce'], ['EUR']), /^games\[0\]:/],
    ['walletId not a string', { ...body(['dice'], ['EUR']), walletId: 5 }, /^walletId:/],
  ];
  for (const [name, payload, detail] of malformed) {
    test(`400 INVALID_REQUEST: ${name}`, async () => {
      const answer = await bets(payload);
      assertProblem(answer, 'INVALID_REQUEST');
      assert.match(answer.body.detail as string, detail);
    });
  }

  test('400 INVALID_REQUEST: malformed JSON', async () => {
    assertProblem(await bets('{"games":[', { secret: SECRET }), 'INVALID_REQUEST');
  });

  test('415 UNSUPPORTED_MEDIA_TYPE and 413 PAYLOAD_TOO_LARGE', async () => {
    assertProblem(await bets(JSON.stringify(body(['dice'], ['EUR'])), { headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'UNSUPPORTED_MEDIA_TYPE');
    assertProblem(await bets({ ...body(['dice'], ['EUR']), pad: 'x'.repeat(provider.config.limits.bodyBytesMax) }), 'PAYLOAD_TOO_LARGE');
  });
});
