/**
 * Proves the limits of the sandbox lobby's API (/lobby/api/*,
 * docs/sandbox.md), registered on an operator app as the sandbox registers
 * it, on every backend: a body nested deeper than NESTING_DEPTH_MAX is
 * refused 400 before it is parsed and creates nothing, and one nested to the
 * limit (in a member nobody reads) creates its player; a 100,000-deep body,
 * like any body over PLAYER_BODY_BYTES_MAX, is refused 413 unread; the
 * (N+1)-th call from one address within the window is answered 429
 * RATE_LIMITED as problem+json with Retry-After, and another address is
 * unaffected. The window is an hour long here: the test counts calls and
 * never depends on time passing.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerLobby } from '../../src/operator/lobby-routes.js';
import { OperatorService } from '../../src/operator/operator-service.js';
import { NESTING_DEPTH_MAX } from '../../src/protocol/i-json.js';
import { PLAYER_BODY_BYTES_MAX } from '../../src/http/limits.js';
import { ERRORS } from '../../src/protocol/errors.js';
import { admin, makeOperator, OPERATOR_BACKENDS, SECRET, type Operator } from '../helpers.js';

const CALLS_PER_ADDRESS = 5;
const WINDOW_MS = 3_600_000;

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  raw: string;
  body: Record<string, unknown>;
}

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`the lobby API's limits (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    /** Each test calls from addresses of its own, so that one test's calls count against no other's. */
    let nextAddress = 1;
    const freshAddress = () => `203.0.113.${nextAddress++}`;

    before(async () => {
      op = await makeOperator({ backend: backend.name });
      await registerLobby(op.app, {
        service: new OperatorService(op.store, { clock: () => op.clock.now, newId: () => randomUUID(), newLaunchKey: () => randomUUID() }),
        // No provider: the calls here never reach one.
        link: { providerUrl: 'http://127.0.0.1:9', operatorId: 'lobby-test', walletId: 'lobby-test', secret: SECRET },
        games: [],
        lobbyUrl: 'http://127.0.0.1:8080/lobby/',
        limits: { callsPerAddressMax: CALLS_PER_ADDRESS, windowMs: WINDOW_MS },
      });
    });
    after(async () => {
      await op.close();
    });

    async function lobby(method: 'GET' | 'POST', url: string, address: string, text?: string): Promise<Answer> {
      const response = await op.app.inject({
        method,
        url,
        remoteAddress: address,
        ...(text === undefined ? {} : { payload: text, headers: { 'content-type': 'application/json' } }),
      });
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(response.body) as Record<string, unknown>;
      } catch {
        // Left empty: the assertions fail on it with the raw text.
      }
      return { status: response.statusCode, headers: response.headers, raw: response.body, body };
    }

    function assertProblem(answer: Answer, code: keyof typeof ERRORS): void {
      assert.equal(answer.status, ERRORS[code].status, answer.raw);
      assert.match(String(answer.headers['content-type']), /^application\/problem\+json/);
      assert.equal(answer.body.code, code, answer.raw);
    }

    test('a body nested deeper than the limit is refused 400 naming the limit, unparsed, and creates nothing', async () => {
      const playerId = `deep-${randomUUID().slice(0, 8)}`;
      // Within the body limit, and not JSON: JSON.parse would have called it a syntax error.
      const deep = `{"playerId":"${playerId}","currency":"EUR","x":${'['.repeat(4_000)}`;
      const answer = await lobby('POST', '/lobby/api/players', freshAddress(), deep);
      assertProblem(answer, 'INVALID_REQUEST');
      assert.equal(answer.body.detail, `body: arrays and objects nest deeper than ${NESTING_DEPTH_MAX} levels, the limit of docs/protocol.md §1.2`);
      assert.equal((await admin(op.app, 'GET', `/admin/players/${playerId}`)).status, 404);
    });

    test('a body nested exactly to the limit passes the check and creates its player', async () => {
      const playerId = `at-limit-${randomUUID().slice(0, 8)}`;
      const text = `{"playerId":"${playerId}","currency":"EUR","x":${'['.repeat(NESTING_DEPTH_MAX - 1)}${']'.repeat(NESTING_DEPTH_MAX - 1)}}`;
      const answer = await lobby('POST', '/lobby/api/players', freshAddress(), text);
      assert.equal(answer.status, 201, answer.raw);
      assert.equal(answer.body.playerId, playerId);
    });

    test('a 100,000-deep body, and any body over PLAYER_BODY_BYTES_MAX, is refused 413 unread', async () => {
      const deep = await lobby('POST', '/lobby/api/players', freshAddress(), '['.repeat(100_000));
      assertProblem(deep, 'PAYLOAD_TOO_LARGE');
      assert.equal(deep.body.detail, `body is over the limit of ${PLAYER_BODY_BYTES_MAX} bytes`);
      const padded = JSON.stringify({ playerId: 'padded', currency: 'EUR', pad: 'x'.repeat(PLAYER_BODY_BYTES_MAX) });
      assertProblem(await lobby('POST', '/lobby/api/players', freshAddress(), padded), 'PAYLOAD_TOO_LARGE');
      assertProblem(await lobby('POST', '/lobby/api/launch', freshAddress(), padded), 'PAYLOAD_TOO_LARGE');
    });

    test('the (N+1)-th call from one address is 429 with Retry-After; another address is not limited', async () => {
      const address = freshAddress();
      for (let i = 0; i < CALLS_PER_ADDRESS; i++) {
        const answer = await lobby('GET', '/lobby/api/players?limit=1', address);
        assert.equal(answer.status, 200, answer.raw);
      }
      const refused = await lobby('POST', '/lobby/api/players', address, JSON.stringify({ playerId: `late-${randomUUID().slice(0, 8)}`, currency: 'EUR' }));
      assertProblem(refused, 'RATE_LIMITED');
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_MS / 1000, `Retry-After ${String(refused.headers['retry-after'])}`);
      assert.match(refused.body.detail as string, /more than 5 calls from this address in 3600 s/);
      assert.equal((await lobby('GET', '/lobby/api/players?limit=1', freshAddress())).status, 200);
      // The back office is not the lobby: its calls are not counted or limited here.
      assert.equal((await admin(op.app, 'GET', '/admin/players?limit=1')).status, 200);
    });
  });
}
