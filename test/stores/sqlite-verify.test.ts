/**
 * A SQLite store proves a file's books on a reader of its own
 * (verify-worker.ts): bets go on being booked while it reads, it sees
 * everything answered before it was asked for, and closing the store stops
 * it with a 503-class error instead of waiting for it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { UnavailableError } from '../../src/protocol/errors.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { tempDir } from '../helpers.js';
import { NOW, openSession, singleBet } from './store-fixtures.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

/** Rounds stored before the bets under test: enough that a verify reads for many times as long as a bet takes. */
const LEDGER_ROUNDS = 20_000;
const GROW_BATCH = 2_000;

async function openPlayer(store: SqliteStore, playerId: string) {
  const session = await openSession(store, playerId);
  return (amount: number) => store.transact({ now: NOW, request: checkedTransaction(singleBet(session, amount)) });
}

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('sqlite verify beside the writer', () => {
  test('bets are booked while a verify reads a grown ledger, and it sees every bet answered before it', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    const grower = await SqliteStore.open({ path });
    const growBet = await openPlayer(grower, 'v-grown');
    for (let done = 0; done < LEDGER_ROUNDS; done += GROW_BATCH) {
      const outcomes = await Promise.all(Array.from({ length: GROW_BATCH }, () => growBet(0.01)));
      assert.ok(outcomes.every((outcome) => outcome.ok));
    }
    await grower.close();

    const store = await SqliteStore.open({ path });
    try {
      const bet = await openPlayer(store, 'v-live');
      const answered = await bet(1);
      assert.ok(answered.ok);
      let verified = false;
      const verifying = store.verify().then((report) => {
        verified = true;
        return report;
      });
      // Bets from the moment the verify is asked for (the next turn), one after another, until it answers: on a reader of
      // its own it reads the grown ledger while they are booked; on the writer, each would wait for it.
      // The first bet goes after this turn, so that it never travels beside the verify's own call.
      await new Promise((resolve) => setImmediate(resolve));
      let during = 0;
      while (!verified) {
        const outcome = await bet(0.01);
        assert.ok(outcome.ok);
        if (!verified) during += 1;
      }
      const report = await verifying;
      assert.ok(during >= 1, 'no bet was answered while the verify read');
      assert.ok(report.ok, report.problems.join('; '));
      // Two deposits, the grown rounds and the first live bet; those placed meanwhile may or may not be in its snapshot.
      assert.ok(report.transfers >= LEDGER_ROUNDS + 3, `${report.transfers} transfers`);
      assert.ok(report.transfers <= LEDGER_ROUNDS + 3 + during + 1, `${report.transfers} transfers`);
      const after = await store.verify();
      assert.equal(after.transfers, LEDGER_ROUNDS + 3 + during + 1);
    } finally {
      await store.close();
      cleanup();
    }
  });

  test('closing the store stops a verify in flight with an unavailable error', async () => {
    const { dir, cleanup } = tempDir();
    const store = await SqliteStore.open({ path: join(dir, 'wallet.db') });
    try {
      await openPlayer(store, 'v-close');
      const verifying = store.verify();
      const queued = store.verify();
      await store.close();
      for (const pending of [verifying, queued]) {
        await pending.then(
          (report) => assert.ok(report.ok, 'a verify that finished before the close is a good answer too'),
          (error: unknown) => assert.ok(error instanceof UnavailableError, String(error)),
        );
      }
      await assert.rejects(store.verify(), UnavailableError);
    } finally {
      cleanup();
    }
  });

  test('an in-memory ledger is verified by its writer', async () => {
    const store = await SqliteStore.open({ path: ':memory:' });
    try {
      const bet = await openPlayer(store, 'v-memory');
      assert.ok((await bet(1)).ok);
      const report = await store.verify();
      assert.ok(report.ok, report.problems.join('; '));
      assert.equal(report.transfers, 2);
    } finally {
      await store.close();
    }
  });
});
