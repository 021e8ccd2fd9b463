/**
 * Proves `npm start` (`wagerlink sandbox`) as a newcomer meets it, run as
 * child processes: npm itself is spawned, prints the URLs, links the lobby
 * and the back office from the operator's `/`, and under SIGTERM
 * or SIGINT leaves no process behind and frees both ports; the integration's
 * secrets are made on the first start, readable by their owner only, and
 * reused afterwards; the demo seeding is idempotent (a restart keeps what
 * players won, lost or were given); a taken port, a second port equal to the
 * first and a --database that is not PostgreSQL are refused with a clear
 * message; and the lobby's API answers what the lobby page needs: the
 * players, every game of the provider's catalog with its ladder in a
 * currency, launch URLs for real and for fun, new players at 0 (a body
 * with a balance is refused: deposits are the back office's), and problems
 * with their codes;
 * the back office's Casino down switch answers the provider's calls 503
 * until it is switched back.
 * With DATABASE_URL, both sides run in one PostgreSQL database, each in a
 * schema of its own: a round played shows in the provider's tables and in
 * the operator's, and neither side's tables are in the other's schema; a
 * start on PostgreSQL after one on SQLite names the SQLite files it leaves
 * alone, and leaves them unchanged.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Child, cleanEnv, freePort, READY_TIMEOUT_MS, ROOT, runWagerlink, startWagerlink } from '../harness/child-process.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';
import { SANDBOX_LOG_FILE } from '../../src/sandbox/run-sandbox.js';
import { sign } from '../../src/protocol/signing.js';

const READY = /wagerlink sandbox ready \(pid (\d+)\)/;
const EXAMPLE_GAMES = (JSON.parse(readFileSync(join(ROOT, 'examples', 'provider.json'), 'utf8')) as { games: { slug: string; title: string; kind?: string }[] })
  .games;

function dataDir(): string {
  return mkdtempSync(join(tmpdir(), 'wagerlink-sandbox-'));
}

/** Whether a port on 127.0.0.1 can be listened on now. */
async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]);
    server.close();
    await once(server, 'close');
    return true;
  } catch {
    return false;
  }
}

/** Processes whose command line names this data folder: none may outlive a stop. */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry));
    } catch {
      // The process ended while it was read.
    }
  }
  return found;
}

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const answer = await fetch(url, init);
  const text = await answer.text();
  return { status: answer.status, body: text === '' ? undefined : JSON.parse(text) };
}

const post = (url: string, body: string) => json(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`npm start prints the URLs, and ${signal} to npm stops everything and frees both ports`, async (t) => {
    const dir = dataDir();
    const [port, providerPort] = [await freePort(), await freePort()];
    const npm = new Child('npm', ['start', '--silent', '--', '--data', dir, '--port', String(port), '--provider-port', String(providerPort)], {
      env: cleanEnv(),
      until: t,
    });
    const ready = await npm.waitForLine(READY, READY_TIMEOUT_MS);
    for (const url of [
      `http://127.0.0.1:${port}/lobby/`,
      `http://127.0.0.1:${port}/backoffice/#admin=`,
      `http://127.0.0.1:${port}/openapi.json`,
      `http://127.0.0.1:${providerPort}/openapi.json`,
    ]) {
      assert.ok(npm.stdout.includes(url), `the sandbox prints ${url}:\n${npm.stdout}`);
    }
    const lobby = await fetch(`http://127.0.0.1:${port}/lobby/`);
    assert.equal(lobby.status, 200);
    assert.match(await lobby.text(), /<h1[^>]*>Lobby<\/h1>/);
    // The bare address leads to both pages.
    const home = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    assert.match(home, /<a href="\/lobby\/">Lobby: /);
    assert.match(home, /<a href="\/backoffice\/">Back office: /);
    assert.equal((await fetch(`http://127.0.0.1:${providerPort}/health`)).status, 200);
    assert.ok(processesNaming(dir).includes(Number(ready[1])), 'the sandbox runs in the process it names');

    const exit = await npm.stop(signal);
    assert.ok(exit.code === 0 || exit.signal === signal, `npm ended with ${JSON.stringify(exit)}:\n${npm.output()}`);
    // The sandbox (npm's grandchild) is gone too, and its ports are free.
    for (let i = 0; i < 50 && processesNaming(dir).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(processesNaming(dir), [], 'no process outlives npm');
    assert.equal(await portFree(port), true, `port ${port} is free`);
    assert.equal(await portFree(providerPort), true, `port ${providerPort} is free`);
    assert.match(npm.stdout, new RegExp(`${signal}: stopping`));
  });
}

// eslint-disable-next-line max-lines-per-function -- one scenario, step by step, against one running sandbox
test('secrets are made once (0600) and reused; seeding is idempotent; the lobby API answers what the page needs', async (t) => {
  const dir = dataDir();
  const ports = ['--port', String(await freePort()), '--provider-port', String(await freePort())];
  const origin = `http://127.0.0.1:${ports[1]}`;
  const first = await startWagerlink(['sandbox', '--data', dir, ...ports], { ready: READY, until: t });
  assert.match(first.child.stdout, /new secrets made and kept in .*; 4 demo players added/);
  assert.ok(
    first.child.stdout.includes(`Databases: SQLite, the operator's ${join(dir, 'operator.db')}, the provider's ${join(dir, 'provider.db')}\n`),
    `the sandbox says where its data is:\n${first.child.stdout}`,
  );
  const secretsPath = join(dir, 'sandbox-secrets.json');
  assert.equal(statSync(secretsPath).mode & 0o777, 0o600, 'the secrets are readable by their owner only');
  const secrets = readFileSync(secretsPath, 'utf8');
  const kept = JSON.parse(secrets) as { adminToken: string; providerAdminToken: string; operatorStaffToken: string; providerStaffToken: string };
  const adminToken = kept.adminToken;
  // The back office gets staff accounts of its own: the servers' configured admin tokens are not handed out.
  assert.ok(
    first.child.stdout.includes(`#admin=${kept.operatorStaffToken}&provider=${kept.providerStaffToken}\n`),
    `the back-office URL carries the staff tokens in its fragment:\n${first.child.stdout}`,
  );
  assert.ok(!first.child.stdout.includes(kept.providerAdminToken) && !first.child.stdout.includes(adminToken), 'no configured admin token is printed');
  const providerAdmin = (path: string) => fetch(`http://127.0.0.1:${ports[3]}${path}`, { headers: { authorization: `Bearer ${kept.providerStaffToken}` } });
  assert.equal((await providerAdmin('/admin/outbox?operatorId=other')).status, 403, "the provider's staff token is scoped to the sandbox's operator");
  assert.equal((await providerAdmin('/admin/staff')).status, 403, "and may not manage the provider's staff");
  assert.equal((await providerAdmin('/admin/payouts')).status, 200);

  // The lobby's API: the demo players, one per currency.
  const players = await json(`${origin}/lobby/api/players`);
  assert.equal(players.status, 200);
  assert.deepEqual(
    players.body.items.map((p: { playerId: string; currency: string }) => `${p.playerId}:${p.currency}`),
    ['alice:EUR', 'bob:USD', 'chika:JPY', 'satoshi:BTC'],
  );
  // Every player, paged by the last id.
  const firstTwo = await json(`${origin}/lobby/api/players?limit=2`);
  assert.deepEqual([firstTwo.body.items.map((p: { playerId: string }) => p.playerId), firstTwo.body.nextCursor], [['alice', 'bob'], 'bob']);
  const rest = await json(`${origin}/lobby/api/players?limit=2&cursor=bob`);
  assert.deepEqual([rest.body.items.map((p: { playerId: string }) => p.playerId), rest.body.nextCursor], [['chika', 'satoshi'], null]);
  assert.equal((await json(`${origin}/lobby/api/players?limit=0`)).body.code, 'INVALID_REQUEST');
  // Every request, the refusal included, is a line of the request log the start names.
  const logFile = join(dir, SANDBOX_LOG_FILE);
  assert.ok(first.child.stdout.includes(`  Request log  ${logFile}\n`), first.child.stdout);
  // The line is written once the answer has gone out, so it may come a moment after the answer.
  const isRefusal = (line: Record<string, unknown>) => line.msg === 'request' && line.path === '/lobby/api/players' && line.status === 400;
  let logged: Record<string, unknown>[] = [];
  for (let i = 0; i < 50 && !logged.some(isRefusal); i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    logged = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
  const refusal = logged.find(isRefusal);
  assert.ok(refusal, `the refusal is in the request log:\n${logged.map((line) => JSON.stringify(line)).join('\n')}`);
  assert.equal(refusal.code, 'INVALID_REQUEST');
  assert.equal(refusal.side, 'operator');
  assert.equal(refusal.method, 'GET');
  assert.ok(typeof refusal.reqId === 'string' && typeof refusal.ms === 'number', JSON.stringify(refusal));
  // An integration added through the back office is served at once: its token and secret reach the wallet's rules
  // (an unknown launch key, not a 401), and its token with the sandbox's own secret is 401 (docs/protocol.md §2.6).
  const added = await json(`${origin}/admin/integrations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'studio-two', name: 'Studio Two' }),
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const { secret: studioSecret, token: studioToken } = added.body as { secret: string; token: string };
  const authenticate = (secret: string) => {
    const body = JSON.stringify({ key: 'no-such-launch-key', game: 'dice' });
    return json(`${origin}/authenticate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${studioToken}`, 'content-type': 'application/json', 'x-server-authorization': sign(secret, body) },
      body,
    });
  };
  assert.equal((await authenticate(studioSecret)).body.code, 'INVALID_LAUNCH_KEY');
  assert.equal((await authenticate((JSON.parse(secrets) as { secret: string }).secret)).body.code, 'INVALID_SIGNATURE');
  // Every game of the catalog, with its ladder in the currency asked for.
  for (const currency of ['EUR', 'BTC']) {
    const games = await json(`${origin}/lobby/api/games?currency=${currency}`);
    assert.equal(games.status, 200, JSON.stringify(games.body));
    assert.deepEqual(
      games.body.items.map((g: { slug: string; kind: string }) => `${g.slug}:${g.kind}`),
      EXAMPLE_GAMES.map((g) => `${g.slug}:${g.kind ?? 'dice'}`),
      'the games in order, each with its kind',
    );
    for (const game of games.body.items) assert.ok(game.ladder.length > 0, `${game.slug} has a ${currency} ladder`);
  }
  assert.equal((await json(`${origin}/lobby/api/games?currency=eur`)).body.code, 'INVALID_REQUEST');
  const real = await post(`${origin}/lobby/api/launch`, '{"game":"dice","mode":"real","playerId":"alice"}');
  assert.equal(real.status, 200, JSON.stringify(real.body));
  assert.ok((real.body.url as string).startsWith(`http://127.0.0.1:${ports[3]}/game/dice`));
  const fun = await post(`${origin}/lobby/api/launch`, '{"game":"dice","mode":"fun"}');
  assert.equal(fun.status, 200, JSON.stringify(fun.body));
  const nobody = await post(`${origin}/lobby/api/launch`, '{"game":"dice","mode":"real","playerId":"nobody"}');
  assert.equal(nobody.body.code, 'PLAYER_NOT_FOUND');
  const noPlayer = await post(`${origin}/lobby/api/launch`, '{"game":"dice","mode":"real"}');
  assert.equal(noPlayer.status, 400);
  const unknownGame = await post(`${origin}/lobby/api/launch`, '{"game":"no-such-game","mode":"fun"}');
  assert.equal(unknownGame.body.code, 'GAME_NOT_FOUND');
  const dora = await post(`${origin}/lobby/api/players`, '{"playerId":"dora","currency":"EUR","country":"FR"}');
  assert.deepEqual([dora.status, dora.body.balance], [201, 0], 'a player made in the lobby starts at 0');
  assert.equal((await post(`${origin}/lobby/api/players`, '{"playerId":"dora","currency":"EUR","country":"FR"}')).body.code, 'PLAYER_EXISTS');
  // A player-facing page takes no money: deposits are the back office's.
  const minted = await post(`${origin}/lobby/api/players`, '{"playerId":"eve","currency":"EUR","balance":1000000000000,"country":"FR"}');
  assert.deepEqual([minted.status, minted.body.code], [400, 'INVALID_REQUEST'], JSON.stringify(minted.body));
  assert.match(minted.body.detail, /^balance: /);
  assert.equal((await json(`${origin}/lobby/api/players/eve`)).status, 404, 'and nobody was made');
  // A player whose currency no game has bets in is refused when the launch is asked for, not when the page opens.
  assert.equal((await post(`${origin}/lobby/api/players`, '{"playerId":"zola","currency":"ZAR","country":"ZA"}')).status, 201);
  const noLadder = await post(`${origin}/lobby/api/launch`, '{"game":"dice","mode":"real","playerId":"zola"}');
  assert.deepEqual([noLadder.status, noLadder.body.code], [422, 'UNSUPPORTED_CURRENCY'], JSON.stringify(noLadder.body));
  // The back office's pass-through reaches the provider's /admin/* with the caller's token, and nothing else.
  const providerToken = (JSON.parse(secrets) as { providerAdminToken: string }).providerAdminToken;
  const passed = await json(`${origin}/backoffice/provider/admin/outbox?status=parked`, { headers: { authorization: `Bearer ${providerToken}` } });
  assert.equal(passed.status, 200, JSON.stringify(passed.body));
  assert.equal((await json(`${origin}/backoffice/provider/admin/outbox`)).body.code, 'INVALID_TOKEN', 'the pass-through adds no token');
  assert.equal((await json(`${origin}/backoffice/provider/admin/%2e%2e/health`)).status, 404);
  // The operator's OpenAPI document describes each of the lobby's routes called above.
  const documented = (await json(`${origin}/openapi.json`)).body.paths as Record<string, Record<string, unknown>>;
  assert.deepEqual(
    Object.entries(documented)
      .filter(([path]) => path.startsWith('/lobby/'))
      .map(([path, methods]) => `${Object.keys(methods).join('+')} ${path}`),
    ['get+post /lobby/api/players', 'get /lobby/api/players/{playerId}', 'get /lobby/api/games', 'post /lobby/api/launch'],
  );
  // The back office keeps its token: the lobby's API is the only open door.
  assert.equal((await json(`${origin}/admin/players/alice`)).status, 401);
  const deposit = await json(`${origin}/admin/players/alice/adjustments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: '{"id":"0b7f5d1e-6a43-4c1b-9d0c-2f9a8e7b6c5d","type":"deposit","amount":5}',
  });
  assert.equal(deposit.status, 200, JSON.stringify(deposit.body));
  // Casino down: the provider's wallet calls are answered 503 and book nothing, until it is switched back; the admin API stays up.
  const outage = (down: boolean, token = adminToken) =>
    json(`${origin}/backoffice/api/outage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ down }),
    });
  assert.equal((await outage(true, 'not-the-token')).body.code, 'INVALID_TOKEN');
  assert.deepEqual((await outage(true)).body, { down: true });
  const refused = await post(`${origin}/transaction`, '{}');
  assert.equal(refused.status, 503);
  assert.match(refused.body.detail, /switched off in the sandbox's back office/);
  assert.equal((await json(`${origin}/admin/players/alice`, { headers: { authorization: `Bearer ${adminToken}` } })).status, 200);
  assert.deepEqual((await outage(false)).body, { down: false });
  assert.equal((await post(`${origin}/transaction`, '{}')).status, 401, 'up again: the wallet checks the caller first');
  assert.equal((await first.child.stop('SIGTERM')).code, 0);

  const second = await startWagerlink(['sandbox', '--data', dir, ...ports], { ready: READY, until: t });
  assert.match(second.child.stdout, /secrets read in .*; 0 demo players added/);
  assert.ok(second.child.stdout.includes(`#admin=${kept.operatorStaffToken}&provider=${kept.providerStaffToken}\n`), 'the staff tokens are kept across starts');
  assert.equal(readFileSync(secretsPath, 'utf8'), secrets, 'the same secrets');
  const alice = await json(`${origin}/lobby/api/players/alice`);
  assert.equal(alice.body.balance, 105, 'the restart kept the deposit and seeded nothing again');
  assert.equal((await json(`${origin}/lobby/api/players/dora`)).body.balance, 0);
  assert.equal((await second.child.stop('SIGTERM')).code, 0);
});

test('a taken port, equal ports and a --database that is not PostgreSQL are refused with a clear message', async () => {
  const dir = dataDir();
  const taken = createServer();
  taken.listen(0, '127.0.0.1');
  await once(taken, 'listening');
  const port = (taken.address() as { port: number }).port;
  try {
    const busy = await runWagerlink(['sandbox', '--data', dir, '--port', String(port), '--provider-port', String(await freePort())]);
    assert.equal(busy.code, 1, busy.stderr);
    assert.match(busy.stderr, new RegExp(`port ${port} \\(the operator\\) is already in use on 127\\.0\\.0\\.1.*--port PORT`));
  } finally {
    taken.close();
  }
  const same = await runWagerlink(['sandbox', '--data', dir, '--port', '9999', '--provider-port', '9999']);
  assert.equal(same.code, 2);
  assert.match(same.stderr, /--port and --provider-port must differ/);
  const sqlite = await runWagerlink(['sandbox', '--data', dir, '--database', './other.db']);
  assert.equal(sqlite.code, 2);
  assert.match(sqlite.stderr, /--database takes a postgres:\/\/ URL/);
  const horizon = await runWagerlink(['sandbox', '--data', dir, '--dispatch-horizon', '0']);
  assert.equal(horizon.code, 2);
  assert.match(horizon.stderr, /--dispatch-horizon must be seconds, 1\.\.2592000, got "0"/);
  const help = await runWagerlink(['sandbox', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--provider-port P/);
});

test(
  '--database postgres:// puts both sides in one PostgreSQL database, each in its schema: a round played shows in both',
  { skip: POSTGRES_UNAVAILABLE ?? false },
  async (t) => {
    const dir = dataDir();
    const ports = ['--port', String(await freePort()), '--provider-port', String(await freePort())];
    const operatorSchema = await freshSchema('sandbox');
    const providerSchema = `${operatorSchema.name}_p`;
    t.after(async () => {
      await operatorSchema.admin.unsafe(`DROP SCHEMA IF EXISTS ${providerSchema} CASCADE`);
      await operatorSchema.drop();
    });
    const started = await startWagerlink(['sandbox', '--data', dir, '--database', operatorSchema.url(), '--provider-schema', providerSchema, ...ports], {
      ready: READY,
      until: t,
    });
    assert.match(
      started.child.stdout,
      new RegExp(`^Databases: PostgreSQL postgres://[^ ]+, the operator's in schema ${operatorSchema.name}, the provider's in schema ${providerSchema}$`, 'm'),
    );
    assert.doesNotMatch(started.child.stdout, /of a start on SQLite/, 'no SQLite file to speak of');
    const origin = `http://127.0.0.1:${ports[1]}`;
    const providerOrigin = `http://127.0.0.1:${ports[3]}`;

    // A real round of dice for alice, through the lobby's launch and the game page's API.
    const launch = await post(`${origin}/lobby/api/launch`, '{"game":"dice","mode":"real","playerId":"alice"}');
    assert.equal(launch.status, 200, JSON.stringify(launch.body));
    const token = decodeURIComponent(new URL(launch.body.url as string).hash.slice(1));
    const opened = await post(`${providerOrigin}/game/dice/api/open`, JSON.stringify({ token }));
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const played = await post(`${providerOrigin}/game/dice/api/play`, JSON.stringify({ token, bet: '1', chancePct: 50, clientSeed: 'sandbox-pg' }));
    assert.ok(played.status === 200 || played.status === 202, JSON.stringify(played.body));

    // The round, in each side's tables, in each side's schema; no Wagerlink table in the other.
    const tables = async (schema: string) =>
      (await operatorSchema.admin<{ table_name: string }[]>`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema}`).map(
        (row) => row.table_name,
      );
    assert.ok((await tables(operatorSchema.name)).includes('transfers'), 'the wallet is in the operator schema');
    assert.ok((await tables(providerSchema)).includes('dispatch_items'), 'the outbox is in the provider schema');
    assert.ok(!(await tables(providerSchema)).includes('transfers') && !(await tables(operatorSchema.name)).includes('dispatch_items'));
    const providerRounds = await operatorSchema.admin.unsafe(`SELECT count(*)::int AS n FROM ${providerSchema}.rounds`);
    assert.equal(providerRounds[0]!.n, 1, 'the provider kept its round');
    // The provider delivers the round after it is kept: wait for the operator to book it.
    for (let i = 0; i < 100 && (await operatorSchema.admin.unsafe(`SELECT 1 FROM ${operatorSchema.name}.rounds`)).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal((await operatorSchema.admin.unsafe(`SELECT count(*)::int AS n FROM ${operatorSchema.name}.rounds`))[0]!.n, 1, 'the operator booked the round');
    const alice = await json(`${origin}/lobby/api/players/alice`);
    assert.equal(alice.status, 200);
    assert.notEqual(alice.body.balance, 100, "the round moved alice's balance");
    assert.equal((await started.child.stop('SIGTERM')).code, 0);
    assert.equal(existsSync(join(dir, 'provider.db')), false, 'no SQLite file for the provider');
  },
);

test(
  '--database postgres:// after a start on SQLite says that the SQLite files are left alone, and leaves them so',
  { skip: POSTGRES_UNAVAILABLE ?? false },
  async (t) => {
    const dir = dataDir();
    const ports = ['--port', String(await freePort()), '--provider-port', String(await freePort())];
    const onSqlite = await startWagerlink(['sandbox', '--data', dir, ...ports], { ready: READY, until: t });
    assert.equal((await onSqlite.child.stop('SIGTERM')).code, 0);
    const files = ['operator.db', 'provider.db'].map((file) => join(dir, file));
    const contents = () => files.map((path) => readFileSync(path).toString('base64'));
    const before = contents();

    const schema = await freshSchema('sandbox_after');
    const providerSchema = `${schema.name}_p`;
    t.after(async () => {
      await schema.admin.unsafe(`DROP SCHEMA IF EXISTS ${providerSchema} CASCADE`);
      await schema.drop();
    });
    const onPostgres = await startWagerlink(['sandbox', '--data', dir, '--database', schema.url(), '--provider-schema', providerSchema, ...ports], {
      ready: READY,
      until: t,
    });
    assert.ok(
      onPostgres.child.stdout.includes(
        `  ${files[0]} and ${files[1]}, of a start on SQLite, are left as they are and not read here: ` +
          'a start without --database runs on them again (and sends what their outbox still holds)\n',
      ),
      onPostgres.child.stdout,
    );
    // The demo players are made again, in PostgreSQL: nothing was read from the SQLite files.
    assert.match(onPostgres.child.stdout, /secrets read in .*; 4 demo players added/);
    assert.equal((await onPostgres.child.stop('SIGTERM')).code, 0);
    assert.deepEqual(contents(), before, 'the SQLite files are unchanged');
    assert.deepEqual(readdirSync(dir).sort(), ['operator.db', 'provider.db', 'sandbox-secrets.json', 'sandbox.log']);
  },
);

test("--provider-schema is refused without --database, with a bad name, or equal to the operator's schema", async () => {
  const dir = dataDir();
  const alone = await runWagerlink(['sandbox', '--data', dir, '--provider-schema', 'prov']);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--provider-schema needs --database postgres:\/\//);
  const bad = await runWagerlink(['sandbox', '--data', dir, '--database', 'postgres://127.0.0.1:1/x', '--provider-schema', 'Prov-1']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--provider-schema: "Prov-1" must be 1 to 63 lower-case letters, digits or _/);
  const same = await runWagerlink(['sandbox', '--data', dir, '--database', 'postgres://127.0.0.1:1/x?search_path=wagerlink_provider']);
  assert.equal(same.code, 2);
  assert.match(same.stderr, /--provider-schema must differ from the operator's schema/);
});
