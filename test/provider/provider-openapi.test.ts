/**
 * Proves the provider's OpenAPI document: the committed copy equals what the
 * code builds from the schemas that validate requests (regenerate with
 * `npx wagerlink openapi provider > openapi/provider.json`), every path and
 * method it documents is a route of the provider's app, every route of the
 * app but the page's static files is documented, and the server serves it
 * at /openapi.json.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { providerOpenApi } from '../../src/provider/provider-openapi.js';
import { makeProvider, type Provider } from './provider-helpers.js';

let provider: Provider;
before(async () => {
  provider = await makeProvider();
});
after(async () => {
  await provider.close();
});

test('openapi/provider.json matches the schemas', () => {
  const committed = JSON.parse(readFileSync(new URL('../../../openapi/provider.json', import.meta.url), 'utf8')) as unknown;
  assert.deepEqual(committed, JSON.parse(JSON.stringify(providerOpenApi())), 'regenerate: npx wagerlink openapi provider > openapi/provider.json');
});

test('every documented path is a route, and every route but the page and its files is documented', () => {
  const doc = providerOpenApi();
  const documented = new Set<string>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    const url = path.replace(/\{([^}]+)\}/g, ':$1');
    for (const method of Object.keys(methods)) {
      assert.ok(provider.app.hasRoute({ method: method.toUpperCase() as 'GET', url }), `${method.toUpperCase()} ${url} is documented but not served`);
      documented.add(`${method.toUpperCase()} ${url}`);
    }
  }
  // printRoutes draws a tree, each line's path relative to the line above it one level up: "│   ├── /api/open (POST)".
  const served: string[] = [];
  const parents: string[] = [];
  for (const line of provider.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│   |    )*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const url = (parents[depth - 1] ?? '') + match[2]!;
    parents[depth] = url;
    for (const method of match[3]!.split(', ').filter((m) => m !== 'HEAD')) served.push(`${method} ${url}`);
  }
  for (const route of served) {
    if (route === 'GET /game/:slug' || route === 'GET /game/assets/:file') continue;
    assert.ok(documented.has(route), `${route} is served but not documented`);
  }
  assert.equal(served.length, documented.size + 2, `read the routes: ${served.join(' | ')}`);
});

test('the server serves its document at /openapi.json', async () => {
  const answer = await provider.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(answer.statusCode, 200);
  assert.deepEqual(JSON.parse(answer.body), JSON.parse(JSON.stringify(providerOpenApi())));
});
