/**
 * Proves docs/protocol.md §1, §3 and §9 for the answers the HTTP layer makes
 * itself, over real sockets (app.inject() bypasses Node's parser): malformed
 * framing (a bad chunk size, chunked with Content-Length, a bad or duplicate
 * Content-Length, a garbage request line, bare LF), oversized headers, a
 * missing Host, bad percent-encoding and over-long path parameters, a body
 * or headers that stall past the request time-out, and requests that arrive
 * while the server drains, each answer problem+json with a registered code;
 * the connection is closed after a framing error and the server goes on
 * serving. A pipelined request that arrived whole before the error is
 * answered first, so an answer never goes missing for money that moved.
 */
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { createJsonApi } from '../../src/http/json-api.js';
import { ACCESS_TOKEN, balanceOf, makeOperator, OPERATOR_BACKENDS, playerWithSession, transactionBody, tx, walletHeaders, type Operator } from '../helpers.js';
import { makeProvider, type Provider } from '../provider/provider-helpers.js';
import { assertProblemAnswer, exchange, getRequest, parseAnswers, type Exchange } from './raw-http.js';

/** The request time-out of the servers under test (ms): short, so that stalls are seen quickly. */
const REQUEST_TIMEOUT_MS = 400;
/** How long a test waits for the server to answer and close (ms); generous for a loaded machine. */
const WAIT_MS = 10_000;

function portOf(app: { server: { address(): unknown } }): number {
  return (app.server.address() as AddressInfo).port;
}

/** A signed POST /transaction as raw bytes, with its headers and the body given. */
function transactionRequest(body: string, extraHeaders = ''): string {
  const headers = Object.entries(walletHeaders(body))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `POST /transaction HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`;
}

/** An authenticated wallet call's head: the server reads its body (an unauthenticated one is answered 401 first). */
const POST_HEAD = `POST /transaction HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer ${ACCESS_TOKEN}\r\n`;

/** Malformed framing that Node's parser refuses: each is 400 INVALID_REQUEST and closes the connection. */
const MALFORMED: [name: string, bytes: string][] = [
  ['a bad chunk size', `${POST_HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
  ['chunked with a Content-Length', `${POST_HEAD}Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n`],
  ['a Content-Length that is not a number', `${POST_HEAD}Content-Length: 2x\r\n\r\n{}`],
  ['a negative Content-Length', `${POST_HEAD}Content-Length: -2\r\n\r\n{}`],
  ['two different Content-Lengths', `${POST_HEAD}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{} `],
  ['two equal Content-Lengths', `${POST_HEAD}Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}`],
  ['a garbage request line', 'HELLO THERE\r\n\r\n'],
  ['an unknown method', 'BREW /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
  ['bare LF line ends', 'GET /health HTTP/1.1\nHost: 127.0.0.1\n\n'],
  ['a bare LF inside the headers', 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\nX-A: b\r\n\r\n'],
  ['an obsolete folded header', 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: b\r\n c\r\n\r\n'],
  ['an unknown transfer coding', `${POST_HEAD}Transfer-Encoding: gzip\r\n\r\n{}`],
  ['a bad HTTP version', 'GET /health HTTP/9.x\r\nHost: 127.0.0.1\r\n\r\n'],
];

function assertClosedWith(result: Exchange, code: Parameters<typeof assertProblemAnswer>[1]): void {
  assert.equal(result.answers.length, 1, result.bytes.toString('latin1'));
  assertProblemAnswer(result.answers[0], code);
  assert.equal(result.answers[0]!.headers.connection, 'close');
  assert.ok(result.closed, 'the server closes the connection');
  assert.equal(result.leftover.length, 0);
}

async function assertHealthy(port: number): Promise<void> {
  const health = await exchange(port, [getRequest('/health', { connection: 'close' })], { waitMs: WAIT_MS });
  assert.equal(health.answers[0]?.status, 200, health.bytes.toString('latin1'));
}

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`the operator's framing layer (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let port: number;

    before(async () => {
      op = await makeOperator({ backend: backend.name, app: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
      await op.app.listen({ host: '127.0.0.1', port: 0 });
      port = portOf(op.app);
    });
    after(async () => op.close());

    for (const [name, bytes] of MALFORMED) {
      test(`${name}: 400 INVALID_REQUEST problem+json, and the connection closes`, async () => {
        assertClosedWith(await exchange(port, [bytes], { waitMs: WAIT_MS }), 'INVALID_REQUEST');
        await assertHealthy(port);
      });
    }

    test('headers over the limit: 431 HEADERS_TOO_LARGE, and the connection closes', async () => {
      const result = await exchange(port, [`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], { waitMs: WAIT_MS });
      assertClosedWith(result, 'HEADERS_TOO_LARGE');
      await assertHealthy(port);
    });

    test('an HTTP/1.1 request without Host: 400 INVALID_REQUEST; HTTP/1.0 needs none', async () => {
      const result = await exchange(port, ['GET /health HTTP/1.1\r\n\r\n'], { waitMs: WAIT_MS });
      assertClosedWith(result, 'INVALID_REQUEST');
      assert.match(JSON.parse(result.answers[0]!.body).detail, /Host/);
      const old = await exchange(port, ['GET /health HTTP/1.0\r\n\r\n'], { waitMs: WAIT_MS });
      assert.equal(old.answers[0]?.status, 200);
    });

    test('bad percent-encoding in the path: 400 INVALID_REQUEST', async () => {
      for (const path of ['/admin/players/%zz', '/admin/players/%E2%82', '/%zz']) {
        const result = await exchange(port, [getRequest(path, { authorization: 'Bearer x', connection: 'close' })], { waitMs: WAIT_MS });
        assert.equal(result.answers.length, 1, result.bytes.toString('latin1'));
        assertProblemAnswer(result.answers[0], 'INVALID_REQUEST');
      }
    });

    test('a path parameter over the router limit: 414 URI_TOO_LONG', async () => {
      const result = await exchange(port, [getRequest(`/admin/players/${'a'.repeat(2_000)}`, { connection: 'close' })], { waitMs: WAIT_MS });
      assertProblemAnswer(result.answers[0], 'URI_TOO_LONG');
    });

    test('a body that stalls: 408 REQUEST_TIMEOUT after the request time-out, and the connection closes', async () => {
      const result = await exchange(port, [`${POST_HEAD}Content-Length: 100\r\n\r\n{"sessionId":`], { waitMs: WAIT_MS });
      assertClosedWith(result, 'REQUEST_TIMEOUT');
      assert.ok(result.elapsedMs >= REQUEST_TIMEOUT_MS / 2, `answered after ${result.elapsedMs} ms, before the time-out`);
      await assertHealthy(port);
    });

    test('an unauthenticated body that stalls: its 401 first, then 408, and the connection closes', async () => {
      const result = await exchange(port, [`${POST_HEAD.replace(ACCESS_TOKEN, 'wrong')}Content-Length: 100\r\n\r\n{`], { waitMs: WAIT_MS });
      assert.equal(result.answers.length, 2, result.bytes.toString('latin1'));
      assertProblemAnswer(result.answers[0], 'INVALID_TOKEN');
      assertProblemAnswer(result.answers[1], 'REQUEST_TIMEOUT');
      assert.ok(result.closed);
    });

    test('headers that never finish, and a connection that sends nothing: 408 REQUEST_TIMEOUT', async () => {
      const [partial, silent] = await Promise.all([
        exchange(port, ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow:'], { waitMs: WAIT_MS }),
        exchange(port, [], { waitMs: WAIT_MS }),
      ]);
      assertClosedWith(partial, 'REQUEST_TIMEOUT');
      assertClosedWith(silent, 'REQUEST_TIMEOUT');
    });

    test('a body dripping too slowly is cut at the time-out, however often bytes arrive', async () => {
      const drip = Array.from({ length: 40 }, () => ' ');
      const result = await exchange(port, [`${POST_HEAD}Content-Length: 100\r\n\r\n`, ...drip], { waitMs: WAIT_MS, gapMs: REQUEST_TIMEOUT_MS / 8 });
      assertClosedWith(result, 'REQUEST_TIMEOUT');
    });

    test('an idle keep-alive connection is closed after the request time-out too', async () => {
      const result = await exchange(port, [getRequest('/health')], { waitMs: WAIT_MS });
      assert.equal(result.answers.length, 1);
      assert.equal(result.answers[0]!.status, 200);
      assert.ok(result.closed, 'the idle connection was closed');
    });

    test('a bet pipelined before garbage is answered 200 first, then 400, and booked once', async () => {
      const fixture = await playerWithSession(op.app, { balance: 100 });
      const body = JSON.stringify(transactionBody(fixture, [tx('bet', 10)]));
      const result = await exchange(port, [`${transactionRequest(body)}GARBAGE\r\n\r\n`], { waitMs: WAIT_MS });
      assert.equal(result.answers.length, 2, result.bytes.toString('latin1'));
      assert.equal(result.answers[0]!.status, 200, result.answers[0]!.body);
      assert.deepEqual(JSON.parse(result.answers[0]!.body), { balance: 90 });
      assertProblemAnswer(result.answers[1], 'INVALID_REQUEST');
      assert.ok(result.closed);
      assert.equal(await balanceOf(op.app, fixture.playerId), 90);
    });

    test('a bet pipelined before a stalled request is answered 200 first, then 408', async () => {
      const fixture = await playerWithSession(op.app, { balance: 100 });
      const body = JSON.stringify(transactionBody(fixture, [tx('bet', 10)]));
      const result = await exchange(port, [`${transactionRequest(body)}${POST_HEAD}Content-Length: 100\r\n\r\n{`], { waitMs: WAIT_MS });
      assert.equal(result.answers.length, 2, result.bytes.toString('latin1'));
      assert.equal(result.answers[0]!.status, 200, result.answers[0]!.body);
      assertProblemAnswer(result.answers[1], 'REQUEST_TIMEOUT');
      assert.ok(result.closed);
      assert.equal(await balanceOf(op.app, fixture.playerId), 90);
    });
  });
}

describe("the provider's framing layer", () => {
  let provider: Provider;
  let port: number;

  before(async () => {
    provider = await makeProvider({
      edit: (file) => {
        file.limits = { requestTimeoutMs: REQUEST_TIMEOUT_MS };
      },
    });
    await provider.app.listen({ host: '127.0.0.1', port: 0 });
    port = portOf(provider.app);
  });
  after(async () => provider.close());

  test('bad percent-encoding in a game path: 400 INVALID_REQUEST', async () => {
    for (const path of ['/game/%zz', '/game/%zz/api/open']) {
      const result = await exchange(port, [getRequest(path, { connection: 'close' })], { waitMs: WAIT_MS });
      assertProblemAnswer(result.answers[0], 'INVALID_REQUEST');
    }
  });

  test('malformed framing, oversized headers and a stalled body answer problem+json and close', async () => {
    const [, bytes] = MALFORMED[0]!;
    assertClosedWith(await exchange(port, [bytes], { waitMs: WAIT_MS }), 'INVALID_REQUEST');
    const big = await exchange(port, [`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], { waitMs: WAIT_MS });
    assertClosedWith(big, 'HEADERS_TOO_LARGE');
    const stalled = await exchange(port, ['POST /game-bets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{'], {
      waitMs: WAIT_MS,
    });
    assertClosedWith(stalled, 'REQUEST_TIMEOUT');
    await assertHealthy(port);
  });
});

describe('a server that is closing', () => {
  test('answers requests that still arrive 503 SERVICE_UNAVAILABLE problem+json, after the one in flight', async () => {
    const app = createJsonApi({ bodyBytesMax: 1024 });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    app.get('/slow', async (_request, reply) => {
      started();
      await released;
      return reply.code(200).header('content-type', 'application/json').send('{"slow":true}');
    });
    app.get('/fast', async (_request, reply) => reply.code(200).header('content-type', 'application/json').send('{"fast":true}'));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = portOf(app);

    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(socket, 'connect');
    socket.write(getRequest('/slow'));
    await inFlight;
    const closing = app.close();
    // Pipelined on the busy connection after the close began: too late to be served.
    socket.write(getRequest('/fast'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await closing;
    await once(socket, 'close');
    const { answers } = parseAnswers(Buffer.concat(chunks));
    assert.equal(answers.length, 2, Buffer.concat(chunks).toString('latin1'));
    assert.deepEqual(JSON.parse(answers[0]!.body), { slow: true });
    assertProblemAnswer(answers[1], 'SERVICE_UNAVAILABLE');
    assert.equal(answers[1]!.headers.connection, 'close');
  });
});
