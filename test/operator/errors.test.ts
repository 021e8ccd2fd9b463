/**
 * Proves the error contract of docs/protocol.md §3 on the operator: every code the
 * operator can answer comes with its status, `application/problem+json`, an
 * RFC 9457 body (type urn:wagerlink:error:<kebab-code>, title, status, code,
 * detail) and `balance` wherever the player is known, and a refused call
 * changes nothing. It also proves that bad input of every kind is refused
 * with a 4xx (never a 500, never a stack trace), and the back-office API of
 * §11 with its operations endpoints. Every case runs on every backend
 * (SQLite, and PostgreSQL with DATABASE_URL).
 *
 * The rules themselves (which request gets which status and code, and
 * changes nothing) are the conformance kit's cases, run in-process on every
 * backend (docs/conformance.md, "Which rule is checked where"). This file
 * keeps what the kit does not judge of a stranger: our registry's exact
 * titles and members, a balance wherever the player is known, the details'
 * wording, many spellings of each kind of bad input where the kit sends one,
 * our store closed (503), routes (404, 405) and the back office.
 */
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { sign } from '../../src/protocol/signing.js';
import {
  ACCESS_TOKEN,
  ADMIN_TOKEN,
  NEXT_SECRET,
  admin,
  balanceOf,
  makeOperator,
  OPERATOR_BACKENDS,
  playerWithSession,
  transactionBody,
  tx,
  wallet,
  walletHeaders,
  type Operator,
} from '../helpers.js';

const MINUTE_MS = 60_000;

/** docs/protocol.md §3, written out here so that a change to the registry shows up as a failure. */
const TABLE = {
  INVALID_REQUEST: [400, 'Invalid request'],
  INVALID_SIGNATURE: [401, 'Invalid signature'],
  INVALID_TOKEN: [401, 'Invalid token'],
  INVALID_LAUNCH_KEY: [401, 'Invalid launch key'],
  INSUFFICIENT_FUNDS: [402, 'Insufficient funds'],
  SESSION_EXPIRED: [403, 'Session expired'],
  SESSION_MISMATCH: [403, 'Session mismatch'],
  PLAYER_BLOCKED: [403, 'Player blocked'],
  SESSION_NOT_FOUND: [404, 'Session not found'],
  PLAYER_NOT_FOUND: [404, 'Player not found'],
  NOT_FOUND: [404, 'Not found'],
  METHOD_NOT_ALLOWED: [405, 'Method not allowed'],
  DUPLICATE_CONFLICT: [409, 'Duplicate conflict'],
  ROUND_CLOSED: [409, 'Round closed'],
  ROUND_MISMATCH: [409, 'Round mismatch'],
  CAMPAIGN_FINISHED: [409, 'Campaign finished'],
  PLAYER_EXISTS: [409, 'Player exists'],
  PAYLOAD_TOO_LARGE: [413, 'Payload too large'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'Unsupported media type'],
  SERVICE_UNAVAILABLE: [503, 'Service unavailable'],
} as const satisfies Record<string, readonly [number, string]>;
type Code = keyof typeof TABLE;

/* Codes of the §3 table that the operator never answers, and why:
 * - IP_NOT_ALLOWED, GAME_NOT_FOUND, WALLET_NOT_FOUND, UNSUPPORTED_CURRENCY:
 *   provider endpoints (/generate-launch-url, /game-bets) only.
 * - RATE_LIMITED: the operator sheds load with 503 (store in-flight limit).
 * - INTERNAL_ERROR: a bug by definition; no input reaches it by design, so
 *   there is nothing to provoke here. */

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  raw: string;
  body: Record<string, unknown>;
}

async function send(app: FastifyInstance, method: 'GET' | 'POST', url: string, payload?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  let body: Record<string, unknown> = {};
  try {
    body = response.json() as Record<string, unknown>;
  } catch {
    // Left empty: assertProblem fails on it with the raw text.
  }
  return { status: response.statusCode, headers: response.headers, raw: response.body, body };
}

/** A signed wallet call whose body text is sent exactly as given. */
function signedCall(app: FastifyInstance, url: string, text: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(app, 'POST', url, text, { ...walletHeaders(text), ...headers });
}

function assertNoStack(answer: { status: number; raw: string }): void {
  assert.notEqual(answer.status, 500, answer.raw);
  assert.doesNotMatch(answer.raw, /\n\s*at /, 'a stack trace leaked');
  assert.doesNotMatch(answer.raw, /\bat [^\s]+ \(?(file:|node:|\/)/, 'a stack frame leaked');
}

/**
 * The answer is the problem of `code`. `balance` is the number expected, or
 * 'absent' where the player is not known.
 */
function assertProblem(answer: Answer, code: Code, balance: number | 'absent'): void {
  const [status, title] = TABLE[code];
  assert.equal(answer.status, status, answer.raw);
  assert.match(String(answer.headers['content-type']), /^application\/problem\+json(;|$)/);
  assertNoStack(answer);
  const body = answer.body;
  assert.equal(body.type, `urn:wagerlink:error:${code.toLowerCase().replaceAll('_', '-')}`);
  assert.equal(body.title, title);
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(typeof body.detail, 'string');
  assert.ok((body.detail as string).length > 0, 'detail says what went wrong');
  const allowed = new Set(['type', 'title', 'status', 'code', 'detail', 'balance']);
  for (const key of Object.keys(body)) assert.ok(allowed.has(key), `unexpected member ${key}`);
  if (balance === 'absent') assert.equal('balance' in body, false, `no balance expected: ${answer.raw}`);
  else assert.equal(body.balance, balance);
}

async function transferCount(app: FastifyInstance, playerId: string): Promise<number> {
  const listing = await admin(app, 'GET', `/admin/players/${playerId}/transactions?limit=500`);
  assert.equal(listing.status, 200, listing.raw);
  return (listing.body.items as unknown[]).length;
}

interface Snapshot {
  playerId: string;
  balance: number;
  transfers: number;
}

async function snapshot(app: FastifyInstance, playerId: string): Promise<Snapshot> {
  return { playerId, balance: await balanceOf(app, playerId), transfers: await transferCount(app, playerId) };
}

/** Nothing changed for the player since the snapshot, and the books still balance. */
async function assertUnchanged(op: Pick<Operator, 'app' | 'store'>, before: Snapshot): Promise<void> {
  assert.deepEqual(await snapshot(op.app, before.playerId), before);
  const report = await op.store.verify();
  assert.ok(report.ok, report.problems.join('; '));
}

function payoutBody(sessionId: string, amount: number, payoutId = randomUUID()) {
  return { sessionId, payoutId, amount, campaign: { id: randomUUID(), type: 'tournament' } };
}

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`operator errors (${backend.name})`, { skip: backend.unavailable }, () => {
    // --------------------------------------------------------------------------

    // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
    describe('every operator code of PROTOCOL §3', () => {
      let op: Operator;
      before(async () => {
        op = await makeOperator({ backend: backend.name });
      });
      after(async () => {
        await op.close();
      });

      test('400 INVALID_REQUEST: schema refusals name the field; amount refusals carry the balance', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const before = await snapshot(op.app, p.playerId);
        const schema = await wallet(op.app, '/transaction', { ...transactionBody(p, [tx('bet', 1)]), sessionId: 'not-a-uuid' });
        assertProblem(schema as Answer, 'INVALID_REQUEST', 'absent');
        assert.match(schema.body.detail as string, /^sessionId:/);
        const amount = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 0.015)]));
        assertProblem(amount as Answer, 'INVALID_REQUEST', 10);
        assert.match(amount.body.detail as string, /transactions\[0\]\.amount/);
        await assertUnchanged(op, before);
      });

      test('401 INVALID_SIGNATURE: wrong X-Server-Authorization', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const before = await snapshot(op.app, p.playerId);
        const text = JSON.stringify(transactionBody(p, [tx('bet', 1)]));
        const answer = await signedCall(op.app, '/transaction', text, { 'x-server-authorization': sign('some-other-secret', text) });
        assertProblem(answer, 'INVALID_SIGNATURE', 'absent');
        await assertUnchanged(op, before);
      });

      test('401 INVALID_TOKEN: unknown bearer token', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const before = await snapshot(op.app, p.playerId);
        const text = JSON.stringify(transactionBody(p, [tx('bet', 1)]));
        const answer = await signedCall(op.app, '/transaction', text, { authorization: 'Bearer not-our-token' });
        assertProblem(answer, 'INVALID_TOKEN', 'absent');
        await assertUnchanged(op, before);
      });

      test('401 INVALID_LAUNCH_KEY: unknown key', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const before = await snapshot(op.app, p.playerId);
        const answer = await wallet(op.app, '/authenticate', { key: `${p.key}-forged`, game: p.game });
        assertProblem(answer as Answer, 'INVALID_LAUNCH_KEY', 'absent');
        await assertUnchanged(op, before);
      });

      test('402 INSUFFICIENT_FUNDS: a bet over the running balance', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const before = await snapshot(op.app, p.playerId);
        const answer = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 12.5)]));
        assertProblem(answer as Answer, 'INSUFFICIENT_FUNDS', 10);
        assert.equal(answer.body.detail, 'bet 12.50 exceeds balance 10.00');
        await assertUnchanged(op, before);
      });

      test('403 SESSION_EXPIRED: a bet on an idle session', async () => {
        const own = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(own.app, { balance: 10 });
          const before = await snapshot(own.app, p.playerId);
          own.clock.advance(31 * MINUTE_MS);
          const answer = await wallet(own.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
          assertProblem(answer as Answer, 'SESSION_EXPIRED', 10);
          await assertUnchanged(own, before);
        } finally {
          await own.close();
        }
      });

      test("403 SESSION_MISMATCH: another playerId or another game than the session's", async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const other = await playerWithSession(op.app, { balance: 50 });
        const before = await snapshot(op.app, p.playerId);
        const beforeOther = await snapshot(op.app, other.playerId);
        const player = await wallet(op.app, '/transaction', { ...transactionBody(p, [tx('win', 1)]), playerId: other.playerId });
        // The balance shown is the session's player's: the caller already holds that session.
        assertProblem(player as Answer, 'SESSION_MISMATCH', 10);
        const game = await wallet(op.app, '/transaction', { ...transactionBody(p, [tx('win', 1)]), game: 'slots' });
        assertProblem(game as Answer, 'SESSION_MISMATCH', 10);
        const key = await admin(op.app, 'POST', '/admin/launch-keys', { playerId: p.playerId, game: 'dice' });
        const auth = await wallet(op.app, '/authenticate', { key: key.body.key, game: 'slots' });
        assertProblem(auth as Answer, 'SESSION_MISMATCH', 10);
        await assertUnchanged(op, before);
        await assertUnchanged(op, beforeOther);
      });

      test('403 PLAYER_BLOCKED: a bet of a blocked player, and authenticating one', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        assert.equal((await admin(op.app, 'POST', `/admin/players/${p.playerId}/block`)).status, 200);
        const before = await snapshot(op.app, p.playerId);
        const bet = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
        assertProblem(bet as Answer, 'PLAYER_BLOCKED', 10);
        const key = await admin(op.app, 'POST', '/admin/launch-keys', { playerId: p.playerId, game: 'dice' });
        const auth = await wallet(op.app, '/authenticate', { key: key.body.key, game: 'dice' });
        assertProblem(auth as Answer, 'PLAYER_BLOCKED', 10);
        await assertUnchanged(op, before);
      });

      test('404 SESSION_NOT_FOUND: unknown sessionId on /transaction and /payout', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const before = await snapshot(op.app, p.playerId);
        const transaction = await wallet(op.app, '/transaction', { ...transactionBody(p, [tx('win', 1)]), sessionId: randomUUID() });
        assertProblem(transaction as Answer, 'SESSION_NOT_FOUND', 'absent');
        const payout = await wallet(op.app, '/payout', payoutBody(randomUUID(), 1));
        assertProblem(payout as Answer, 'SESSION_NOT_FOUND', 'absent');
        await assertUnchanged(op, before);
      });

      test('404 PLAYER_NOT_FOUND: every back-office call about an unknown player', async () => {
        const ghost = `ghost-${randomUUID()}`;
        const calls: Answer[] = [
          await send(op.app, 'GET', `/admin/players/${ghost}`, undefined, { authorization: `Bearer ${ADMIN_TOKEN}` }),
          (await admin(op.app, 'POST', '/admin/launch-keys', { playerId: ghost, game: 'dice' })) as Answer,
          (await admin(op.app, 'POST', `/admin/players/${ghost}/adjustments`, { id: randomUUID(), type: 'deposit', amount: 5 })) as Answer,
          (await admin(op.app, 'POST', `/admin/players/${ghost}/block`)) as Answer,
          (await admin(op.app, 'POST', `/admin/players/${ghost}/unblock`)) as Answer,
          (await admin(op.app, 'GET', `/admin/players/${ghost}/rounds`)) as Answer,
          (await admin(op.app, 'GET', `/admin/players/${ghost}/transactions`)) as Answer,
        ];
        for (const answer of calls) {
          // admin() returns no headers; the first call checks the content type.
          if (answer.headers) assertProblem(answer, 'PLAYER_NOT_FOUND', 'absent');
          else assert.equal(answer.body.code, 'PLAYER_NOT_FOUND', answer.raw);
          assert.equal(answer.status, 404);
        }
        // Nothing was created on the way.
        assert.equal((await admin(op.app, 'GET', `/admin/players/${ghost}`)).status, 404);
        assert.ok((await op.store.verify()).ok);
      });

      test('409 DUPLICATE_CONFLICT: a seen transaction id or payoutId with other content', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const bet = tx('bet', 2);
        const round = randomUUID();
        assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [bet], { id: round, finished: false }))).status, 200);
        const payout = payoutBody(p.sessionId, 3);
        assert.equal((await wallet(op.app, '/payout', payout)).status, 200);
        const before = await snapshot(op.app, p.playerId);
        const transaction = await wallet(op.app, '/transaction', transactionBody(p, [{ ...bet, amount: 3 }], { id: round, finished: false }));
        assertProblem(transaction as Answer, 'DUPLICATE_CONFLICT', 11);
        const repeat = await wallet(op.app, '/payout', { ...payout, amount: 4 });
        assertProblem(repeat as Answer, 'DUPLICATE_CONFLICT', 11);
        await assertUnchanged(op, before);
      });

      test('409 ROUND_CLOSED: a new id for a finished round', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const round = randomUUID();
        assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)], { id: round, finished: true }))).status, 200);
        const before = await snapshot(op.app, p.playerId);
        const answer = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 5)], { id: round, finished: true }));
        assertProblem(answer as Answer, 'ROUND_CLOSED', 9);
        await assertUnchanged(op, before);
      });

      test("409 ROUND_MISMATCH: another player's round", async () => {
        const owner = await playerWithSession(op.app, { balance: 10 });
        const p = await playerWithSession(op.app, { balance: 20 });
        const round = randomUUID();
        assert.equal((await wallet(op.app, '/transaction', transactionBody(owner, [tx('bet', 1)], { id: round, finished: false }))).status, 200);
        const before = await snapshot(op.app, p.playerId);
        const answer = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 5)], { id: round, finished: true }));
        assertProblem(answer as Answer, 'ROUND_MISMATCH', 20);
        await assertUnchanged(op, before);
        assert.equal(await balanceOf(op.app, owner.playerId), 9);
      });

      test('409 CAMPAIGN_FINISHED: a freeBets bet after its campaign finished', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const id = randomUUID();
        const closing = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)], {}, { campaign: { id, type: 'freeBets', finished: true } }));
        assert.equal(closing.status, 200, closing.raw);
        const before = await snapshot(op.app, p.playerId);
        const answer = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)], {}, { campaign: { id, type: 'freeBets' } }));
        assertProblem(answer as Answer, 'CAMPAIGN_FINISHED', 10);
        await assertUnchanged(op, before);
      });

      test('413 PAYLOAD_TOO_LARGE: a body over 256 KiB, even a well-signed one', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const before = await snapshot(op.app, p.playerId);
        const text = JSON.stringify(transactionBody(p, [tx('bet', 1)], {}, { padding: 'x'.repeat(256 * 1024) }));
        assert.ok(Buffer.byteLength(text) > 256 * 1024);
        const answer = await signedCall(op.app, '/transaction', text);
        assertProblem(answer, 'PAYLOAD_TOO_LARGE', 'absent');
        await assertUnchanged(op, before);
      });

      test('415 UNSUPPORTED_MEDIA_TYPE: a well-signed JSON body sent as text/plain', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const before = await snapshot(op.app, p.playerId);
        const text = JSON.stringify(transactionBody(p, [tx('bet', 1)]));
        const answer = await signedCall(op.app, '/transaction', text, { 'content-type': 'text/plain' });
        assertProblem(answer, 'UNSUPPORTED_MEDIA_TYPE', 'absent');
        await assertUnchanged(op, before);
      });

      test('415 UNSUPPORTED_MEDIA_TYPE: application/json with no body, signed or not, before the signature is judged (§1.1, §6.9)', async () => {
        for (const path of ['/transaction', '/payout', '/authenticate']) {
          assertProblem(await signedCall(op.app, path, ''), 'UNSUPPORTED_MEDIA_TYPE', 'absent');
          const { 'x-server-authorization': _signature, ...unsigned } = walletHeaders('');
          assertProblem(await send(op.app, 'POST', path, '', unsigned), 'UNSUPPORTED_MEDIA_TYPE', 'absent');
        }
      });

      test('404 NOT_FOUND: an unknown route is a problem too', async () => {
        assertProblem(await send(op.app, 'POST', '/refund', '{}', walletHeaders('{}')), 'NOT_FOUND', 'absent');
      });

      test('405 METHOD_NOT_ALLOWED: a known route asked with another method, with Allow', async () => {
        assertProblem(await send(op.app, 'GET', '/transaction'), 'METHOD_NOT_ALLOWED', 'absent');
        const answer = await op.app.inject({ method: 'GET', url: '/payout' });
        assert.equal(answer.headers.allow, 'POST');
      });

      test('503 SERVICE_UNAVAILABLE: the store is closed; nothing was applied', async () => {
        const own = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(own.app, { balance: 10 });
          const before = await snapshot(own.app, p.playerId);
          await own.store.close();
          const transaction = await wallet(own.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
          assertProblem(transaction as Answer, 'SERVICE_UNAVAILABLE', 'absent');
          const payout = await wallet(own.app, '/payout', payoutBody(p.sessionId, 1));
          assertProblem(payout as Answer, 'SERVICE_UNAVAILABLE', 'absent');
          const auth = await wallet(own.app, '/authenticate', { key: p.key, game: p.game });
          assertProblem(auth as Answer, 'SERVICE_UNAVAILABLE', 'absent');
          assertProblem(await send(own.app, 'GET', '/health'), 'SERVICE_UNAVAILABLE', 'absent');
          const player = await admin(own.app, 'GET', `/admin/players/${p.playerId}`);
          assert.equal(player.status, 503, player.raw);
          // The database holds exactly what it held before, as a store of its own reads it.
          const reopened = await own.reopen();
          try {
            await assertUnchanged(reopened, before);
          } finally {
            await reopened.close();
          }
        } finally {
          await own.close();
        }
      });
    });

    // --------------------------------------------------------------------------

    // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
    describe('bad input is refused with a problem, never a 500', () => {
      let op: Operator;
      let p: Awaited<ReturnType<typeof playerWithSession>>;
      let baseline: Snapshot;

      // One player receives every bad request; after each case it must be untouched, and after each test the books
      // balance (a verify reads the whole ledger on a thread of its own: once per test, not per case).
      const BALANCE = 10;
      async function bad(answer: Answer, code: Code, detail?: RegExp): Promise<void> {
        assertProblem(answer, code, answer.body.balance === undefined ? 'absent' : baseline.balance);
        if (detail) assert.match(answer.body.detail as string, detail);
        assert.deepEqual(await snapshot(op.app, baseline.playerId), baseline);
      }

      /** A valid /transaction body as text, with one member replaced by raw JSON text. */
      function bodyWith(replace: Record<string, string | undefined> = {}): string {
        const base = transactionBody(p, [tx('bet', 1)]);
        return objectText(
          new Map([
            ['sessionId', JSON.stringify(base.sessionId)],
            ['playerId', JSON.stringify(base.playerId)],
            ['game', JSON.stringify(base.game)],
            ['transactions', JSON.stringify(base.transactions)],
            ['round', JSON.stringify(base.round)],
          ]),
          replace,
        );
      }

      /**
       * JSON object text from member texts. A Map, not an object, holds them, so
       * that `__proto__` stays a member name like any other.
       */
      function objectText(members: Map<string, string>, replace: Record<string, string | undefined>): string {
        for (const [key, value] of Object.entries(replace)) {
          if (value === undefined) members.delete(key);
          else members.set(key, value);
        }
        return `{${[...members].map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
      }

      function txText(fields: Record<string, string | undefined>): string {
        return `[${objectText(
          new Map([
            ['id', JSON.stringify(randomUUID())],
            ['type', '"bet"'],
            ['amount', '1'],
          ]),
          fields,
        )}]`;
      }

      before(async () => {
        op = await makeOperator({ backend: backend.name });
        p = await playerWithSession(op.app, { balance: BALANCE });
        baseline = await snapshot(op.app, p.playerId);
      });
      afterEach(async () => {
        await assertUnchanged(op, baseline);
      });
      after(async () => {
        await op.close();
      });

      test('malformed JSON', async () => {
        // No body at all is 415, not malformed JSON (the test of 415 above).
        for (const text of ['{"sessionId":', ' ', 'null', '[]', '"text"', '42', '{"amount": NaN}', '{"amount": Infinity}', "{'a':1}"]) {
          await bad(await signedCall(op.app, '/transaction', text), 'INVALID_REQUEST');
        }
      });

      test('wrong types name the field', async () => {
        const cases: [string, string][] = [
          [bodyWith({ sessionId: '123' }), 'sessionId'],
          [bodyWith({ playerId: '42' }), 'playerId'],
          [bodyWith({ game: 'true' }), 'game'],
          [bodyWith({ transactions: '{}' }), 'transactions'],
          [bodyWith({ round: `{"id":"${randomUUID()}","finished":"yes"}` }), 'round.finished'],
          [bodyWith({ round: '[]' }), 'round'],
          [bodyWith({ transactions: txText({ type: '"refund"' }) }), 'transactions[0].type'],
          [bodyWith({ transactions: txText({ amount: 'true' }) }), 'transactions[0].amount'],
          [bodyWith({ transactions: '[1]' }), 'transactions[0]'],
          [bodyWith({ campaign: '{"type":"tournament"}' }), 'campaign.type'],
          [bodyWith({ regulatory: '{}' }), 'regulatory'],
        ];
        for (const [text, field] of cases) {
          const answer = await signedCall(op.app, '/transaction', text);
          await bad(answer, 'INVALID_REQUEST', new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}`));
        }
      });

      test('strings for numbers are refused ("10" for amount)', async () => {
        await bad(
          await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ amount: '"10"' }) })),
          'INVALID_REQUEST',
          /transactions\[0\]\.amount/,
        );
        await bad(await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ jpAmount: '"0.5"' }) })), 'INVALID_REQUEST', /jpAmount/);
        await bad((await wallet(op.app, '/payout', { ...payoutBody(p.sessionId, 1), amount: '1' })) as Answer, 'INVALID_REQUEST', /^amount/);
      });

      test('missing members name the field', async () => {
        for (const member of ['sessionId', 'playerId', 'game', 'transactions', 'round']) {
          await bad(await signedCall(op.app, '/transaction', bodyWith({ [member]: undefined })), 'INVALID_REQUEST', new RegExp(`^${member}: is required`));
        }
        for (const member of ['id', 'type', 'amount']) {
          const text = bodyWith({ transactions: txText({ [member]: undefined }) });
          await bad(await signedCall(op.app, '/transaction', text), 'INVALID_REQUEST', new RegExp(`^transactions\\[0\\]\\.${member}: is required`));
        }
        for (const member of ['id', 'finished']) {
          const round = member === 'id' ? '{"finished":true}' : `{"id":"${randomUUID()}"}`;
          await bad(await signedCall(op.app, '/transaction', bodyWith({ round })), 'INVALID_REQUEST', new RegExp(`^round\\.${member}: is required`));
        }
        const payout = payoutBody(p.sessionId, 1) as Partial<ReturnType<typeof payoutBody>>;
        for (const member of ['sessionId', 'payoutId', 'amount', 'campaign'] as const) {
          const { [member]: _dropped, ...rest } = payout;
          await bad((await wallet(op.app, '/payout', rest)) as Answer, 'INVALID_REQUEST', new RegExp(`^${member}: is required`));
        }
        await bad((await wallet(op.app, '/authenticate', { game: 'dice' })) as Answer, 'INVALID_REQUEST', /^key: is required/);
      });

      test('__proto__ and constructor members are plain data and change nothing', async () => {
        const freeBets = '{"campaign":{"type":"freeBets","id":"' + randomUUID() + '"},"round":{"finished":true}}';
        // A top-level __proto__ cannot supply a missing round.
        const missing = bodyWith({ round: undefined, ['__proto__']: freeBets });
        assert.match(missing, /"__proto__":\{"campaign"/);
        await bad(await signedCall(op.app, '/transaction', missing), 'INVALID_REQUEST', /^round: is required/);
        // A __proto__ inside a transaction cannot supply its type.
        const inTx = bodyWith({ transactions: txText({ type: undefined, ['__proto__']: '{"type":"win"}' }) });
        assert.match(inTx, /"__proto__":\{"type":"win"\}/);
        await bad(await signedCall(op.app, '/transaction', inTx), 'INVALID_REQUEST', /^transactions\[0\]\.type: is required/);

        // Beside a valid request they do not make a bet free or change anything else: it is debited as usual.
        const withProto = bodyWith({
          ['__proto__']: freeBets,
          constructor: '{"prototype":{"polluted":true},"name":"x"}',
          campaign: `{"__proto__":{"type":"freeBets"},"id":"${randomUUID()}","constructor":{"prototype":{"type":"freeBets"}}}`,
        });
        const answer = await signedCall(op.app, '/transaction', withProto);
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.balance, BALANCE - 1);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.equal(({} as Record<string, unknown>).type, undefined);
        const listing = await admin(op.app, 'GET', `/admin/players/${p.playerId}/transactions?limit=1`);
        assert.equal((listing.body.items as { freeBet: boolean }[])[0]?.freeBet, false);
        const refund = await admin(op.app, 'POST', `/admin/players/${p.playerId}/adjustments`, { id: randomUUID(), type: 'deposit', amount: 1 });
        assert.equal(refund.status, 200, refund.raw);
        baseline = await snapshot(op.app, p.playerId);
      });

      test('huge numbers, too many decimals and negative amounts', async () => {
        await bad(
          await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ amount: '1e300' }) })),
          'INVALID_REQUEST',
          /transactions\[0\]\.amount/,
        );
        await bad(await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ amount: '1e999' }) })), 'INVALID_REQUEST');
        await bad(await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ amount: '0.001' }) })), 'INVALID_REQUEST', /decimals/);
        await bad(
          await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ amount: '1.0000000000000001' }) })),
          'INVALID_REQUEST',
          /significant digits/,
        );
        await bad(
          await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ amount: '-1' }) })),
          'INVALID_REQUEST',
          /transactions\[0\]\.amount/,
        );
        await bad(
          await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ amount: '1', jpAmount: '-0.5' }) })),
          'INVALID_REQUEST',
          /jpAmount/,
        );
        await bad((await wallet(op.app, '/payout', payoutBody(p.sessionId, -5))) as Answer, 'INVALID_REQUEST', /^amount/);
        await bad((await wallet(op.app, '/payout', payoutBody(p.sessionId, 1e300))) as Answer, 'INVALID_REQUEST', /^amount/);
      });

      test('wrong UUIDs', async () => {
        for (const wrong of [
          '',
          'abc',
          '123e4567e89b12d3a456426614174000',
          '123e4567-e89b-12d3-a456-42661417400',
          'g23e4567-e89b-12d3-a456-426614174000',
          '{123e4567-e89b-12d3-a456-426614174000}',
        ]) {
          await bad(await signedCall(op.app, '/transaction', bodyWith({ sessionId: JSON.stringify(wrong) })), 'INVALID_REQUEST', /^sessionId/);
          await bad(
            await signedCall(op.app, '/transaction', bodyWith({ transactions: txText({ id: JSON.stringify(wrong) }) })),
            'INVALID_REQUEST',
            /^transactions\[0\]\.id/,
          );
          await bad(
            await signedCall(op.app, '/transaction', bodyWith({ round: `{"id":${JSON.stringify(wrong)},"finished":true}` })),
            'INVALID_REQUEST',
            /^round\.id/,
          );
          await bad((await wallet(op.app, '/payout', { ...payoutBody(p.sessionId, 1), payoutId: wrong })) as Answer, 'INVALID_REQUEST', /^payoutId/);
        }
      });

      test('an empty transactions array, and 101 transactions', async () => {
        await bad(await signedCall(op.app, '/transaction', bodyWith({ transactions: '[]' })), 'INVALID_REQUEST', /^transactions/);
        const many = JSON.stringify(Array.from({ length: 101 }, () => tx('bet', 0.01)));
        await bad(await signedCall(op.app, '/transaction', bodyWith({ transactions: many })), 'INVALID_REQUEST', /^transactions: at most 100/);
      });

      test('wrong or missing content type', async () => {
        const text = bodyWith();
        for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
          await bad(await signedCall(op.app, '/transaction', text, { 'content-type': type }), 'UNSUPPORTED_MEDIA_TYPE');
        }
        const { 'content-type': _type, ...headers } = walletHeaders(text);
        await bad(await send(op.app, 'POST', '/transaction', text, headers), 'UNSUPPORTED_MEDIA_TYPE');
      });

      test('wrong signatures', async () => {
        const text = bodyWith();
        const good = sign('test-secret', text);
        const wrong = [
          sign('test-secret', `${text} `), // over other bytes
          sign('test-secret', JSON.stringify(JSON.parse(text), null, 2)), // over a re-serialised body
          good.slice(0, 63),
          `${good}0`,
          `${good.slice(0, 63)}${good[63] === '0' ? '1' : '0'}`,
          'z'.repeat(64),
          '',
          `sha256=${good}`,
          Buffer.from(good, 'hex').toString('base64'),
        ];
        for (const signature of wrong) {
          await bad(await signedCall(op.app, '/transaction', text, { 'x-server-authorization': signature }), 'INVALID_SIGNATURE');
        }
      });

      test('a bearer token that is unknown, of another kind, or not Bearer', async () => {
        const text = bodyWith();
        for (const authorization of ['Bearer unknown', `Bearer ${ADMIN_TOKEN}`, `Basic ${ACCESS_TOKEN}`, ACCESS_TOKEN, 'Bearer ', `Bearer ${ACCESS_TOKEN}x`]) {
          await bad(await signedCall(op.app, '/transaction', text, { authorization }), 'INVALID_TOKEN');
        }
      });

      test('a signature made with the next secret is accepted (rotation)', async () => {
        const text = bodyWith({ transactions: JSON.stringify([tx('win', 1)]) });
        const answer = await send(op.app, 'POST', '/transaction', text, walletHeaders(text, NEXT_SECRET));
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.balance, BALANCE + 1);
        baseline = await snapshot(op.app, p.playerId);
      });

      test('an upper-case hex signature is refused: PROTOCOL §2 says lowercase hex, so one HMAC has one spelling', async () => {
        const text = bodyWith({ transactions: JSON.stringify([tx('win', 1)]) });
        const upper = sign('test-secret', text).toUpperCase();
        await bad(await signedCall(op.app, '/transaction', text, { 'x-server-authorization': upper }), 'INVALID_SIGNATURE');
        const mixed = sign('test-secret', text).replace(/[a-f]/, (digit) => digit.toUpperCase());
        await bad(await signedCall(op.app, '/transaction', text, { 'x-server-authorization': mixed }), 'INVALID_SIGNATURE');
      });

      test('the detail names the member at fault, and the rule its value breaks', async () => {
        const twice = randomUUID();
        const transactions: [ReturnType<typeof tx>[], Record<string, unknown>, RegExp][] = [
          [[tx('win', 5), { ...tx('bet', 1), type: 'refund' as 'bet' }], {}, /^transactions\[1\]\.type/],
          [[tx('win', 5), tx('bet', 1.005)], {}, /^transactions\[1\]\.amount/],
          [[tx('win', 0.001)], {}, /more decimals than EUR allows/],
          [[tx('win', 1_000_000_000_000.01)], {}, /largest amount/],
          [[tx('bet', 1, { jpAmount: 1.01 })], {}, /jpAmount/],
          [[tx('bet', 1, { id: twice }), tx('win', 1, { id: twice.toUpperCase() })], {}, /^transactions\[1\]\.id/],
          ...[{ type: 'freeBets' }, { type: 'freeBets', finished: true }, { finished: true }].map(
            (campaign): [ReturnType<typeof tx>[], Record<string, unknown>, RegExp] => [[tx('bet', 1)], { campaign }, /^campaign\.id: is required/],
          ),
        ];
        for (const [list, extra, detail] of transactions)
          await bad((await wallet(op.app, '/transaction', transactionBody(p, list, {}, extra))) as Answer, 'INVALID_REQUEST', detail);
        await bad((await wallet(op.app, '/payout', payoutBody(p.sessionId, 0))) as Answer, 'INVALID_REQUEST', /^amount/);
        await bad(
          (await wallet(op.app, '/payout', { ...payoutBody(p.sessionId, 1), campaign: { id: randomUUID(), type: 'freeBets' } })) as Answer,
          'INVALID_REQUEST',
          /^campaign\.type/,
        );
        const longPayout = `{"sessionId":"${p.sessionId}","payoutId":"${randomUUID()}","amount":1.0000000000000001,"campaign":{"id":"${randomUUID()}","type":"tournament"}}`;
        await bad(await signedCall(op.app, '/payout', longPayout), 'INVALID_REQUEST', /^amount: /);
        // A remembered refusal says so (docs/protocol.md §6.4 gives Wagerlink's wording).
        const overdrawn = transactionBody(p, [tx('bet', baseline.balance + 1)]);
        await bad((await wallet(op.app, '/transaction', overdrawn)) as Answer, 'INSUFFICIENT_FUNDS');
        await bad((await wallet(op.app, '/transaction', overdrawn)) as Answer, 'INSUFFICIENT_FUNDS', /^refused before, and final: /);
        const yen = await playerWithSession(op.app, { currency: 'JPY', balance: 1000 });
        const refused = await wallet(op.app, '/transaction', transactionBody(yen, [tx('bet', 1.5)]));
        assertProblem(refused as Answer, 'INVALID_REQUEST', 1000);
        assert.match(refused.body.detail as string, /^transactions\[0\]\.amount.*JPY/);
      });

      test('bad input on the back office is refused the same way', async () => {
        const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
        for (const text of ['{', '[]', '{"playerId":"x","currency":"EUR","balance":"10"}', '{"playerId":"","currency":"EUR","balance":1}']) {
          await bad(await send(op.app, 'POST', '/admin/players', text, auth), 'INVALID_REQUEST');
        }
        await bad(await send(op.app, 'POST', '/admin/players', '{}', { ...auth, 'content-type': 'text/plain' }), 'UNSUPPORTED_MEDIA_TYPE');
        const adjust = `/admin/players/${p.playerId}/adjustments`;
        for (const text of [
          `{"id":"${randomUUID()}","type":"deposit","amount":-1}`,
          `{"id":"${randomUUID()}","type":"deposit","amount":0}`,
          `{"id":"${randomUUID()}","type":"deposit","amount":1e300}`,
          `{"id":"${randomUUID()}","type":"deposit","amount":0.001}`,
          `{"id":"${randomUUID()}","type":"bonus","amount":1}`,
          `{"id":"nope","type":"deposit","amount":1}`,
          `{"id":"${randomUUID()}","type":"deposit","amount":1.00000000000000001}`,
        ]) {
          await bad(await send(op.app, 'POST', adjust, text, auth), 'INVALID_REQUEST');
        }
      });
    });

    // --------------------------------------------------------------------------

    // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
    describe('back-office API (PROTOCOL §11) and operations endpoints', () => {
      let op: Operator;
      before(async () => {
        op = await makeOperator({ backend: backend.name });
      });
      after(async () => {
        await op.close();
      });

      async function newPlayer(balance = 10, currency = 'EUR') {
        const playerId = `bo-${randomUUID().slice(0, 8)}`;
        const created = await admin(op.app, 'POST', '/admin/players', { playerId, currency, balance, country: 'MT' });
        assert.equal(created.status, 201, created.raw);
        return playerId;
      }

      test('a missing or wrong admin token is 401 INVALID_TOKEN on every admin route', async () => {
        const playerId = await newPlayer();
        const routes: ['GET' | 'POST', string, string | undefined][] = [
          ['POST', '/admin/players', JSON.stringify({ playerId: `x-${randomUUID()}`, currency: 'EUR', balance: 5 })],
          ['GET', `/admin/players/${playerId}`, undefined],
          ['POST', '/admin/launch-keys', JSON.stringify({ playerId, game: 'dice' })],
          ['POST', `/admin/players/${playerId}/adjustments`, JSON.stringify({ id: randomUUID(), type: 'deposit', amount: 5 })],
          ['POST', `/admin/players/${playerId}/block`, undefined],
          ['GET', `/admin/players/${playerId}/rounds`, undefined],
          ['GET', `/admin/players/${playerId}/transactions`, undefined],
          ['GET', '/admin/verify', undefined],
        ];
        for (const [method, url, payload] of routes) {
          for (const authorization of [undefined, 'Bearer wrong', `Bearer ${ACCESS_TOKEN}`]) {
            const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': 'application/json' };
            if (authorization) headers.authorization = authorization;
            assertProblem(await send(op.app, method, url, payload, headers), 'INVALID_TOKEN', 'absent');
          }
        }
        const player = await admin(op.app, 'GET', `/admin/players/${playerId}`);
        assert.equal(player.body.balance, 10);
        assert.equal(player.body.blocked, false);
      });

      test('POST /admin/players creates once; the second time is 409 PLAYER_EXISTS and changes nothing', async () => {
        const playerId = `dup-${randomUUID().slice(0, 8)}`;
        const first = await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 10.5, country: 'DE' });
        assert.equal(first.status, 201, first.raw);
        assert.deepEqual(first.body, { playerId, currency: 'EUR', balance: 10.5, blocked: false, country: 'DE' });
        const second = await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'USD', balance: 99 });
        assert.equal(second.status, 409, second.raw);
        assert.equal(second.body.code, 'PLAYER_EXISTS');
        const player = await admin(op.app, 'GET', `/admin/players/${playerId}`);
        assert.deepEqual(player.body, { playerId, currency: 'EUR', balance: 10.5, blocked: false, country: 'DE' });
        assert.ok((await op.store.verify()).ok);
      });

      test('an unknown currency, or a currency that is not wallet money, is 400', async () => {
        for (const currency of ['XYZ', 'XAU', 'eur', 'EURO1234567', '']) {
          const playerId = `cur-${randomUUID().slice(0, 8)}`;
          const refused = await admin(op.app, 'POST', '/admin/players', { playerId, currency, balance: 1 });
          assert.equal(refused.status, 400, `${currency}: ${refused.raw}`);
          assert.equal(refused.body.code, 'INVALID_REQUEST');
          assert.match(refused.body.detail as string, /currency/);
          assert.equal((await admin(op.app, 'GET', `/admin/players/${playerId}`)).status, 404);
        }
        for (const currency of ['USDT', 'JPY', 'KWD']) {
          assert.equal((await admin(op.app, 'POST', '/admin/players', { playerId: `cur-${randomUUID()}`, currency, balance: 1 })).status, 201);
        }
      });

      test('a bad country is 400', async () => {
        for (const country of ['ZZ', 'de', 'DEU', 'D', '']) {
          const playerId = `cty-${randomUUID().slice(0, 8)}`;
          const refused = await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 1, country });
          assert.equal(refused.status, 400, `${country}: ${refused.raw}`);
          assert.match(refused.body.detail as string, /country/);
          assert.equal((await admin(op.app, 'GET', `/admin/players/${playerId}`)).status, 404);
        }
      });

      test('an opening balance with too many decimals is 400', async () => {
        const playerId = `bal-${randomUUID().slice(0, 8)}`;
        const refused = await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'JPY', balance: 0.5 });
        assert.equal(refused.status, 400, refused.raw);
        assert.match(refused.body.detail as string, /balance/);
      });

      test('GET an unknown player is 404 PLAYER_NOT_FOUND', async () => {
        const answer = await send(op.app, 'GET', `/admin/players/nobody-${randomUUID()}`, undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
        assertProblem(answer, 'PLAYER_NOT_FOUND', 'absent');
      });

      test('adjustments are idempotent by id; other content is 409; a withdrawal over the balance is 402', async () => {
        const playerId = await newPlayer(10);
        const url = `/admin/players/${playerId}/adjustments`;
        const deposit = { id: randomUUID(), type: 'deposit', amount: 5.25, reason: 'bonus' };
        const first = await admin(op.app, 'POST', url, deposit);
        assert.equal(first.status, 200, first.raw);
        assert.deepEqual(first.body, { id: deposit.id, balance: 15.25 });
        const again = await admin(op.app, 'POST', url, deposit);
        assert.equal(again.status, 200, again.raw);
        assert.equal(again.body.balance, 15.25);
        assert.equal(await balanceOf(op.app, playerId), 15.25);

        for (const other of [
          { ...deposit, amount: 6 },
          { ...deposit, type: 'withdrawal' },
        ]) {
          const conflict = await admin(op.app, 'POST', url, other);
          assert.equal(conflict.status, 409, conflict.raw);
          assert.equal(conflict.body.code, 'DUPLICATE_CONFLICT');
          assert.equal(conflict.body.balance, 15.25);
        }
        const otherPlayer = await newPlayer(1);
        const elsewhere = await admin(op.app, 'POST', `/admin/players/${otherPlayer}/adjustments`, deposit);
        assert.equal(elsewhere.status, 409, elsewhere.raw);
        assert.equal(await balanceOf(op.app, otherPlayer), 1);

        const over = await admin(op.app, 'POST', url, { id: randomUUID(), type: 'withdrawal', amount: 15.26 });
        assert.equal(over.status, 402, over.raw);
        assert.equal(over.body.code, 'INSUFFICIENT_FUNDS');
        assert.equal(over.body.balance, 15.25);
        const all = await admin(op.app, 'POST', url, { id: randomUUID(), type: 'withdrawal', amount: 15.25 });
        assert.equal(all.status, 200, all.raw);
        assert.equal(all.body.balance, 0);
        assert.equal(await balanceOf(op.app, playerId), 0);
        assert.ok((await op.store.verify()).ok);
      });

      test('block and unblock', async () => {
        const playerId = await newPlayer();
        const blocked = await admin(op.app, 'POST', `/admin/players/${playerId}/block`, { reason: 'self-exclusion' });
        assert.equal(blocked.status, 200, blocked.raw);
        assert.equal(blocked.body.blocked, true);
        assert.equal((await admin(op.app, 'GET', `/admin/players/${playerId}`)).body.blocked, true);
        // Blocking twice is harmless.
        assert.equal((await admin(op.app, 'POST', `/admin/players/${playerId}/block`)).body.blocked, true);
        const unblocked = await admin(op.app, 'POST', `/admin/players/${playerId}/unblock`);
        assert.equal(unblocked.status, 200, unblocked.raw);
        assert.equal(unblocked.body.blocked, false);
        assert.equal((await admin(op.app, 'GET', `/admin/players/${playerId}`)).body.blocked, false);
        const badReason = await admin(op.app, 'POST', `/admin/players/${playerId}/block`, { reason: 42 });
        assert.equal(badReason.status, 400, badReason.raw);
        assert.equal((await admin(op.app, 'GET', `/admin/players/${playerId}`)).body.blocked, false);
      });

      test('rounds and transactions are paged newest first with limit and nextCursor', async () => {
        const p = await playerWithSession(op.app, { balance: 100 });
        const rounds: string[] = [];
        const transfers: string[] = [];
        for (let i = 0; i < 5; i++) {
          const round = randomUUID();
          const bet = tx('bet', 1);
          rounds.push(round);
          transfers.push(bet.id);
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [bet], { id: round }))).status, 200);
        }
        const newestRounds = [...rounds].reverse();
        // The opening deposit is the oldest transfer.
        const newestTransfers = [...transfers].reverse();

        for (const [path, expected, key] of [
          ['rounds', newestRounds, 'roundId'],
          ['transactions', newestTransfers, 'id'],
        ] as const) {
          const seen: string[] = [];
          let cursor: string | null = null;
          let pages = 0;
          do {
            const url: string = `/admin/players/${p.playerId}/${path}?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`;
            const page = await admin(op.app, 'GET', url);
            assert.equal(page.status, 200, page.raw);
            const items = page.body.items as Record<string, unknown>[];
            assert.ok(items.length <= 2);
            seen.push(...items.map((item) => item[key] as string));
            cursor = page.body.nextCursor as string | null;
            pages++;
            assert.ok(pages <= 10, 'paging ends');
          } while (cursor !== null);
          const total = path === 'rounds' ? 5 : 6;
          assert.equal(seen.length, total);
          assert.equal(pages, 3);
          assert.deepEqual(seen.slice(0, 5), expected);
        }
        const whole = await admin(op.app, 'GET', `/admin/players/${p.playerId}/rounds`);
        assert.equal((whole.body.items as unknown[]).length, 5);
        assert.equal(whole.body.nextCursor, null);
        const exact = await admin(op.app, 'GET', `/admin/players/${p.playerId}/rounds?limit=5`);
        assert.equal(exact.body.nextCursor, null);
      });

      test('a page limit or cursor out of range is 400', async () => {
        const playerId = await newPlayer();
        for (const query of [
          'limit=0',
          'limit=501',
          'limit=10000',
          'limit=-1',
          'limit=abc',
          'limit=1&limit=2',
          'cursor=abc',
          'cursor=-5',
          'cursor=9223372036854775808',
          'cursor=9999999999999999999',
          'cursor=99999999999999999999',
        ]) {
          for (const path of ['rounds', 'transactions']) {
            const answer = await send(op.app, 'GET', `/admin/players/${playerId}/${path}?${query}`, undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
            assertProblem(answer, 'INVALID_REQUEST', 'absent');
          }
        }
        for (const query of ['limit=1', 'limit=500', 'cursor=9223372036854775807']) {
          const answer = await admin(op.app, 'GET', `/admin/players/${playerId}/transactions?${query}`);
          assert.equal(answer.status, 200, `${query}: ${answer.raw}`);
        }
      });

      test('GET /health answers 200', async () => {
        const answer = await send(op.app, 'GET', '/health');
        assert.equal(answer.status, 200, answer.raw);
        assert.deepEqual(answer.body, { status: 'ok', database: 'ok' });
      });

      test('GET /metrics counts requests, booked transfers (replays are not counted) and commits', async () => {
        const own = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(own.app, { balance: 10 });
          const body = transactionBody(p, [tx('bet', 1), tx('bet', 2), tx('win', 1)]);
          assert.equal((await wallet(own.app, '/transaction', body)).status, 200);
          assert.equal((await wallet(own.app, '/transaction', body)).status, 200);
          const metrics = await own.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
          assert.equal(metrics.statusCode, 200);
          assert.match(String(metrics.headers['content-type']), /^text\/plain/);
          assert.match(metrics.body, /^# TYPE wagerlink_http_request_duration_seconds histogram$/m);
          assert.match(metrics.body, /^wagerlink_ledger_transfers_total\{kind="bet",currency="EUR",integration="default"\} 2$/m);
          assert.match(metrics.body, /^wagerlink_ledger_transfers_total\{kind="win",currency="EUR",integration="default"\} 1$/m);
          assert.match(metrics.body, /^wagerlink_ledger_amount_total\{kind="bet",currency="EUR",integration="default"\} 3$/m);
          assert.match(metrics.body, /^wagerlink_ledger_amount_total\{kind="win",currency="EUR",integration="default"\} 1$/m);
          assert.match(metrics.body, /^wagerlink_http_request_duration_seconds_count\{[^}]*route="\/transaction"[^}]*code="OK"[^}]*\} 2$/m);
          const commits = Number(/^wagerlink_store_commit_seconds_count (\d+)$/m.exec(metrics.body)?.[1]);
          if (own.store.onCommit) {
            // The set-up and each of the two requests committed a batch of its own.
            assert.ok(commits >= 2, `${commits} commits counted`);
          } else {
            // A store that does not time its commits (PostgreSQL) leaves the series empty, as the operator docs say.
            assert.equal(commits, 0);
          }
        } finally {
          await own.close();
        }
      });

      test('GET /openapi.json is an OpenAPI 3.1 document of the operator endpoints', async () => {
        const answer = await send(op.app, 'GET', '/openapi.json');
        assert.equal(answer.status, 200, answer.raw);
        assert.match(String(answer.headers['content-type']), /^application\/json/);
        assert.match(answer.body.openapi as string, /^3\.1\.\d+$/);
        const paths = answer.body.paths as Record<string, Record<string, unknown>>;
        for (const path of ['/transaction', '/payout', '/authenticate']) assert.ok(paths[path]?.post, `${path} is documented`);
      });
    });
  });
}
