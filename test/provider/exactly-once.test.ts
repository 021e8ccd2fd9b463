/**
 * Proves, over real sockets and real processes, that every bet, win and
 * prize is delivered exactly once whatever the network and the processes
 * do: the operator (`wagerlink operator serve`) and the provider
 * (`wagerlink provider serve`) run as child processes, with a
 * fault-injecting proxy between them (test/harness/fault-proxy.ts:
 * connections dropped, requests delayed, 503 with and without Retry-After,
 * connections reset after the operator booked, answers later than the
 * provider waits). Players play thousands of dice rounds and the back
 * office posts hundreds of tournament prizes, each twice, while the
 * provider is killed with SIGKILL twice and the operator once, each
 * restarted on the same database. Half the players play dice, half reels:
 * rounds of two or three calls, a bet, its base spin's win and, when the
 * draw gives free spins, the feature the player plays spin by spin before
 * its wins are sent (a player stopping at the end first finishes the
 * feature it is in).
 *
 * At the end, with nothing left in the outbox: every round is settled and
 * every prize paid; the operator's ledger holds exactly the round log's
 * bets and wins (every reels call's transactions) and the payouts' credits, id by id, kind by kind, amount by
 * amount, each once; each player's balance is their deposit plus what the
 * log says; the operator's books verify. Every kind of fault happened, so a
 * pass proves each one was survived.
 *
 * The same run proves it for two provider nodes on one PostgreSQL
 * database (skipped, saying so, without DATABASE_URL): launches are opened
 * on both, each player's rounds go to both in turn, each prize is posted
 * once on each; each node is killed with SIGKILL once and the operator
 * once.
 *
 * The sizes can be raised for a longer run: EXACTLY_ONCE_ROUNDS,
 * EXACTLY_ONCE_PAYOUTS. The defaults (800 rounds, 80 prizes) make about
 * 1,900 calls through the proxy, in which every fault of the plan is still
 * expected a dozen times or more (the rarest, a late answer, is 1 in 100),
 * and the run checks that each one happened.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { createProviderClient } from '../../src/clients/provider-client.js';
import { FaultProxy, FAULTS } from '../harness/fault-proxy.js';
import { cleanEnv, freePort, startWagerlink, type Child, type TestScope } from '../harness/child-process.js';
import { ADMIN_TOKEN, adminOverHttp, ledgerOf, operatorServeEnv, tempDir } from '../helpers.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';
import { exampleConfigFile, launchOf, OPERATOR_ID, WALLET_ID } from './provider-helpers.js';

const SECRET = 'exactly-once-secret';
const ACCESS_TOKEN = 'exactly-once-access-token';
/** Rounds the players are answered (settled or still being delivered) before the run ends. */
const ROUNDS = Number(process.env.EXACTLY_ONCE_ROUNDS ?? 800);
/**
 * Rounds past ROUNDS the reels players go on playing while no round of theirs has
 * held free spins yet: a feature comes 1 in 101 rounds, so a run with few reels
 * rounds could otherwise end having never delivered one, and prove nothing of them.
 * Bounded, so that a game that never triggers one fails the run instead of hanging.
 */
const FEATURE_ROUNDS_EXTRA_MAX = 4_000;
/** Prizes posted, each twice. */
const PAYOUTS = Number(process.env.EXACTLY_ONCE_PAYOUTS ?? 80);
/** Players playing at once, one launch each. */
const PLAYERS = 8;
/** Each player's deposit, in EUR: enough for every round at the largest bet played. */
const DEPOSIT = 100_000;
const PRIZE = '1.25';
const TOURNAMENT = '7f1d6c1e-62a8-4b6e-9a55-3f2d7c1b0e41';
/** The bets the players cycle through (examples/provider.json's EUR ladders for dice and reels). */
const BETS = ['0.10', '0.50', '1', '2'];
const REELS_BETS = ['1', '2'];
/** Odd players play reels, even ones dice. */
const gameOf = (i: number) => (i % 2 === 1 ? 'reels' : 'dice');
/**
 * Each fault's share of the requests that reach the proxy. About one
 * request in six meets one: enough of each kind in a run of this size,
 * few enough that the run ends in well under a minute.
 */
const PLAN = { drop: 0.03, delay: 0.03, unavailable: 0.03, 'unavailable-retry-after': 0.02, 'reset-after-commit': 0.04, 'late-answer': 0.01 } as const;
/** The provider waits this long for one answer (ms); a late answer comes after it. */
const ANSWER_MS_MAX = 1_000;
const LATE_ANSWER_MS = 1_500;
/** How long the outbox may take to empty once the players stop (ms); generous for a loaded machine. */
const DRAIN_MS_MAX = 120_000;

const temp = tempDir('wagerlink-exactly-once-');
after(() => temp.cleanup());

/** The operator on its SQLite file `database`, one per run. */
function startOperator(port: number, database: string, t: TestScope): Promise<Child> {
  const env = cleanEnv(operatorServeEnv(port, database, { secret: SECRET, accessToken: ACCESS_TOKEN }));
  return startWagerlink(['operator', 'serve'], { env, until: t }).then(({ child }) => child);
}

/** A provider node: its port, and (for PostgreSQL) the database it shares with the others. */
function startProvider(configPath: string, port: number, database: string, t: TestScope): Promise<Child> {
  return startWagerlink(['provider', 'serve', '--config', configPath, '--port', String(port), '--database', database], { until: t }).then(({ child }) => child);
}

/** SIGKILL, then the same command on the same database and port. */
async function killAndRestart(child: Child, start: () => Promise<Child>): Promise<Child> {
  child.signal('SIGKILL');
  await child.exit;
  return start();
}

async function post(origin: string, path: string, body: unknown, agent: Agent): Promise<{ status: number; body: Record<string, any> }> {
  const response = await request(new URL(path, origin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, any> };
}

/** Every page of a provider back-office listing. */
async function everyPage<T>(origin: string, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const answer = await adminOverHttp(origin, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=500${cursor === null ? '' : `&cursor=${cursor}`}`);
    assert.equal(answer.status, 200, answer.text);
    items.push(...(answer.body.items as T[]));
    cursor = answer.body.nextCursor as string | null;
    if (cursor === null) return items;
  }
}

/** Minor units (cents) of an amount as the back offices write it, number or decimal text. */
function cents(amount: number | string): bigint {
  const [whole, fraction = ''] = String(amount).split('.');
  assert.ok(fraction.length <= 2, `${amount} has at most 2 decimals`);
  return BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
}

/**
 * The run: `nodes` provider nodes on `database` (one SQLite file for one
 * node; a PostgreSQL URL for several). `kills` names, in order, what is
 * killed at a quarter, half and three quarters of the rounds: a provider
 * node by its index, or the operator.
 */
// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
async function provesExactlyOnce(t: TestScope, options: { database: string; nodes: number; kills: readonly (number | 'operator')[] }): Promise<void> {
  const operatorPort = await freePort();
  const providerPorts: number[] = [];
  for (let n = 0; n < options.nodes; n++) providerPorts.push(await freePort());
  const operatorOrigin = `http://127.0.0.1:${operatorPort}`;
  const providerOrigins = providerPorts.map((port) => `http://127.0.0.1:${port}`);
  /** The node that answers the back office's reads at the end (any node would). */
  const providerOrigin = providerOrigins[0]!;
  const operatorDatabase = join(temp.dir, `operator-${options.nodes}.db`);
  let operator = await startOperator(operatorPort, operatorDatabase, t);
  const proxy = await FaultProxy.start({
    target: operatorOrigin,
    plan: PLAN,
    seed: 20_261_128,
    delayMs: 100,
    lateAnswerMs: LATE_ANSWER_MS,
    retryAfterSeconds: 1,
  });
  t.after(() => proxy.close());

  const file = exampleConfigFile();
  Object.assign(file, {
    // The first node's; each other node's --port moves its launch URLs to itself.
    port: providerPorts[0],
    publicBaseUrl: providerOrigin,
    database: options.database,
    adminToken: ADMIN_TOKEN,
    campaigns: [],
  });
  Object.assign(file.limits as Record<string, unknown>, { operatorAnswerMsMax: ANSWER_MS_MAX, retryDelayMsMax: 2_000, roundSettleMsMax: 1_500 });
  Object.assign(file.operators[0]!, { endpoint: proxy.origin, secret: SECRET, accessToken: ACCESS_TOKEN });
  const configPath = join(temp.dir, `provider-${options.nodes}.json`);
  writeFileSync(configPath, JSON.stringify(file, null, 2));
  const startNode = (n: number) => startProvider(configPath, providerPorts[n]!, options.database, t);
  const providers: Child[] = [];
  for (let n = 0; n < options.nodes; n++) providers.push(await startNode(n));
  /** Requests go to the nodes in turn: `n` picks one. */
  const nodeOrigin = (n: number) => providerOrigins[n % options.nodes]!;

  for (let i = 0; i < PLAYERS; i++) {
    const created = await adminOverHttp(operatorOrigin, 'POST', '/admin/players', {
      playerId: `player-${i}`,
      currency: 'EUR',
      balance: DEPOSIT,
      country: 'DE',
    });
    assert.equal(created.status, 201, created.text);
  }

  const agent = new Agent({ connections: PLAYERS + 2 });
  t.after(() => agent.close());
  const launchers = providerOrigins.map((endpoint) => createProviderClient({ endpoint, secret: SECRET }));
  t.after(async () => {
    for (const launcher of launchers) await launcher.close();
  });

  /** A launch that opened: made on one node and opened on the next; a new launch key each try, since a key the operator took may not be taken twice. */
  async function launch(playerId: string, i: number): Promise<{ path: string; token: string }> {
    const game = gameOf(i);
    for (let attempt = 1; ; attempt++) {
      assert.ok(attempt <= 200, `${playerId} could not open a game in 200 tries`);
      try {
        const key = await adminOverHttp(operatorOrigin, 'POST', '/admin/launch-keys', { playerId, game });
        if (key.status !== 201) throw new Error(key.text);
        const launched = await launchers[(i + attempt) % options.nodes]!.generateLaunchUrl({
          mode: 'real',
          game,
          language: 'en',
          walletId: WALLET_ID,
          operatorId: OPERATOR_ID,
          key: key.body.key as string,
          country: 'DE',
        });
        if (!launched.ok) throw new Error(JSON.stringify(launched));
        const opened = launchOf(launched.value.url);
        const answer = await post(nodeOrigin(i + attempt + 1), `${opened.path}/api/open`, { token: opened.token }, agent);
        if (answer.status === 200) return opened;
      } catch {
        // A server being restarted, or a fault on /authenticate: try again.
      }
      await sleep(100);
    }
  }

  const launches = await Promise.all(Array.from({ length: PLAYERS }, (_, i) => launch(`player-${i}`, i)));

  // The chaos: at a quarter, a half and three quarters of the rounds, what `kills` names is killed and restarted.
  let answered = 0;
  let chaos = Promise.resolve();
  const steps = options.kills.map((victim, k) => ({
    at: ((k + 1) * ROUNDS) / 4,
    run: async () => {
      if (victim === 'operator') operator = await killAndRestart(operator, () => startOperator(operatorPort, operatorDatabase, t));
      else providers[victim] = await killAndRestart(providers[victim]!, () => startNode(victim));
    },
  }));
  const roundAnswered = () => {
    answered++;
    while (steps.length > 0 && answered >= steps[0]!.at) {
      const step = steps.shift()!;
      chaos = chaos.then(step.run);
    }
  };

  let features = 0;
  let freeSpins = 0;
  /**
   * A reels player: plays rounds, and the free spins of each round that has
   * some, one by one; finds the round its free spins belong to again after a
   * restart (ROUND_UNFINISHED, then the session's `unfinished`); and,
   * before it stops, waits for its last round's bet to land and finishes
   * the feature that round holds.
   */
  const reelsPlayer = async (opened: { path: string; token: string }, i: number) => {
    let n = 0;
    let unfinished: string | null = null;
    for (;;) {
      n++;
      const origin = nodeOrigin(i + n);
      try {
        const enough = answered >= ROUNDS && (features > 0 || answered >= ROUNDS + FEATURE_ROUNDS_EXTRA_MAX);
        if (enough && unfinished === null) {
          // Before it stops, the player looks again, as the page does: a round answered while its bet was still on its way
          // (stage `betting`), or whose answer a kill swallowed, may turn out to hold a feature the player was never shown.
          const state = await post(origin, `${opened.path}/api/state`, { token: opened.token }, agent);
          if (state.status !== 200) throw new Error(`state: ${state.status}`);
          if (state.body.rounds[0]?.stage === 'betting') {
            await sleep(100);
            continue;
          }
          unfinished = (state.body.unfinished?.roundId as string | undefined) ?? null;
          if (unfinished === null) break;
        }
        if (unfinished !== null) {
          const answer = await post(origin, `${opened.path}/api/free-spin`, { token: opened.token, roundId: unfinished }, agent);
          if (answer.status === 200 || answer.status === 202) {
            freeSpins++;
            if (answer.body.round.stage !== 'feature') unfinished = null;
          } else if (answer.status === 409 && answer.body.code === 'ROUND_CLOSED') unfinished = null;
          else await sleep(50); // its bet still on its way, or a spin played at the same time
          continue;
        }
        const bet = REELS_BETS[n % REELS_BETS.length]!;
        const answer = await post(origin, `${opened.path}/api/play`, { token: opened.token, bet, clientSeed: `p${i}-${n}` }, agent);
        if (answer.status === 200 || answer.status === 202) {
          roundAnswered();
          if (answer.body.round.stage === 'feature') {
            features++;
            unfinished = answer.body.round.roundId as string;
          }
        } else if (answer.status === 409 && answer.body.code === 'ROUND_UNFINISHED') {
          const state = await post(origin, `${opened.path}/api/state`, { token: opened.token }, agent);
          unfinished = (state.body.unfinished?.roundId as string | undefined) ?? null;
          if (unfinished === null) await sleep(50); // the round's bet is still on its way: its free spins come after it
        } else await sleep(50);
      } catch {
        await sleep(100); // the provider is down
      }
    }
  };

  const players = launches.map(async (opened, i) => {
    if (gameOf(i) === 'reels') return reelsPlayer(opened, i);
    let n = 0;
    while (answered < ROUNDS) {
      n++;
      const bet = BETS[n % BETS.length]!;
      try {
        const answer = await post(nodeOrigin(i + n), `${opened.path}/api/play`, { token: opened.token, bet, chancePct: 50, clientSeed: `p${i}-${n}` }, agent);
        // 200: settled; 202: written, still being delivered. Anything else (the previous round still pending) is tried again.
        if (answer.status === 200 || answer.status === 202) roundAnswered();
        else await sleep(50);
      } catch {
        await sleep(100); // the provider is down
      }
    }
  });

  const posted: string[] = [];
  const prizes = (async () => {
    for (let k = 0; k < PAYOUTS; k++) {
      const payoutId = randomUUID();
      const body = { operatorId: OPERATOR_ID, playerId: `player-${k % PLAYERS}`, currency: 'EUR', amount: PRIZE, campaignId: TOURNAMENT, payoutId };
      // Twice (on two nodes when there are two): a back office that did not see its first answer posts again; the prize is paid once.
      for (const [posting, expected] of [202, 200].entries()) {
        for (let attempt = 0; ; attempt++) {
          try {
            const answer = await adminOverHttp(nodeOrigin(k + posting + attempt), 'POST', '/admin/payouts', body, agent);
            assert.ok(answer.status === expected || answer.status === 200, `payout ${payoutId}: ${answer.status} ${answer.text}`);
            break;
          } catch (error) {
            if (error instanceof assert.AssertionError) throw error;
            await sleep(100); // the provider is down
          }
        }
      }
      posted.push(payoutId);
      await sleep(5);
    }
  })();

  await Promise.all([...players, prizes]);
  await chaos;
  assert.equal(steps.length, 0, 'every kill happened');

  // Nothing is left to deliver: the faults go on until the outbox is empty.
  const deadline = Date.now() + DRAIN_MS_MAX;
  for (;;) {
    const pending = await adminOverHttp(providerOrigin, 'GET', '/admin/outbox?status=pending&limit=1');
    assert.equal(pending.status, 200, pending.text);
    if ((pending.body.items as unknown[]).length === 0) break;
    assert.ok(Date.now() < deadline, `the outbox still holds items ${DRAIN_MS_MAX} ms after the players stopped: ${pending.text}`);
    await sleep(200);
  }
  for (const status of ['parked', 'refused']) {
    const items = await adminOverHttp(providerOrigin, 'GET', `/admin/outbox?status=${status}`);
    assert.deepEqual(items.body.items, [], `no item is ${status}`);
  }

  // The provider's record: rounds and prizes.
  type Call = { status: string; transactions: { id: string; type: string; amount: number }[] };
  type Round = {
    roundId: string;
    kind: string;
    status: string;
    playerId: string;
    bet: string;
    win: string;
    betTransactionId: string;
    winTransactionId: string;
    reels?: { freeSpins: number; freeSpinsPlayed: number; calls: Call[] };
  };
  type Payout = { payoutId: string; status: string; playerId: string; amount: string };
  const rounds = await everyPage<Round>(providerOrigin, '/admin/rounds');
  const payouts = await everyPage<Payout>(providerOrigin, '/admin/payouts');
  assert.ok(rounds.length >= ROUNDS, `${rounds.length} rounds logged, at least ${ROUNDS} answered`);
  const unsettled = rounds
    .filter((round) => round.status !== 'settled')
    .map(({ roundId, kind, status, playerId, reels }) => ({
      roundId,
      kind,
      status,
      playerId,
      freeSpins: reels?.freeSpins,
      freeSpinsPlayed: reels?.freeSpinsPlayed,
    }));
  assert.deepEqual(unsettled, [], 'every round is settled');
  assert.equal(payouts.length, PAYOUTS);
  assert.deepEqual(new Set(payouts.map((payout) => payout.payoutId)), new Set(posted));
  assert.deepEqual(
    payouts.filter((payout) => payout.status !== 'paid'),
    [],
    'every prize is paid',
  );

  // What the operator must hold: each id once, of its kind, amount and player.
  const expected = new Map<string, { kind: string; cents: bigint; playerId: string }>();
  const add = (id: string, entry: { kind: string; cents: bigint; playerId: string }) => {
    assert.ok(!expected.has(id), `id ${id} is used once in the provider's record`);
    expected.set(id, entry);
  };
  const reelsRounds = rounds.filter((round) => round.kind === 'reels');
  assert.ok(
    reelsRounds.length > 0 && reelsRounds.length < rounds.length,
    `dice and reels rounds both played (${reelsRounds.length} reels of ${rounds.length})`,
  );
  const featured = reelsRounds.filter((round) => round.reels!.freeSpins > 0);
  assert.ok(featured.length > 0, 'some reels rounds had free spins');
  for (const round of rounds) {
    if (round.kind === 'reels') {
      assert.equal(round.reels!.freeSpinsPlayed, round.reels!.freeSpins, `round ${round.roundId}: every free spin played`);
      for (const call of round.reels!.calls) {
        assert.equal(call.status, 'accepted', `round ${round.roundId}: every call accepted`);
        for (const tx of call.transactions) add(tx.id, { kind: tx.type, cents: cents(tx.amount), playerId: round.playerId });
      }
      continue;
    }
    add(round.betTransactionId, { kind: 'bet', cents: cents(round.bet), playerId: round.playerId });
    add(round.winTransactionId, { kind: 'win', cents: cents(round.win), playerId: round.playerId });
  }
  for (const payout of payouts) add(payout.payoutId, { kind: 'payout', cents: cents(payout.amount), playerId: payout.playerId });

  const getOperator = async (url: string) => {
    const answer = await adminOverHttp(operatorOrigin, 'GET', url);
    return { status: answer.status, text: answer.text };
  };
  const booked = new Map<string, { kind: string; cents: bigint; playerId: string }>();
  for (let i = 0; i < PLAYERS; i++) {
    const playerId = `player-${i}`;
    let balance = 0n;
    for (const item of await ledgerOf(getOperator, playerId)) {
      const amount = cents(item.amount);
      balance += item.kind === 'bet' ? -amount : amount;
      if (item.kind === 'deposit') continue;
      assert.ok(!booked.has(item.id), `the operator booked ${item.id} once`);
      booked.set(item.id, { kind: item.kind, cents: amount, playerId });
    }
    const player = await adminOverHttp(operatorOrigin, 'GET', `/admin/players/${playerId}`);
    assert.equal(cents(player.body.balance as number), balance, `${playerId}: the balance is the sum of the ledger`);
  }
  assert.equal(booked.size, expected.size, 'the ledger holds as many transactions as the provider sent');
  for (const [id, entry] of expected) assert.deepEqual(booked.get(id), entry, `transaction ${id}`);

  const verified = await adminOverHttp(operatorOrigin, 'GET', '/admin/verify');
  assert.equal(verified.body.ok, true, verified.text);
  for (const fault of FAULTS) assert.ok(proxy.counts[fault] > 0, `the run met the fault ${fault} (${JSON.stringify(proxy.counts)})`);
  console.log(
    `# exactly once, ${options.nodes} provider node(s): ${rounds.length} rounds (${reelsRounds.length} reels, ${featured.length} with free spins: ${features} seen by players, ${freeSpins} spins played), ${payouts.length} prizes; the proxy's fates: ${JSON.stringify(proxy.counts)}`,
  );

  for (const provider of providers) await provider.stop('SIGTERM');
  await operator.stop('SIGTERM');
}

test(`exactly once: ${ROUNDS} rounds and ${PAYOUTS} prizes through a faulty network, the provider killed twice and the operator once`, async (t) => {
  await provesExactlyOnce(t, { database: join(temp.dir, 'provider.db'), nodes: 1, kills: [0, 'operator', 0] });
});

test(
  `exactly once on two provider nodes sharing PostgreSQL: ${ROUNDS} rounds and ${PAYOUTS} prizes through a faulty network, each node killed once and the operator once`,
  { skip: POSTGRES_UNAVAILABLE },
  async (t) => {
    const schema = await freshSchema('exactly_once');
    t.after(() => schema.drop());
    await provesExactlyOnce(t, { database: schema.url(), nodes: 2, kills: [0, 'operator', 1] });
  },
);
