/**
 * Proves that the conformance kit passes our provider, through real
 * sockets: every provider case is judged and passes, the rotation cases
 * and those of a second and third currency included, and the launch URLs
 * it answers open the game page. Without a next secret or with one
 * currency, the cases that need them are skipped, saying why, and the rest
 * still pass.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PROVIDER_CASES } from '../../src/conformance/provider/index.js';
import { runProviderConformance } from '../../src/conformance/provider-runner.js';
import { RunReport } from '../../src/conformance/report.js';
import { compile } from '../../src/protocol/validate.js';
import { failedIds, shown } from './kit-helpers.js';
import { listeningProvider, providerTarget } from './provider-kit-helpers.js';

/** The kit checks a provider with at least this many cases (docs/conformance.md, issue text). */
const CASES_MIN = 30;
const reportCheck = compile(RunReport);

describe('the conformance kit against our provider', () => {
  test('every provider case is judged and passes, through real sockets', async () => {
    const server = await listeningProvider();
    try {
      const report = await runProviderConformance({ target: providerTarget(server.origin) });
      assert.ok(reportCheck.check(report).ok, 'the report keeps its schema');
      assert.equal(report.side, 'provider');
      assert.equal(report.summary.total, PROVIDER_CASES.length);
      assert.ok(report.summary.total >= CASES_MIN, `${report.summary.total} cases`);
      assert.deepEqual(failedIds(report), [], shown(report));
      assert.equal(report.summary.skipped, 0, shown(report));
    } finally {
      await server.close();
    }
  });

  test('without a next secret and with one currency, the cases that need them are skipped, saying why; the rest pass', async () => {
    const server = await listeningProvider();
    try {
      const report = await runProviderConformance({ target: providerTarget(server.origin, { nextSecret: undefined, currencies: ['EUR'] }) });
      assert.deepEqual(failedIds(report), [], shown(report));
      const skipped = report.cases.filter((each) => each.outcome === 'skipped');
      assert.deepEqual(skipped.map((each) => each.id).sort(), ['auth.next-secret-bets', 'auth.next-secret-launch', 'game-bets.ladder-currency-2', 'game-bets.ladder-currency-3']);
      for (const each of skipped) assert.match(each.reason ?? '', /^needs /);
    } finally {
      await server.close();
    }
  });
});
