/**
 * Proves that building the operator's app starts no work of its own, on
 * every backend: no timer, and no sampling of the process (prom-client's
 * default metrics start an event-loop monitor), so a built app's /metrics
 * holds the app's own series only. `operator serve` hands the app the
 * process metrics (serve-operator.ts). Registering the store's commit
 * listener is wiring, not work: the commit times still reach /metrics.
 * /metrics answers the metrics token (WAGERLINK_METRICS_TOKEN) and the admin
 * token, and refuses any other caller 401.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { request } from 'undici';
import {
  ACCESS_TOKEN,
  ADMIN_TOKEN,
  intervalsStartedBy,
  makeOperator,
  OPERATOR_BACKENDS,
  operatorServeEnv,
  playerWithSession,
  tempDir,
  transactionBody,
  tx,
  wallet,
} from '../helpers.js';
import { cleanEnv, freePort, startWagerlink } from '../harness/child-process.js';

for (const backend of OPERATOR_BACKENDS) {
  describe(`building the operator app (${backend.name})`, { skip: backend.unavailable }, () => {
    test('starts no timer and samples nothing of the process; its own series are all /metrics holds', async () => {
      const { value: op, started } = await intervalsStartedBy(() => makeOperator({ backend: backend.name }));
      try {
        assert.equal(started, 0, 'building started an interval');
        const p = await playerWithSession(op.app, { balance: 10 });
        assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]))).status, 200);
        const metrics = await op.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        assert.equal(metrics.statusCode, 200);
        assert.doesNotMatch(metrics.body, /^wagerlink_(?:process|nodejs)_/m);
        assert.match(metrics.body, /^wagerlink_ledger_transfers_total\{kind="bet",currency="EUR",integration="default"\} 1$/m);
        assert.match(metrics.body, /^wagerlink_store_commit_seconds_count \d+$/m);
      } finally {
        await op.close();
      }
    });
  });
}

const METRICS_TOKEN = 'test-metrics-token-of-a-scraper';

// The wiring is the server's, whatever the backend: one run on SQLite shows it.
test('`operator serve` hands its app the process metrics, read with the metrics or the admin token and by nobody else', async (t) => {
  const temp = tempDir('wagerlink-operator-app-');
  const port = await freePort();
  try {
    const { child } = await startWagerlink(['operator', 'serve'], {
      env: cleanEnv({ ...operatorServeEnv(port, join(temp.dir, 'operator.db')), WAGERLINK_METRICS_TOKEN: METRICS_TOKEN }),
      until: t,
    });
    // Turnover per currency is the business's own: not for whoever reaches the port.
    for (const authorization of [undefined, 'Bearer not-a-token', `Bearer ${ACCESS_TOKEN}`]) {
      const refused = await request(`http://127.0.0.1:${port}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
      assert.equal(refused.statusCode, 401, String(authorization));
      assert.equal(((await refused.body.json()) as { code: string }).code, 'INVALID_TOKEN');
    }
    const byAdmin = await request(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(byAdmin.statusCode, 200);
    await byAdmin.body.dump();
    const scraper = await request(`http://127.0.0.1:${port}/admin/players/alice`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(scraper.statusCode, 401, 'the metrics token opens nothing but /metrics');
    await scraper.body.dump();
    const metrics = await request(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(metrics.statusCode, 200);
    assert.equal(metrics.headers['cache-control'], 'no-store');
    const text = await metrics.body.text();
    assert.match(text, /^wagerlink_process_cpu_user_seconds_total /m);
    assert.match(text, /^# TYPE wagerlink_http_request_duration_seconds histogram$/m);
    await child.stop('SIGTERM');
  } finally {
    temp.cleanup();
  }
});
