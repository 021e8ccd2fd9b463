/**
 * Proves that one wallet keeps two studios apart while both play for the
 * same players under faults (docs/protocol.md §2.6). Two providers, each
 * with its own store and its own integration's token and secret, deliver
 * through fault-injecting proxies (test/harness/fault-proxy.ts) into one
 * wallet, over real sockets; the same three players play dice at both in
 * turn, and alice's free rounds come from a campaign of the same id at
 * each. At the end, with both outboxes empty: each studio's round log
 * and the wallet's bookings on that studio's rounds are the same,
 * transaction by transaction; each studio's GGR at the wallet is its own
 * log's sums; the campaign was finished at each studio apart; every
 * player's balance is the deposit plus both logs; the books verify. Every
 * fault of the plan happened, so a pass proves each was survived.
 *
 * On SQLite: the rules it relies on run over every backend in the store
 * contract and HTTP rule suites (test/operator/integrations.test.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { createProviderClient, type ProviderClient } from '../../src/clients/provider-client.js';
import { buildOperatorApp } from '../../src/operator/operator-app.js';
import { IntegrationRegistry } from '../../src/operator/integration-registry.js';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import type { RoundRow } from '../../src/provider/store/provider-store.js';
import { SqliteProviderStore } from '../../src/provider/store/sqlite/provider-store.js';
import { FaultProxy, FAULTS } from '../harness/fault-proxy.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, adminOverHttp, ledgerOf, makeOperator, SECRET, tempDir, type Operator } from '../helpers.js';
import type { GenerateLaunchUrlRequest } from '../../src/protocol/schemas.js';
import { exampleConfigFile, launchOf, realLaunchBody, startProvider, type StartedProvider } from '../provider/provider-helpers.js';
import { addStudio, ring, type Studio } from '../stores/studios.js';

/** Rounds each player plays at each studio. */
const ROUNDS = 25;
const PLAYERS = ['alice', 'bob', 'carol'];
/** The example config gives alice five free rounds of 1.00 on dice, under this campaign id: at both studios. */
const FREE_ROUNDS = 5;
const EXAMPLE_CAMPAIGN = '5b0c7a52-2d1e-4c55-9c1a-7f0e3c2b9a10';
const DEPOSIT = 1_000;
/**
 * Each fault's share of the calls through a proxy: higher than the exactly-once proof's, since this run is
 * smaller and must still meet every fault: about 200 calls through the proxies, each fault expected ten times.
 */
const PLAN = { drop: 0.05, delay: 0.05, unavailable: 0.05, 'unavailable-retry-after': 0.05, 'reset-after-commit': 0.05, 'late-answer': 0.05 } as const;
/** The provider waits this long for an answer (ms); a late answer comes after it. */
const ANSWER_MS_MAX = 1_000;
const LATE_ANSWER_MS = 1_500;
/** How long the outboxes may take to empty once the players stop (ms); generous for a loaded machine. */
const DRAIN_MS_MAX = 60_000;

interface StudioRun {
  studio: Studio;
  proxy: FaultProxy;
  store: SqliteProviderStore;
  provider: StartedProvider;
  origin: string;
  client: ProviderClient;
}

let op: Operator;
let wallet: FastifyInstance;
let walletOrigin: string;
const runs: StudioRun[] = [];
const temp = tempDir('wagerlink-two-studios-');

before(async () => {
  op = await makeOperator();
  const studios = [await addStudio(op.store, 'studio-a'), await addStudio(op.store, 'studio-b')];
  const registry = new IntegrationRegistry({ store: op.store, environment: { secrets: [SECRET], accessTokens: [ACCESS_TOKEN] }, keyring: ring });
  await registry.reload();
  wallet = await buildOperatorApp({ store: op.store, integrations: registry, adminToken: ADMIN_TOKEN });
  walletOrigin = await wallet.listen({ host: '127.0.0.1', port: 0 });
  for (const [n, studio] of studios.entries()) {
    const proxy = await FaultProxy.start({
      target: walletOrigin,
      plan: PLAN,
      seed: 20_261_129 + n,
      delayMs: 100,
      lateAnswerMs: LATE_ANSWER_MS,
      retryAfterSeconds: 1,
    });
    const file = exampleConfigFile();
    file.database = `${temp.dir}/${studio.id}.db`;
    // The back office answers the wallet's test token, so that one helper reads both sides.
    file.adminToken = ADMIN_TOKEN;
    Object.assign(file.limits as Record<string, unknown>, { operatorAnswerMsMax: ANSWER_MS_MAX, retryDelayMsMax: 2_000, roundSettleMsMax: 1_500 });
    Object.assign(file.operators[0]!, { endpoint: proxy.origin, secret: studio.secret, accessToken: studio.token });
    const config = resolveProviderConfig(file);
    const store = SqliteProviderStore.open(config.database);
    const provider = await startProvider({ config, store });
    const origin = await provider.app.listen({ host: '127.0.0.1', port: 0 });
    config.publicBaseUrl = origin;
    runs.push({ studio, proxy, store, provider, origin, client: createProviderClient({ endpoint: origin, secret: studio.secret }) });
  }
});

after(async () => {
  for (const run of runs) {
    await run.client.close();
    await run.provider.stop();
    await run.store.close();
    await run.proxy.close();
  }
  await wallet.close();
  await op.close();
  temp.cleanup();
});

async function post(origin: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await request(new URL(path, origin), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

const get = async (url: string) => {
  const answer = await adminOverHttp(walletOrigin, 'GET', url);
  return { status: answer.status, text: answer.text };
};

/** Minor units of a decimal text of at most two decimals. */
const minor = (text: string) => BigInt(text.replace('.', '')) * 10n ** BigInt(2 - (text.split('.')[1]?.length ?? 0));

/** A launch of `playerId` at a studio: the wallet's launch key, the provider's launch URL, the session opened. */
async function launch(run: StudioRun, playerId: string): Promise<{ path: string; token: string }> {
  // The key is made for the studio whose game it launches: no other integration could open it.
  const key = await adminOverHttp(walletOrigin, 'POST', '/admin/launch-keys', { playerId, game: 'dice', integration: run.studio.id });
  assert.equal(key.status, 201, key.text);
  const launched = await run.client.generateLaunchUrl(realLaunchBody({ key: key.body.key as string }) as GenerateLaunchUrlRequest);
  assert.ok(launched.ok, JSON.stringify(launched));
  const { path, token } = launchOf(launched.value.url);
  // /authenticate crosses the proxy too: a fault there is answered as the page would be, and opened again.
  for (let attempt = 0; ; attempt++) {
    const opened = await post(run.origin, `${path}/api/open`, { token });
    if (opened.status === 200) return { path, token };
    assert.ok(attempt < 20, `${run.studio.id} ${playerId}: the session did not open: ${JSON.stringify(opened.body)}`);
  }
}

/** ROUNDS rounds of dice, the first FREE_ROUNDS free for alice; a round refused for a fault is played again. */
async function play(run: StudioRun, playerId: string, at: { path: string; token: string }): Promise<void> {
  for (let i = 0, attempt = 0; i < ROUNDS; attempt++) {
    assert.ok(attempt < ROUNDS * 20, `${run.studio.id} ${playerId}: rounds did not go through`);
    const free = playerId === 'alice' && i < FREE_ROUNDS;
    const answer = await post(run.origin, `${at.path}/api/play`, { token: at.token, bet: '1', chancePct: 50, clientSeed: `${playerId}-${i}`, free });
    // 200: settled; 202: written, still being delivered. Anything else (the previous round still pending) is tried again.
    if (answer.status === 200 || answer.status === 202) i++;
  }
}

test(`two studios, ${PLAYERS.length} shared players, ${ROUNDS} rounds each at each studio under faults: each studio's log and the wallet agree`, async () => {
  for (const playerId of PLAYERS) {
    const created = await adminOverHttp(walletOrigin, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: DEPOSIT, country: 'DE' });
    assert.equal(created.status, 201, created.text);
  }
  // Every player at both studios at once: their rounds interleave at the wallet.
  const launches = await Promise.all(runs.flatMap((run) => PLAYERS.map(async (playerId) => ({ run, playerId, at: await launch(run, playerId) }))));
  await Promise.all(launches.map(({ run, playerId, at }) => play(run, playerId, at)));

  // Nothing is left to deliver: the faults go on until both outboxes are empty.
  const deadline = Date.now() + DRAIN_MS_MAX;
  for (const run of runs) {
    for (;;) {
      const pending = await adminOverHttp(run.origin, 'GET', '/admin/outbox?status=pending&limit=1');
      assert.equal(pending.status, 200, pending.text);
      if ((pending.body.items as unknown[]).length === 0) break;
      assert.ok(Date.now() < deadline, `${run.studio.id}'s outbox still holds items ${DRAIN_MS_MAX} ms after the players stopped`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  // The wallet's rounds, by the studio whose call opened each.
  const studioOfRound = new Map<string, string>();
  const booked = new Map<string, { kind: string; amount: number; roundId: string | null }>();
  for (const playerId of PLAYERS) {
    const rounds = await adminOverHttp(walletOrigin, 'GET', `/admin/players/${playerId}/rounds?limit=500`);
    assert.equal(rounds.status, 200, rounds.text);
    for (const round of rounds.body.items as { roundId: string; integration: string }[]) studioOfRound.set(round.roundId, round.integration);
    for (const item of await ledgerOf(get, playerId)) {
      if (item.kind !== 'deposit') booked.set(item.id, { kind: item.kind, amount: item.amount, roundId: item.roundId });
    }
  }

  let expected = 0n;
  for (const run of runs) {
    const rounds: RoundRow[] = await run.store.listRounds(1_000);
    assert.equal(rounds.length, PLAYERS.length * ROUNDS, `${run.studio.id}: every round played is in its log`);
    const fromLog = new Map<string, { kind: string; amount: number; roundId: string }>();
    const sums = { bets: 0n, freeBets: 0n, wins: 0n };
    for (const row of rounds) {
      assert.equal(row.status, 'settled', `${run.studio.id}: round ${row.roundId}`);
      assert.equal(studioOfRound.get(row.roundId), run.studio.id, `round ${row.roundId} is ${run.studio.id}'s at the wallet`);
      fromLog.set(row.betTxId!, { kind: 'bet', amount: Number(row.betMinor) / 100, roundId: row.roundId });
      fromLog.set(row.winTxId!, { kind: 'win', amount: Number(row.winMinor) / 100, roundId: row.roundId });
      if (row.campaignId !== null) sums.freeBets += row.betMinor;
      else sums.bets += row.betMinor;
      sums.wins += row.winMinor;
    }
    const free = rounds.filter((row) => row.campaignId !== null);
    assert.equal(free.length, FREE_ROUNDS, `${run.studio.id}: alice's free rounds, all of them, though the other studio's campaign of the same id finished`);
    assert.ok(free.every((row) => row.campaignId === EXAMPLE_CAMPAIGN && row.playerId === 'alice'));
    const theirs = [...booked].filter(([, item]) => item.roundId !== null && studioOfRound.get(item.roundId) === run.studio.id);
    assert.deepEqual(new Map(theirs), fromLog, `${run.studio.id}: the wallet booked exactly its log, id by id`);
    const ggr = await adminOverHttp(walletOrigin, 'GET', `/admin/ggr?integration=${run.studio.id}`);
    assert.equal(ggr.status, 200, ggr.text);
    const [row] = ggr.body.rows as { game: string; bets: number; freeBets: number; wins: number }[];
    assert.deepEqual(
      [row?.game, row?.bets, row?.freeBets, row?.wins],
      ['dice', Number(sums.bets) / 100, Number(sums.freeBets) / 100, Number(sums.wins) / 100],
      `${run.studio.id}: its GGR is its own log's`,
    );
    expected += sums.wins - sums.bets;
  }
  assert.equal(booked.size, 2 * runs.length * PLAYERS.length * ROUNDS, 'nothing booked but the two logs');
  let balances = 0n;
  for (const playerId of PLAYERS) balances += minor(String((await adminOverHttp(walletOrigin, 'GET', `/admin/players/${playerId}`)).body.balance));
  assert.equal(balances, BigInt(PLAYERS.length * DEPOSIT) * 100n + expected, 'every balance is its deposit and both logs');
  const verified = await adminOverHttp(walletOrigin, 'GET', '/admin/verify');
  assert.equal(verified.body.ok, true, verified.text);
  const counts = Object.fromEntries(FAULTS.map((fault) => [fault, runs.reduce((sum, run) => sum + run.proxy.counts[fault], 0)]));
  for (const fault of FAULTS) assert.ok(counts[fault]! > 0, `the run met the fault ${fault} (${JSON.stringify(counts)})`);
  console.log(`# two studios: ${booked.size} bookings; the proxies' faults: ${JSON.stringify(counts)}`);
});
