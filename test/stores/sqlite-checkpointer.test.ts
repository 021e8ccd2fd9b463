/**
 * The background checkpointer: it copies committed WAL pages into the
 * database file on its own thread and connection, so that the writer's
 * checkpoint finds them copied; it never holds the writer up, it stops
 * cleanly, and a checkpointer that cannot work leaves the writer to
 * checkpoint alone.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { BackgroundCheckpointer } from '../../src/stores/sqlite/checkpointer.js';
import { openDatabase, WAL_CHECKPOINT_PAGES } from '../../src/stores/sqlite/open-database.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { tempDir } from '../helpers.js';
import { pagesTable } from './sqlite-pages.js';
import { NOW, openSession, singleBet } from './store-fixtures.js';

/** Short passes, so that the tests wait milliseconds rather than the product's interval. */
const TEST_PASS_MS = 5;
/** How long a test waits for a pass to have run (ms): many intervals, on a loaded machine. */
const PASS_WAIT_MS = 5_000;
/** Rows of about a page each: well short of the writer's own checkpoint interval. */
const PAGE_ROWS = 200;

interface WalState {
  /** Frames in the WAL. */
  log: number;
  /** Frames of it copied into the database file. */
  checkpointed: number;
}

/** Reads the WAL's state without copying anything (SQLite's NOOP checkpoint). */
function walState(db: Database.Database): WalState {
  const [row] = db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
  return { log: Number(row!.log), checkpointed: Number(row!.checkpointed) };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + PASS_WAIT_MS;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await sleep(TEST_PASS_MS);
  }
}

describe('background checkpointer', () => {
  test('copies what the writer committed while the writer goes on, and stops on close', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    const db = openDatabase(path);
    try {
      const writePages = pagesTable(db);
      writePages(PAGE_ROWS);
      const before = walState(db);
      assert.ok(before.log > PAGE_ROWS && before.log < WAL_CHECKPOINT_PAGES, `the WAL holds ${before.log} frames`);
      assert.equal(before.checkpointed, 0, 'the writer has not checkpointed');

      const checkpointer = new BackgroundCheckpointer(path, 'full', TEST_PASS_MS);
      await until(() => walState(db).checkpointed === before.log, 'the background pass copied every frame');
      // The writer commits on meanwhile, and its next commits are copied too.
      writePages(PAGE_ROWS);
      await until(() => {
        const state = walState(db);
        return state.checkpointed === state.log;
      }, 'the later frames were copied');
      assert.equal(checkpointer.stopped, undefined);

      await checkpointer.close();
      writePages(1);
      await sleep(TEST_PASS_MS * 20);
      const after = walState(db);
      assert.ok(after.checkpointed < after.log, 'nothing is copied after close');
      assert.equal(Number(db.prepare('SELECT count(*) FROM pages').pluck().get()), PAGE_ROWS * 2 + 1);
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      db.close();
      cleanup();
    }
  });

  test('one that cannot open the database says why, and closing it still returns', async () => {
    const { dir, cleanup } = tempDir();
    try {
      // It never creates a database: the writer's connection opened and migrated it first.
      const checkpointer = new BackgroundCheckpointer(join(dir, 'missing.db'), 'full', TEST_PASS_MS);
      await until(() => checkpointer.stopped !== undefined, 'the checkpointer gave up');
      assert.match(checkpointer.stopped!, /database/i);
      await checkpointer.close();
      assert.equal(existsSync(join(dir, 'missing.db')), false);
    } finally {
      cleanup();
    }
  });

  test("the store's WAL is copied in the background and removed when the store closes", async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    try {
      const store = await SqliteStore.open({ path });
      const observer = openDatabase(path);
      try {
        const session = await openSession(store, 'p-checkpointed');
        for (let i = 0; i < 20; i++) {
          const outcome = await store.transact({ request: singleBet(session, 1), now: NOW });
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
});
