/**
 * Proves, with fast-check, that no bytes on the wire can break the framing
 * layer or the wallet behind it (docs/protocol.md §1, §3, §9): a validly signed
 * POST /transaction bet is mutated at the byte level (header lines dropped,
 * duplicated or garbled, Content-Length off by some, the body re-sent in
 * chunked encoding, whole or broken, random bytes spliced in, the message
 * cut short or sent twice) and written to a real socket of an operator with
 * a funded player. Every answer is 200 or problem+json with a registered
 * code and a status below 500, answers are whole, the server closes every
 * connection within its request time-out and never crashes, and the
 * player's balance moves by the bet exactly when some answer on that
 * connection was 200 (idempotency makes a bet sent twice one bet). The books
 * verify at the end.
 *
 * Runs share one database, so shrinking is off: a failure reports the
 * request bytes and the seed. FUZZ_SEED replays a run; FRAMING_FUZZ_RUNS
 * widens it (each run takes up to one request time-out, so the default keeps
 * the file to a few seconds).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { ERRORS, type ErrorCode } from '../../src/protocol/errors.js';
import { admin, balanceOf, makeOperator, OPERATOR_BACKENDS, playerWithSession, transactionBody, tx, walletHeaders, type Operator } from '../helpers.js';
import { exchange, getRequest, type RawAnswer } from '../http/raw-http.js';

const RUNS = Number(process.env.FRAMING_FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** The request time-out of the server under test (ms): every stalled mutation costs this much. */
const REQUEST_TIMEOUT_MS = 200;
/** A connection the server has not closed this long after the last write is a failure (ms); generous for a loaded machine. */
const WAIT_MS = 10_000;
const BET = 1; // EUR
const INITIAL_BALANCE = 1_000_000; // EUR

// --------------------------------------------------------------- messages

/** A request as its head lines (request line first) and its body. */
interface Message {
  lines: string[];
  body: Buffer;
}

function signedBet(fixture: { playerId: string; game: string; sessionId: string }): Message {
  const body = JSON.stringify(transactionBody(fixture, [tx('bet', BET)]));
  const headers = walletHeaders(body);
  return {
    lines: [
      'POST /transaction HTTP/1.1',
      'Host: 127.0.0.1',
      `Content-Type: ${headers['content-type']}`,
      `Authorization: ${headers.authorization}`,
      `X-Server-Authorization: ${headers['x-server-authorization']}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      // Most answers then close the connection at once, which keeps runs short; dropping it is a mutation.
      'Connection: close',
    ],
    body: Buffer.from(body),
  };
}

/** One change to a message; indexes are taken modulo what they index. */
type Mutation =
  | { kind: 'drop-line'; line: number }
  | { kind: 'duplicate-line'; line: number }
  | { kind: 'garble-line'; line: number; at: number; bytes: Uint8Array }
  | { kind: 'content-length-off'; by: number }
  | { kind: 'chunked'; sizes: number[]; breakage: 'none' | 'size-off' | 'no-last-chunk' | 'bad-size' | 'no-crlf' | 'with-content-length' }
  | { kind: 'splice'; at: number; bytes: Uint8Array }
  | { kind: 'cut'; at: number }
  | { kind: 'twice' }
  | { kind: 'bare-lf' };

const byteArb = fc.uint8Array({ minLength: 1, maxLength: 8 });
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop-line' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate-line' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('garble-line' as const), line: fc.nat(), at: fc.nat(), bytes: byteArb }),
  fc.record({ kind: fc.constant('content-length-off' as const), by: fc.integer({ min: -20, max: 20 }).filter((by) => by !== 0) }),
  fc.record({
    kind: fc.constant('chunked' as const),
    sizes: fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 4 }),
    breakage: fc.constantFrom('none', 'none', 'size-off', 'no-last-chunk', 'bad-size', 'no-crlf', 'with-content-length'),
  }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: byteArb }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.constant({ kind: 'twice' as const }),
  fc.constant({ kind: 'bare-lf' as const }),
);

/** The body in chunked encoding, whole or broken as asked. */
function chunked(body: Buffer, sizes: number[], breakage: Extract<Mutation, { kind: 'chunked' }>['breakage']): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < body.length; i++) {
    const size = Math.min(sizes[i % sizes.length]!, body.length - at);
    const announced = breakage === 'size-off' && i === 0 ? size + 3 : size;
    const sizeText = breakage === 'bad-size' && i === 0 ? `${announced.toString(16)}z` : announced.toString(16);
    parts.push(Buffer.from(`${sizeText}\r\n`), body.subarray(at, at + size), Buffer.from(breakage === 'no-crlf' && i === 0 ? '' : '\r\n'));
    at += size;
  }
  if (breakage !== 'no-last-chunk') parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** The bytes of a message after its mutations, applied in order. */
function render(message: Message, mutations: Mutation[]): Buffer {
  let lines = [...message.lines];
  let body = message.body;
  let bytesEdits: Mutation[] = [];
  for (const mutation of mutations) {
    const line = 'line' in mutation ? mutation.line % lines.length : 0;
    switch (mutation.kind) {
      case 'drop-line':
        if (lines.length > 1) lines.splice(line, 1);
        break;
      case 'duplicate-line':
        lines.splice(line, 0, lines[line]!);
        break;
      case 'garble-line': {
        const text = Buffer.from(lines[line]!, 'latin1');
        const at = mutation.at % (text.length + 1);
        lines[line] = Buffer.concat([text.subarray(0, at), mutation.bytes, text.subarray(at + mutation.bytes.length)]).toString('latin1');
        break;
      }
      case 'content-length-off':
        lines = lines.map((text) =>
          text.replace(/^(content-length:\s*)(\d+)$/i, (_all, head: string, n: string) => `${head}${Math.max(0, Number(n) + mutation.by)}`),
        );
        break;
      case 'chunked':
        if (mutation.breakage !== 'with-content-length') lines = lines.filter((text) => !/^content-length:/i.test(text));
        lines.push('Transfer-Encoding: chunked');
        body = chunked(body, mutation.sizes, mutation.breakage);
        break;
      default:
        bytesEdits.push(mutation);
    }
  }
  let bytes = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  for (const edit of bytesEdits) {
    switch (edit.kind) {
      case 'splice': {
        const at = edit.at % (bytes.length + 1);
        bytes = Buffer.concat([bytes.subarray(0, at), edit.bytes, bytes.subarray(at)]);
        break;
      }
      case 'cut':
        bytes = bytes.subarray(0, edit.at % (bytes.length + 1));
        break;
      case 'twice':
        bytes = Buffer.concat([bytes, bytes]);
        break;
      case 'bare-lf':
        bytes = Buffer.from(bytes.toString('latin1').replace('\r\n', '\n'), 'latin1');
        break;
    }
  }
  bytesEdits = [];
  return bytes;
}

// ----------------------------------------------------------------- checks

/** Asserts an answer is 200 with a balance, or problem+json with a registered code below 500; returns the balance of a 200. */
function checkAnswer(answer: RawAnswer, context: string): number | undefined {
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  if (answer.status === 200) {
    assert.equal(typeof body.balance, 'number', context);
    return body.balance as number;
  }
  assert.equal(answer.headers['content-type']?.split(';')[0], 'application/problem+json', context);
  const code = body.code as ErrorCode;
  assert.ok(Object.hasOwn(ERRORS, code), `unregistered code ${String(code)}: ${context}`);
  assert.equal(answer.status, ERRORS[code].status, context);
  assert.equal(body.status, answer.status, context);
  assert.ok(answer.status < 500, `a ${answer.status} ${code}: ${context}`);
  return undefined;
}

for (const backend of OPERATOR_BACKENDS) {
  describe(`fuzzed framing of a signed /transaction (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let port: number;
    before(async () => {
      op = await makeOperator({ backend: backend.name, app: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
      await op.app.listen({ host: '127.0.0.1', port: 0 });
      port = (op.app.server.address() as AddressInfo).port;
    });
    after(async () => op.close());

    test(`${RUNS} mutated requests: answers are 200 or problem+json under 500, and money moves only with a 200`, async () => {
      const fixture = await playerWithSession(op.app, { balance: INITIAL_BALANCE });
      let expected = INITIAL_BALANCE;
      const statuses = new Map<string, number>();
      const property = fc.asyncProperty(fc.array(mutationArb, { minLength: 0, maxLength: 3 }), async (mutations) => {
        const bytes = render(signedBet(fixture), mutations);
        const result = await exchange(port, [bytes], { waitMs: WAIT_MS });
        const context = `mutations ${JSON.stringify(mutations, (_key, value: unknown) => (value instanceof Uint8Array ? [...value] : value))}\nsent ${JSON.stringify(bytes.toString('latin1'))}\nreceived ${JSON.stringify(result.bytes.toString('latin1'))}`;
        assert.ok(result.closed, `the server did not close the connection: ${context}`);
        assert.equal(result.leftover.length, 0, `a partial answer: ${context}`);
        assert.ok(result.answers.length >= 1, `no answer: ${context}`);
        const balances = result.answers.map((answer) => checkAnswer(answer, context));
        for (const answer of result.answers) {
          const key = answer.status === 200 ? '200' : `${answer.status} ${(JSON.parse(answer.body) as { code: string }).code}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        }
        if (balances.some((balance) => balance !== undefined)) expected -= BET;
        for (const balance of balances) if (balance !== undefined) assert.equal(balance, expected, context);
        assert.equal(await balanceOf(op.app, fixture.playerId), expected, `the balance moved without a 200, or not with one: ${context}`);
      });
      await fc.assert(property, { numRuns: RUNS, endOnFailure: true, includeErrorInReport: true, ...(SEED === undefined ? {} : { seed: SEED }) });

      const health = await exchange(port, [getRequest('/health', { connection: 'close' })], { waitMs: WAIT_MS });
      assert.equal(health.answers[0]?.status, 200);
      const verify = await admin(op.app, 'GET', '/admin/verify');
      assert.equal(verify.body.ok, true, verify.raw);
      console.log(`framing fuzz (${backend.name}): ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    });
  });
}
