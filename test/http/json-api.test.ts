/**
 * Proves the shared HTTP layer's request loggers: a request that logs does
 * so with its request id bound, as Fastify's own child loggers do, although
 * the child is only made when the request first logs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createJsonApi } from '../../src/http/json-api.js';

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

  const [first, fromChild, written, unexpected] = lines;
  assert.equal(lines.length, 4, JSON.stringify(lines));
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
