/**
 * Proves docs/protocol.md §1's I-JSON rule on the provider, which reads its bodies
 * through the same reader as the operator: correctly signed calls to
 * /game-bets and /generate-launch-url whose body holds a member name twice,
 * an unpaired surrogate, U+0000, a number outside a double's range, or bytes
 * that are not UTF-8 are refused with 400 INVALID_REQUEST, in known members
 * and in members nobody reads alike; a body declared in another charset
 * than UTF-8 is 415.
 * On every provider store backend (PROVIDER_BACKENDS).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sign } from '../../src/protocol/signing.js';
import { SECRET } from '../helpers.js';
import {
  assertProblem,
  LOCAL_ADDRESS,
  makeProvider,
  OPERATOR_ID,
  operatorCall,
  PROVIDER_BACKENDS,
  realLaunchBody,
  WALLET_ID,
  type Provider,
} from './provider-helpers.js';

for (const backend of PROVIDER_BACKENDS) {
  describe(`I-JSON bodies on the provider: ${backend.name}`, { skip: backend.unavailable }, () => {
    let provider: Provider;
    before(async () => {
      provider = await makeProvider({ backend: backend.name });
    });
    after(async () => {
      await provider.close();
    });

    /** A /game-bets body as text, with raw JSON text spliced in after its members. */
    function betsText(extra = '', games = '["dice"]'): string {
      return `{"walletId":"${WALLET_ID}","operatorId":"${OPERATOR_ID}","games":${games},"currencies":["EUR"]${extra}}`;
    }

    async function refused(url: string, text: string, detail: RegExp): Promise<void> {
      const answer = await operatorCall(provider.app, url, text);
      assertProblem(answer, 'INVALID_REQUEST');
      assert.match(answer.body.detail as string, detail);
    }

    describe('I-JSON bodies on the provider', () => {
      test('the bodies below differ from one that is answered 200 in one thing only', async () => {
        const answer = await operatorCall(provider.app, '/game-bets', betsText(',"note":"\\u00e9\\ud83d\\ude00","n":-0,"m":5e-324'));
        assert.equal(answer.status, 200, answer.raw);
      });

      test('/game-bets: a member name twice is 400, whichever of its values would have passed', async () => {
        await refused('/game-bets', betsText(`,"walletId":"${WALLET_ID}"`), /^body: member "walletId" appears twice$/);
        const other = `{"walletId":"nope","walletId":"${WALLET_ID}","operatorId":"${OPERATOR_ID}","games":["dice"],"currencies":["EUR"]}`;
        await refused('/game-bets', other, /^body: member "walletId" appears twice$/);
        await refused('/game-bets', betsText(',"extra":{"a":1,"\\u0061":2}'), /^body: member "a" appears twice in extra$/);
      });

      test('/game-bets: an unpaired surrogate is 400, not GAME_NOT_FOUND', async () => {
        await refused('/game-bets', betsText('', '["dice","\\ud800"]'), /^games\[1\]: holds an unpaired surrogate \(\\ud800\)/);
        await refused('/game-bets', betsText(',"note":"\\udc00"'), /^note: holds an unpaired surrogate/);
      });

      test('/game-bets: U+0000 is 400', async () => {
        await refused('/game-bets', betsText(',"note":"a\\u0000"'), /^note: holds U\+0000/);
        await refused('/game-bets', betsText('', '["dice\\u0000"]'), /^games\[0\]: holds U\+0000/);
      });

      test("/game-bets: a number out of a double's range is 400, in a member nobody reads too", async () => {
        await refused('/game-bets', betsText(',"n":1e-400'), /^n: the number 1e-400 is outside the range of a double/);
        await refused('/game-bets', betsText(',"n":[1e400]'), /^n\[0\]: the number 1e400/);
      });

      test('/game-bets: bytes that are not UTF-8 are 400, not decoded with U+FFFD', async () => {
        const [head, tail] = betsText(',"note":"@"').split('@') as [string, string];
        const payload = Buffer.concat([Buffer.from(head), Buffer.from([0xc3]), Buffer.from(tail)]);
        const response = await provider.app.inject({
          method: 'POST',
          url: '/game-bets',
          payload,
          remoteAddress: LOCAL_ADDRESS,
          headers: { 'content-type': 'application/json', 'x-server-authorization': sign(SECRET, payload) },
        });
        const answer = { status: response.statusCode, headers: response.headers, raw: response.body, body: response.json() as Record<string, unknown> };
        assertProblem(answer, 'INVALID_REQUEST');
        assert.equal(answer.body.detail, `body is not valid UTF-8 (byte ${Buffer.byteLength(head)})`);
      });

      test('/game-bets: a body declared in a charset other than UTF-8 is 415; charset=utf-8 is read', async () => {
        const text = betsText();
        const utf16 = await operatorCall(provider.app, '/game-bets', text, { headers: { 'content-type': 'application/json; charset=utf-16' } });
        assertProblem(utf16, 'UNSUPPORTED_MEDIA_TYPE');
        const utf8 = await operatorCall(provider.app, '/game-bets', text, { headers: { 'content-type': 'application/json; charset=utf-8' } });
        assert.equal(utf8.status, 200, utf8.raw);
      });

      test('/generate-launch-url: a duplicate key or mode, or U+0000 in a URL, is 400', async () => {
        const text = JSON.stringify(realLaunchBody());
        await refused('/generate-launch-url', text.replace('"mode":"real"', '"mode":"fun","mode":"real"'), /^body: member "mode" appears twice$/);
        await refused('/generate-launch-url', text.replace('"key":"', '"key":"other","key":"'), /^body: member "key" appears twice$/);
        await refused('/generate-launch-url', text.replace('/lobby"', '/lobby\\u0000"'), /^urls\.lobby: holds U\+0000/);
        assert.equal((await operatorCall(provider.app, '/generate-launch-url', text)).status, 200);
      });
    });
  });
}
