/**
 * Keeps the error registry, its documentation and the problem+json mapping
 * in sync: every code is in docs/errors.md (generated from the registry,
 * errors-doc.test.ts) with its status, every code listed there exists, the
 * README points to that list, and no other page of the README or docs/
 * keeps a copy of the table by hand (docs/protocol.md's normative table is
 * checked by protocol-doc.test.ts); and every problem body is RFC 9457
 * shaped. Also which statuses callers resend: 408 (a request that did not
 * arrive in time applied nothing) with docs/protocol.md §3's list, and never the
 * other codes the HTTP layer adds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { RETRY_STATUSES } from '../../src/clients/http-call.js';
import { ERRORS, ERROR_CODES, errorType, EXTRA_ERROR_CODES, isRetryableStatus, problemJson } from '../../src/protocol/errors.js';

const ROOT = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

/** A row of a table of codes: `| 402 | INSUFFICIENT_FUNDS |`, the code in backticks or not. */
const CODE_ROW = /^\| (\d{3}) \| `?([A-Z_]+)`? \|/gm;

const documented = new Map([...read('docs/errors.md').matchAll(CODE_ROW)].map((match) => [match[2]!, Number(match[1])]));

test('every registered code is in docs/errors.md with its status', () => {
  for (const code of ERROR_CODES) assert.equal(documented.get(code), ERRORS[code].status, code);
});

test('every code in docs/errors.md is registered', () => {
  for (const code of documented.keys()) assert.ok(code in ERRORS, code);
});

test('the README points to docs/errors.md, and no page keeps a copy of the table by hand', () => {
  const readme = read('README.md');
  assert.match(readme, /\]\(docs\/errors\.md\)/, 'the README links docs/errors.md');
  // docs/errors.md is the one list; docs/protocol.md's table is the interface's own, checked by protocol-doc.test.ts.
  const pages = [
    { path: 'README.md', text: readme },
    ...readdirSync(new URL('docs/', ROOT))
      .filter((name) => name.endsWith('.md') && name !== 'errors.md' && name !== 'protocol.md')
      .map((name) => ({ path: `docs/${name}`, text: read(`docs/${name}`) })),
  ];
  for (const { path, text } of pages) {
    const rows = [...text.matchAll(CODE_ROW)].map((match) => match[2]);
    assert.deepEqual(rows, [], `${path} keeps rows of the error table by hand: link docs/errors.md instead`);
  }
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
