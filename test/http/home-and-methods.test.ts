/**
 * Proves what each server answers a person and a wrong method: `/` is an
 * HTML page naming the server with links to its document and health (not
 * to /metrics, which answers only a bearer of the metrics or admin token,
 * 401 to anyone else) (the provider's names its games), that loads and runs nothing;
 * a known path asked with a method it does not take is 405
 * METHOD_NOT_ALLOWED with an `Allow` header listing the methods it takes
 * (a path parameter matched as the router does), while a path no route has
 * stays 404 NOT_FOUND.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { ADMIN_TOKEN, makeOperator, type Operator } from '../helpers.js';
import { makeProvider, PROVIDER_ADMIN_TOKEN, type Provider } from '../provider/provider-helpers.js';
import { homePageHtml } from '../../src/http/home-page.js';

let operator: Operator;
let provider: Provider;

before(async () => {
  operator = await makeOperator();
  provider = await makeProvider();
});

after(async () => {
  await provider.close();
  await operator.close();
});

const servers = (): [string, FastifyInstance][] => [
  ['operator', operator.app],
  ['provider', provider.app],
];

test('/ is a page naming the server, with links to its document and health', async () => {
  for (const [name, app] of servers()) {
    const page = await app.inject({ method: 'GET', url: '/' });
    assert.equal(page.statusCode, 200, name);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
    assert.match(page.body, new RegExp(`<h1>Wagerlink ${name}`));
    for (const href of ['/openapi.json', '/health']) assert.ok(page.body.includes(`href="${href}"`), `${name}: ${href}`);
    assert.ok(!page.body.includes('href="/metrics"'), `${name}: no link to what a visitor cannot open`);
    assert.doesNotMatch(page.body, /<script|<link|<img/);
  }
  const providerPage = await provider.app.inject({ method: 'GET', url: '/' });
  assert.match(providerPage.body, /\(dice\)/, 'the provider names its games');
});

test('/metrics answers the admin token, and refuses 401 a caller without it', async () => {
  for (const [name, app, token] of [
    ['operator', operator.app, ADMIN_TOKEN],
    ['provider', provider.app, PROVIDER_ADMIN_TOKEN],
  ] as const) {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${token}`]) {
      const refused = await app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
      assert.equal(refused.statusCode, 401, `${name}: ${String(authorization)}`);
      assert.equal(JSON.parse(refused.body).code, 'INVALID_TOKEN');
      assert.doesNotMatch(refused.body, /wagerlink_/);
    }
    const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    assert.equal(metrics.statusCode, 200, name);
    assert.match(metrics.body, /^# TYPE wagerlink_http_request_duration_seconds histogram$/m);
  }
});

test("the provider's metricsToken reads /metrics and nothing else", async () => {
  const token = 'a-scraper-token-for-metrics';
  const own = await makeProvider({ edit: (file) => (file.metricsToken = token) });
  try {
    const metrics = await own.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    assert.equal(metrics.statusCode, 200);
    assert.equal(metrics.headers['cache-control'], 'no-store');
    const admin = await own.app.inject({ method: 'GET', url: '/admin/outbox', headers: { authorization: `Bearer ${token}` } });
    assert.equal(admin.statusCode, 401);
  } finally {
    await own.close();
  }
});

test('the page escapes what it shows', () => {
  const html = homePageHtml('A <b>&</b>', [{ heading: 'h"', text: "it's", links: [{ href: '/x?a=1&b="2"', text: '<i>' }] }]);
  assert.match(html, /<title>A &#60;b&#62;&#38;&#60;\/b&#62;<\/title>/);
  assert.match(html, /href="\/x\?a=1&#38;b=&#34;2&#34;">&#60;i&#62;<\/a>/);
  assert.match(html, /<p>it&#39;s<\/p>/);
});

test('a known path asked with a method it does not take is 405 with Allow; an unknown path is 404', async () => {
  const cases: [FastifyInstance, string, string, string][] = [
    [operator.app, 'GET', '/transaction', 'POST'],
    [operator.app, 'PUT', '/authenticate', 'POST'],
    [operator.app, 'DELETE', '/admin/players/bob', 'GET, HEAD'],
    [operator.app, 'POST', '/', 'GET, HEAD'],
    [operator.app, 'POST', '/health?x=1', 'GET, HEAD'],
    [provider.app, 'GET', '/generate-launch-url', 'POST'],
    [provider.app, 'POST', '/game/dice', 'GET, HEAD'],
    [provider.app, 'GET', '/game/dice/api/play', 'POST'],
  ];
  for (const [app, method, url, allow] of cases) {
    const answer = await app.inject({ method: method as 'GET', url });
    assert.equal(answer.statusCode, 405, `${method} ${url}: ${answer.body}`);
    assert.equal(answer.headers.allow, allow, `${method} ${url}`);
    assert.match(String(answer.headers['content-type']), /^application\/problem\+json/);
    assert.equal(answer.json().code, 'METHOD_NOT_ALLOWED');
    assert.match(answer.json().detail, new RegExp(`^${method} is not allowed here; this path takes ${allow}$`));
  }
  for (const [, app] of servers()) {
    const missing = await app.inject({ method: 'GET', url: '/no/such/path' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers.allow, undefined);
    assert.equal(missing.json().code, 'NOT_FOUND');
  }
});
