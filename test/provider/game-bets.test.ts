/**
 * Proves POST /game-bets (docs/protocol.md §8.2) through
 * app.inject(): the ladders come back exact in each currency's decimals and
 * strictly ascending, for written and derived ladders alike; and each rule
 * has its refusal: signature, wallet pair, unknown games, currencies without
 * a ladder, malformed bodies (the conformance kit's cases of /game-bets
 * among them, run in-process). A caller that cannot sign as the operator its
 * body names learns nothing: not whether that operator exists, nor whether
 * its body would parse.
 * On every provider store backend (PROVIDER_BACKENDS).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runProviderConformance } from '../../src/conformance/provider-runner.js';
import { failedIds, shown } from '../conformance/kit-helpers.js';
import { casesOf, injectSend, providerTarget } from '../conformance/provider-kit-helpers.js';
import {
  assertProblem,
  makeProvider,
  OPERATOR_ID,
  operatorCall,
  OTHER_NEXT_SECRET,
  OTHER_OPERATOR_ID,
  OTHER_SECRET,
  OTHER_WALLET_ID,
  PROVIDER_BACKENDS,
  WALLET_ID,
  type Provider,
} from './provider-helpers.js';

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`POST /game-bets: ${backend.name}`, { skip: backend.unavailable }, () => {
    let provider: Provider;
    before(async () => {
      provider = await makeProvider({ backend: backend.name });
    });
    after(async () => {
      await provider.close();
    });

    const bets = (body: unknown, options?: Parameters<typeof operatorCall>[3]) => operatorCall(provider.app, '/game-bets', body, options);
    const body = (games: string[], currencies: string[], extra: Record<string, unknown> = {}) => ({
      walletId: WALLET_ID,
      operatorId: OPERATOR_ID,
      games,
      currencies,
      ...extra,
    });

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

      test('there is no IP rule here, and the next secret is accepted', async () => {
        const answer = await bets(
          { walletId: OTHER_WALLET_ID, operatorId: OTHER_OPERATOR_ID, games: ['dice'], currencies: ['USD'] },
          { secret: OTHER_NEXT_SECRET, remoteAddress: '203.0.113.1' },
        );
        assert.equal(answer.status, 200, answer.raw);
      });
    });

    describe('refusals', () => {
      test("401 INVALID_SIGNATURE: another operator's secret over a body naming this one", async () => {
        assertProblem(await bets(body(['dice'], ['EUR']), { secret: OTHER_SECRET }), 'INVALID_SIGNATURE');
      });

      test('404 WALLET_NOT_FOUND: a correctly signed body whose walletId is not of its operator', async () => {
        assertProblem(await bets(body(['dice'], ['EUR'], { walletId: 'nope' })), 'WALLET_NOT_FOUND');
        assertProblem(await bets(body(['dice'], ['EUR'], { walletId: OTHER_WALLET_ID })), 'WALLET_NOT_FOUND');
        const other = await bets({ walletId: WALLET_ID, operatorId: OTHER_OPERATOR_ID, games: ['dice'], currencies: ['EUR'] }, { secret: OTHER_SECRET });
        assertProblem(other, 'WALLET_NOT_FOUND');
        assert.match(other.body.detail as string, new RegExp(`walletId ${WALLET_ID} is not registered for operator ${OTHER_OPERATOR_ID}`));
      });

      test('404 WALLET_NOT_FOUND is answered only after the signature when the operator is known', async () => {
        assertProblem(await bets(body(['dice'], ['EUR'], { walletId: 'nope' }), { secret: 'wrong' }), 'INVALID_SIGNATURE');
      });

      test('401 INVALID_SIGNATURE: a body naming an operator, known or not, that did not sign it', async () => {
        // The demo operator signs; the body names another operator, or one that does not exist.
        assertProblem(await bets(body(['dice'], ['EUR'], { operatorId: 'nobody' })), 'INVALID_SIGNATURE');
        assertProblem(await bets(body(['dice'], ['EUR'], { operatorId: OTHER_OPERATOR_ID, walletId: OTHER_WALLET_ID })), 'INVALID_SIGNATURE');
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

      test('400 INVALID_REQUEST: a body that fails the schema is judged only once signed', async () => {
        assertProblem(await bets({ walletId: WALLET_ID, operatorId: OPERATOR_ID, games: 'dice' }), 'INVALID_REQUEST');
        assertProblem(await bets({ walletId: WALLET_ID, operatorId: OPERATOR_ID, games: 'dice' }, { secret: 'wrong' }), 'INVALID_SIGNATURE');
      });
    });

    // One scenario, two runners (docs/testing.md): the conformance kit's cases of /game-bets are this
    // endpoint's rule tests too, run here against the app in-process; the tests above keep what the kit
    // does not check (other operators' secrets, the exact details, the config's ladders).
    describe("the conformance kit's /game-bets cases, in-process", () => {
      test('every kit case whose calls are all to /game-bets passes against the app', async () => {
        const cases = casesOf('/game-bets');
        const report = await runProviderConformance({
          target: { ...providerTarget('http://provider.invalid'), nextSecret: undefined },
          cases,
          send: injectSend(provider.app),
        });
        assert.ok(cases.length >= 20, `${cases.length} cases`);
        assert.deepEqual(failedIds(report), [], shown(report));
        // The demo operator of this config holds no next secret: the rotation case is the only one not judged.
        assert.deepEqual(
          report.cases.filter((each) => each.outcome === 'skipped').map((each) => each.id),
          ['auth.next-secret-bets', 'ip-whitelist.game-bets-outside'],
        );
      });

      test('from an address no whitelist admits, every kit case of /game-bets passes the same (it has no address rule)', async () => {
        const cases = casesOf('/game-bets');
        const report = await runProviderConformance({
          target: { ...providerTarget('http://provider.invalid'), nextSecret: undefined, outsideWhitelist: true },
          cases,
          send: injectSend(provider.app, '198.51.100.23'),
        });
        assert.deepEqual(failedIds(report), [], shown(report));
        assert.deepEqual(
          report.cases.filter((each) => each.outcome === 'skipped').map((each) => each.id),
          ['auth.next-secret-bets'],
        );
      });
    });

    describe('a caller that cannot sign learns nothing', () => {
      const unsigned = { headers: { 'x-server-authorization': '' } };
      const wrong = { secret: 'not-any-operators-secret' };

      test('an unknown and a known operatorId get the same 401, unsigned or wrongly signed', async () => {
        const answers = [
          await bets(body(['dice'], ['EUR'], { operatorId: 'nobody' }), unsigned),
          await bets(body(['dice'], ['EUR']), unsigned),
          await bets(body(['dice'], ['EUR'], { operatorId: 'nobody' }), wrong),
          await bets(body(['dice'], ['EUR']), wrong),
          await bets({ walletId: OTHER_WALLET_ID, operatorId: OTHER_OPERATOR_ID, games: ['dice'], currencies: ['EUR'] }, wrong),
          // Signed, but by an operator other than the one named: the same answer again.
          await bets(body(['dice'], ['EUR'], { operatorId: 'nobody' }), { secret: OTHER_SECRET }),
          await bets(body(['dice'], ['EUR']), { secret: OTHER_SECRET }),
        ];
        for (const answer of answers) {
          assertProblem(answer, 'INVALID_SIGNATURE');
          assert.equal(answer.raw, answers[0]!.raw, 'status, code and detail are the same');
        }
      });

      test('a body that is not JSON, or not of the schema, gets 401 unless signed', async () => {
        for (const payload of ['{"games":[', 'not json at all', '[1,2]', JSON.stringify({ operatorId: 'nobody' })]) {
          const answer = await bets(payload, unsigned);
          assertProblem(answer, 'INVALID_SIGNATURE');
          assertProblem(await bets(payload, wrong), 'INVALID_SIGNATURE');
        }
      });

      test('the secrets of every operator are tried: any operator may sign a body naming itself', async () => {
        const demo = await bets(body(['dice'], ['EUR']));
        assert.equal(demo.status, 200, demo.raw);
        const other = await bets({ walletId: OTHER_WALLET_ID, operatorId: OTHER_OPERATOR_ID, games: ['dice'], currencies: ['EUR'] }, { secret: OTHER_SECRET });
        assert.equal(other.status, 200, other.raw);
      });
    });
  });
}
