/**
 * Every file the servers write is their owner's alone, whatever the umask
 * they are started with: `wagerlink sandbox` (`npm start`), `wagerlink
 * operator serve` and `wagerlink provider serve`, each run as a child
 * process under umask 000 (the widest), make their data folders 0700 and
 * every file in them 0600 (the SQLite databases with their WAL and
 * shared-memory files, the sandbox's secrets and request log), while they
 * serve a game opened with a launch key and after they stop. A data folder
 * an earlier sandbox left open to others is narrowed to 0700, with its old
 * request log and secrets, and the start says so. A `serve` whose database
 * is in a folder that existed, open to others, leaves the folder as it is
 * and warns, naming it; its files are 0600 all the same.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { sign } from '../../src/protocol/signing.js';
import { Child, CLI, cleanEnv, freePort, type TestScope } from '../harness/child-process.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, adminOverHttp, SECRET } from '../helpers.js';
import { launchOf, realLaunchBody, testConfigFile } from '../provider/provider-helpers.js';

const roots: string[] = [];
function root(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wagerlink-modes-'));
  roots.push(dir);
  return dir;
}
after(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

/** Spawns `wagerlink <args>` under umask 000: whatever the process makes owner-only, it makes so by itself. */
function underUmask000(args: readonly string[], env: NodeJS.ProcessEnv, until: TestScope): Child {
  return new Child('sh', ['-c', 'umask 000 && exec "$@"', 'sh', process.execPath, CLI, ...args], { env, until });
}

/** Each folder and file under `dir` (itself included, as '.'), with its permission bits. */
function modesUnder(dir: string): Map<string, number> {
  const found = new Map<string, number>([['.', statSync(dir).mode & 0o777]]);
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      found.set(relative(dir, path), statSync(path).mode & 0o777);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return found;
}

/** Asserts that every folder under `dir` is 0700 and every file 0600, and that `expected` are among the files. */
function assertOwnerOnly(dir: string, expected: readonly string[]): void {
  const modes = modesUnder(dir);
  for (const name of expected) assert.ok(modes.has(name), `${name} is in ${dir}: ${[...modes.keys()].join(', ')}`);
  const wrong = [...modes].filter(([name, mode]) => mode !== (statSync(join(dir, name)).isDirectory() ? 0o700 : 0o600));
  assert.deepEqual(
    wrong.map(([name, mode]) => `${name} 0${mode.toString(8)}`),
    [],
    'every folder 0700 and every file 0600',
  );
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const answer = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await answer.body.text();
  return { status: answer.statusCode, body: text === '' ? undefined : JSON.parse(text) };
}

const SQLITE_FILES = (name: string) => [name, `${name}-wal`, `${name}-shm`];
const SANDBOX_READY = /wagerlink sandbox ready \(pid \d+\)/;

/** Starts the sandbox on `data` under umask 000, opens a real game for alice (a launch key, /authenticate, a game session), and answers the child. */
async function sandboxWithAGame(data: string, t: TestScope): Promise<Child> {
  const [port, providerPort] = [await freePort(), await freePort()];
  const child = underUmask000(['sandbox', '--data', data, '--port', String(port), '--provider-port', String(providerPort)], cleanEnv(), t);
  await child.waitForLine(SANDBOX_READY);
  const launched = await post(`http://127.0.0.1:${port}/lobby/api/launch`, { game: 'dice', mode: 'real', playerId: 'alice' });
  assert.equal(launched.status, 200, JSON.stringify(launched.body));
  const launch = launchOf(launched.body.url as string);
  const opened = await post(`http://127.0.0.1:${providerPort}${launch.path}/api/open`, { token: launch.token });
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  return child;
}

const SANDBOX_FILES = [...SQLITE_FILES('operator.db'), ...SQLITE_FILES('provider.db'), 'sandbox-secrets.json', 'sandbox.log'];

test('the sandbox under umask 000: its data folder 0700, databases, WAL, secrets and request log 0600, serving and stopped', async (t) => {
  const data = join(root(), 'data');
  const child = await sandboxWithAGame(data, t);
  assertOwnerOnly(data, SANDBOX_FILES);
  const exit = await child.stop('SIGTERM');
  assert.equal(exit.code, 0, child.output());
  assertOwnerOnly(data, ['operator.db', 'provider.db', 'sandbox-secrets.json', 'sandbox.log']);
  assert.doesNotMatch(child.stdout, /open to others/, 'a folder the sandbox made needs no narrowing');
});

test('a data folder an earlier sandbox left open (0755, a log 0644) is narrowed, and the start says so', async (t) => {
  const data = join(root(), 'data');
  mkdirSync(data);
  chmodSync(data, 0o755);
  writeFileSync(join(data, 'sandbox.log'), '');
  chmodSync(join(data, 'sandbox.log'), 0o644);
  const child = await sandboxWithAGame(data, t);
  assert.match(child.stdout, /The data folder was open to others \(mode 0755\): it is now 0700, its owner's alone/);
  assertOwnerOnly(data, SANDBOX_FILES);
  // The secrets file an earlier version or a person's copy left wider is narrowed on the next start.
  assert.equal((await child.stop('SIGTERM')).code, 0, child.output());
  chmodSync(join(data, 'sandbox-secrets.json'), 0o644);
  const again = await sandboxWithAGame(data, t);
  assertOwnerOnly(data, SANDBOX_FILES);
  assert.equal((await again.stop('SIGTERM')).code, 0, again.output());
});

test('operator serve and provider serve under umask 000: the database folders they make 0700, databases and WAL 0600, serving and stopped; a folder open to others is named in a warning', async (t) => {
  const dir = root();
  const operatorData = join(dir, 'operator', 'data');
  // The provider's database goes into a folder that exists, open to others: the owner's to narrow.
  const providerData = join(dir, 'provider');
  mkdirSync(providerData);
  chmodSync(providerData, 0o755);
  const operatorPort = await freePort();
  const operatorOrigin = `http://127.0.0.1:${operatorPort}`;
  const operator = underUmask000(
    ['operator', 'serve'],
    cleanEnv({
      WAGERLINK_HOST: '127.0.0.1',
      WAGERLINK_PORT: String(operatorPort),
      WAGERLINK_DATABASE: join(operatorData, 'operator.db'),
      WAGERLINK_SECRET: SECRET,
      WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN,
      WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN,
    }),
    t,
  );
  await operator.waitForLine(/wagerlink operator ready on/);
  // The config is the test's file, beside the provider's data folder, not in it.
  const config = testConfigFile({ endpoint: operatorOrigin, database: join(providerData, 'provider.db') });
  config.port = 0;
  const configPath = join(dir, 'provider.json');
  writeFileSync(configPath, JSON.stringify(config));
  const provider = underUmask000(['provider', 'serve', '--config', configPath], cleanEnv(), t);
  const providerOrigin = (await provider.waitForLine(/ready on (http:\/\/[^"\s]+)/))[1]!;

  // A real game: a launch key made by the operator, a launch URL from the provider, the page opened (/authenticate).
  const playerId = `modes-${randomUUID().slice(0, 8)}`;
  assert.equal((await adminOverHttp(operatorOrigin, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 10, country: 'DE' })).status, 201);
  const key = await adminOverHttp(operatorOrigin, 'POST', '/admin/launch-keys', { playerId, game: 'dice' });
  assert.equal(key.status, 201, key.text);
  const body = JSON.stringify(realLaunchBody({ key: key.body.key }));
  const url = await request(`${providerOrigin}/generate-launch-url`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-server-authorization': sign(SECRET, body) },
    body,
  });
  const urlBody = (await url.body.json()) as { url: string };
  assert.equal(url.statusCode, 200, JSON.stringify(urlBody));
  const launch = launchOf(urlBody.url);
  const opened = await post(`${providerOrigin}${launch.path}/api/open`, { token: launch.token });
  assert.equal(opened.status, 200, JSON.stringify(opened.body));

  /** The provider's folder as it was left: every file in it 0600, the folder itself still 0755. */
  const assertProviderFiles = (expected: readonly string[]) => {
    const modes = modesUnder(providerData);
    assert.deepEqual([...modes].sort(), [['.', 0o755], ...expected.map((name) => [name, 0o600] as [string, number])].sort());
  };
  assertOwnerOnly(join(dir, 'operator'), ['data', ...SQLITE_FILES('operator.db').map((name) => join('data', name))]);
  assertProviderFiles(SQLITE_FILES('provider.db'));
  assert.match(provider.output(), new RegExp(`the database's folder ${providerData} is open to others \\(mode 0755\\).*chmod 700 ${providerData}`));
  assert.doesNotMatch(operator.output(), /open to others/, 'a folder the server made needs no warning');
  assert.equal((await provider.stop('SIGTERM')).code, 0, provider.output());
  assert.equal((await operator.stop('SIGTERM')).code, 0, operator.output());
  assertOwnerOnly(join(dir, 'operator'), [join('data', 'operator.db')]);
  assertProviderFiles(['provider.db']);
});
