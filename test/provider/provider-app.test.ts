/**
 * Proves that building the provider's app has no side effects: it writes
 * nothing to the store (not even the config's campaigns) and starts no
 * timer. The server's start-up does that work, through
 * importConfigCampaigns (which writes the campaigns durably) and the
 * delivery of rounds: built, it sends nothing; started, it delivers a round
 * enqueued before; stopped, it has recorded the answer of the send in
 * flight and sends no more.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Agent, MockAgent } from 'undici';
import { REAL_CLIENT_WORLD } from '../../src/clients/http-call.js';
import { importConfigCampaigns } from '../../src/provider/config-campaigns.js';
import { createGameService } from '../../src/provider/game-service.js';
import { buildProviderApp } from '../../src/provider/provider-app.js';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import type { RoundRow } from '../../src/provider/store/provider-store.js';
import { SqliteProviderStore } from '../../src/provider/store/sqlite/provider-store.js';
import { createRoundDelivery } from '../../src/provider/round-delivery.js';
import { intervalsStartedBy, TestClock, tempDir } from '../helpers.js';
import { testConfigFile, testWorld } from './provider-helpers.js';
import { begun, realRound, realSession, SEED, sealedNext } from './store/store-fixtures.js';

const CAMPAIGN_ID = '7d1c3a52-2d1e-4c55-9c1a-7f0e3c2b9a10';
/** The delivery's wait between claims in the test (ms): short, so that claims come within milliseconds. */
const IDLE_MS = 5;
/** How long the test looks for a send that must not come (ms): many idle waits. */
const QUIET_MS = 200;
/** How long the test waits for a send that must come (ms), on a loaded machine. */
const STATE_WAIT_MS = 5_000;
/** How long the operator takes to answer (ms): the stop comes while the send is in flight. */
const ANSWER_DELAY_MS = 300;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + STATE_WAIT_MS;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await sleep(IDLE_MS);
  }
}

test("building the app writes nothing, not even the config's campaigns, and starts no timer; the start-up writes them", async () => {
  const { dir, cleanup } = tempDir('wagerlink-provider-app-');
  const file = testConfigFile({ database: join(dir, 'provider.db') });
  file.campaigns = [{ id: CAMPAIGN_ID, operatorId: 'local-demo-operator', game: 'dice', currency: 'EUR', betAmount: '1', rounds: 5, players: ['alice'] }];
  const config = resolveProviderConfig(file);
  const store = SqliteProviderStore.open(config.database);
  const other = new Database(config.database, { readonly: true });
  const world = testWorld(new TestClock());
  const games = createGameService({ config, store, world });
  try {
    const { value: app, started } = await intervalsStartedBy(() => buildProviderApp({ config, store, games, world }));
    try {
      assert.equal(started, 0, 'building started an interval');
      await store.durable();
      assert.equal(await store.campaign(CAMPAIGN_ID), undefined);
      assert.equal(Number(other.prepare('SELECT count(*) FROM campaigns').pluck().get()), 0);

      // What `provider serve` runs before it listens: the campaign is written, durably.
      await importConfigCampaigns(config, store, world.clock());
      assert.deepEqual((await store.campaign(CAMPAIGN_ID))?.players, ['alice']);
      assert.equal(Number(other.prepare('SELECT count(*) FROM campaigns').pluck().get()), 1);
      // Started again on the same database, the same campaign is no conflict.
      await importConfigCampaigns(config, store, world.clock());
    } finally {
      await app.close();
    }
  } finally {
    await games.close();
    other.close();
    await store.close();
    cleanup();
  }
});

test('the delivery of rounds: built, it sends nothing; started, it sends; stopped, it has recorded the send in flight and sends no more', async () => {
  const { dir, cleanup } = tempDir('wagerlink-provider-app-');
  const origin = 'http://operator.test';
  const config = resolveProviderConfig(testConfigFile({ database: join(dir, 'provider.db'), endpoint: origin }));
  const store = SqliteProviderStore.open(config.database, { currencies: config.currencies });
  const agent = new MockAgent();
  agent.disableNetConnect();
  const sent: string[] = [];
  agent
    .get(origin)
    .intercept({ path: '/transaction', method: 'POST' })
    .reply(() => {
      sent.push('sent');
      return { statusCode: 200, data: '{"balance":5}', responseOptions: { headers: { 'content-type': 'application/json' } } };
    })
    .delay(ANSWER_DELAY_MS)
    .persist();
  const session = await realSession(store, { operatorId: config.operators[0]!.operatorId, now: Date.now() });
  const round = async (nonce: number): Promise<RoundRow> => begun(await store.beginRealRound(realRound(session, nonce, Date.now()), sealedNext(SEED)));
  const delivery = createRoundDelivery({ config, store, dispatcher: agent, world: REAL_CLIENT_WORLD, limits: { idleMs: IDLE_MS } });
  try {
    const first = await round(0);
    await store.durable();
    delivery.poke();
    await sleep(QUIET_MS);
    assert.deepEqual(sent, [], 'built, not started: nothing is sent');

    delivery.start();
    await until(() => sent.length === 1, 'the round is sent');
    // Stopped while the operator has not answered yet: the stop waits for the answer and records it.
    await delivery.stop();
    assert.equal((await store.round(first.pk)).status, 'settled');
    assert.equal((await store.round(first.pk)).balanceAfterMinor, 500n);

    const second = await round(1);
    await store.durable();
    delivery.poke();
    await sleep(QUIET_MS);
    assert.equal(sent.length, 1, 'stopped: nothing more is sent');
    assert.equal((await store.round(second.pk)).status, 'pending');
  } finally {
    await delivery.stop();
    await store.close();
    await agent.close();
    cleanup();
  }
});

test("the delivery of rounds keeps at most the config's limits.operatorInFlightMax requests to one operator in flight", async () => {
  // An operator that answers only when the test lets it: the requests in flight are the ones it holds.
  const held: ServerResponse[] = [];
  let sent = 0;
  const arrivals: (() => void)[] = [];
  const operator = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      sent++;
      held.push(res);
      arrivals.splice(0).forEach((wake) => wake());
    });
  });
  operator.listen(0, '127.0.0.1');
  await once(operator, 'listening');
  const origin = `http://127.0.0.1:${(operator.address() as AddressInfo).port}`;
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":5}');
  const sentReaches = async (count: number) => {
    while (sent < count) await new Promise<void>((resolve) => arrivals.push(resolve));
  };
  const { dir, cleanup } = tempDir('wagerlink-provider-app-');
  const file = testConfigFile({ database: join(dir, 'provider.db'), endpoint: origin });
  file.limits = { ...(file.limits as object), operatorInFlightMax: 2 };
  const config = resolveProviderConfig(file);
  assert.equal(config.limits.operatorInFlightMax, 2);
  const store = SqliteProviderStore.open(config.database, { currencies: config.currencies });
  const agent = new Agent();
  // Each idle wait of the delivery's loop is a turn, counted: the test looks for a third request over many turns, not over a time.
  let turns = 0;
  const turnWaiters: (() => void)[] = [];
  const world = {
    ...REAL_CLIENT_WORLD,
    sleep: (ms: number) => {
      turns++;
      turnWaiters.splice(0).forEach((wake) => wake());
      return REAL_CLIENT_WORLD.sleep(ms);
    },
  };
  const afterTurns = async (count: number) => {
    const target = turns + count;
    while (turns < target) await new Promise<void>((resolve) => turnWaiters.push(resolve));
  };
  const session = await realSession(store, { operatorId: config.operators[0]!.operatorId, now: Date.now() });
  const delivery = createRoundDelivery({ config, store, dispatcher: agent, world, limits: { idleMs: IDLE_MS } });
  try {
    // Six rounds, each its own ordering key: only the operator's limit holds them back.
    const rounds: RoundRow[] = [];
    for (let nonce = 0; nonce < 6; nonce++) rounds.push(begun(await store.beginRealRound(realRound(session, nonce, Date.now()), sealedNext(SEED))));
    await store.durable();
    delivery.start();
    await sentReaches(2);
    await afterTurns(20);
    assert.equal(sent, 2, 'no third request while two are unanswered');
    // Each answer lets one more go, never two.
    for (let answered = 1; answered <= 4; answered++) {
      answer(held.shift()!);
      await sentReaches(2 + answered);
      await afterTurns(20);
      assert.equal(sent, 2 + answered, `one more request after answer ${answered}`);
    }
    held.splice(0).forEach(answer);
    await delivery.stop();
    for (const round of rounds) assert.equal((await store.round(round.pk)).status, 'settled');
  } finally {
    held.splice(0).forEach(answer);
    await delivery.stop();
    await store.close();
    await agent.close();
    operator.close();
    cleanup();
  }
});
