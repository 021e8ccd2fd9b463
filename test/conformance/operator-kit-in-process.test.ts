/**
 * The operator's rule tests run the kit's cases in-process (one scenario,
 * two runners, docs/testing.md): every operator case is sent to our
 * operator's app through app.inject(), the same bytes and headers as over
 * HTTP, with its players made through the back office in-process too, on
 * every backend (SQLite, and PostgreSQL with DATABASE_URL). Every case is
 * judged and passes but the known bugs the kit found, and the books balance
 * after the run. operator-kit.test.ts runs the same cases over real sockets.
 *
 * In-process the suite also sees what a stranger's kit cannot: the ledger.
 * Every /transaction and /payout the kit sees refused, sent while no other
 * request was in flight, must have written no transfer and left the books
 * balanced, which is what the rule suites checked of each refusal through
 * the back-office listings before the kit's cases replaced them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KitSend } from '../../src/conformance/kit-send.js';
import { OPERATOR_CASES } from '../../src/conformance/operator/index.js';
import { runOperatorConformance } from '../../src/conformance/operator-runner.js';
import { makeOperator, OPERATOR_BACKENDS, type Operator } from '../helpers.js';
import { backOfficeRun, failedIds, KNOWN_OPERATOR_FAILURES, shown } from './kit-helpers.js';
import { injectSend } from './provider-kit-helpers.js';

/** The endpoints whose refusals must write nothing to the ledger (docs/protocol.md §6.2, §7). */
const MONEY_ENDPOINTS = new Set(['/transaction', '/payout']);

/** The steps of every case that expect a money endpoint to refuse them: each is sent alone, so the watch judges each. */
const MONEY_REFUSAL_STEPS = OPERATOR_CASES.flatMap((each) => each.steps).filter(
  (step) => step.kind === 'call' && MONEY_ENDPOINTS.has(step.endpoint) && step.expect.status !== 200,
).length;

interface LedgerWatch {
  send: KitSend;
  /** Refusals checked against the ledger. */
  watched: () => number;
  /** What a refusal wrote, one line each. */
  problems: string[];
}

/**
 * Wraps `send`: a refusal of a money endpoint that was the only request in
 * flight from start to answer must leave the store's transfer count as it
 * was, and the books balanced. Requests that overlap (the concurrency
 * cases) are not judged here: another's booking may land meanwhile.
 */
function watchLedger(op: Operator, inner: KitSend): LedgerWatch {
  /** The requests in flight, each with whether another overlapped it. */
  const active = new Map<number, { overlapped: boolean }>();
  let next = 0;
  let watched = 0;
  const problems: string[] = [];
  const send: KitSend = async (request) => {
    const path = new URL(request.url).pathname;
    const alone = active.size === 0;
    for (const other of active.values()) other.overlapped = true;
    const me = { overlapped: !alone };
    const id = next++;
    active.set(id, me);
    try {
      const before = MONEY_ENDPOINTS.has(path) && alone ? (await op.store.verify()).transfers : undefined;
      const attempt = await inner(request);
      if (before !== undefined && !me.overlapped && attempt.kind === 'answer' && attempt.status !== 200) {
        watched++;
        const after = await op.store.verify();
        if (after.transfers !== before) problems.push(`${path} refused ${attempt.status} wrote ${after.transfers - before} transfers: ${attempt.text}`);
        if (!after.ok) problems.push(`${path} refused ${attempt.status} left the books unbalanced: ${after.problems.join('; ')}`);
      }
      return attempt;
    } finally {
      active.delete(id);
    }
  };
  return { send, watched: () => watched, problems };
}

for (const backend of OPERATOR_BACKENDS) {
  describe(`the kit's operator cases in-process (${backend.name})`, { skip: backend.unavailable }, () => {
    test('every operator case is judged through app.inject() and passes, with players from the back office in-process; refusals write nothing', async () => {
      const op = await makeOperator({ backend: backend.name });
      try {
        // No socket: the origin only names the endpoint in reports and curl commands.
        const run = backOfficeRun('http://operator.invalid', { sleep: async (ms) => op.clock.advance(ms) });
        const ledger = watchLedger(op, injectSend(op.app));
        const report = await runOperatorConformance({ ...run, send: ledger.send });
        assert.equal(report.summary.total, OPERATOR_CASES.length);
        assert.deepEqual(failedIds(report), KNOWN_OPERATOR_FAILURES, shown(report));
        assert.equal(report.summary.skipped, 0, shown(report));
        assert.deepEqual(ledger.problems, []);
        // Every refusal a case expects of a money endpoint, one step at a time, was watched.
        assert.equal(ledger.watched(), MONEY_REFUSAL_STEPS);
        const books = await op.store.verify();
        assert.ok(books.ok, books.problems.join('; '));
      } finally {
        await op.close();
      }
    });
  });
}
