/**
 * Keeps docs/errors.md in step with the error registry: every registered
 * code has a description in the generator (scripts/errors-doc.js), the
 * generator renders every code with the registry's status, title and type,
 * and the committed file is exactly what it renders from the registry as it
 * stands. A code added to the registry fails here until it is described and
 * the file regenerated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as registry from '../../src/protocol/errors.js';

interface ErrorsDocScript {
  COMMAND: string;
  DESCRIPTIONS: Readonly<Record<string, string>>;
  undescribedCodes(registry: unknown): string[];
  renderErrorsDoc(registry: unknown): string;
}

// The generator is plain JavaScript beside the sources, not compiled into
// dist/, so it is loaded from the repository at run time.
const script = (await import(new URL('../../../scripts/errors-doc.js', import.meta.url).href)) as ErrorsDocScript;
const committed = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

test('every registered code has a description in scripts/errors-doc.js', () => {
  assert.deepEqual(script.undescribedCodes(registry), [], 'add these codes to DESCRIPTIONS in scripts/errors-doc.js');
  for (const code of registry.ERROR_CODES) assert.ok(script.DESCRIPTIONS[code]!.trim().length > 0, code);
});

test('the generator renders every code once, with its status, title and type', () => {
  const rendered = script.renderErrorsDoc(registry);
  const rows = [...rendered.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \| ([^|]+) \|.*\| `([^`]+)` \|$/gm)];
  assert.deepEqual(rows.map((row) => row[2]).sort(), [...registry.ERROR_CODES].sort());
  for (const [, status, code, title, type] of rows) {
    const entry = registry.ERRORS[code as registry.ErrorCode];
    assert.equal(Number(status), entry.status, code);
    assert.equal(title, entry.title, code);
    assert.equal(type, registry.errorType(code as registry.ErrorCode), code);
  }
  const statuses = rows.map((row) => Number(row[1]));
  assert.deepEqual(
    statuses,
    [...statuses].sort((a, b) => a - b),
    'rows are ordered by status',
  );
});

test('the generator refuses a registered code that has no description', () => {
  const grown = { ...registry, ERRORS: { ...registry.ERRORS, BRAND_NEW_CODE: { status: 418, title: 'Brand new' } } };
  assert.deepEqual(script.undescribedCodes(grown), ['BRAND_NEW_CODE']);
  assert.throws(() => script.renderErrorsDoc(grown), /BRAND_NEW_CODE/);
});

test('docs/errors.md is what the generator renders from the registry', () => {
  assert.ok(committed.split('\n')[0]!.startsWith('<!-- Generated'), 'its first line says it is generated');
  assert.ok(committed.split('\n')[0]!.includes(script.COMMAND), 'its first line says how');
  assert.equal(committed, script.renderErrorsDoc(registry), `docs/errors.md is out of date: regenerate it with ${script.COMMAND}`);
});
