/**
 * Proves that several provider nodes on one PostgreSQL database deliver
 * every round and prize once: two provider apps, each with its own pool,
 * game service and dispatcher, share one schema, against a real operator
 * listening on a socket. Launches are made on one node and opened on the
 * other; each player's rounds are played on both nodes in turn; each prize
 * is posted on both nodes. At the end, with nothing left in the outbox:
 * every round is settled and every prize paid; the operator received each
 * round's /transaction and each prize's /payout once (no two nodes claimed
 * one item); its ledger holds exactly the round log's bets and wins and the
 * payouts' credits, id by id; both nodes delivered; and each node's
 * round listeners heard every round once, whichever node finished it (so a
 * player waiting on one node wakes when the other delivers). Skipped,
 * saying so, without DATABASE_URL.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveProviderConfig, type ProviderConfig } from '../../src/provider/provider-config.js';
import { seedSealing } from '../../src/provider/seed-keyring.js';
import { openProviderStore } from '../../src/provider/store/open-provider-store.js';
import type { ProviderStore, RoundRow } from '../../src/provider/store/provider-store.js';
import { adminOverHttp, ledgerOf, makeOperator, type Operator } from '../helpers.js';
import { freshSchema, POSTGRES_UNAVAILABLE, type Schema } from '../stores/postgres-fixtures.js';
import { PROVIDER_TEST_POOL } from './store/backends.js';
import {
  adminCall,
  launchOf,
  OPERATOR_ID,
  operatorCall,
  pageCall,
  realClock,
  realLaunchBody,
  startProvider,
  testConfigFile,
  testWorld,
  type StartedProvider,
} from './provider-helpers.js';

const PLAYERS = 4;
/** Rounds each player plays, alternating nodes. */
const ROUNDS_PER_PLAYER = 12;
/** Prizes, each posted on both nodes. */
const PAYOUTS = 8;
const TOURNAMENT = '3b8e3c52-7f0a-4d0e-9d7e-5c2a1f6b9e10';
/** How long the outbox may take to empty (ms); generous for a loaded machine. */
const DRAIN_MS_MAX = 60_000;

interface Node {
  store: ProviderStore;
  started: StartedProvider;
  delivered: number;
  /** Times its store's round listeners heard each round, by pk. */
  heard: Map<number, number>;
}

let op: Operator;
let origin: string;
let schema: Schema;
let config: ProviderConfig;
const nodes: Node[] = [];
/** Requests the operator received, by the id that names them: a round's id, a payout's id. */
const received = new Map<string, number>();

before(async () => {
  if (POSTGRES_UNAVAILABLE) return;
  op = await makeOperator();
  op.app.addHook('preHandler', async (request) => {
    if (request.url !== '/transaction' && request.url !== '/payout') return;
    // The body is still the raw text the signature covers.
    const raw = request.body;
    const body = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw)) as { round?: { id?: string }; payoutId?: string };
    const id = request.url === '/transaction' ? body.round?.id : body.payoutId;
    if (id !== undefined) received.set(id, (received.get(id) ?? 0) + 1);
  });
  origin = await op.app.listen({ host: '127.0.0.1', port: 0 });
  schema = await freshSchema('provider_nodes');
  config = resolveProviderConfig(testConfigFile({ endpoint: origin, database: schema.url() }));
  for (let n = 0; n < 2; n++) {
    // The switch a node's config makes: a postgres:// database opens the PostgreSQL store, migrated once whichever node comes first.
    const store = await openProviderStore(config.database, {
      currencies: config.currencies,
      postgres: PROVIDER_TEST_POOL,
      seeds: seedSealing(config.seedKeys, randomBytes),
    });
    const started = await startProvider({ config, store, world: testWorld(realClock()), deliveryLimits: { idleMs: 10 } });
    const node: Node = { store, started, delivered: 0, heard: new Map() };
    store.onRoundFinished((round) => node.heard.set(round.pk, (node.heard.get(round.pk) ?? 0) + 1));
    started.delivery.dispatcher.onDelivery((delivery) => {
      if (delivery.applied && delivery.decision.kind === 'sent') node.delivered += 1;
    });
    nodes.push(node);
  }
});

after(async () => {
  for (const node of nodes) {
    await node.started.stop();
    await node.store.close();
  }
  await schema?.drop();
  await op?.close();
});

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
test('two provider nodes on one PostgreSQL database: launches, rounds and prizes on both, each delivered once', { skip: POSTGRES_UNAVAILABLE }, async () => {
  const [a, b] = nodes as [Node, Node];
  // Each player's game is launched on one node and opened on the other.
  const launches = await Promise.all(
    Array.from({ length: PLAYERS }, async (_, i) => {
      const playerId = `node-player-${i}`;
      const created = await adminOverHttp(origin, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 1_000, country: 'DE' });
      assert.equal(created.status, 201, created.text);
      const key = await adminOverHttp(origin, 'POST', '/admin/launch-keys', { playerId, game: 'dice' });
      assert.equal(key.status, 201, key.text);
      const [launcher, opener] = i % 2 === 0 ? [a, b] : [b, a];
      const launched = await operatorCall(launcher.started.app, '/generate-launch-url', realLaunchBody({ key: key.body.key }));
      assert.equal(launched.status, 200, launched.raw);
      const launch = launchOf(launched.body.url as string);
      const opened = await pageCall(opener.started.app, `${launch.path}/api/open`, { token: launch.token });
      assert.equal(opened.status, 200, opened.raw);
      return { playerId, launch };
    }),
  );

  // Each player's rounds, one after another, on the two nodes in turn; the players at once.
  const answers = new Map<number, number>();
  await Promise.all(
    launches.map(async ({ launch }, i) => {
      for (let n = 0; n < ROUNDS_PER_PLAYER;) {
        const node = nodes[(n + i) % 2]!;
        const answer = await pageCall(node.started.app, `${launch.path}/api/play`, { token: launch.token, bet: '1', chancePct: 50, clientSeed: `p${i}-${n}` });
        answers.set(answer.status, (answers.get(answer.status) ?? 0) + 1);
        // 200: settled; 202: written, still being delivered (perhaps by the other node). A 503 (the previous round not yet answered) writes nothing: again.
        if (answer.status === 200 || answer.status === 202) n++;
        else {
          assert.equal(answer.status, 503, answer.raw);
          await sleep(50);
        }
      }
    }),
  );

  // Each prize posted on one node and again on the other: one payout, one request.
  const posted: string[] = [];
  for (let k = 0; k < PAYOUTS; k++) {
    const payoutId = randomUUID();
    const body = { operatorId: OPERATOR_ID, playerId: `node-player-${k % PLAYERS}`, currency: 'EUR', amount: '2.50', campaignId: TOURNAMENT, payoutId };
    const [first, second] = k % 2 === 0 ? [a, b] : [b, a];
    const created = await adminCall(first.started.app, 'POST', '/admin/payouts', body);
    assert.equal(created.status, 202, created.raw);
    const again = await adminCall(second.started.app, 'POST', '/admin/payouts', body);
    assert.equal(again.status, 200, again.raw);
    assert.equal(again.body.outboxItemId, created.body.outboxItemId);
    posted.push(payoutId);
  }

  const deadline = Date.now() + DRAIN_MS_MAX;
  while ((await a.store.outbox.list({ status: 'pending', limit: 1 })).length > 0) {
    assert.ok(Date.now() < deadline, `the outbox still holds items ${DRAIN_MS_MAX} ms after the players stopped`);
    await sleep(50);
  }

  // The round log and the payouts, as either node reads them.
  const rounds: RoundRow[] = await b.store.listRounds(1_000);
  assert.equal(rounds.length, PLAYERS * ROUNDS_PER_PLAYER, `rounds logged (answers by status: ${JSON.stringify([...answers])})`);
  assert.deepEqual(
    rounds.filter((round) => round.status !== 'settled'),
    [],
    'every round is settled',
  );
  const { payouts } = await a.store.listPayouts(1_000);
  assert.deepEqual(new Set(payouts.map((payout) => payout.payoutId)), new Set(posted));
  assert.deepEqual(
    payouts.filter((payout) => payout.status !== 'paid'),
    [],
    'every prize is paid',
  );
  for (const id of [...rounds.map((round) => round.roundId), ...posted]) assert.equal(received.get(id), 1, `the operator received ${id} once`);
  assert.equal(received.size, rounds.length + posted.length, 'the operator received nothing else');
  assert.ok(a.delivered > 0 && b.delivered > 0, `both nodes delivered (${a.delivered}, ${b.delivered})`);

  // Each node heard every round finished, its own and the other's, once.
  for (const node of nodes) {
    while (node.heard.size < rounds.length) {
      assert.ok(Date.now() < deadline, `a node heard ${node.heard.size} of ${rounds.length} rounds finished`);
      await sleep(20);
    }
    assert.deepEqual(
      [...node.heard.keys()].sort((x, y) => x - y),
      rounds.map((round) => round.pk).sort((x, y) => x - y),
    );
    assert.deepEqual(
      [...node.heard.values()].filter((times) => times !== 1),
      [],
      'each round heard once',
    );
  }

  // The operator's ledger is the round log and the payouts, id by id, each once.
  const expected = new Map<string, { kind: string; minor: bigint }>();
  for (const round of rounds) {
    expected.set(round.betTxId!, { kind: 'bet', minor: round.betMinor });
    expected.set(round.winTxId!, { kind: 'win', minor: round.winMinor });
  }
  for (const payout of payouts) expected.set(payout.payoutId, { kind: 'payout', minor: payout.amountMinor });
  const getOperator = async (url: string) => {
    const answer = await adminOverHttp(origin, 'GET', url);
    return { status: answer.status, text: answer.text };
  };
  const booked = new Map<string, { kind: string; minor: bigint }>();
  for (const { playerId } of launches) {
    for (const item of await ledgerOf(getOperator, playerId)) {
      if (item.kind === 'deposit') continue;
      assert.ok(!booked.has(item.id), `the operator booked ${item.id} once`);
      booked.set(item.id, { kind: item.kind, minor: BigInt(Math.round(Number(item.amount) * 100)) });
    }
  }
  assert.equal(booked.size, expected.size, 'the ledger holds as many transactions as the provider sent');
  for (const [id, entry] of expected) assert.deepEqual(booked.get(id), entry, `transaction ${id}`);
});
