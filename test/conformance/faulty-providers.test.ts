/**
 * Proves that the provider's cases catch what they are meant to: against a
 * provider that breaks one rule (faulty-providers.ts), the cases of that
 * rule fail, with a problem that names it, and a run against our provider
 * through a proxy that breaks nothing passes every case (so the failures
 * are the fault's, not the proxy's).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LAUNCHED } from '../../src/conformance/provider/define.js';
import { PROVIDER_CASES } from '../../src/conformance/provider/index.js';
import { runProviderConformance } from '../../src/conformance/provider-runner.js';
import type { RunReport } from '../../src/conformance/report.js';
import { faultyProvider, type ProviderFault } from './faulty-providers.js';
import { failedIds, shown } from './kit-helpers.js';
import { listeningProvider, providerTarget, type ListeningProvider } from './provider-kit-helpers.js';

let server: ListeningProvider;
before(async () => {
  server = await listeningProvider();
});
after(async () => {
  await server?.close();
});

async function runThrough(fault: ProviderFault): Promise<RunReport> {
  const proxy = await faultyProvider(server.origin, fault);
  try {
    return await runProviderConformance({ target: providerTarget(proxy.origin) });
  } finally {
    await proxy.close();
  }
}

function problemsOf(report: RunReport, id: string): string {
  return report.cases.find((each) => each.id === id)?.failure?.problems.join('\n') ?? '';
}

/** The cases that expect a refusal and run from a whitelisted address (a run from outside checks the others). */
const refusals = PROVIDER_CASES.filter(
  (each) => !each.needs.includes('outside-whitelist') && each.steps.some((step) => step.kind === 'call' && step.expect.status !== 200),
).map((each) => each.id);

describe('faulty providers fail the cases meant to catch them', () => {
  test('a signature not checked fails every case of a bad signature', async () => {
    const report = await runThrough('signature-unchecked');
    const failed = failedIds(report);
    for (const id of [
      'auth.signature-missing-launch',
      'auth.signature-missing-bets',
      'auth.signature-wrong-secret-launch',
      'auth.signature-wrong-secret-bets',
      'auth.signature-other-bytes',
      'auth.signature-tampered',
      'auth.signature-upper-case',
      'auth.signature-prefixed',
      'auth.unsigned-not-json',
    ]) {
      assert.ok(failed.includes(id), `${id} should fail:\n${shown(report)}`);
    }
    assert.match(problemsOf(report, 'auth.signature-missing-bets'), /expected 401 INVALID_SIGNATURE, got 200/);
    assert.ok(
      failed.every((id) => id.startsWith('auth.')),
      `only the signature's cases fail: ${failed.join(', ')}`,
    );
  });

  test('ladders written with two decimals fail the exactness of amounts', async () => {
    const report = await runThrough('rounded-amounts');
    assert.deepEqual(
      failedIds(report).sort(),
      ['game-bets.ladder-currency-1', 'game-bets.ladder-currency-2', 'game-bets.ladder-currency-3', 'game-bets.ladders', 'game-bets.repeated'],
      shown(report),
    );
    assert.match(problemsOf(report, 'game-bets.ladder-currency-1'), /0\.10 is not written exactly/);
    assert.match(problemsOf(report, 'game-bets.ladder-currency-3'), /BTC: 0\.00 is not an amount of BTC greater than 0/);
  });

  test('refusals that are not problem+json fail every case that expects a refusal, and only those', async () => {
    const report = await runThrough('plain-errors');
    assert.deepEqual(failedIds(report).sort(), [...refusals].sort(), shown(report));
    assert.match(problemsOf(report, 'game-bets.unknown-wallet'), /expected 404 WALLET_NOT_FOUND, got 400/);
    assert.match(problemsOf(report, 'validation.not-json-bets'), /a refusal must be application\/problem\+json/);
  });

  test('a launch URL without its origin fails every case that launches and judges the URL', async () => {
    const report = await runThrough('relative-url');
    const launches = PROVIDER_CASES.filter((each) =>
      each.steps.some((step) => step.kind === 'call' && step.endpoint === '/generate-launch-url' && step.expect === LAUNCHED),
    ).map((each) => each.id);
    assert.ok(launches.length >= 5, launches.join(', '));
    assert.deepEqual(failedIds(report).sort(), launches.sort(), shown(report));
    assert.match(problemsOf(report, 'launch-url.real'), /is not an absolute URL/);
  });

  test("a launch's currency never looked at fails the case of a currency the game has no bets in, and only it", async () => {
    const report = await runThrough('currency-ignored');
    assert.deepEqual(failedIds(report), ['launch-url.currency-unoffered'], shown(report));
    assert.match(problemsOf(report, 'launch-url.currency-unoffered'), /expected 422 UNSUPPORTED_CURRENCY, got 200/);
  });
});
