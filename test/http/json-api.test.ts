/**
 * Proves the shared HTTP layer's request loggers: a request that logs does
 * so with its request id bound, as Fastify's own child loggers do, although
 * the child is only made when the request first logs; and every request
 * answered is one line at info (method, path without its query, status, the
 * problem's code when refused, time, request id), refusals included, and no
 * more than one; a request refused on the socket before routing is one line
 * too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createJsonApi } from '../../src/http/json-api.js';
import { assertProblemAnswer, exchange } from './raw-http.js';

function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

test('a request logs with its request id; its child logger reads and sets the level', async () => {
  const { lines, stream } = capture();
  const app = createJsonApi({ bodyBytesMax: 1024, logger: pino({ level: 'info' }, stream) });
  app.get('/logs', async (request) => {
    assert.equal(request.log.level, 'info');
    request.log.info({ step: 1 }, 'first line');
    request.log.child({ part: 'inner' }).warn('from a child');
    request.log.level = 'error';
    request.log.info('not written: the level is error now');
    request.log.error('written');
    return { ok: true };
  });
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  const quiet = await app.inject({ method: 'GET', url: '/logs' });
  assert.equal(quiet.statusCode, 200);
  const failed = await app.inject({ method: 'GET', url: '/fails' });
  assert.equal(failed.statusCode, 500);
  await app.close();

  const [first, fromChild, written, unexpected] = lines.filter((line) => line.msg !== 'request');
  assert.equal(lines.length, 6, JSON.stringify(lines));
  assert.equal(first!.msg, 'first line');
  assert.equal(first!.step, 1);
  assert.ok(typeof first!.reqId === 'string' && first!.reqId !== '');
  assert.equal(fromChild!.reqId, first!.reqId);
  assert.equal(fromChild!.part, 'inner');
  assert.equal(written!.msg, 'written');
  assert.equal(unexpected!.msg, 'unexpected error');
  assert.notEqual(unexpected!.reqId, first!.reqId, 'each request has its own id');
  assert.equal((unexpected!.err as { message: string }).message, 'boom');
});

test('every request answered is one line at info, refusals included, with its code, time and request id', async () => {
  const { lines, stream } = capture();
  const app = createJsonApi({ bodyBytesMax: 1024, logger: pino({ level: 'info' }, stream) });
  app.get('/items', async () => ({ items: [] }));
  app.post('/items', async () => ({ ok: true }));
  const listed = await app.inject({ method: 'GET', url: '/items?cursor=123&limit=5' });
  assert.equal(listed.statusCode, 200);
  const missing = await app.inject({ method: 'GET', url: '/nothing-here' });
  assert.equal(missing.statusCode, 404);
  const wrongType = await app.inject({ method: 'POST', url: '/items', headers: { 'content-type': 'text/plain' }, payload: 'x' });
  assert.equal(wrongType.statusCode, 415);
  await app.close();

  const requests = lines.filter((line) => line.msg === 'request');
  assert.equal(requests.length, 3, 'one line per request, not two');
  assert.equal(lines.length, 3, `nothing else is written: ${JSON.stringify(lines)}`);
  const [ok, notFound, refused] = requests;
  assert.deepEqual(
    requests.map((line) => [line.level, line.method, line.path, line.status, line.code]),
    [
      [30, 'GET', '/items', 200, undefined],
      [30, 'GET', '/nothing-here', 404, 'NOT_FOUND'],
      [30, 'POST', '/items', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ],
  );
  for (const line of [ok!, notFound!, refused!]) {
    assert.equal(typeof line.ms, 'number');
    assert.ok((line.ms as number) >= 0);
    assert.ok(typeof line.reqId === 'string' && line.reqId !== '');
  }
  assert.equal(new Set(requests.map((line) => line.reqId)).size, 3, 'each line names its own request');
});

test('a request refused on the socket, before routing, is one line with its status and code', async () => {
  const { lines, stream } = capture();
  const app = createJsonApi({ bodyBytesMax: 1024, logger: pino({ level: 'info' }, stream) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = app.server.address() as { port: number };
    const answered = await exchange(port, ['NOT HTTP AT ALL\r\n\r\n'], { waitMs: 2_000 });
    assertProblemAnswer(answered.answers[0], 'INVALID_REQUEST');
  } finally {
    await app.close();
  }
  assert.deepEqual(
    lines.filter((line) => !String(line.msg).startsWith('Server listening')).map((line) => [line.level, line.msg, line.status, line.code]),
    [[30, 'refused before routing', 400, 'INVALID_REQUEST']],
  );
});
