/**
 * Proves the commands as a person runs them: `wagerlink provider serve
 * --config FILE` starts (logging its ready line, and a warning naming a
 * retired setting the config still sets), answers, and stops with exit 0 on
 * SIGTERM; a bad config (a free-bet campaign off its ladder too)
 * stops it at once with a message naming the member; and the operator's
 * side, `wagerlink operator launch-url` and `game-bets`, reach the running
 * provider with the operator's database and settings (examples/operator.env's
 * variables), each refusal of it one line `wagerlink: CODE: detail`. And where launch URLs point once `--port` moves the server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { cleanEnv, runWagerlink } from '../harness/child-process.js';
import { tempDir } from '../helpers.js';
import { movedPublicBaseUrl } from '../../src/provider/serve-provider.js';
import { exampleConfigFile, serveProviderChild } from './provider-helpers.js';

/** A start or a command that takes longer than this failed (ms); generous for a loaded machine. */
const COMMAND_TIMEOUT_MS = 30_000;

const temp = tempDir('wagerlink-serve-');

after(() => {
  temp.cleanup();
});

/** Runs a command to its end (bounded by COMMAND_TIMEOUT_MS). */
function run(args: string[], env: NodeJS.ProcessEnv = cleanEnv()) {
  return runWagerlink(args, { env, timeoutMs: COMMAND_TIMEOUT_MS });
}

function writeConfig(name: string, edit: (file: ReturnType<typeof exampleConfigFile>) => void): string {
  const file = exampleConfigFile();
  file.database = join(temp.dir, `${name}.db`);
  file.port = 0;
  edit(file);
  const path = join(temp.dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(file, null, 2));
  return path;
}

test('provider serve: ready line, answers, SIGTERM exits 0; the operator commands reach it', async (t) => {
  // A setting of an earlier version is accepted and named in a warning.
  const config = writeConfig('good', (file) => {
    file.limits = { ...(file.limits as object), outboxIntervalSeconds: 30 };
  });
  const { child, origin } = await serveProviderChild(config, { timeoutMs: COMMAND_TIMEOUT_MS, until: t });
  assert.match(child.output(), /limits\.outboxIntervalSeconds is no longer read/);
  const health = await request(`${origin}/health`);
  assert.equal(health.statusCode, 200);
  assert.deepEqual(await health.body.json(), { status: 'ok' });

  // The operator's side, with the variables of examples/operator.env and its own database.
  const env = cleanEnv({
    WAGERLINK_DATABASE: join(temp.dir, 'operator.db'),
    WAGERLINK_SECRET: 'local-demo-secret-change-me',
    WAGERLINK_PROVIDER_URL: origin,
    WAGERLINK_OPERATOR_ID: 'local-demo-operator',
    WAGERLINK_WALLET_ID: 'local-demo-wallet',
  });
  // A back-office command needs the database to be there: migrate creates it.
  assert.equal((await run(['operator', 'migrate'], env)).code, 0);
  const added = await run(['operator', 'players', 'add', 'bob', '--currency', 'EUR', '--balance', '25', '--country', 'AT'], env);
  assert.equal(added.code, 0, added.stderr);
  const launched = await run(['operator', 'launch-url', 'bob', '--game', 'dice', '--language', 'de-AT', '--lobby', 'https://casino.example/'], env);
  assert.equal(launched.code, 0, launched.stderr);
  assert.match(JSON.parse(launched.stdout).url, /^http:\/\/127\.0\.0\.1:8090\/game\/dice#v1\./);
  const fun = await run(['operator', 'launch-url', '--game', 'dice', '--mode', 'fun'], env);
  assert.equal(fun.code, 0, fun.stderr);
  const bets = await run(['operator', 'game-bets', '--games', 'dice', '--currencies', 'EUR,JPY'], env);
  assert.equal(bets.code, 0, bets.stderr);
  assert.deepEqual(JSON.parse(bets.stdout).dice.EUR, ['0.1', '0.2', '0.5', '1', '2', '5', '10', '20', '50', '100']);
  const refused = await run(['operator', 'game-bets', '--games', 'poker', '--currencies', 'EUR'], env);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^wagerlink: GAME_NOT_FOUND: [^\n{]+\n$/);
  // The player's currency goes with the launch: a game with no bets in it is refused before any page opens.
  assert.equal((await run(['operator', 'players', 'add', 'sven', '--currency', 'SEK', '--country', 'SE'], env)).code, 0);
  const noLadder = await run(['operator', 'launch-url', 'sven', '--game', 'dice'], env);
  assert.equal(noLadder.code, 1, noLadder.stdout);
  assert.match(noLadder.stderr, /^wagerlink: UNSUPPORTED_CURRENCY: [^\n{]+\n$/);
  const unknown = await run(['operator', 'launch-url', 'nobody', '--game', 'dice'], env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^wagerlink: PLAYER_NOT_FOUND: [^\n{]+\n$/);
  const unset = await run(['operator', 'game-bets', '--games', 'dice', '--currencies', 'EUR'], cleanEnv());
  assert.equal(unset.code, 1);
  assert.match(unset.stderr, /WAGERLINK_PROVIDER_URL/);

  const { code } = await child.stop('SIGTERM');
  assert.equal(code, 0, child.output());
});

test('provider serve refuses a bad config, naming the member (a missing seedKeys among them), and needs --config', async () => {
  const bad = writeConfig('bad', (file) => {
    file.operators[0]!.ipWhitelist = ['127.0.0.1', 'everyone'];
  });
  const answer = await run(['provider', 'serve', '--config', bad]);
  assert.equal(answer.code, 1);
  assert.match(answer.stderr, /operators\[0\]\.ipWhitelist\[1\]: everyone is not an IP address or CIDR range/);
  assert.doesNotMatch(answer.stderr, /\n\s+at /);
  // A free-bet campaign that could not be played stops the start too.
  const campaign = writeConfig('bad-campaign', (file) => {
    (file.campaigns as Record<string, unknown>[])[0]!.betAmount = '0.30';
  });
  const refused = await run(['provider', 'serve', '--config', campaign]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /campaigns\[0\]\.betAmount: 0\.30 is not on the dice EUR bet ladder/);
  // Without a seed key the seeds of rounds not yet played would sit in the database as they are: no start.
  const keyless = writeConfig('no-seed-keys', (file) => {
    delete file.seedKeys;
  });
  const unkeyed = await run(['provider', 'serve', '--config', keyless]);
  assert.equal(unkeyed.code, 1);
  assert.match(
    unkeyed.stderr,
    /seedKeys: is required: the server seeds of rounds not yet played are kept sealed under a key of this ring, outside the database; add e\.g\. .*openssl rand -base64 32/,
  );
  assert.doesNotMatch(unkeyed.stderr, /\n\s+at /);
  const missing = await run(['provider', 'serve']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--config/);
});

test("--port moves a publicBaseUrl that names the config's own port, and warns about any other", () => {
  assert.deepEqual(movedPublicBaseUrl('http://127.0.0.1:8090', 8090, 9000), { url: 'http://127.0.0.1:9000' });
  assert.deepEqual(movedPublicBaseUrl('http://localhost:8090/casino', 8090, 9000), { url: 'http://localhost:9000/casino' });
  assert.deepEqual(movedPublicBaseUrl('http://127.0.0.1:8090', 8090, 8090), { url: 'http://127.0.0.1:8090' });
  const proxied = movedPublicBaseUrl('https://games.example.com', 8090, 9000);
  assert.equal(proxied.url, 'https://games.example.com');
  assert.match(proxied.warning ?? '', /--port 9000: launch URLs still use publicBaseUrl https:\/\/games\.example\.com/);
});
