/**
 * Proves docs/protocol.md §1's I-JSON rule on the operator, on every backend:
 * a body with an unpaired surrogate, U+0000 in a string, a number outside a
 * double's range, a member name twice, or bytes that are not UTF-8 is
 * refused with 400 INVALID_REQUEST (never a 500, never a crash), changes
 * nothing, and gets the same answer from SQLite and PostgreSQL; a body
 * declared in another charset than UTF-8 is 415. Also that
 * -0 is never an amount (§4: an amount is not negative), while it stays
 * valid I-JSON elsewhere.
 *
 * The kit's validation cases send one body of each kind, in-process on every
 * backend; this suite keeps the many spellings of each, the details' wording
 * and the back office's bodies, which the kit does not judge.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NESTING_DEPTH_MAX } from '../../src/protocol/i-json.js';
import { sign } from '../../src/protocol/signing.js';
import { ADMIN_TOKEN, OPERATOR_BACKENDS, SECRET, admin, balanceOf, makeOperator, playerWithSession, walletHeaders, type Operator } from '../helpers.js';

interface Answer {
  status: number;
  contentType: string;
  raw: string;
  body: Record<string, unknown>;
}

async function send(op: Operator, url: string, payload: string | Buffer, headers: Record<string, string>): Promise<Answer> {
  const response = await op.app.inject({ method: 'POST', url, payload, headers });
  let body: Record<string, unknown> = {};
  try {
    body = response.json() as Record<string, unknown>;
  } catch {
    // Left empty: the assertions fail on it with the raw text.
  }
  return { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), raw: response.body, body };
}

/** A wallet call whose body goes on the wire exactly as given, signed over those bytes. */
function signed(op: Operator, url: string, payload: string | Buffer): Promise<Answer> {
  const headers = typeof payload === 'string' ? walletHeaders(payload) : { ...walletHeaders(''), 'x-server-authorization': sign(SECRET, payload) };
  return send(op, url, payload, headers);
}

function backOffice(op: Operator, url: string, payload: string | Buffer): Promise<Answer> {
  return send(op, url, payload, { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' });
}

/** 400 INVALID_REQUEST as problem+json, with a detail that matches. */
function assertRefused(answer: Answer, detail: RegExp): void {
  assert.equal(answer.status, 400, answer.raw);
  assert.match(answer.contentType, /^application\/problem\+json/);
  assert.equal(answer.body.code, 'INVALID_REQUEST', answer.raw);
  assert.match(answer.body.detail as string, detail);
}

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`I-JSON bodies are refused with 400 and change nothing (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let p: Awaited<ReturnType<typeof playerWithSession>>;
    const BALANCE = 10;

    before(async () => {
      op = await makeOperator({ backend: backend.name });
      p = await playerWithSession(op.app, { balance: BALANCE });
    });
    after(async () => {
      await op.close();
    });

    /** A /transaction body of one bet, as text, with `transaction` and `extra` spliced in as raw JSON text. */
    function betText(transaction = `"id":"${randomUUID()}","type":"bet","amount":1`, extra = ''): string {
      return (
        `{"sessionId":"${p.sessionId}","playerId":${JSON.stringify(p.playerId)},"game":"${p.game}",` +
        `"transactions":[{${transaction}}],"round":{"id":"${randomUUID()}","finished":true}${extra}}`
      );
    }

    /** The player's balance and the number of its transfers; the books are checked on the way. */
    async function snapshot(): Promise<{ balance: number; transfers: number }> {
      const report = await op.store.verify();
      assert.ok(report.ok, report.problems.join('; '));
      const listing = await admin(op.app, 'GET', `/admin/players/${encodeURIComponent(p.playerId)}/transactions?limit=500`);
      assert.equal(listing.status, 200, listing.raw);
      return { balance: await balanceOf(op.app, p.playerId), transfers: (listing.body.items as unknown[]).length };
    }

    test('a valid body written the way the cases below write theirs is booked, its regulatory stored verbatim', async () => {
      const text = betText(`"id":"${randomUUID()}","type":"win","amount":0`, ',"regulatory":"ok \\u00e9 \\ud83d\\ude00"');
      const answer = await signed(op, '/transaction', text);
      assert.equal(answer.status, 200, answer.raw);
      assert.equal(answer.body.balance, BALANCE);
      const listing = await admin(op.app, 'GET', `/admin/players/${encodeURIComponent(p.playerId)}/transactions?limit=1`);
      assert.equal((listing.body.items as { regulatory: string }[])[0]?.regulatory, 'ok \u00e9 \u{1F600}');
    });

    test('an unpaired surrogate in a playerId: 400, nothing created, and the server still serves', async () => {
      for (const escape of ['\\ud800', '\\ud801', '\\udfff']) {
        const text = `{"playerId":"crash${escape}","currency":"EUR","balance":10}`;
        assertRefused(await backOffice(op, '/admin/players', text), new RegExp(`^playerId: holds an unpaired surrogate \\(\\${escape}\\)`));
      }
      // What a store would have made of them: U+FFFD.
      assert.equal((await admin(op.app, 'GET', `/admin/players/${encodeURIComponent('crash\ufffd')}`)).status, 404);
      const health = await op.app.inject({ method: 'GET', url: '/health' });
      assert.equal(health.statusCode, 200, health.body);
      const created = await admin(op.app, 'POST', '/admin/players', { playerId: `after-${randomUUID()}`, currency: 'EUR', balance: 1 });
      assert.equal(created.status, 201, created.raw);
    });

    test('an unpaired surrogate in regulatory: 400, balance unchanged', async () => {
      const was = await snapshot();
      for (const regulatory of ['"\\ud800"', '"a\\udc00b"', '"\\ude00\\ud83d"']) {
        assertRefused(await signed(op, '/transaction', betText(undefined, `,"regulatory":${regulatory}`)), /^regulatory: holds an unpaired surrogate/);
      }
      assert.deepEqual(await snapshot(), was);
    });

    test('U+0000 in regulatory, the /authenticate key, an adjustment reason and a block reason: 400, not 500', async () => {
      const was = await snapshot();
      assertRefused(await signed(op, '/transaction', betText(undefined, ',"regulatory":"a\\u0000b"')), /^regulatory: holds U\+0000/);
      assertRefused(await signed(op, '/authenticate', `{"key":"${p.key}\\u0000","game":"${p.game}"}`), /^key: holds U\+0000/);
      const adjust = `/admin/players/${encodeURIComponent(p.playerId)}/adjustments`;
      assertRefused(await backOffice(op, adjust, `{"id":"${randomUUID()}","type":"deposit","amount":5,"reason":"\\u0000"}`), /^reason: holds U\+0000/);
      const block = `/admin/players/${encodeURIComponent(p.playerId)}/block`;
      assertRefused(await backOffice(op, block, '{"reason":"fraud\\u0000"}'), /^reason: holds U\+0000/);
      assert.equal((await admin(op.app, 'GET', `/admin/players/${p.playerId}`)).body.blocked, false);
      assert.deepEqual(await snapshot(), was);
    });

    test('1e-400 and other numbers out of range, anywhere in the body: 400, balance unchanged', async () => {
      const was = await snapshot();
      for (const amount of ['1e-400', '-1e-400', '1e400', `1${'0'.repeat(400)}`]) {
        const text = betText(`"id":"${randomUUID()}","type":"bet","amount":${amount}`);
        assertRefused(await signed(op, '/transaction', text), /^transactions\[0\]\.amount: the number .* is outside the range of a double/);
      }
      // In a member nobody reads, too: I-JSON is about the whole body.
      assertRefused(await signed(op, '/transaction', betText(undefined, ',"future":{"x":[1,2e-999]}')), /^future\.x\[1\]: the number 2e-999/);
      assert.deepEqual(await snapshot(), was);
    });

    test('-0 as an amount: 400, balance unchanged', async () => {
      const was = await snapshot();
      for (const zero of ['-0', '-0.0', '-0e3', '-0.000']) {
        const text = betText(`"id":"${randomUUID()}","type":"bet","amount":${zero}`);
        assertRefused(await signed(op, '/transaction', text), /^transactions\[0\]\.amount: is -0/);
        const jackpot = betText(`"id":"${randomUUID()}","type":"win","amount":0,"jpAmount":${zero}`);
        assertRefused(await signed(op, '/transaction', jackpot), /^transactions\[0\]\.jpAmount: is -0/);
      }
      const adjust = `/admin/players/${encodeURIComponent(p.playerId)}/adjustments`;
      assertRefused(await backOffice(op, adjust, `{"id":"${randomUUID()}","type":"withdrawal","amount":-0}`), /^amount: is -0/);
      assert.deepEqual(await snapshot(), was);
      // -0 where no amount is read is valid I-JSON: the win of 0 beside it is booked.
      const beside = await signed(op, '/transaction', betText(`"id":"${randomUUID()}","type":"win","amount":0`, ',"future":-0'));
      assert.equal(beside.status, 200, beside.raw);
      assert.equal(beside.body.balance, BALANCE);
    });

    test('a member name twice ("amount":1,"amount":2): 400, balance unchanged, and the id is still free', async () => {
      const was = await snapshot();
      const id = randomUUID();
      const twice = betText(`"id":"${id}","type":"bet","amount":1,"amount":2`);
      assertRefused(await signed(op, '/transaction', twice), /^body: member "amount" appears twice in transactions\[0\]$/);
      const escaped = betText(`"id":"${randomUUID()}","type":"bet","amount":1,"\\u0061mount":2`);
      assertRefused(await signed(op, '/transaction', escaped), /^body: member "amount" appears twice in transactions\[0\]$/);
      const topLevel = `{"playerId":"x",${betText().slice(1)}`;
      assertRefused(await signed(op, '/transaction', topLevel), /^body: member "playerId" appears twice$/);
      assert.deepEqual(await snapshot(), was);
      // The id was never booked: with one amount it is a fresh bet.
      const once = await signed(op, '/transaction', betText(`"id":"${id}","type":"bet","amount":1`));
      assert.equal(once.status, 200, once.raw);
      assert.equal(once.body.balance, BALANCE - 1);
      const refund = await admin(op.app, 'POST', `/admin/players/${encodeURIComponent(p.playerId)}/adjustments`, {
        id: randomUUID(),
        type: 'deposit',
        amount: 1,
      });
      assert.equal(refund.status, 200, refund.raw);
    });

    test('a body declared in a charset other than UTF-8: 415, balance unchanged; charset=utf-8 in any case is read', async () => {
      const before = await snapshot();
      for (const contentType of ['application/json; charset=utf-16', 'application/json;charset=ISO-8859-1', 'application/json; charset="utf-16le"']) {
        const text = betText();
        const answer = await send(op, '/transaction', text, { ...walletHeaders(text), 'content-type': contentType });
        assert.equal(answer.status, 415, `${contentType}: ${answer.raw}`);
        assert.equal(answer.body.code, 'UNSUPPORTED_MEDIA_TYPE');
      }
      assert.deepEqual(await snapshot(), before);
      const text = betText();
      const answer = await send(op, '/transaction', text, { ...walletHeaders(text), 'content-type': 'application/json; charset=UTF-8' });
      assert.equal(answer.status, 200, answer.raw);
    });

    test('bytes that are not UTF-8: 400, balance unchanged', async () => {
      const was = await snapshot();
      const invalid: [string, number[]][] = [
        ['a lone continuation byte', [0x80]],
        ['0xFF', [0xff]],
        ['an overlong "/"', [0xc0, 0xaf]],
        ['an encoded surrogate', [0xed, 0xa0, 0x80]],
        ['a truncated sequence', [0xe2, 0x82]],
        ['a code point over U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
      ];
      for (const [what, bytes] of invalid) {
        const [head, tail] = betText(undefined, ',"regulatory":"@"').split('@') as [string, string];
        const payload = Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);
        const answer = await signed(op, '/transaction', payload);
        assert.equal(answer.status, 400, `${what}: ${answer.raw}`);
        assertRefused(answer, new RegExp(`^body is not valid UTF-8 \\(byte ${Buffer.byteLength(head)}\\)`));
      }
      const player = Buffer.concat([Buffer.from('{"playerId":"bad'), Buffer.from([0xfe]), Buffer.from('","currency":"EUR","balance":1}')]);
      assertRefused(await backOffice(op, '/admin/players', player), /^body is not valid UTF-8/);
      assert.deepEqual(await snapshot(), was);
    });

    test('nesting over the limit (docs/protocol.md §1.2): 400 before parsing, 100,000 levels too; nesting at the limit is booked', async () => {
      const was = await snapshot();
      const detail = new RegExp(`^body: arrays and objects nest deeper than ${NESTING_DEPTH_MAX} levels, the limit of docs/protocol\\.md §1\\.2$`);
      // Not JSON (never closed): JSON.parse would have answered a syntax error, had it seen them.
      for (const extra of [
        `,"x":${'['.repeat(100_000)}`,
        `,"x":${'{"a":'.repeat(50_000)}`,
        `,"x":${'['.repeat(NESTING_DEPTH_MAX)}${']'.repeat(NESTING_DEPTH_MAX)}`,
      ]) {
        assertRefused(await signed(op, '/transaction', betText(undefined, extra)), detail);
      }
      assertRefused(await signed(op, '/authenticate', `{"key":"${p.key}","game":"${p.game}","x":${'['.repeat(100_000)}`), detail);
      assertRefused(await backOffice(op, '/admin/players', `{"playerId":"deep","currency":"EUR","balance":1,"x":${'['.repeat(100_000)}`), detail);
      assert.deepEqual(await snapshot(), was);
      // The body is 1 level, its member 15 more: 16 in all.
      const atLimit = betText(undefined, `,"x":${'['.repeat(NESTING_DEPTH_MAX - 1)}${']'.repeat(NESTING_DEPTH_MAX - 1)}`);
      const booked = await signed(op, '/transaction', atLimit);
      assert.equal(booked.status, 200, booked.raw);
      assert.equal(booked.body.balance, was.balance - 1);
    });
  });
}
