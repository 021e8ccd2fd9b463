/**
 * Proves when the sweep completing interrupted rounds (round-completion.ts)
 * runs, with a stand-in store holding only the rounds' start times (the
 * sweep's work on real stores is proved in reels-rounds.test.ts and
 * store/reels-postgres-nodes.test.ts), the test's clock and timers the test
 * fires itself:
 * - it sweeps at once when started, then when the oldest unfinished round
 *   is due, within its shortest and longest waits, the longest when none
 *   is unfinished or the sweep failed;
 * - a round added due before the sweep set brings it forward, one due
 *   later does not, and one added while a sweep runs is not missed;
 * - nothing is set before it starts or once it stops;
 * - an outage of the database is told once when sweeps start failing and
 *   once when they work again, and the sweeps after it run as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMPLETION_SWEEP_MS_MAX, COMPLETION_SWEEP_MS_MIN, RoundCompletion, type SweepTimers } from '../../src/provider/round-completion.js';
import { testTimers } from './sweep-timers.js';
import type { ProviderStore } from '../../src/provider/store/provider-store.js';
import { TestClock } from '../helpers.js';
import { TEST_KEYRING } from './store/store-fixtures.js';

const COMPLETION_MS = 5_000;

async function until(what: string, done: () => boolean, msMax = 20_000): Promise<void> {
  const deadline = Date.now() + msMax;
  while (!done()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A store of unfinished rounds known by their start alone: a sweep finds none due unless the test makes one so. */
function startTimes(createdAts: number[]): ProviderStore & { createdAts: number[]; reads: number } {
  const store = {
    createdAts,
    reads: 0,
    unfinishedFeatures: async (startedBefore: number, limit: number) => {
      store.reads += 1;
      return [...store.createdAts]
        .sort((a, b) => a - b)
        .filter((at) => at <= startedBefore)
        .slice(0, limit)
        .map((createdAt) => ({ createdAt }));
    },
  };
  return store as unknown as ProviderStore & { createdAts: number[]; reads: number };
}

function completionOn(store: ProviderStore, clock: TestClock, timers: SweepTimers): RoundCompletion {
  return new RoundCompletion({ store, keyring: TEST_KEYRING, roundCompletionMs: COMPLETION_MS, clock: () => clock.now, timers });
}

test('it sweeps at once, then when the oldest unfinished round is due; with none, after the longest wait', async () => {
  const clock = new TestClock();
  const timers = testTimers();
  const store = startTimes([clock.now - 1_000]);
  const completion = completionOn(store, clock, timers);
  completion.start();
  assert.deepEqual(timers.waits, [0], 'the first sweep at once: rounds may have come due while the node was down');
  assert.equal(await timers.fire(), COMPLETION_MS - 1_000, 'set for the round that is due first');
  store.createdAts = [];
  assert.equal(await timers.fire(), COMPLETION_SWEEP_MS_MAX, 'its player played it out: nothing is due, the longest wait');
  // Due already, yet left unfinished by a sweep (its player was playing a spin at that moment): looked at again soon, not in a loop.
  store.createdAts = [clock.now - COMPLETION_MS - 1];
  assert.equal(await completion.nextSweepMs(), COMPLETION_SWEEP_MS_MIN);
  // Due sooner than the shortest wait: it waits for that.
  store.createdAts = [clock.now - COMPLETION_MS + 10];
  assert.equal(await completion.nextSweepMs(), COMPLETION_SWEEP_MS_MIN);
  await completion.stop();
});

test('a round added due before the sweep set brings it forward; one due later does not; none is set before start or after stop', async () => {
  const clock = new TestClock();
  const timers = testTimers();
  const store = startTimes([]);
  const completion = completionOn(store, clock, timers);
  completion.roundAdded(clock.now);
  assert.deepEqual(timers.waits, [], 'not started: nothing is set');
  completion.start();
  assert.equal(await timers.fire(), COMPLETION_SWEEP_MS_MAX);
  clock.advance(100);
  completion.roundAdded(clock.now);
  assert.equal(timers.waits.at(-1), COMPLETION_MS, 'set for the new round');
  clock.advance(100);
  completion.roundAdded(clock.now);
  assert.equal(timers.waits.length, 3, 'a round due after the one set changes nothing');
  await completion.stop();
  assert.equal(timers.armed, false, 'stopping clears what was set');
  completion.roundAdded(clock.now);
  assert.equal(timers.armed, false, 'stopped: nothing is set');
});

test('a round added while a sweep runs is not missed: the sweep sets the next for it', async () => {
  const clock = new TestClock();
  const timers = testTimers();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const plain = startTimes([]);
  let sweeping!: () => void;
  const underWay = new Promise<void>((resolve) => (sweeping = resolve));
  // The sweep's first read waits on the test: the round is written meanwhile, after the read that would find it.
  const store = {
    unfinishedFeatures: async (startedBefore: number, limit: number) => {
      if (plain.reads === 0) {
        sweeping();
        await gate;
      }
      return plain.unfinishedFeatures(startedBefore, limit);
    },
  } as unknown as ProviderStore;
  const completion = completionOn(store, clock, timers);
  completion.start();
  const fired = timers.fire();
  await underWay;
  completion.roundAdded(clock.now);
  release();
  assert.equal(await fired, COMPLETION_SWEEP_MS_MAX, 'the sweep read no round');
  assert.equal(timers.waits.at(-1), COMPLETION_MS, 'then set the next for the one added meanwhile');
  await completion.stop();
});

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
    sweepMsMin: 0,
    sweepMsMax: 2,
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
