/**
 * Keeps the error registry, the README's error table and the problem+json
 * mapping in sync: every code is documented with its status, every
 * documented code exists, and every problem body is RFC 9457 shaped. Also
 * which statuses callers resend: 408 (a request that did not arrive in time
 * applied nothing) with PROTOCOL.md §3's list, and never the other codes the
 * HTTP layer adds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RETRY_STATUSES } from '../../src/clients/http-call.js';
import { ERRORS, ERROR_CODES, errorType, EXTRA_ERROR_CODES, isRetryableStatus, problemJson } from '../../src/protocol/errors.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const documented = new Map(
  [...readme.matchAll(/^\| (\d{3}) \| ([A-Z_]+) \|/gm)].map((match) => [match[2]!, Number(match[1])]),
);

test('every registered code is in the README with its status', () => {
  for (const code of ERROR_CODES) assert.equal(documented.get(code), ERRORS[code].status, code);
});

test('every code in the README is registered', () => {
  for (const code of documented.keys()) assert.ok(code in ERRORS, code);
});

test('problem bodies are RFC 9457 with a code, and balance stays exact', () => {
  for (const code of ERROR_CODES) {
    const body = JSON.parse(problemJson(code, 'because')) as Record<string, unknown>;
    assert.deepEqual(body, { type: errorType(code), title: ERRORS[code].title, status: ERRORS[code].status, code, detail: 'because' });
    assert.match(body.type as string, /^urn:wagerlink:error:[a-z-]+$/);
  }
  assert.equal(problemJson('INSUFFICIENT_FUNDS', 'x', '1000000000000.12345678').endsWith(',"balance":1000000000000.12345678}'), true);
});

test('a 408 is resent like the other time-outs; 414 and 431 are final', () => {
  assert.equal(isRetryableStatus(ERRORS.REQUEST_TIMEOUT.status), true);
  assert.ok(RETRY_STATUSES.includes(ERRORS.REQUEST_TIMEOUT.status));
  for (const code of ['URI_TOO_LONG', 'HEADERS_TOO_LARGE', 'NOT_FOUND', 'PLAYER_EXISTS'] as const) {
    assert.equal(isRetryableStatus(ERRORS[code].status), false, code);
  }
  for (const status of RETRY_STATUSES) assert.equal(isRetryableStatus(status), true, String(status));
  for (const code of ['REQUEST_TIMEOUT', 'URI_TOO_LONG', 'HEADERS_TOO_LARGE'] as const) assert.ok(EXTRA_ERROR_CODES.includes(code), code);
});
