/**
 * The wallet's SQLite store runs the background checkpointer
 * (platform/sqlite/checkpointer.ts) beside its writer: what its bets commit
 * is copied into the database file before the writer's own checkpoint
 * comes, and closing the store removes the WAL as it did without the
 * thread, leaving a ledger that verifies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, WAL_CHECKPOINT_PAGES } from '../../src/platform/sqlite/open-database.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { tempDir } from '../helpers.js';
import { until, walState } from '../platform/sqlite/wal-state.js';
import { NOW, openSession, singleBet } from './store-fixtures.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

test("the store's WAL is copied in the background and removed when the store closes", async () => {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'wallet.db');
  try {
    const store = await SqliteStore.open({ path });
    const observer = openDatabase(path);
    try {
      const session = await openSession(store, 'p-checkpointed');
      for (let i = 0; i < 20; i++) {
        const outcome = await store.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW });
        assert.ok(outcome.ok, JSON.stringify(outcome));
      }
      // Far fewer pages than the writer's interval: only the background passes copy them.
      await until(() => {
        const state = walState(observer);
        return state.log > 0 && state.log < WAL_CHECKPOINT_PAGES && state.checkpointed === state.log;
      }, 'the background passes copied the bets');
    } finally {
      observer.close();
      await store.close();
    }
    // The writer's connection closed last: SQLite checkpointed and removed the WAL, as without the thread.
    assert.equal(existsSync(`${path}-wal`), false);
    const reopened = await SqliteStore.open({ path });
    try {
      const report = await reopened.verify();
      assert.ok(report.ok, JSON.stringify(report));
    } finally {
      await reopened.close();
    }
  } finally {
    cleanup();
  }
});
