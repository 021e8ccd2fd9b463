/**
 * Proves that building the provider's app has no side effects: it writes
 * nothing to the store (not even the config's campaigns) and starts no
 * timer. The server's start-up does that work, through
 * importConfigCampaigns (which writes the campaigns durably) and
 * startOutbox; the outbox runs one pass at a time, and once stopped it
 * has finished the pass in progress and starts no other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { importConfigCampaigns } from '../../src/provider/config-campaigns.js';
import { createGameService, type OutboxPass } from '../../src/provider/game-service.js';
import { startOutbox } from '../../src/provider/outbox.js';
import { buildProviderApp } from '../../src/provider/provider-app.js';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import { ProviderStore } from '../../src/provider/provider-store.js';
import { intervalsStartedBy, TestClock, tempDir } from '../helpers.js';
import { testConfigFile, testWorld } from './provider-helpers.js';

const CAMPAIGN_ID = '7d1c3a52-2d1e-4c55-9c1a-7f0e3c2b9a10';
/** The outbox's interval in the test (ms): short, so that passes come within milliseconds. */
const TEST_INTERVAL_MS = 5;
/** How long a test waits for a pass to come (ms): many intervals, on a loaded machine. */
const PASS_WAIT_MS = 5_000;


async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + PASS_WAIT_MS;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await sleep(TEST_INTERVAL_MS);
  }
}

test("building the app writes nothing, not even the config's campaigns, and starts no timer; the start-up writes them", async () => {
  const { dir, cleanup } = tempDir('wagerlink-provider-app-');
  const file = testConfigFile({ database: join(dir, 'provider.db') });
  file.campaigns = [{ id: CAMPAIGN_ID, operatorId: 'local-demo-operator', game: 'dice', currency: 'EUR', betAmount: '1', rounds: 5, players: ['alice'] }];
  const config = resolveProviderConfig(file);
  const store = ProviderStore.open(config.database);
  const other = new Database(config.database, { readonly: true });
  const world = testWorld(new TestClock());
  const games = createGameService({ config, store, world });
  try {
    const { value: app, started } = await intervalsStartedBy(() => buildProviderApp({ config, store, games, world }));
    try {
      assert.equal(started, 0, 'building started an interval');
      await store.durable();
      assert.equal(store.campaign(CAMPAIGN_ID), undefined);
      assert.equal(Number(other.prepare('SELECT count(*) FROM campaigns').pluck().get()), 0);

      // What `provider serve` runs before it listens: the campaign is written, durably.
      await importConfigCampaigns(config, store, world.clock());
      assert.deepEqual(store.campaign(CAMPAIGN_ID)?.players, ['alice']);
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

test('the outbox runs one pass at a time; stopped, it waits for the pass in progress and starts no other', async () => {
  let passes = 0;
  let running = 0;
  let release: (() => void) | undefined;
  const games = {
    resendLeftPending: async (): Promise<OutboxPass> => {
      passes++;
      running++;
      assert.equal(running, 1, 'one pass at a time');
      await new Promise<void>((resolve) => (release = resolve));
      running--;
      return { sessions: 0, finished: 0, stillPending: 0 };
    },
  };
  const logged: string[] = [];
  const log = { info: () => logged.push('info'), error: () => logged.push('error') };
  const outbox = startOutbox({ games, intervalMs: TEST_INTERVAL_MS, log });
  await until(() => passes === 1, 'the first pass began');
  // Many intervals go by while the pass runs: none starts another.
  await sleep(TEST_INTERVAL_MS * 10);
  assert.equal(passes, 1);
  release!();
  await until(() => passes === 2, 'the next pass began after the first ended');

  let stopped = false;
  const stopping = outbox.stop().then(() => (stopped = true));
  await sleep(TEST_INTERVAL_MS * 4);
  assert.equal(stopped, false, 'stop waits for the pass in progress');
  release!();
  await stopping;
  await sleep(TEST_INTERVAL_MS * 10);
  assert.equal(passes, 2, 'no pass after stop');
  // Passes that found nothing pending say nothing.
  assert.deepEqual(logged, []);
});
