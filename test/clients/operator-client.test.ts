/**
 * Proves the operator client (src/clients/operator-client.ts): against a
 * real operator on a real socket, every endpoint signs, carries the bearer
 * token and reads exact balances, and every refusal arrives as a typed
 * outcome with its code; with the network mocked and the clock injected,
 * the retry policy is followed to the letter (which answers are resent, the
 * full-jitter back-off, the attempt and time limits, the wait for one
 * answer), and answers that are not the protocol are never guessed at,
 * a session of a player id that reads as another among them.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MockAgent } from 'undici';
import { backoffMs, PROTOCOL_RETRY, type ClientWorld, type RetryPolicy } from '../../src/clients/http-call.js';
import { createOperatorClient, type OperatorClient } from '../../src/clients/operator-client.js';
import { sign } from '../../src/protocol/signing.js';
import { ACCESS_TOKEN, SECRET, admin, makeOperator, type Operator } from '../helpers.js';

function fakeWorld(): ClientWorld & { sleeps: number[]; now: number } {
  const world = {
    now: 0,
    sleeps: [] as number[],
    clock: () => world.now,
    sleep: async (ms: number) => {
      world.sleeps.push(ms);
      world.now += ms;
    },
    random: () => 0.999,
  };
  return world;
}

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('against a real operator', () => {
  let op: Operator;
  let client: OperatorClient;
  let origin: string;
  before(async () => {
    op = await makeOperator();
    origin = await op.app.listen({ host: '127.0.0.1', port: 0 });
    client = createOperatorClient({ endpoint: origin, secret: SECRET, accessToken: ACCESS_TOKEN });
  });
  after(async () => {
    await client.close();
    await op.close();
  });

  async function session(balance: number) {
    const playerId = `p-${randomUUID().slice(0, 8)}`;
    await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance, country: 'AT' });
    const key = await admin(op.app, 'POST', '/admin/launch-keys', { playerId, game: 'dice' });
    const answer = await client.authenticate({ key: key.body.key as string, game: 'dice' });
    assert.ok(answer.ok, JSON.stringify(answer));
    return answer.value;
  }

  test('authenticate answers the session with an exact balance', async () => {
    const s = await session(999_999_999_999.99);
    assert.equal(s.balance, '999999999999.99');
    assert.equal(s.currency, 'EUR');
    assert.equal(s.country, 'AT');
  });

  test('transaction and payout answer exact balances: 10 - 0.1 + 0.3 is 10.2', async () => {
    const s = await session(10);
    const answer = await client.transaction({
      sessionId: s.sessionId,
      playerId: s.playerId,
      game: 'dice',
      transactions: [
        { id: randomUUID(), type: 'bet', amount: 0.1 },
        { id: randomUUID(), type: 'win', amount: 0.3 },
      ],
      round: { id: randomUUID(), finished: true },
    });
    assert.deepEqual(answer, { ok: true, value: { balance: '10.2' }, attempts: 1 });
    const payout = await client.payout({ sessionId: s.sessionId, payoutId: randomUUID(), amount: 0.05, campaign: { id: randomUUID(), type: 'tournament' } });
    assert.deepEqual(payout, { ok: true, value: { balance: '10.25' }, attempts: 1 });
  });

  test('a body given as text is sent byte for byte', async () => {
    const s = await session(5);
    const text = `{"sessionId":"${s.sessionId}","playerId":"${s.playerId}","game":"dice","transactions":[{"id":"${randomUUID()}","type":"bet","amount":1.50}],"round":{"id":"${randomUUID()}","finished":true}}`;
    const answer = await client.transaction(text);
    assert.deepEqual(answer, { ok: true, value: { balance: '3.5' }, attempts: 1 });
  });

  test('refusals are typed outcomes with their code, status and exact balance, never retried', async () => {
    const s = await session(10);
    const answer = await client.transaction({
      sessionId: s.sessionId,
      playerId: s.playerId,
      game: 'dice',
      transactions: [{ id: randomUUID(), type: 'bet', amount: 12.5 }],
      round: { id: randomUUID(), finished: true },
    });
    assert.equal(answer.ok, false);
    assert.ok(!answer.ok && answer.kind === 'refused');
    assert.equal(answer.status, 402);
    assert.equal(answer.code, 'INSUFFICIENT_FUNDS');
    assert.equal(answer.balance, '10');
    assert.equal(answer.attempts, 1);
    const unknown = await client.authenticate({ key: 'never-issued', game: 'dice' });
    assert.ok(!unknown.ok && unknown.kind === 'refused' && unknown.code === 'INVALID_LAUNCH_KEY');
  });

  test('a wrong bearer token and a wrong secret are refused as such', async () => {
    const badToken = createOperatorClient({ endpoint: origin, secret: SECRET, accessToken: 'nope' });
    const badSecret = createOperatorClient({ endpoint: `${origin}/`, secret: 'nope', accessToken: ACCESS_TOKEN });
    try {
      const token = await badToken.authenticate({ key: 'k', game: 'dice' });
      assert.ok(!token.ok && token.kind === 'refused' && token.code === 'INVALID_TOKEN' && token.status === 401);
      const secret = await badSecret.authenticate({ key: 'k', game: 'dice' });
      assert.ok(!secret.ok && secret.kind === 'refused' && secret.code === 'INVALID_SIGNATURE');
    } finally {
      await badToken.close();
      await badSecret.close();
    }
  });
});

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('the retry policy, with the network mocked', () => {
  const ORIGIN = 'http://wallet.test';
  let agent: MockAgent;
  before(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });
  after(async () => {
    await agent.close();
  });

  function clientWith(retry: RetryPolicy, world = fakeWorld(), answerMsMax?: number) {
    return {
      world,
      client: createOperatorClient({
        endpoint: ORIGIN,
        secret: SECRET,
        accessToken: ACCESS_TOKEN,
        retry,
        world,
        dispatcher: agent,
        ...(answerMsMax ? { answerMsMax } : {}),
      }),
    };
  }
  const problem = (status: number, code: string) => ({
    statusCode: status,
    data: JSON.stringify({ type: 'urn:x', title: 'x', status, code, detail: code }),
    responseOptions: { headers: { 'content-type': 'application/problem+json' } },
  });
  const balance = (text: string) => ({ statusCode: 200, data: text, responseOptions: { headers: { 'content-type': 'application/json' } } });

  test('full jitter stays within [0, min(max, min x 2^(n-1))]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (retry, r) => {
        const delay = backoffMs(PROTOCOL_RETRY, retry, () => r);
        const ceiling = Math.min(60_000, 500 * 2 ** Math.min(retry - 1, 30));
        assert.ok(delay >= 0 && delay <= ceiling, `${retry}: ${delay} > ${ceiling}`);
      }),
    );
    assert.equal(
      backoffMs(PROTOCOL_RETRY, 1, () => 0.999),
      499,
    );
    assert.equal(
      backoffMs(PROTOCOL_RETRY, 8, () => 0.999),
      59_940,
    );
    assert.equal(
      backoffMs(PROTOCOL_RETRY, 50, () => 0.999),
      59_940,
    );
  });

  test('429, 500, 502, 503, 504 are resent with the same signed body until 200', async () => {
    const bodies: string[] = [];
    const signatures: string[] = [];
    for (const status of [429, 500, 502, 503, 504]) {
      agent
        .get(ORIGIN)
        .intercept({ path: '/payout', method: 'POST' })
        .reply((options) => {
          bodies.push(String(options.body));
          signatures.push((options.headers as Record<string, string>)['x-server-authorization']!);
          return problem(status, 'SERVICE_UNAVAILABLE');
        });
    }
    agent
      .get(ORIGIN)
      .intercept({ path: '/payout', method: 'POST' })
      .reply(() => balance('{"balance":7}'));
    const { client, world } = clientWith(PROTOCOL_RETRY);
    const answer = await client.payout({ sessionId: randomUUID(), payoutId: randomUUID(), amount: 1, campaign: { id: randomUUID(), type: 'tournament' } });
    assert.deepEqual(answer, { ok: true, value: { balance: '7' }, attempts: 6 });
    assert.deepEqual(world.sleeps, [499, 999, 1998, 3996, 7992]);
    assert.equal(new Set(bodies).size, 1);
    assert.deepEqual(new Set(signatures), new Set([sign(SECRET, bodies[0]!)]));
  });

  test("Retry-After is waited for at least, in seconds or as an HTTP date read against the client's clock, up to the largest back-off", async () => {
    const world = fakeWorld();
    world.now = Date.parse('2026-01-01T00:00:00Z');
    const asking = (status: number, retryAfter: () => string) => () => {
      const answer = problem(status, status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE');
      return { ...answer, responseOptions: { headers: { ...answer.responseOptions.headers, 'retry-after': retryAfter() } } };
    };
    const transaction = () => agent.get(ORIGIN).intercept({ path: '/transaction', method: 'POST' });
    transaction().reply(asking(503, () => '3'));
    // An IMF-fixdate 7 s after the clock, which the first wait moved to 00:00:03.
    transaction().reply(asking(429, () => 'Thu, 01 Jan 2026 00:00:10 GMT'));
    // A date already past asks for no wait: the back-off alone (0.999 × 2 s).
    transaction().reply(asking(503, () => 'Wed, 31 Dec 2025 23:59:00 GMT'));
    // Neither form: the back-off alone (0.999 × 4 s).
    transaction().reply(asking(503, () => 'soon'));
    // An hour away: bounded by the policy's largest back-off.
    transaction().reply(asking(503, () => new Date(world.now + 3_600_000).toUTCString()));
    transaction().reply(() => balance('{"balance":3}'));
    const { client } = clientWith(PROTOCOL_RETRY, world);
    const answer = await client.transaction('{}');
    assert.deepEqual(answer, { ok: true, value: { balance: '3' }, attempts: 6 });
    assert.deepEqual(world.sleeps, [3_000, 7_000, 1_998, 3_996, 60_000]);
  });

  test('the attempt limit ends the retries with an unavailable outcome naming the last failure', async () => {
    for (let i = 0; i < 3; i++)
      agent
        .get(ORIGIN)
        .intercept({ path: '/transaction', method: 'POST' })
        .reply(() => problem(503, 'SERVICE_UNAVAILABLE'));
    const { client, world } = clientWith({ ...PROTOCOL_RETRY, attemptsMax: 3 });
    const answer = await client.transaction('{}');
    assert.deepEqual(answer, { ok: false, kind: 'unavailable', status: 503, code: 'SERVICE_UNAVAILABLE', detail: 'SERVICE_UNAVAILABLE', attempts: 3 });
    assert.equal(world.sleeps.length, 2);
  });

  test('the time budget ends the retries before a wait that would pass it', async () => {
    for (let i = 0; i < 3; i++)
      agent
        .get(ORIGIN)
        .intercept({ path: '/transaction', method: 'POST' })
        .reply(() => problem(500, 'INTERNAL_ERROR'));
    const { client, world } = clientWith({ ...PROTOCOL_RETRY, elapsedMsMax: 1_600 });
    const answer = await client.transaction('{}');
    // 499, then 999 (total 1498); the next wait (1998) would pass 1600.
    assert.ok(!answer.ok && answer.kind === 'unavailable' && answer.attempts === 3 && answer.code === 'INTERNAL_ERROR');
    assert.deepEqual(world.sleeps, [499, 999]);
  });

  test('network errors and an answer slower than the wait are retried', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/authenticate', method: 'POST' })
      .replyWithError(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }));
    agent
      .get(ORIGIN)
      .intercept({ path: '/authenticate', method: 'POST' })
      .reply(() => balance('{}'))
      .delay(2_000);
    const session = { sessionId: randomUUID(), playerId: 'p', currency: 'EUR', balance: 1.5, country: 'DE' };
    agent
      .get(ORIGIN)
      .intercept({ path: '/authenticate', method: 'POST' })
      .reply(() => balance(JSON.stringify(session)));
    const { client, world } = clientWith(PROTOCOL_RETRY, fakeWorld(), 100);
    const answer = await client.authenticate({ key: 'k', game: 'dice' });
    assert.deepEqual(answer, { ok: true, value: { ...session, balance: '1.5' }, attempts: 3 });
    assert.equal(world.sleeps.length, 2);
  });

  test('other statuses are final at once: 400, 401, 404, 409, 422', async () => {
    for (const [status, code] of [
      [400, 'INVALID_REQUEST'],
      [401, 'INVALID_TOKEN'],
      [404, 'SESSION_NOT_FOUND'],
      [409, 'ROUND_CLOSED'],
      [422, 'UNSUPPORTED_CURRENCY'],
    ] as const) {
      agent
        .get(ORIGIN)
        .intercept({ path: '/transaction', method: 'POST' })
        .reply(() => problem(status, code));
      const { client, world } = clientWith(PROTOCOL_RETRY);
      const answer = await client.transaction('{}');
      assert.ok(!answer.ok && answer.kind === 'refused' && answer.status === status && answer.code === code && answer.attempts === 1, JSON.stringify(answer));
      assert.deepEqual(world.sleeps, []);
    }
  });

  test('a code outside the registry, or a body that is not problem+json, is refused without a code', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/transaction', method: 'POST' })
      .reply(() => problem(403, 'MADE_UP'));
    agent
      .get(ORIGIN)
      .intercept({ path: '/transaction', method: 'POST' })
      .reply(403, 'Forbidden', { headers: { 'content-type': 'text/plain' } });
    const { client } = clientWith(PROTOCOL_RETRY);
    for (let i = 0; i < 2; i++) {
      const answer = await client.transaction('{}');
      assert.ok(!answer.ok && answer.kind === 'refused' && answer.code === undefined && answer.status === 403, JSON.stringify(answer));
    }
  });

  test('a 200 that is not the protocol is an invalid answer, never guessed at and never resent', async () => {
    const texts = ['not json', '[1]', '{"balance":"10"}', '{"balance":-1}', '{"balance":0.12345678901234567}', '{}'];
    for (const text of texts)
      agent
        .get(ORIGIN)
        .intercept({ path: '/transaction', method: 'POST' })
        .reply(() => balance(text));
    agent
      .get(ORIGIN)
      .intercept({ path: '/authenticate', method: 'POST' })
      .reply(() => balance('{"sessionId":"x","playerId":"p","currency":"EUR","balance":1,"country":"DE"}'));
    const { client, world } = clientWith(PROTOCOL_RETRY);
    for (const text of texts) {
      const answer = await client.transaction('{}');
      assert.ok(!answer.ok && answer.kind === 'invalid-answer' && answer.attempts === 1, `${text}: ${JSON.stringify(answer)}`);
    }
    const session = await client.authenticate({ key: 'k', game: 'dice' });
    assert.ok(!session.ok && session.kind === 'invalid-answer' && /sessionId/.test(session.detail));
    assert.deepEqual(world.sleeps, []);
  });

  test('a session answer naming a player id that reads as another (docs/protocol.md §5.4) is an invalid answer: the provider opens no session for it', async () => {
    const ids = ['x\u202eevil', 'ali\u200bce', '\u0430lice', 'alice ', 'e\u0301'];
    for (const playerId of ids) {
      const text = JSON.stringify({ sessionId: randomUUID(), playerId, currency: 'EUR', balance: 1, country: 'DE' });
      agent
        .get(ORIGIN)
        .intercept({ path: '/authenticate', method: 'POST' })
        .reply(() => balance(text));
    }
    const { client } = clientWith(PROTOCOL_RETRY);
    for (const playerId of ids) {
      const session = await client.authenticate({ key: 'k', game: 'dice' });
      assert.ok(
        !session.ok && session.kind === 'invalid-answer' && /playerId: must be a player id/.test(session.detail),
        `${JSON.stringify(playerId)}: ${JSON.stringify(session)}`,
      );
    }
  });
});
