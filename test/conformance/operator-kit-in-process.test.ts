/**
 * The operator's rule tests run the kit's cases in-process (one scenario,
 * two runners, docs/testing.md): every operator case is sent to our
 * operator's app through app.inject(), the same bytes and headers as over
 * HTTP, with its players made through the back office in-process too, on
 * every backend (SQLite, and PostgreSQL with DATABASE_URL). Every case is
 * judged and passes but the known bugs the kit found, and the books balance
 * after the run. operator-kit.test.ts runs the same cases over real sockets.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATOR_CASES } from '../../src/conformance/operator/index.js';
import { runOperatorConformance } from '../../src/conformance/runner.js';
import { makeOperator, OPERATOR_BACKENDS } from '../helpers.js';
import { backOfficeRun, failedIds, KNOWN_OPERATOR_FAILURES, shown } from './kit-helpers.js';
import { injectSend } from './provider-kit-helpers.js';

for (const backend of OPERATOR_BACKENDS) {
  describe(`the kit's operator cases in-process (${backend.name})`, { skip: backend.unavailable }, () => {
    test('every operator case is judged through app.inject() and passes, with players from the back office in-process', async () => {
      const op = await makeOperator({ backend: backend.name });
      try {
        // No socket: the origin only names the endpoint in reports and curl commands.
        const run = backOfficeRun('http://operator.invalid', { sleep: async (ms) => op.clock.advance(ms) });
        const report = await runOperatorConformance({ ...run, send: injectSend(op.app) });
        assert.equal(report.summary.total, OPERATOR_CASES.length);
        assert.deepEqual(failedIds(report), KNOWN_OPERATOR_FAILURES, shown(report));
        assert.equal(report.summary.skipped, 0, shown(report));
        const books = await op.store.verify();
        assert.ok(books.ok, books.problems.join('; '));
      } finally {
        await op.close();
      }
    });
  });
}
