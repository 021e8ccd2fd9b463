/**
 * Proves the whole interface end to end over real sockets, with both
 * servers running and configured as documented (examples/provider.json and
 * the credentials of examples/operator.env): the operator asks the provider
 * for a launch URL through the provider client, the game page is served and
 * its session opened, and 200 rounds are played, the first five of them the
 * example's free rounds. Afterwards the operator's ledger and the provider's
 * round log agree exactly, transaction by transaction, and the books
 * verify. A fun-mode launch then plays without a single call reaching the
 * operator.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { createProviderClient, type ProviderClient } from '../../src/clients/provider-client.js';
import { verifyRound } from '../../src/game/fairness.js';
import { resolveProviderConfig, type ProviderConfig } from '../../src/provider/provider-config.js';
import { SqliteProviderStore } from '../../src/provider/store/sqlite/provider-store.js';
import { adminOverHttp, ledgerOf, makeOperator, tempDir, type Operator } from '../helpers.js';
import { exampleConfigFile, launchOf, OPERATOR_ID, startProvider, WALLET_ID, type StartedProvider } from './provider-helpers.js';
import type { FastifyInstance } from 'fastify';

/** The credentials of examples/operator.env, which examples/provider.json pairs with. */
const DEMO_SECRET = 'local-demo-secret-change-me';
const DEMO_ACCESS_TOKEN = 'local-demo-access-token';
const ROUNDS = 200;
/** The example config gives alice five free rounds of 1.00 on dice. */
const FREE_ROUNDS = 5;
const EXAMPLE_CAMPAIGN = '5b0c7a52-2d1e-4c55-9c1a-7f0e3c2b9a10';

let op: Operator;
let operatorOrigin: string;
let provider: StartedProvider;
let providerApp: FastifyInstance;
let providerOrigin: string;
let store: SqliteProviderStore;
let config: ProviderConfig;
let providerClient: ProviderClient;
const temp = tempDir('wagerlink-e2e-');
const operatorCalls: string[] = [];

before(async () => {
  op = await makeOperator({ app: { secrets: [DEMO_SECRET], accessTokens: [DEMO_ACCESS_TOKEN] } });
  op.app.addHook('onRequest', async (req) => {
    operatorCalls.push(req.url);
  });
  operatorOrigin = await op.app.listen({ host: '127.0.0.1', port: 0 });

  const file = exampleConfigFile();
  file.database = `${temp.dir}/provider.db`;
  file.operators[0]!.endpoint = operatorOrigin;
  config = resolveProviderConfig(file);
  store = SqliteProviderStore.open(config.database);
  provider = await startProvider({ config, store });
  providerApp = provider.app;
  providerOrigin = await providerApp.listen({ host: '127.0.0.1', port: 0 });
  // The example's public URL names port 8090; here the provider listens on a free port.
  config.publicBaseUrl = providerOrigin;
  providerClient = createProviderClient({ endpoint: providerOrigin, secret: DEMO_SECRET });
});

after(async () => {
  await providerClient.close();
  await provider.stop();
  await store.close();
  await op.close();
  temp.cleanup();
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await request(new URL(path, providerOrigin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, any> };
}

const getOperator = async (url: string) => {
  const answer = await adminOverHttp(operatorOrigin, 'GET', url);
  return { status: answer.status, text: answer.text };
};

/** A small seeded generator, so that the 200 rounds are the same every run. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state;
  };
}

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
test(`real mode: a launch URL, an opened session, ${ROUNDS} rounds; the ledger and the round log agree exactly`, async () => {
  const created = await adminOverHttp(operatorOrigin, 'POST', '/admin/players', { playerId: 'alice', currency: 'EUR', balance: 1000, country: 'DE' });
  assert.equal(created.status, 201, created.text);
  const key = await adminOverHttp(operatorOrigin, 'POST', '/admin/launch-keys', { playerId: 'alice', game: 'dice' });
  assert.equal(key.status, 201, key.text);

  // The operator's side: the provider client over a real socket.
  const launched = await providerClient.generateLaunchUrl({
    mode: 'real',
    game: 'dice',
    language: 'en',
    walletId: WALLET_ID,
    operatorId: OPERATOR_ID,
    key: key.body.key as string,
    country: 'DE',
    urls: { lobby: 'https://casino.example/lobby', deposit: 'https://casino.example/deposit' },
  });
  assert.ok(launched.ok, JSON.stringify(launched));
  const launch = launchOf(launched.value.url);
  assert.ok(launched.value.url.startsWith(`${providerOrigin}/game/dice#`));

  // The player's browser: the page, its assets, then the session.
  const page = await request(new URL(launch.path, providerOrigin));
  assert.equal(page.statusCode, 200);
  assert.match(await page.body.text(), /assets\/game\.js/);
  const script = await request(new URL('/game/assets/game.js', providerOrigin));
  assert.equal(script.statusCode, 200);
  await script.body.dump();

  const opened = await post(`${launch.path}/api/open`, { token: launch.token });
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  assert.equal(opened.body.balance, '1000');
  assert.deepEqual(opened.body.freeRounds, { campaignId: EXAMPLE_CAMPAIGN, left: FREE_ROUNDS, bet: '1' });
  const ladder = opened.body.ladder as string[];
  const { chancePctMin, chancePctMax } = opened.body.game as { chancePctMin: number; chancePctMax: number };

  const next = lcg(20_261_121);
  let expected = 100_000n; // minor units
  for (let i = 0; i < ROUNDS; i++) {
    const free = i < FREE_ROUNDS;
    const bet = ladder[next() % 5]!; // 0.10 to 2.00: the balance lasts all 200 rounds
    const chancePct = chancePctMin + (next() % (chancePctMax - chancePctMin + 1));
    const answer = await post(`${launch.path}/api/play`, { token: launch.token, bet, chancePct, clientSeed: `e2e-${i}`, free });
    assert.equal(answer.status, 200, `round ${i}: ${JSON.stringify(answer.body)}`);
    const round = answer.body.round as {
      bet: string;
      win: string;
      free: boolean;
      nonce: number;
      serverSeed: string;
      serverSeedHash: string;
      clientSeed: string;
      roll: number;
    };
    assert.equal(round.free, free);
    assert.equal(round.nonce, i);
    assert.ok(verifyRound(round), `round ${i} verifies`);
    const minor = (text: string) => BigInt(text.replace('.', '')) * 10n ** BigInt(2 - (text.split('.')[1]?.length ?? 0));
    expected += minor(round.win) - (free ? 0n : minor(round.bet));
    assert.equal(minor(answer.body.balance as string), expected, `round ${i}: balance`);
  }

  // The operator's ledger against the provider's round log.
  const ledger = await ledgerOf(getOperator, 'alice');
  const deposits = ledger.filter((item) => item.kind === 'deposit');
  assert.equal(deposits.length, 1);
  const booked = new Map(ledger.filter((item) => item.kind !== 'deposit').map((item) => [item.id, item]));
  const rounds = (await store.listRounds(500)).filter((row) => row.playerId === 'alice');
  assert.equal(rounds.length, ROUNDS);
  assert.equal(booked.size, 2 * ROUNDS);
  const fromLog = new Map<string, { kind: string; amount: number; roundId: string }>();
  for (const row of rounds) {
    assert.equal(row.status, 'settled');
    fromLog.set(row.betTxId!, { kind: 'bet', amount: Number(row.betMinor) / 100, roundId: row.roundId });
    fromLog.set(row.winTxId!, { kind: 'win', amount: Number(row.winMinor) / 100, roundId: row.roundId });
  }
  assert.deepEqual(new Set(booked.keys()), new Set(fromLog.keys()));
  for (const [id, item] of booked) {
    const logged = fromLog.get(id)!;
    assert.deepEqual({ kind: item.kind, amount: item.amount, roundId: item.roundId }, logged, id);
  }
  const full = await adminOverHttp(operatorOrigin, 'GET', '/admin/players/alice/transactions?limit=500');
  const freeBets = (full.body.items as { kind: string; freeBet: boolean; campaignId: string | null }[]).filter((item) => item.kind === 'bet' && item.freeBet);
  assert.equal(freeBets.length, FREE_ROUNDS);
  assert.ok(freeBets.every((item) => item.campaignId === EXAMPLE_CAMPAIGN));

  const player = await adminOverHttp(operatorOrigin, 'GET', '/admin/players/alice');
  assert.equal(BigInt(Math.round((player.body.balance as number) * 100)), expected);
  const verified = await adminOverHttp(operatorOrigin, 'GET', '/admin/verify');
  assert.equal(verified.body.ok, true, verified.text);
});

test('fun mode: play money at the provider, and no call reaches the operator', async () => {
  const ledgerBefore = await ledgerOf(getOperator, 'alice');
  const callsBefore = operatorCalls.length;
  const launched = await providerClient.generateLaunchUrl({ mode: 'fun', game: 'dice', language: 'de' });
  assert.ok(launched.ok, JSON.stringify(launched));
  const launch = launchOf(launched.value.url);
  const opened = await post(`${launch.path}/api/open`, { token: launch.token });
  assert.equal(opened.status, 200);
  assert.equal(opened.body.mode, 'fun');
  assert.equal(opened.body.freeRounds, null);
  let balance = 100_000n;
  for (let i = 0; i < 50; i++) {
    const answer = await post(`${launch.path}/api/play`, { token: launch.token, bet: '1', chancePct: 50, clientSeed: 'fun' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    balance += BigInt(Math.round(Number(answer.body.round.win) * 100)) - 100n;
    assert.equal(BigInt(Math.round(Number(answer.body.balance) * 100)), balance);
  }
  assert.deepEqual(operatorCalls.slice(callsBefore), []);
  assert.deepEqual(await ledgerOf(getOperator, 'alice'), ledgerBefore);
});
