/**
 * Keeps the error registry, the README's error table and the problem+json
 * mapping in sync: every code is documented with its status, every
 * documented code exists, and every problem body is RFC 9457 shaped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERRORS, ERROR_CODES, errorType, problemJson } from '../../src/protocol/errors.js';

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
