/**
 * Proves the limits of the game pages' API (docs/provider.md, "Limits of the
 * page's API"), on every provider store backend: a body nested deeper
 * than NESTING_DEPTH_MAX is refused 400 before it is parsed, and one nested
 * to the limit passes that check; a 100,000-deep body, like any body over
 * PLAYER_BODY_BYTES_MAX, is refused 413 unread, while a play with the
 * longest token a launch can have fits; the (N+1)-th call from one address
 * within the window is answered 429 RATE_LIMITED as problem+json with
 * Retry-After, and another address (or another player behind a trusted
 * proxy) is unaffected; the (N+1)-th play of one launch is 429 too, and
 * another launch's plays go on. Windows are an hour long here, so the
 * tests count calls and never depend on time passing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { NESTING_DEPTH_MAX } from '../../src/protocol/i-json.js';
import { PLAYER_BODY_BYTES_MAX } from '../../src/http/limits.js';
import { TOKEN_LENGTH_MAX } from '../../src/provider/launch-token.js';
import { assertProblem, launchOf, makeProvider, operatorCall, PROVIDER_BACKENDS, type Answer, type Provider } from './provider-helpers.js';

const CALLS_PER_ADDRESS = 6;
const ROUNDS_PER_LAUNCH = 3;
const WINDOW_S = 3600;

/** A call of the page's API with its body text as given, from `address` (and its headers). */
async function page(app: FastifyInstance, url: string, text: string, address: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await app.inject({
    method: 'POST',
    url,
    payload: text,
    remoteAddress: address,
    headers: { 'content-type': 'application/json', ...headers },
  });
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(response.body) as Record<string, unknown>;
  } catch {
    // Left empty: the assertions fail on it with the raw text.
  }
  return { status: response.statusCode, headers: response.headers, raw: response.body, body };
}

function assertRateLimited(answer: Answer, whose: RegExp): void {
  assertProblem(answer, 'RATE_LIMITED');
  const retryAfter = Number(answer.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_S, `Retry-After ${String(answer.headers['retry-after'])}`);
  assert.match(answer.body.detail as string, whose);
}

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`the game pages' API limits: ${backend.name}`, { skip: backend.unavailable }, () => {
    let provider: Provider;
    /** Each test calls from addresses of its own, so that one test's calls count against no other's. */
    let nextAddress = 1;
    const freshAddress = () => `198.51.100.${nextAddress++}`;

    before(async () => {
      provider = await makeProvider({
        backend: backend.name,
        edit: (file) => {
          Object.assign(file.limits as Record<string, unknown>, {
            playerCallsPerAddressMax: CALLS_PER_ADDRESS,
            roundCallsPerLaunchMax: ROUNDS_PER_LAUNCH,
            playerRateWindowSeconds: WINDOW_S,
          });
          // The test config's second operator is reached through 192.168.1.1: a proxy this provider trusts.
        },
      });
    });
    after(async () => {
      await provider.close();
    });

    async function funLaunch(): Promise<{ path: string; token: string }> {
      const answer = await operatorCall(provider.app, '/generate-launch-url', { mode: 'fun', game: 'dice', language: 'en' });
      assert.equal(answer.status, 200, answer.raw);
      const launch = launchOf(answer.body.url as string);
      const opened = await page(provider.app, `${launch.path}/api/open`, JSON.stringify({ token: launch.token }), freshAddress());
      assert.equal(opened.status, 200, opened.raw);
      return launch;
    }

    test('a body nested deeper than the limit is refused 400 naming the limit, before it is parsed', async () => {
      const address = freshAddress();
      // Within the body limit, and not JSON: JSON.parse would have called it a syntax error.
      const deep = `{"token":${'['.repeat(4_000)}`;
      const answer = await page(provider.app, '/game/dice/api/open', deep, address);
      assertProblem(answer, 'INVALID_REQUEST');
      assert.equal(answer.body.detail, `body: arrays and objects nest deeper than ${NESTING_DEPTH_MAX} levels, the limit of docs/protocol.md §1.2`);
    });

    test('a body nested exactly to the limit passes the nesting check (and is judged on its token)', async () => {
      const address = freshAddress();
      const atLimit = `{"token":"v1.not-a-token","extra":${'['.repeat(NESTING_DEPTH_MAX - 1)}${']'.repeat(NESTING_DEPTH_MAX - 1)}}`;
      assertProblem(await page(provider.app, '/game/dice/api/open', atLimit, address), 'INVALID_LAUNCH_KEY');
    });

    test('a 100,000-deep body, and any body over PLAYER_BODY_BYTES_MAX, is refused 413 unread; the longest play fits', async () => {
      const address = freshAddress();
      const deep = await page(provider.app, '/game/dice/api/open', '['.repeat(100_000), address);
      assertProblem(deep, 'PAYLOAD_TOO_LARGE');
      assert.equal(deep.body.detail, `body is over the limit of ${PLAYER_BODY_BYTES_MAX} bytes`);
      const padded = JSON.stringify({ token: 'v1.x', pad: 'x'.repeat(PLAYER_BODY_BYTES_MAX) });
      for (const path of ['open', 'play', 'free-spin', 'state']) {
        assertProblem(await page(provider.app, `/game/dice/api/${path}`, padded, freshAddress()), 'PAYLOAD_TOO_LARGE');
      }
      const longest = JSON.stringify({
        token: `v1.${'A'.repeat(TOKEN_LENGTH_MAX - 3)}`,
        bet: '1'.repeat(20) + '.' + '0'.repeat(18),
        chancePct: 99,
        clientSeed: 'x'.repeat(64),
        free: false,
      });
      assert.ok(Buffer.byteLength(longest) <= PLAYER_BODY_BYTES_MAX);
      assertProblem(await page(provider.app, '/game/dice/api/play', longest, address), 'INVALID_LAUNCH_KEY');
    });

    test('the (N+1)-th call from one address is 429 with Retry-After; another address is not limited', async () => {
      const address = freshAddress();
      const body = JSON.stringify({ token: 'v1.not-a-token' });
      for (let i = 0; i < CALLS_PER_ADDRESS; i++) {
        assertProblem(await page(provider.app, '/game/dice/api/open', body, address), 'INVALID_LAUNCH_KEY');
      }
      // Every call of the page's API counts, open without a launch included; the body is not even read.
      assertRateLimited(await page(provider.app, '/game/dice/api/state', '['.repeat(100), address), /more than 6 calls from this address in 3600 s/);
      assertProblem(await page(provider.app, '/game/dice/api/open', body, freshAddress()), 'INVALID_LAUNCH_KEY');
      // The page and its files are not the API: still served.
      const asset = await provider.app.inject({ method: 'GET', url: '/game/dice', remoteAddress: address });
      assert.equal(asset.statusCode, 200);
    });

    test('behind a trusted proxy each player is counted by the address it forwards, not by the proxy', async () => {
      const proxy = '192.168.1.1';
      const first = freshAddress();
      const body = JSON.stringify({ token: 'v1.not-a-token' });
      for (let i = 0; i < CALLS_PER_ADDRESS; i++) {
        assertProblem(await page(provider.app, '/game/dice/api/open', body, proxy, { 'x-forwarded-for': first }), 'INVALID_LAUNCH_KEY');
      }
      assertRateLimited(await page(provider.app, '/game/dice/api/open', body, proxy, { 'x-forwarded-for': first }), /from this address/);
      assertProblem(await page(provider.app, '/game/dice/api/open', body, proxy, { 'x-forwarded-for': freshAddress() }), 'INVALID_LAUNCH_KEY');
      // A peer no operator trusts cannot pick the address it is counted under.
      const stranger = freshAddress();
      for (let i = 0; i < CALLS_PER_ADDRESS; i++) {
        await page(provider.app, '/game/dice/api/open', body, stranger, { 'x-forwarded-for': freshAddress() });
      }
      assertRateLimited(await page(provider.app, '/game/dice/api/open', body, stranger, { 'x-forwarded-for': freshAddress() }), /from this address/);
    });

    test("the (N+1)-th play of one launch is 429 with Retry-After; another launch's plays go on", async () => {
      const [limited, other] = [await funLaunch(), await funLaunch()];
      // Each launch from addresses of its own: what is counted here is the launch.
      const play = (launch: { path: string; token: string }, n: number) =>
        page(
          provider.app,
          `${launch.path}/api/play`,
          JSON.stringify({ token: launch.token, bet: '1', chancePct: 50, clientSeed: `limits-${n}` }),
          freshAddress(),
        );
      for (let n = 0; n < ROUNDS_PER_LAUNCH; n++) {
        const answer = await play(limited, n);
        assert.equal(answer.status, 200, answer.raw);
      }
      const refused = await play(limited, ROUNDS_PER_LAUNCH);
      assertRateLimited(refused, /more than 3 calls of this launch in 3600 s/);
      // Nothing was played: the launch's balance and rounds are as the three plays left them.
      const state = await page(provider.app, `${limited.path}/api/state`, JSON.stringify({ token: limited.token }), freshAddress());
      assert.equal(state.status, 200, state.raw);
      assert.equal((state.body.rounds as unknown[]).length, ROUNDS_PER_LAUNCH);
      const fine = await play(other, 0);
      assert.equal(fine.status, 200, fine.raw);
    });
  });
}
