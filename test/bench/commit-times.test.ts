/** The slow commits of a row, read from the wallet's /metrics text. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commitTimes } from '../../bench/commit-times.js';
import { COMMIT_BUCKETS_S, OperatorMetrics } from '../../src/operator/metrics.js';

test('commits over 100 ms are counted from the histogram, the others are not', async () => {
  const metrics = new OperatorMetrics({ processMetrics: false });
  for (const seconds of [0.0002, 0.003, 0.099, 0.1, 0.25, 4]) metrics.observeCommit(seconds);
  assert.ok(COMMIT_BUCKETS_S.includes(0.1), 'the histogram has a bound at 100 ms');
  assert.deepEqual(commitTimes(await metrics.registry.metrics()), { commits: 6, slow: 2 });
});

test('a store that does not time its commits reports none', async () => {
  const metrics = new OperatorMetrics({ processMetrics: false });
  assert.deepEqual(commitTimes(await metrics.registry.metrics()), { commits: 0, slow: 0 });
  assert.equal(commitTimes('wagerlink_http_request_duration_seconds_count 3\n'), undefined);
});
