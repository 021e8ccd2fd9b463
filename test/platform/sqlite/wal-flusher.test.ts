/**
 * The WAL flusher releases what waits for a sync once an fdatasync of the
 * WAL has come back, one sync serving every commit before it started, and
 * can be closed while a sync runs: the sync completes, its waiters are
 * released, and only then is the file's descriptor closed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../../src/platform/sqlite/open-database.js';
import { WalFlusher } from '../../../src/platform/sqlite/wal-flusher.js';
import { tempDir } from '../../helpers.js';

/** Descriptors this process holds open on `path` (Linux). */
function openDescriptors(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile (readdir's own descriptor)
    }
  }).length;
}

test('waiters are released after a sync off the thread, and close waits for the sync in progress', async () => {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'flushed.db');
  const db = openDatabase(path, 'flusher');
  const failures: Error[] = [];
  const flusher = new WalFlusher(`${path}-wal`, (error) => failures.push(error));
  try {
    db.exec('CREATE TABLE t (v INTEGER)');
    const sqliteOwn = openDescriptors(`${path}-wal`);
    const released: number[] = [];
    for (let i = 0; i < 3; i++) {
      db.prepare('INSERT INTO t (v) VALUES (?)').run(i);
      flusher.afterSync(() => released.push(i));
    }
    assert.equal(flusher.busy, true);
    // The sync runs on libuv's thread pool: nothing is released on this turn.
    await Promise.resolve();
    assert.deepEqual(released, []);
    const closed = new Promise<void>((resolve) => flusher.afterSync(resolve));
    flusher.close();
    await closed;
    assert.deepEqual(released, [0, 1, 2]);
    assert.deepEqual(failures, [], 'closing during a sync did not fail it');
    assert.equal(flusher.busy, false);
    assert.equal(openDescriptors(`${path}-wal`), sqliteOwn, "the flusher's descriptor is closed");
  } finally {
    db.close();
    cleanup();
  }
});
