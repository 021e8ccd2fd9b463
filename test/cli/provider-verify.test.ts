/**
 * `wagerlink provider verify`, run as the built command on the database its
 * config names, after a provider played real dice and reels rounds and paid
 * a prize through our operator: it exits 0 saying every record agrees; once
 * a jackpot pool is altered in the file, it exits 1 naming the pool, in
 * words and in --json; a config without its database exits 2.
 */
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { RoundBooksVerdict } from '../../src/rounds/books.js';
import { runWagerlink } from '../harness/child-process.js';
import { adminOverHttp, makeOperator, tempDir, type Operator } from '../helpers.js';
import {
  adminCall,
  launchOf,
  makeProvider,
  OPERATOR_ID,
  operatorCall,
  pageCall,
  realClock,
  realLaunchBody,
  testConfigFile,
  type Provider,
} from '../provider/provider-helpers.js';

const CAMPAIGN = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
/** How long the delivery may take to answer every round and the payout (ms), on a loaded machine. */
const DELIVERY_MS_MAX = 20_000;
/** Free spins a reels feature can have, and more: the loop that plays them is bounded. */
const FREE_SPIN_CALLS_MAX = 200;

let op: Operator;
let origin: string;
let provider: Provider;
const temp = tempDir('wagerlink-verify-');
let configPath: string;

before(async () => {
  op = await makeOperator();
  origin = await op.app.listen({ host: '127.0.0.1', port: 0 });
  provider = await makeProvider({ endpoint: origin, clock: realClock(), deliveryLimits: { idleMs: 10 } });
  configPath = join(temp.dir, 'provider.json');
  writeFileSync(configPath, JSON.stringify(testConfigFile({ endpoint: origin, database: provider.config.database })), { mode: 0o600 });
});

after(async () => {
  await provider.close();
  await op.close();
  temp.cleanup();
});

async function launch(playerId: string, game: 'dice' | 'reels'): Promise<{ path: string; token: string }> {
  const key = await adminOverHttp(origin, 'POST', '/admin/launch-keys', { playerId, game });
  assert.equal(key.status, 201, key.text);
  const answer = await operatorCall(provider.app, '/generate-launch-url', realLaunchBody({ game, key: key.body.key }));
  assert.equal(answer.status, 200, answer.raw);
  const launched = launchOf(answer.body.url as string);
  const opened = await pageCall(provider.app, `${launched.path}/api/open`, { token: launched.token });
  assert.equal(opened.status, 200, opened.raw);
  return launched;
}

/** Plays a reels round, and its feature to the end when it has one. */
async function reelsRound(game: { path: string; token: string }, clientSeed: string): Promise<void> {
  const played = await pageCall(provider.app, `${game.path}/api/play`, { token: game.token, bet: '1', clientSeed });
  assert.ok(played.status === 200 || played.status === 202, played.raw);
  const round = played.body.round as { roundId: string; stage: string };
  for (let calls = 0; round.stage === 'feature' && calls < FREE_SPIN_CALLS_MAX; calls++) {
    const spun = await pageCall(provider.app, `${game.path}/api/free-spin`, { token: game.token, roundId: round.roundId });
    if (spun.status === 200 || spun.status === 202) round.stage = (spun.body.round as { stage: string }).stage;
    else if (spun.status === 409 && spun.body.code === 'ROUND_CLOSED') return;
    else await sleep(50); // its bet is still on its way
  }
}

/** Waits until no round is pending and every payout is paid. */
async function delivered(): Promise<void> {
  const deadline = Date.now() + DELIVERY_MS_MAX;
  for (;;) {
    const rounds = await provider.store.listRounds(100);
    const { payouts } = await provider.store.listPayouts(100);
    if (rounds.every((round) => round.status !== 'pending') && payouts.every((payout) => payout.status === 'paid')) return;
    assert.ok(Date.now() < deadline, 'every round and payout was answered in time');
    await sleep(50);
  }
}

test('provider verify exits 0 on the records of real rounds and a payout, and 1 naming a jackpot pool altered in the file', async () => {
  const created = await adminOverHttp(origin, 'POST', '/admin/players', { playerId: 'alice', currency: 'EUR', balance: 100, country: 'DE' });
  assert.equal(created.status, 201, created.text);
  const dice = await launch('alice', 'dice');
  for (let i = 0; i < 3; i++) {
    const played = await pageCall(provider.app, `${dice.path}/api/play`, { token: dice.token, bet: '1', chancePct: 50, clientSeed: `d${i}` });
    assert.ok(played.status === 200 || played.status === 202, played.raw);
  }
  const reels = await launch('alice', 'reels');
  for (let i = 0; i < 3; i++) await reelsRound(reels, `r${i}`);
  const payout = await adminCall(provider.app, 'POST', '/admin/payouts', {
    operatorId: OPERATOR_ID,
    playerId: 'alice',
    currency: 'EUR',
    amount: '5',
    campaignId: CAMPAIGN,
    payoutId: randomUUID(),
  });
  assert.equal(payout.status, 202, payout.raw);
  await delivered();
  await provider.store.durable();

  const agreeing = await runWagerlink(['provider', 'verify', '--config', configPath]);
  assert.equal(agreeing.code, 0, agreeing.stdout + agreeing.stderr);
  assert.match(agreeing.stdout, /^verified: 6 rounds \(6 real\), \d+ outbox items, 1 payouts, 1 jackpot pools, .* — all agree$/m);

  const file = new Database(provider.config.database, { timeout: 5_000 });
  try {
    file.exec('UPDATE jackpot_pools SET amount = amount + 1');
  } finally {
    file.close();
  }
  const altered = await runWagerlink(['provider', 'verify', '--config', configPath]);
  assert.equal(altered.code, 1, altered.stdout + altered.stderr);
  assert.match(altered.stdout, new RegExp(`^pool-mismatch pool:${OPERATOR_ID}/reels/EUR: jackpot pool .* holds \\d+ but its seed`, 'm'));
  assert.match(altered.stdout, /— 1 findings \(pool-mismatch 1\)$/m);
  const json = await runWagerlink(['provider', 'verify', '--json', '--config', configPath]);
  assert.equal(json.code, 1, json.stderr);
  const verdict = JSON.parse(json.stdout) as RoundBooksVerdict;
  assert.equal(verdict.ok, false);
  assert.deepEqual(
    verdict.findings.map((finding) => [finding.kind, finding.ids]),
    [['pool-mismatch', [`pool:${OPERATOR_ID}/reels/EUR`]]],
  );
});

test('provider verify exits 2 when the database of its config is not there, and creates none', async () => {
  const missing = join(temp.dir, 'missing.json');
  writeFileSync(missing, JSON.stringify(testConfigFile({ endpoint: origin, database: join(temp.dir, 'nothing.db') })), { mode: 0o600 });
  const run = await runWagerlink(['provider', 'verify', '--config', missing]);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /^wagerlink: could not read the provider's records: database file .*nothing\.db does not exist$/m);
});
