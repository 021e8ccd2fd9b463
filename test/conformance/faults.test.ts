/**
 * Proves that the kit catches operators that break the interface: each of
 * seven faulty operators (our operator behind a proxy that breaks one rule)
 * makes the run fail, and fails the very cases written to catch that fault.
 * And that no case is vacuous: each fails against one of two trivial
 * operators, one that answers 200 to everything and one that refuses
 * everything, since a check that passes both checks nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATOR_CASES } from '../../src/conformance/operator/index.js';
import { runOperatorConformance } from '../../src/conformance/operator-runner.js';
import { faultyProxy, trivialOperator, type Fault } from './faulty-operators.js';
import { backOfficeRun, failedIds, GAMES, listeningOperator, shown, type ListeningOperator } from './kit-helpers.js';

/** The cases written to catch each fault: every one of them must fail. */
const CAUGHT_BY: Readonly<Record<Fault, readonly string[]>> = {
  'debit-twice': [
    'idempotency.replay-not-applied',
    'idempotency.replay-answers-current-balance',
    'idempotency.replay-ids-any-case',
    'idempotency.replay-amount-by-value',
    'idempotency.seen-and-new',
    'idempotency.final-beside-booked',
    'payouts.replay-once',
    'rounds.closing-request-replayed',
    'replay.captured-bet',
    'replay.captured-payout',
  ],
  'float-amounts': [
    'precision.eur-three-decimals',
    'precision.kwd-three-decimals',
    'precision.btc-eight-decimals',
    'precision.sixteen-digits-refused',
    'precision.sixteen-digits-payout',
    'precision.long-balance-exact',
    'precision.jp-amount-decimals',
    'precision.payout-decimals',
  ],
  'signature-unchecked': [
    'auth.signature-missing',
    'auth.signature-wrong-secret',
    'auth.signature-upper-case',
    'auth.signature-prefixed',
    'auth.signature-of-other-bytes',
    'auth.signature-before-json',
    'auth.signature-on-payout',
    'auth.signature-on-authenticate',
    'replay.captured-amount-changed',
    'replay.captured-byte-added',
  ],
  partial: ['atomicity-order.second-bet-refused', 'atomicity-order.two-bets-over-balance', 'validation.validation-first', 'idempotency.conflict-amount'],
  'closed-round-reopened': [
    'rounds.closed-takes-no-new-ids',
    'rounds.closed-by-first-request',
    'rounds.zero-win-closes',
    'rounds.closed-seen-beside-new',
    'rounds.closed-refusal-final',
    'atomicity-order.order-round-before-funds',
  ],
  'player-id-tidied': [
    'validation.player-id-bidi-override',
    'validation.player-id-zero-width-space',
    'validation.player-id-byte-order-mark',
    'validation.player-id-soft-hyphen',
    'validation.player-id-trailing-space',
    'validation.player-id-leading-space',
    'validation.player-id-no-break-space',
    'validation.player-id-mixed-scripts',
  ],
  'conflict-200': [
    'idempotency.conflict-amount',
    'idempotency.conflict-type',
    'idempotency.conflict-jp-amount',
    'idempotency.conflict-round',
    'idempotency.conflict-player',
    'idempotency.final-then-other-content',
    'payouts.conflict-amount',
    'payouts.conflict-campaign',
    'payouts.conflict-player',
    'payouts.conflict-transaction-id',
    'atomicity-order.order-duplicate-before-round',
    'concurrency.conflicting-racing',
  ],
};

describe('the kit fails operators that break the interface (sqlite)', () => {
  let server: ListeningOperator;
  before(async () => {
    server = await listeningOperator('sqlite');
  });
  after(async () => {
    await server?.close();
  });

  for (const [fault, caught] of Object.entries(CAUGHT_BY) as [Fault, readonly string[]][]) {
    test(`${fault}: the run fails, and fails ${caught.length} cases written to catch it`, async () => {
      for (const id of caught)
        assert.ok(
          OPERATOR_CASES.some((each) => each.id === id),
          `${id} is a case`,
        );
      const proxy = await faultyProxy(server.origin, fault);
      try {
        const report = await runOperatorConformance(backOfficeRun(proxy.origin, server.world));
        const failed = failedIds(report);
        assert.ok(report.summary.failed > 0, shown(report));
        const missed = caught.filter((id) => !failed.includes(id));
        assert.deepEqual(missed, [], `cases that should catch ${fault} passed:\n${shown(report)}`);
        for (const result of report.cases.filter((each) => each.outcome === 'failed')) {
          assert.ok(result.failure !== undefined && result.failure.problems.length > 0, `${result.id} says what went wrong`);
        }
      } finally {
        await proxy.close();
      }
    });
  }
});

describe('no case is vacuous', () => {
  test('every case fails against an operator that answers 200 to all, or one that refuses all', async () => {
    const yes = await trivialOperator('yes');
    const no = await trivialOperator('no');
    // Keys and sessions of the trivial operators never expire: the kit's waits need not take any time.
    const noWait = { sleep: async () => undefined };
    const file = { games: GAMES, expiry: { launchKeySeconds: 1, sessionIdleSeconds: 1 } };
    try {
      const againstYes = await runOperatorConformance(backOfficeRun(yes.origin, noWait, file));
      const againstNo = await runOperatorConformance(backOfficeRun(no.origin, noWait, file));
      assert.equal(againstYes.summary.skipped + againstNo.summary.skipped, 0);
      const failed = new Set([...failedIds(againstYes), ...failedIds(againstNo)]);
      const vacuous = OPERATOR_CASES.map((each) => each.id).filter((id) => !failed.has(id));
      assert.deepEqual(vacuous, [], 'these cases passed against both trivial operators');
    } finally {
      await yes.close();
      await no.close();
    }
  });
});
