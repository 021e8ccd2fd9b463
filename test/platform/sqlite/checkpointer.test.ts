/**
 * The background checkpointer: it copies committed WAL pages into the
 * database file on its own thread and connection, so that the writer's
 * checkpoint finds them copied; it never holds the writer up, it stops
 * cleanly, and a checkpointer that cannot work leaves the writer to
 * checkpoint alone, says so once, retries with a back-off, and copies
 * again (saying so once) as soon as a pass succeeds.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BackgroundCheckpointer, CHECKPOINTER_WARNING_CODE } from '../../../src/platform/sqlite/checkpointer.js';
import { CHECKPOINT_RETRY_DELAY_MS_FIRST, CHECKPOINT_RETRY_DELAY_MS_MAX, checkpointRetryDelayMs } from '../../../src/platform/sqlite/checkpoint-retry.js';
import { openDatabase, WAL_CHECKPOINT_PAGES } from '../../../src/platform/sqlite/open-database.js';
import { tempDir } from '../../helpers.js';
import { pagesTable } from '../../stores/sqlite-pages.js';
import { until, walState } from './wal-state.js';

/** Short passes, so that the tests wait milliseconds rather than the product's interval. */
const TEST_PASS_MS = 5;
/** Short retries too: a failure streak of many attempts lasts well under a second. */
const TEST_RETRY = { retryDelayMsFirst: 1, retryDelayMsMax: 20 };
/** How long a failure streak is left to run before it is ended: many retries at TEST_RETRY's cap. */
const STREAK_MS = 300;
/** Rows of about a page each: well short of the writer's own checkpoint interval. */
const PAGE_ROWS = 200;

/** The checkpointer's warnings, as the process emits them (on stderr too). */
function collectWarnings(): { messages: string[]; stop: () => void } {
  const messages: string[] = [];
  const listener = (warning: Error & { code?: string }) => {
    if (warning.code === CHECKPOINTER_WARNING_CODE) messages.push(warning.message);
  };
  process.on('warning', listener);
  return { messages, stop: () => process.off('warning', listener) };
}

/** The attempts a recovery warning says failed. */
function failedAttempts(message: string): number {
  return Number(/after (\d+) failed attempts/.exec(message)?.[1]);
}

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
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

      const checkpointer = new BackgroundCheckpointer(path, 'full', { passMs: TEST_PASS_MS });
      await until(() => walState(db).checkpointed === before.log, 'the background pass copied every frame');
      // The writer commits on meanwhile, and its next commits are copied too.
      writePages(PAGE_ROWS);
      await until(() => {
        const state = walState(db);
        return state.checkpointed === state.log;
      }, 'the later frames were copied');
      assert.equal(checkpointer.failing, undefined);

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
      const checkpointer = new BackgroundCheckpointer(join(dir, 'missing.db'), 'full', { passMs: TEST_PASS_MS, ...TEST_RETRY });
      await until(() => checkpointer.failing !== undefined, 'the checkpointer said it is failing');
      assert.match(checkpointer.failing!, /database/i);
      await sleep(STREAK_MS);
      await checkpointer.close();
      assert.equal(existsSync(join(dir, 'missing.db')), false);
    } finally {
      cleanup();
    }
  });

  test('a database it could not open is copied once it is there: the failure and the recovery are each said once', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'late.db');
    const warnings = collectWarnings();
    try {
      const checkpointer = new BackgroundCheckpointer(path, 'full', { passMs: TEST_PASS_MS, ...TEST_RETRY });
      try {
        await until(() => checkpointer.failing !== undefined, 'the checkpointer said it is failing');
        // Many attempts fail meanwhile; the streak is said once.
        await sleep(STREAK_MS);
        const db = openDatabase(path);
        try {
          pagesTable(db)(PAGE_ROWS);
          await until(() => {
            const state = walState(db);
            return state.log > PAGE_ROWS && state.checkpointed === state.log;
          }, 'the retried passes copied the pages');
          // The thread says so in a message of its own, which may come a moment after the copy.
          await until(() => checkpointer.failing === undefined, 'the checkpointer said it works again');
          await until(() => warnings.messages.length >= 2, 'the recovery was said');
          assert.equal(warnings.messages.length, 2, warnings.messages.join('\n'));
          assert.match(warnings.messages[0]!, /passes are failing \(.*database.*\); the writer checkpoints alone/);
          assert.match(warnings.messages[1]!, /passes work again, after \d+ failed attempts/);
          assert.ok(failedAttempts(warnings.messages[1]!) > 1, warnings.messages[1]);
        } finally {
          db.close();
        }
      } finally {
        await checkpointer.close();
      }
    } finally {
      warnings.stop();
      cleanup();
    }
  });

  test('a pass that fails is retried with a back-off, and the copying resumes when a pass succeeds', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    const db = openDatabase(path);
    const warnings = collectWarnings();
    // While its first element is 1, every pass fails as on a full disk (CheckpointWorkerInit.faults).
    const faults = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    try {
      const writePages = pagesTable(db);
      writePages(PAGE_ROWS);
      const checkpointer = new BackgroundCheckpointer(path, 'full', { passMs: TEST_PASS_MS, ...TEST_RETRY, faults });
      try {
        await until(() => {
          const state = walState(db);
          return state.checkpointed === state.log;
        }, 'the first pages were copied');

        Atomics.store(faults, 0, 1);
        writePages(PAGE_ROWS);
        await until(() => checkpointer.failing !== undefined, 'the checkpointer said it is failing');
        assert.match(checkpointer.failing!, /database or disk is full/);
        await sleep(STREAK_MS);
        const during = walState(db);
        assert.ok(during.checkpointed < during.log, 'nothing is copied while the passes fail');

        Atomics.store(faults, 0, 0);
        await until(() => {
          const state = walState(db);
          return state.checkpointed === state.log;
        }, 'the pages written during the failure were copied');
        // The thread says so in a message of its own, which may come a moment after the copy.
        await until(() => checkpointer.failing === undefined, 'the checkpointer said it works again');
        // And the passes go on at their interval.
        writePages(PAGE_ROWS);
        await until(() => {
          const state = walState(db);
          return state.checkpointed === state.log;
        }, 'the pages written after the recovery were copied');

        await until(() => warnings.messages.length >= 2, 'the recovery was said');
        assert.equal(warnings.messages.length, 2, warnings.messages.join('\n'));
        assert.match(warnings.messages[0]!, /passes are failing \(database or disk is full/);
        assert.ok(failedAttempts(warnings.messages[1]!) > 1, warnings.messages[1]);
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      } finally {
        await checkpointer.close();
      }
    } finally {
      warnings.stop();
      db.close();
      cleanup();
    }
  });

  test('the retry delay doubles from its first value up to its cap', () => {
    const first = CHECKPOINT_RETRY_DELAY_MS_FIRST;
    const max = CHECKPOINT_RETRY_DELAY_MS_MAX;
    assert.deepEqual(
      [1, 2, 3, 4].map((failed) => checkpointRetryDelayMs(failed, first, max)),
      [first, first * 2, first * 4, first * 8],
    );
    assert.equal(checkpointRetryDelayMs(1_000, first, max), max);
    assert.ok(first > 0 && first < max);
  });
});
