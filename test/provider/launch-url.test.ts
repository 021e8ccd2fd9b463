/**
 * Proves POST /generate-launch-url (docs/protocol.md §8.1, §2)
 * through app.inject(): every validation, the signature, the IP whitelist
 * (IPv4, IPv6, IPv4-mapped, CIDR, X-Forwarded-For through trusted proxies
 * only) and the order of these checks, each with a refusal; that a caller
 * not signing as the operator its body names learns nothing of operators or
 * wallets; and that the URL carries an opaque, sealed token holding the
 * launch and never a secret; a launch whose named currency has no ladder
 * for the game at the operator is refused at once (422), in fun mode too,
 * where the token carries the currency named and a currency without play
 * money (no rate) is refused as well. The conformance
 * kit's cases of this endpoint run here too, in-process.
 * On every provider store backend (PROVIDER_BACKENDS).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { launchTokens } from '../../src/provider/launch-token.js';
import { sign } from '../../src/protocol/signing.js';
import { SECRET } from '../helpers.js';
import { runProviderConformance } from '../../src/conformance/provider-runner.js';
import { failedIds, shown } from '../conformance/kit-helpers.js';
import { casesOf, injectSend, providerTarget } from '../conformance/provider-kit-helpers.js';
import {
  assertProblem,
  launchOf,
  makeProvider,
  OPERATOR_ID,
  operatorCall,
  OTHER_NEXT_SECRET,
  OTHER_OPERATOR_ID,
  OTHER_SECRET,
  OTHER_WALLET_ID,
  PROVIDER_BACKENDS,
  realLaunchBody,
  WALLET_ID,
  type Provider,
} from './provider-helpers.js';

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`POST /generate-launch-url: ${backend.name}`, { skip: backend.unavailable }, () => {
    let provider: Provider;

    before(async () => {
      // 10.0.0.0/8 is also whitelisted for the demo operator, so that one address is admitted by two operators.
      provider = await makeProvider({
        edit: (file) => {
          (file.operators[0]!.ipWhitelist as string[]).push('10.0.0.0/8');
        },
        backend: backend.name,
      });
    });

    after(async () => {
      await provider.close();
    });

    const launch = (body: unknown, options?: Parameters<typeof operatorCall>[3]) => operatorCall(provider.app, '/generate-launch-url', body, options);

    function claimsOf(url: string) {
      const tokens = launchTokens(provider.config.launchTokenSecrets, randomBytes);
      return tokens.open(launchOf(url).token);
    }

    describe('a valid launch', () => {
      test('real mode answers a URL of the game page carrying a sealed token', async () => {
        const body = realLaunchBody();
        const answer = await launch(body);
        assert.equal(answer.status, 200, answer.raw);
        assert.match(String(answer.headers['content-type']), /^application\/json/);
        const url = answer.body.url as string;
        assert.ok(url.startsWith(`${provider.config.publicBaseUrl}/game/dice#v1.`), url);
        const { token } = launchOf(url);
        // Opaque: neither the launch key nor any secret can be read from the URL.
        const decoded = Buffer.from(token.slice(3), 'base64url').toString('latin1');
        for (const secret of [body.key, SECRET, 'local-demo-access-token', provider.config.launchTokenSecrets[0]!]) {
          assert.equal(url.includes(secret), false);
          assert.equal(decoded.includes(secret), false);
        }
        const claims = claimsOf(url);
        assert.ok(claims);
        assert.equal(claims.mode, 'real');
        assert.equal(claims.game, 'dice');
        assert.equal(claims.operatorId, OPERATOR_ID);
        assert.equal(claims.walletId, WALLET_ID);
        assert.equal(claims.key, body.key);
        assert.equal(claims.country, 'DE');
        assert.equal(claims.language, 'en-GB');
        assert.deepEqual(claims.urls, body.urls);
        assert.equal(claims.expiresAt, provider.clock.now + provider.config.limits.launchTokenTtlMs);
      });

      test('every launch gets its own token', async () => {
        const first = await launch(realLaunchBody());
        const second = await launch(realLaunchBody());
        assert.notEqual(first.body.url, second.body.url);
        assert.notEqual(claimsOf(first.body.url as string)?.launchId, claimsOf(second.body.url as string)?.launchId);
      });

      test('fun mode needs only mode, game and language; the operator is the one that signed', async () => {
        const answer = await launch({ mode: 'fun', game: 'dice', language: 'de' });
        assert.equal(answer.status, 200, answer.raw);
        const claims = claimsOf(answer.body.url as string);
        assert.equal(claims?.mode, 'fun');
        assert.equal(claims?.operatorId, OPERATOR_ID);
        assert.equal(claims?.key, undefined);
        const other = await launch({ mode: 'fun', game: 'dice', language: 'de' }, { secret: OTHER_SECRET, remoteAddress: '10.2.3.4' });
        assert.equal(other.status, 200, other.raw);
        assert.equal(claimsOf(other.body.url as string)?.operatorId, OTHER_OPERATOR_ID);
      });

      test('a fun launch that names a currency carries it in its token; one that names none carries none', async () => {
        const named = await launch({ mode: 'fun', game: 'dice', language: 'en', currency: 'JPY' });
        assert.equal(named.status, 200, named.raw);
        assert.equal(claimsOf(named.body.url as string)?.currency, 'JPY');
        const unnamed = await launch({ mode: 'fun', game: 'dice', language: 'en' });
        assert.equal(claimsOf(unnamed.body.url as string)?.currency, undefined);
        // A real launch's currency is the player's, which /authenticate tells: the token does not carry the one named.
        const real = await launch(realLaunchBody({ currency: 'USD' }));
        assert.equal(claimsOf(real.body.url as string)?.currency, undefined);
      });

      test('fun mode with a key keeps no key in its token', async () => {
        const answer = await launch({ mode: 'fun', game: 'dice', language: 'en', key: 'should-not-travel' });
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(claimsOf(answer.body.url as string)?.key, undefined);
      });

      test('the next secret is accepted during a rotation', async () => {
        const body = realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: OTHER_WALLET_ID });
        const answer = await launch(body, { secret: OTHER_NEXT_SECRET, remoteAddress: '10.0.0.1' });
        assert.equal(answer.status, 200, answer.raw);
      });

      test('unknown members are ignored, __proto__ and constructor included', async () => {
        const text = JSON.stringify({ ...realLaunchBody(), theme: 'XXX', extra: { nested: true } });
        const answer = await launch(text.replace(/^\{/, '{"__proto__":{"mode":"fun"},"constructor":{"prototype":{"mode":"fun"}},'));
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(claimsOf(answer.body.url as string)?.mode, 'real');
      });
    });

    describe('the IP whitelist', () => {
      const admitted: [string, string, string][] = [
        ['IPv4 address', '127.0.0.1', OPERATOR_ID],
        ['IPv6 address', '::1', OPERATOR_ID],
        ['IPv4-mapped IPv6 address', '::ffff:127.0.0.1', OPERATOR_ID],
        ['IPv4 CIDR range', '10.200.3.4', OTHER_OPERATOR_ID],
        ['IPv6 CIDR range', '2001:db8:0:1::5', OTHER_OPERATOR_ID],
        ['IPv4-mapped address in an IPv4 range', '::ffff:10.1.1.1', OTHER_OPERATOR_ID],
      ];
      for (const [name, address, operatorId] of admitted) {
        test(`admits an ${name} (${address})`, async () => {
          const secret = operatorId === OPERATOR_ID ? SECRET : OTHER_SECRET;
          const walletId = operatorId === OPERATOR_ID ? WALLET_ID : OTHER_WALLET_ID;
          const answer = await launch(realLaunchBody({ operatorId, walletId }), { secret, remoteAddress: address });
          assert.equal(answer.status, 200, answer.raw);
        });
      }

      test('403 IP_NOT_ALLOWED: an address no operator whitelists', async () => {
        for (const address of ['203.0.113.7', '::2', '::ffff:203.0.113.7', '11.0.0.1', '2001:db9::1']) {
          assertProblem(await launch(realLaunchBody(), { remoteAddress: address }), 'IP_NOT_ALLOWED');
        }
      });

      test('401 INVALID_SIGNATURE, not 403: naming an operator that does not admit the address, as if it did not exist', async () => {
        // 127.0.0.1 is the demo operator's, which signs; the other operator accepts 10/8 only.
        const body = realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: OTHER_WALLET_ID });
        assertProblem(await launch(body, { remoteAddress: '127.0.0.1' }), 'INVALID_SIGNATURE');
      });

      test('X-Forwarded-For is honoured through a trusted proxy', async () => {
        const body = realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: OTHER_WALLET_ID });
        const direct = await launch(body, { secret: OTHER_SECRET, remoteAddress: '192.168.1.1', headers: { 'x-forwarded-for': '10.9.9.9' } });
        assert.equal(direct.status, 200, direct.raw);
        // The proxy appended itself after a client hop: the nearest untrusted hop is the caller.
        const chain = await launch(body, { secret: OTHER_SECRET, remoteAddress: '192.168.1.1', headers: { 'x-forwarded-for': '10.1.1.1, 192.168.1.1' } });
        assert.equal(chain.status, 200, chain.raw);
      });

      test('403 IP_NOT_ALLOWED: a trusted proxy forwarding a caller that is not whitelisted', async () => {
        const body = realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: OTHER_WALLET_ID });
        const answer = await launch(body, { secret: OTHER_SECRET, remoteAddress: '192.168.1.1', headers: { 'x-forwarded-for': '10.1.1.1, 203.0.113.9' } });
        assertProblem(answer, 'IP_NOT_ALLOWED');
        // With no X-Forwarded-For, the proxy itself is the caller, and it is not whitelisted.
        assertProblem(await launch(body, { secret: OTHER_SECRET, remoteAddress: '192.168.1.1' }), 'IP_NOT_ALLOWED');
      });

      test('403 IP_NOT_ALLOWED: X-Forwarded-For from a peer that is not a trusted proxy is ignored', async () => {
        const answer = await launch(realLaunchBody(), { remoteAddress: '203.0.113.5', headers: { 'x-forwarded-for': '127.0.0.1' } });
        assertProblem(answer, 'IP_NOT_ALLOWED');
      });

      test('the whitelist is checked before the signature and the body', async () => {
        const answer = await launch('{not json', { remoteAddress: '203.0.113.5', headers: { 'x-server-authorization': 'nope' } });
        assertProblem(answer, 'IP_NOT_ALLOWED');
      });
    });

    describe('the signature', () => {
      test('401 INVALID_SIGNATURE: made with another secret, or over other bytes', async () => {
        assertProblem(await launch(realLaunchBody(), { secret: 'not-the-secret' }), 'INVALID_SIGNATURE');
        const payload = JSON.stringify(realLaunchBody());
        const answer = await launch(`${payload} `, { headers: { 'x-server-authorization': sign(SECRET, payload) } });
        assertProblem(answer, 'INVALID_SIGNATURE');
      });

      test('401 INVALID_SIGNATURE: signed by an admitted operator, naming another admitted operator', async () => {
        // 10.1.1.1 is admitted by both; the other operator signs but names the demo operator.
        const answer = await launch(realLaunchBody(), { secret: OTHER_SECRET, remoteAddress: '10.1.1.1' });
        assertProblem(answer, 'INVALID_SIGNATURE');
      });

      test('401 INVALID_SIGNATURE: the secret of an operator that does not admit the caller, naming another', async () => {
        assertProblem(await launch(realLaunchBody(), { secret: OTHER_SECRET, remoteAddress: '127.0.0.1' }), 'INVALID_SIGNATURE');
      });

      test('403 IP_NOT_ALLOWED: an operator that signs, naming itself, from an address its own whitelist does not admit', async () => {
        // 127.0.0.1 is admitted by the demo operator only; the other operator is known by its signature.
        const body = realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: OTHER_WALLET_ID });
        const answer = await launch(body, { secret: OTHER_SECRET, remoteAddress: '127.0.0.1' });
        assertProblem(answer, 'IP_NOT_ALLOWED');
        assert.match(answer.body.detail as string, new RegExp(`operator ${OTHER_OPERATOR_ID}`));
        // The same from an address it admits is a launch.
        assert.equal((await launch(body, { secret: OTHER_SECRET, remoteAddress: '10.1.1.1' })).status, 200);
      });

      test('the signature is checked before the body is parsed', async () => {
        assertProblem(await launch('{not json', { secret: 'not-the-secret' }), 'INVALID_SIGNATURE');
      });

      test('an unknown operator and a known one that did not sign get the same 401, whatever the walletId', async () => {
        const unsigned = { headers: { 'x-server-authorization': '' } };
        const answers = [
          await launch(realLaunchBody({ operatorId: 'no-such-operator' }), unsigned),
          await launch(realLaunchBody(), unsigned),
          await launch(realLaunchBody({ operatorId: 'no-such-operator' }), { secret: 'not-the-secret' }),
          await launch(realLaunchBody(), { secret: 'not-the-secret' }),
          // Signed by the demo operator, naming an operator that does not exist or that is not the signer.
          await launch(realLaunchBody({ operatorId: 'no-such-operator' })),
          await launch(realLaunchBody({ operatorId: 'no-such-operator', walletId: 'no-such-wallet' })),
          await launch(realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: OTHER_WALLET_ID })),
          await launch(realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: 'no-such-wallet' })),
          await launch(realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: OTHER_WALLET_ID }), { remoteAddress: '10.1.1.1' }),
          await launch({ mode: 'fun', game: 'dice', language: 'en', operatorId: 'no-such-operator' }),
        ];
        for (const answer of answers) {
          assertProblem(answer, 'INVALID_SIGNATURE');
          assert.equal(answer.raw, answers[0]!.raw, 'status, code and detail are the same');
        }
      });
    });

    describe('validation (400 INVALID_REQUEST names the field)', () => {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['mode missing', { mode: undefined }, /^mode:/],
        ['game missing', { game: undefined }, /^game:/],
        ['game not a slug', { game: '../etc' }, /^game:/],
        ['language missing', { language: undefined }, /^language:/],
        ['language not BCP 47', { language: 'en_US' }, /^language: en_US is not a well-formed BCP 47/],
        ['language garbage', { language: '12345678901' }, /^language:/],
        ['walletId missing in real mode', { walletId: undefined }, /^walletId: is required in real mode/],
        ['operatorId missing in real mode', { operatorId: undefined }, /^operatorId: is required in real mode/],
        ['key missing in real mode', { key: undefined }, /^key: is required in real mode/],
        ['key empty', { key: '' }, /^key:/],
        ['country missing in real mode', { country: undefined }, /^country: is required in real mode/],
        ['country not assigned', { country: 'ZZ' }, /^country: ZZ is not an assigned ISO 3166-1 alpha-2 code/],
        ['country alpha-3', { country: 'DEU' }, /^country:/],
        ['urls.deposit not http', { urls: { deposit: 'javascript:alert(1)' } }, /^urls\.deposit:/],
        ['urls.refresh not http', { urls: { refresh: 'ftp://casino.example/refresh' } }, /^urls\.refresh:/],
        ['urls not an object', { urls: 'https://casino.example' }, /^urls:/],
      ];
      for (const [name, change, detail] of cases) {
        test(name, async () => {
          const body: Record<string, unknown> = { ...realLaunchBody(), ...change };
          for (const key of Object.keys(change)) if (change[key] === undefined) delete body[key];
          const answer = await launch(body);
          assertProblem(answer, 'INVALID_REQUEST');
          assert.match(answer.body.detail as string, detail);
        });
      }

      test('a BCP 47 tag with script and region is well formed', async () => {
        for (const language of ['zh-Hant-TW', 'sr-Latn', 'pt-BR', 'es-419', 'en']) {
          const answer = await launch(realLaunchBody({ language }));
          assert.equal(answer.status, 200, `${language}: ${answer.raw}`);
        }
      });

      test('fun mode still checks the fields it is given', async () => {
        const answer = await launch({ mode: 'fun', game: 'dice', language: 'en', country: 'XX' });
        assertProblem(answer, 'INVALID_REQUEST');
      });

      test('malformed JSON and a body that is not an object', async () => {
        assertProblem(await launch('{"mode":'), 'INVALID_REQUEST');
        assertProblem(await launch('[1,2]'), 'INVALID_REQUEST');
      });

      test('415 UNSUPPORTED_MEDIA_TYPE: not application/json', async () => {
        const answer = await launch(JSON.stringify(realLaunchBody()), { headers: { 'content-type': 'text/plain' } });
        assertProblem(answer, 'UNSUPPORTED_MEDIA_TYPE');
      });

      test('413 PAYLOAD_TOO_LARGE: over the body limit', async () => {
        const answer = await launch({ ...realLaunchBody(), padding: 'x'.repeat(provider.config.limits.bodyBytesMax) });
        assertProblem(answer, 'PAYLOAD_TOO_LARGE');
      });
    });

    describe('games and wallets', () => {
      test('404 WALLET_NOT_FOUND: a walletId not registered to the operator that signed', async () => {
        assertProblem(await launch(realLaunchBody({ walletId: 'no-such-wallet' })), 'WALLET_NOT_FOUND');
        assertProblem(await launch(realLaunchBody({ walletId: OTHER_WALLET_ID })), 'WALLET_NOT_FOUND');
        const other = await launch(realLaunchBody({ operatorId: OTHER_OPERATOR_ID, walletId: WALLET_ID }), { secret: OTHER_SECRET, remoteAddress: '10.1.1.1' });
        assertProblem(other, 'WALLET_NOT_FOUND');
      });

      test('404 WALLET_NOT_FOUND: a fun launch with a walletId of another operator', async () => {
        assertProblem(await launch({ mode: 'fun', game: 'dice', language: 'en', walletId: OTHER_WALLET_ID }), 'WALLET_NOT_FOUND');
        const own = await launch({ mode: 'fun', game: 'dice', language: 'en', walletId: WALLET_ID });
        assert.equal(own.status, 200, own.raw);
      });
    });

    describe('a launch that could not be played is refused when asked for, not when the page opens', () => {
      test('422 UNSUPPORTED_CURRENCY: the player currency named has no ladder for the game at the operator', async () => {
        // SEK has an exchange rate, so a ladder, but the operator does not take it; XTS has neither.
        for (const currency of ['SEK', 'XTS']) {
          const answer = await launch(realLaunchBody({ currency }));
          assertProblem(answer, 'UNSUPPORTED_CURRENCY');
          assert.equal(answer.body.detail, `game dice has no bet ladder for ${currency} at operator ${OPERATOR_ID}`);
        }
        const offered = await launch(realLaunchBody({ currency: 'USD' }));
        assert.equal(offered.status, 200, offered.raw);
        assert.equal(claimsOf(offered.body.url as string)?.mode, 'real');
        const unnamed = await launch(realLaunchBody());
        assert.equal(unnamed.status, 200, 'without a currency the check waits for /authenticate');
      });

      test('the currency is checked after the game, and its form like any member', async () => {
        assertProblem(await launch(realLaunchBody({ game: 'roulette', currency: 'SEK' })), 'GAME_NOT_FOUND');
        const malformed = await launch(realLaunchBody({ currency: 'eur' }));
        assertProblem(malformed, 'INVALID_REQUEST');
        assert.equal(malformed.body.detail, 'currency: must be a currency code of 2 to 10 capital letters or digits, got "eur"');
      });
    });

    test('422 UNSUPPORTED_CURRENCY: a fun launch of a game with no ladder in the play-money currency', async () => {
      // AUD has no ladder and no exchange rate: no game has bets in it.
      const aussie = await makeProvider({ edit: (file) => void (file.fun = { currency: 'AUD', balance: '1000' }), backend: backend.name });
      try {
        const answer = await operatorCall(aussie.app, '/generate-launch-url', { mode: 'fun', game: 'dice', language: 'en' });
        assertProblem(answer, 'UNSUPPORTED_CURRENCY');
        assert.equal(answer.body.detail, 'game dice has no bet ladder for the play-money currency AUD');
      } finally {
        await aussie.close();
      }
    });

    test('422 UNSUPPORTED_CURRENCY: a fun launch naming a currency the game has no bets in at the operator, or no play money in', async () => {
      for (const currency of ['SEK', 'QQQ']) {
        // SEK has a rate but the operator does not offer it; QQQ is no currency at all.
        const answer = await launch({ mode: 'fun', game: 'dice', language: 'en', currency });
        assertProblem(answer, 'UNSUPPORTED_CURRENCY');
        assert.equal(answer.body.detail, `game dice has no bet ladder for ${currency} at operator ${OPERATOR_ID}`);
      }
      // AUD: offered, with a ladder of its own, and no rate to convert play money into it.
      const aussie = await makeProvider({
        edit: (file) => {
          (file.operators[0]!.currencies as string[]).push('AUD');
          (file.games[0]!.ladders as Record<string, string[]>).AUD = ['1', '2'];
        },
        backend: backend.name,
      });
      try {
        const answer = await operatorCall(aussie.app, '/generate-launch-url', { mode: 'fun', game: 'dice', language: 'en', currency: 'AUD' });
        assertProblem(answer, 'UNSUPPORTED_CURRENCY');
        assert.equal(answer.body.detail, 'the provider holds no play money in AUD: it has no exchange rate from EUR to it');
      } finally {
        await aussie.close();
      }
    });

    // One scenario, two runners (docs/testing.md): the conformance kit's cases of /generate-launch-url are
    // this endpoint's rule tests too, run here against the app in-process (their launch URLs opened through
    // it); the tests above keep what the kit cannot check from outside (other operators, the whitelist from
    // other addresses, the token's content) and the exact details.
    describe("the conformance kit's /generate-launch-url cases, in-process", () => {
      test('every kit case whose calls are all to /generate-launch-url passes against the app', async () => {
        const cases = casesOf('/generate-launch-url');
        const report = await runProviderConformance({
          target: { ...providerTarget('http://provider.invalid'), nextSecret: undefined },
          cases,
          send: injectSend(provider.app),
        });
        assert.ok(cases.length >= 20, `${cases.length} cases`);
        assert.deepEqual(failedIds(report), [], shown(report));
        assert.deepEqual(
          report.cases.filter((each) => each.outcome === 'skipped').map((each) => each.id),
          ['auth.next-secret-launch', 'ip-whitelist.refused-outside'],
        );
      });

      test("from an address no whitelist admits, the kit's refusal case passes and every other launch case is skipped, saying why", async () => {
        const cases = casesOf('/generate-launch-url');
        const report = await runProviderConformance({
          target: { ...providerTarget('http://provider.invalid'), nextSecret: undefined, outsideWhitelist: true },
          cases,
          send: injectSend(provider.app, '198.51.100.23'),
        });
        assert.deepEqual(failedIds(report), [], shown(report));
        assert.deepEqual(
          report.cases.filter((each) => each.outcome === 'passed').map((each) => each.id),
          ['ip-whitelist.refused-outside'],
        );
        assert.equal(report.summary.skipped, cases.length - 1);
      });
    });
  });
}
