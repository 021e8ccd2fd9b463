/**
 * Proves that the sweep completing interrupted rounds (round-completion.ts)
 * lives through an outage of its database: each failed sweep is followed by
 * the next, the outage is told once at its start (not once per sweep) and
 * once at its end, and the sweeps after it run as before. The store is a
 * stand-in with the one read a sweep that finds nothing due makes; the
 * sweep's work on real stores is proved in reels-rounds.test.ts and
 * store/reels-postgres-nodes.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RoundCompletion } from '../../src/provider/round-completion.js';
import type { ProviderStore } from '../../src/provider/store/provider-store.js';
import { TEST_KEYRING } from './store/store-fixtures.js';

async function until(what: string, done: () => boolean, msMax = 20_000): Promise<void> {
  const deadline = Date.now() + msMax;
  while (!done()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('an outage of the database is told once when sweeps start failing and once when they work again', async () => {
  let down = true;
  let sweeps = 0;
  const store = {
    unfinishedFeatures: async () => {
      sweeps += 1;
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      return [];
    },
  } as unknown as ProviderStore;
  const errors: unknown[] = [];
  const recoveries: number[] = [];
  const completion = new RoundCompletion({
    store,
    keyring: TEST_KEYRING,
    roundCompletionMs: 600_000,
    clock: () => Date.now(),
    sweepMs: 2,
    onError: (error) => errors.push(error),
    onRecovered: (failedSweeps) => recoveries.push(failedSweeps),
  });
  completion.start();
  try {
    await until('five sweeps have failed', () => sweeps >= 5);
    assert.equal(errors.length, 1, 'one report for the outage, not one per sweep');
    assert.match((errors[0] as Error).message, /ECONNREFUSED/);
    assert.deepEqual(recoveries, []);
    down = false;
    await until('the sweeps work again', () => recoveries.length === 1);
    const failed = recoveries[0]!;
    assert.ok(failed >= 5, `${failed} failed sweeps counted`);
    const after = sweeps;
    await until('three more sweeps have run', () => sweeps >= after + 3);
    assert.equal(errors.length, 1);
    assert.equal(recoveries.length, 1, 'told once');
  } finally {
    await completion.stop();
  }
});
