/**
 * Proves, against `wagerlink sandbox` run as a child process, what keeps
 * the sandbox out of reach of web pages on other sites. Both its servers
 * answer only requests addressed to this machine's names for them
 * (127.0.0.1, localhost, [::1] with their port): a request naming another
 * Host, as a page reaches a loopback server through DNS rebinding, is
 * refused 403 HOST_NOT_ALLOWED on the lobby's API, the lobby and back
 * office pages, the pass-through, the admin API and the provider's game
 * pages; a state-changing request from another site's Origin is refused
 * the same way. The lobby and back office may be framed by their own
 * origin only; the game page by the operator's pages only, and it may call
 * nothing but its own provider and them; admin, lobby and pass-through
 * answers are not to be stored; /metrics answers the admin token only.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { freePort, startWagerlink } from '../harness/child-process.js';

let port: number;
let providerPort: number;
let secrets: { adminToken: string; providerAdminToken: string };

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wagerlink-sandbox-guard-'));
  [port, providerPort] = [await freePort(), await freePort()];
  // Ended by the harness when this file's tests are done.
  await startWagerlink(['sandbox', '--data', dir, '--port', String(port), '--provider-port', String(providerPort)], { ready: /sandbox ready/ });
  secrets = JSON.parse(readFileSync(join(dir, 'sandbox-secrets.json'), 'utf8')) as typeof secrets;
});

/** A request to 127.0.0.1:`to` with the headers given, Host included (undici sends it as written). */
async function call(to: number, path: string, headers: Record<string, string> = {}, body?: string) {
  const answer = await request(`http://127.0.0.1:${to}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await answer.body.text();
  return { status: answer.statusCode, headers: answer.headers, text };
}

test('a request naming another Host is refused 403 HOST_NOT_ALLOWED by both servers, whatever the path', async () => {
  const admin = { authorization: `Bearer ${secrets.adminToken}` };
  const providerAdmin = { authorization: `Bearer ${secrets.providerAdminToken}` };
  const cases: [number, string, Record<string, string>, string?][] = [
    [port, '/lobby/api/players', {}],
    [port, '/lobby/api/players/alice', {}],
    [port, '/lobby/api/launch', {}, '{"game":"dice","mode":"real","playerId":"alice"}'],
    [port, '/lobby/api/players', {}, '{"playerId":"rebound","currency":"EUR"}'],
    [port, '/lobby/', {}],
    [port, '/backoffice/', {}],
    [port, '/backoffice/provider/admin/outbox', providerAdmin],
    [port, '/admin/players', admin],
    [port, '/', {}],
    [providerPort, '/game/dice', {}],
    [providerPort, '/admin/outbox', providerAdmin],
    [providerPort, '/health', {}],
  ];
  for (const [to, path, headers, body] of cases) {
    for (const host of [`rebind.example:${to}`, 'rebind.example', `127.0.0.1:${to === port ? providerPort : port}`]) {
      const answer = await call(to, path, { ...headers, host }, body);
      assert.equal(answer.status, 403, `${host} ${path}: ${answer.text}`);
      assert.equal(JSON.parse(answer.text).code, 'HOST_NOT_ALLOWED', answer.text);
    }
  }
  const players = await call(port, '/lobby/api/players?limit=500', { host: `127.0.0.1:${port}` });
  assert.ok(!players.text.includes('rebound'), 'nothing was made');
});

test("this machine's names for the sandbox are answered", async () => {
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
    assert.equal((await call(port, '/lobby/api/players', { host })).status, 200, host);
  }
  for (const host of [`127.0.0.1:${providerPort}`, `localhost:${providerPort}`]) {
    assert.equal((await call(providerPort, '/game/dice', { host })).status, 200, host);
  }
});

test("a state-changing request from another site's page is refused; from the sandbox's own pages it is taken", async () => {
  const launch = '{"game":"dice","mode":"fun"}';
  for (const origin of ['http://rebind.example', `http://rebind.example:${port}`, 'null', `https://127.0.0.1:${port}`, `http://127.0.0.1:${providerPort}`]) {
    const answer = await call(port, '/lobby/api/launch', { origin }, launch);
    assert.equal(answer.status, 403, `${origin}: ${answer.text}`);
    assert.equal(JSON.parse(answer.text).code, 'HOST_NOT_ALLOWED');
  }
  for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
    assert.equal((await call(port, '/lobby/api/launch', { origin }, launch)).status, 200, origin);
  }
  // A read from another origin is for the browser's same-origin rule to keep from the page: it is answered, without CORS.
  const read = await call(port, '/lobby/api/players', { origin: 'http://rebind.example' });
  assert.equal(read.status, 200);
  assert.equal(read.headers['access-control-allow-origin'], undefined);
});

test('the lobby and back office are framed by their own origin only; the game page by the lobby only, and it calls nothing else', async () => {
  for (const path of ['/lobby/', '/backoffice/']) {
    const page = await call(port, path);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /(?:^|; )frame-ancestors 'self'(?:;|$)/, path);
  }
  const game = await call(providerPort, '/game/dice');
  const policy = String(game.headers['content-security-policy']);
  const lobbies = `http://127.0.0.1:${port} http://localhost:${port}`;
  assert.match(policy, new RegExp(`(?:^|; )frame-ancestors ${lobbies}(?:;|$)`), policy);
  assert.match(policy, new RegExp(`(?:^|; )connect-src 'self' ${lobbies}(?:;|$)`), policy);
});

test('admin, lobby and pass-through answers say Cache-Control: no-store, refusals included', async () => {
  const admin = { authorization: `Bearer ${secrets.adminToken}` };
  const providerAdmin = { authorization: `Bearer ${secrets.providerAdminToken}` };
  const cases: [number, string, Record<string, string>][] = [
    [port, '/lobby/api/players', {}],
    [port, '/lobby/api/players/alice', {}],
    [port, '/lobby/api/players/nobody', {}],
    [port, '/admin/players/alice', admin],
    [port, '/admin/players/alice', {}],
    [port, '/backoffice/api/outage', admin],
    [port, '/backoffice/provider/admin/outbox', providerAdmin],
    [providerPort, '/admin/outbox', providerAdmin],
    [providerPort, '/admin/payouts', {}],
  ];
  for (const [to, path, headers] of cases) {
    const answer = await call(to, path, headers);
    assert.equal(answer.headers['cache-control'], 'no-store', `${path} (${answer.status})`);
  }
});

test("/metrics answers the admin token on both servers, and nobody without it; the back office's chart reads it", async () => {
  for (const [to, token] of [
    [port, secrets.adminToken],
    [providerPort, secrets.providerAdminToken],
  ] as const) {
    const refused = await call(to, '/metrics');
    assert.equal(refused.status, 401, refused.text);
    assert.doesNotMatch(refused.text, /wagerlink_ledger|wagerlink_http/);
    const metrics = await call(to, '/metrics', { authorization: `Bearer ${token}` });
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /^# TYPE wagerlink_http_request_duration_seconds histogram$/m);
  }
  const home = await call(port, '/');
  assert.ok(!home.text.includes('href="/metrics"'), 'the home page links nothing a visitor cannot open');
});
