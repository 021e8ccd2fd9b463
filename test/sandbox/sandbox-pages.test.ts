/**
 * Proves that the back office's pass-through (/backoffice/provider/admin/*)
 * reaches the provider's /admin/* and nothing else: every spelling of a
 * climb out of /admin that the WHATWG URL parser (fetch) or the provider's
 * router would resolve — an encoded or raw backslash, a tab or newline
 * beside the dots, encoded dots and slashes — is refused on the operator's
 * side, and the provider (a server that records every path it is asked for)
 * never sees it. Over real sockets, with the request target sent byte for
 * byte; a legitimate call still passes, with its query.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { createJsonApi } from '../../src/http/json-api.js';
import { providerAdminUrl, registerSandboxPages } from '../../src/sandbox/sandbox-pages.js';
import { exchange, getRequest } from '../http/raw-http.js';

/** What the recording provider was asked for, in order. */
const seen: string[] = [];
let provider: Server;
let operator: FastifyInstance;
let operatorPort: number;
let providerOrigin: string;

before(async () => {
  provider = createServer((request, response) => {
    seen.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: request.url }));
  });
  provider.listen(0, '127.0.0.1');
  await once(provider, 'listening');
  providerOrigin = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  operator = createJsonApi({ bodyBytesMax: 65_536 });
  registerSandboxPages(operator, { providerOrigin });
  await operator.listen({ host: '127.0.0.1', port: 0 });
  operatorPort = (operator.server.address() as AddressInfo).port;
});

after(async () => {
  await operator.close();
  provider.close();
});

async function get(path: string) {
  const { answers } = await exchange(operatorPort, [getRequest(path, { connection: 'close' })], { waitMs: 5_000 });
  assert.equal(answers.length, 1, `one answer to ${JSON.stringify(path)}`);
  return answers[0]!;
}

const ESCAPES = [
  '..%5c..%5chealth',
  '..%5C..%5Cmetrics',
  '..%5c..%5cgame%5cdice',
  '..\\..\\health',
  '..%09/..%09/health',
  '..%0a/..%0a/health',
  '..%0d/..%0d/metrics',
  '%2e%2e%5chealth',
  '%2e%2e/health',
  '.%2e/metrics',
  '..%09%2f..%09%2fhealth',
  '..%2f..%2fhealth',
  '../health',
  './../metrics',
  'outbox/../../health',
];

for (const escape of ESCAPES) {
  test(`the pass-through refuses ${JSON.stringify(escape)}, and the provider is not asked`, async () => {
    const before = seen.length;
    const answer = await get(`/backoffice/provider/admin/${escape}`);
    assert.ok(answer.status === 400 || answer.status === 404, `${answer.status} ${answer.body}`);
    assert.equal(answer.headers['content-type']?.split(';')[0], 'application/problem+json', answer.body);
    assert.deepEqual(seen.slice(before), [], 'nothing reached the provider');
  });
}

test('a call under /admin/ passes with its query, and its answer is not to be stored', async () => {
  const answer = await get('/backoffice/provider/admin/outbox?status=parked&limit=5');
  assert.equal(answer.status, 200, answer.body);
  assert.deepEqual(JSON.parse(answer.body), { path: '/admin/outbox?status=parked&limit=5' });
  assert.equal(answer.headers['cache-control'], 'no-store');
  const id = await get('/backoffice/provider/admin/payouts/tournament%20week%2012');
  assert.deepEqual(JSON.parse(id.body), { path: '/admin/payouts/tournament%20week%2012' });
});

test('providerAdminUrl judges the path as the URL parser resolves it', () => {
  const origin = 'http://127.0.0.1:8090';
  assert.deepEqual(providerAdminUrl('/backoffice/provider/admin/outbox/7/retry', origin), { ok: true, url: `${origin}/admin/outbox/7/retry` });
  for (const escape of [...ESCAPES, 'a\tb', 'x\n', '..%00/health', 'a%zz']) {
    const judged = providerAdminUrl(`/backoffice/provider/admin/${escape}`, origin);
    assert.equal(judged.ok, false, escape);
  }
  assert.equal(providerAdminUrl('/backoffice/provider/admin/outbox?x=%0a', origin).ok, true, 'a query cannot leave /admin; the provider checks it');
  assert.equal(providerAdminUrl('/backoffice/provider/admin/outbox?x=\n', origin).ok, false);
});
