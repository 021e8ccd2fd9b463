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
import { listeningProvider, OUTSIDE_WHITELIST_CASES, providerTarget } from './provider-kit-helpers.js';

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
      // Only a second run from outside the whitelist checks its refusal (the next test).
      const skipped = report.cases.filter((each) => each.outcome === 'skipped');
      assert.deepEqual(
        skipped.map((each) => each.id),
        OUTSIDE_WHITELIST_CASES,
        shown(report),
      );
      for (const each of skipped) assert.match(each.reason ?? '', /--outside-whitelist/);
    } finally {
      await server.close();
    }
  });

  test('from an address the whitelist does not admit, the refusal is checked and passes, /game-bets still answers, and the other launch cases are skipped, saying why', async () => {
    // The demo operator admits only another address: the kit's own (127.0.0.1) is outside.
    const server = await listeningProvider({ whitelist: ['192.0.2.10'] });
    try {
      const report = await runProviderConformance({ target: providerTarget(server.origin, { outsideWhitelist: true }) });
      assert.deepEqual(failedIds(report), [], shown(report));
      const passed = new Set(report.cases.filter((each) => each.outcome === 'passed').map((each) => each.id));
      for (const id of OUTSIDE_WHITELIST_CASES) assert.ok(passed.has(id), `${id} passed`);
      assert.ok(passed.has('game-bets.ladder-currency-3'), 'the /game-bets cases run from outside too');
      const launching = PROVIDER_CASES.filter(
        (each) => !OUTSIDE_WHITELIST_CASES.includes(each.id) && each.steps.some((step) => step.kind === 'call' && step.endpoint === '/generate-launch-url'),
      );
      assert.ok(launching.length >= 20);
      for (const each of launching) {
        const result = report.cases.find((one) => one.id === each.id)!;
        assert.equal(result.outcome, 'skipped', each.id);
        assert.match(result.reason ?? '', /whitelisted address/);
      }
    } finally {
      await server.close();
    }
  });

  test('a provider that admits the kit fails the refusal cases of a run that says it calls from outside', async () => {
    const server = await listeningProvider();
    try {
      const report = await runProviderConformance({
        target: providerTarget(server.origin, { outsideWhitelist: true }),
        only: ['ip-whitelist.refused-outside'],
      });
      assert.deepEqual(failedIds(report), ['ip-whitelist.refused-outside'], shown(report));
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
      assert.deepEqual(
        skipped.map((each) => each.id).sort(),
        ['auth.next-secret-bets', 'auth.next-secret-launch', 'game-bets.ladder-currency-2', 'game-bets.ladder-currency-3', ...OUTSIDE_WHITELIST_CASES].sort(),
      );
      for (const each of skipped) assert.match(each.reason ?? '', /^needs /);
    } finally {
      await server.close();
    }
  });
});
