/**
 * The targets a bench run is judged by: each from the rows it needs, left
 * out when they were not run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeTargets, verdictLines } from '../../bench/targets.js';

const row = (requestsPerSecond: number, p99Ms = 10) => ({ requestsPerSecond, p99Ms });

test('every target is judged from its rows, at its bound included', () => {
  const verdicts = judgeTargets({
    ceiling: row(10_000, 10),
    'wallet, single bet': row(8_000, 15),
    'wallet, grown ledger': row(6_000),
    'end to end, dice rounds': row(4_000),
    'end to end, reels rounds': row(3_999),
    'pgbench tpcb-like': row(3_000),
    'postgres, single bet, 1 node': row(5_700),
  });
  assert.deepEqual(
    verdicts.map((v) => [v.target, Number(v.measured.toFixed(4)), v.met]),
    [
      ['single bet >= 0.8 x ceiling', 0.8, true],
      ["single bet p99 <= 1.5 x ceiling's", 1.5, true],
      ['grown ledger >= 0.8 x empty', 0.75, false],
      ['end to end, dice rounds >= 0.5 x single bet', 0.5, true],
      ['end to end, reels rounds >= 0.5 x single bet', 0.4999, false],
      ['postgres 1 node >= 2 x pgbench tpcb-like', 1.9, false],
    ],
  );
  assert.deepEqual(verdictLines(verdicts.slice(2)), [
    'target: grown ledger >= 0.8 x empty: 0.75, not met',
    'target: end to end, dice rounds >= 0.5 x single bet: 0.50, met',
    'target: end to end, reels rounds >= 0.5 x single bet: 0.50, not met',
    'target: postgres 1 node >= 2 x pgbench tpcb-like: 1.90, not met',
  ]);
});

test('a slower single bet or a longer tail misses', () => {
  const [share, p99] = judgeTargets({ ceiling: row(10_000, 10), 'wallet, single bet': row(7_999, 15.01) });
  assert.equal(share!.met, false);
  assert.equal(p99!.met, false);
});

test('targets whose rows did not run are left out', () => {
  assert.deepEqual(judgeTargets({ ceiling: row(10_000) }), []);
  // PostgreSQL without pgbench (`--rows "1 node"`): nothing to compare with.
  assert.deepEqual(judgeTargets({ ceiling: row(10_000), 'postgres, single bet, 1 node': row(5_000) }), []);
  // An end-to-end row without the single bet (`--rows dice`).
  assert.deepEqual(judgeTargets({ ceiling: row(10_000), 'end to end, dice rounds': row(1_000) }), []);
});

test("the single bet from several integrations costs at most 1.1 x one integration's CPU per request, at its bound included", () => {
  const judged = (singleUs: number, studiosUs: number) =>
    judgeTargets({ 'wallet, single bet': { ...row(8_000), serverCpuUs: singleUs }, 'wallet, 4 integrations': { ...row(7_000), serverCpuUs: studiosUs } });
  const [met] = judged(100, 110);
  assert.deepEqual([met!.target, Number(met!.measured.toFixed(4)), met!.met], ["wallet, 4 integrations CPU per request <= 1.1 x single bet's", 1.1, true]);
  assert.equal(judged(100, 110.5)[0]!.met, false);
  // Not measured (no /proc): left out, as a row that did not run is.
  assert.deepEqual(judged(Number.NaN, 110), []);
});
