/**
 * Proves the published OpenAPI document is generated from the schemas that
 * validate requests: the committed copy must equal what the code builds
 * (regenerate with `npx wagerlink openapi operator > openapi/operator.json`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { operatorOpenApi } from '../../src/operator/operator-openapi.js';

test('openapi/operator.json matches the schemas', () => {
  const committed = JSON.parse(readFileSync(new URL('../../../openapi/operator.json', import.meta.url), 'utf8')) as unknown;
  assert.deepEqual(committed, JSON.parse(JSON.stringify(operatorOpenApi())), 'regenerate: npx wagerlink openapi operator > openapi/operator.json');
});

test('the document is OpenAPI 3.1 and covers every operator endpoint', () => {
  const doc = operatorOpenApi();
  assert.equal(doc.openapi, '3.1.0');
  for (const path of ['/transaction', '/payout', '/authenticate', '/admin/players', '/admin/launch-keys', '/admin/verify']) {
    assert.ok(path in doc.paths, path);
  }
});
