/**
 * Proves the bench's rule for runs the host took the CPU from: a run over
 * the share is set aside and measured again, at most so many times, and the
 * last attempt is kept whatever its steal; no /proc (NaN) keeps the run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { measureRun, STEAL_RETRIES, STEAL_SET_ASIDE_SHARE } from '../../bench/steal.js';
import type { RunResult } from '../../bench/postgres-rows.js';

function run(requestsPerSecond: number, steal: number): RunResult {
  return {
    requestsPerSecond,
    p50Ms: 1,
    p90Ms: 2,
    p99Ms: 3,
    statuses: {},
    loadCpuSeconds: 1,
    serverCpuUs: 100,
    databaseCpuUs: 0,
    machineIdleShare: 0.2,
    machineStealShare: steal,
    serverQueuedShare: 0.1,
    busiestThreadShare: 0.5,
  };
}

function attempts(...results: RunResult[]): { attempt: () => Promise<RunResult>; made: () => number } {
  let made = 0;
  return { attempt: async () => results[made++]!, made: () => made };
}

test('a run with more steal than the share is set aside and measured again; the first quiet one is kept', async () => {
  const lines: string[] = [];
  const setAside: RunResult[] = [];
  const { attempt, made } = attempts(run(1, 0.1), run(2, STEAL_SET_ASIDE_SHARE), run(3, 0));
  const kept = await measureRun('row', attempt, { retries: STEAL_RETRIES, log: (line) => lines.push(line) }, setAside);
  assert.equal(kept.requestsPerSecond, 2, 'a run at the share itself is kept');
  assert.equal(made(), 2);
  assert.deepEqual(
    setAside.map((r) => r.requestsPerSecond),
    [1],
  );
  assert.match(lines[0]!, /^row: the host took 10\.0% of the CPU during that run \(steal\); it is set aside and measured again$/);
});

test('after the retries the last attempt is kept whatever its steal, and no retries means the first', async () => {
  const setAside: RunResult[] = [];
  const noisy = attempts(run(1, 0.2), run(2, 0.3), run(3, 0.25), run(4, 0));
  const kept = await measureRun('row', noisy.attempt, { retries: 2, log: () => {} }, setAside);
  assert.equal(kept.requestsPerSecond, 3);
  assert.equal(noisy.made(), 3);
  assert.equal(setAside.length, 2);

  const smoke = attempts(run(1, 0.5), run(2, 0));
  assert.equal((await measureRun('row', smoke.attempt, { retries: 0, log: () => {} }, [])).requestsPerSecond, 1);
  assert.equal(smoke.made(), 1);
});

test('a run whose steal was not measured (no /proc) is kept', async () => {
  const setAside: RunResult[] = [];
  const kept = await measureRun('row', attempts(run(1, Number.NaN), run(2, 0)).attempt, { retries: 2, log: () => {} }, setAside);
  assert.equal(kept.requestsPerSecond, 1);
  assert.equal(setAside.length, 0);
});
