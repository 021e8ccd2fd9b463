/**
 * How every SQLite connection is opened: WAL, durable commits, and a
 * checkpoint interval far above SQLite's default 1,000 pages, so that WAL
 * pages pile up between checkpoints. A commit is durable in the WAL alone:
 * what was committed and never checkpointed survives a process killed with
 * SIGKILL.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, openReader, WAL_CHECKPOINT_PAGES, WAL_SIZE_LIMIT_BYTES } from '../../../src/platform/sqlite/open-database.js';
import { runNode } from '../../harness/child-process.js';
import { tempDir } from '../../helpers.js';
import { PAGE_BYTES, pagesTable } from '../../stores/sqlite-pages.js';

/** SQLite's own checkpoint interval (pages): what the tests write past. */
const SQLITE_DEFAULT_CHECKPOINT_PAGES = 1_000;
/** Rows of one page each written by the crash test: past SQLite's interval, short of ours. */
const PAGE_ROWS = 1_500;
/** Rows per commit. */
const ROWS_PER_COMMIT = 100;
/** The database file before its first checkpoint: the header page SQLite writes when it turns WAL on, and little else. */
const UNCHECKPOINTED_DATABASE_PAGES_MAX = 10;

/** Writes PAGE_ROWS rows of about a page each, in commits of ROWS_PER_COMMIT, through openDatabase. */
const WRITER = `
const { openDatabase } = await import(process.argv[1]);
const db = openDatabase(process.argv[2]);
db.exec('CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
const insert = db.prepare('INSERT INTO pages (body) VALUES (?)');
const commit = db.transaction((count) => { for (let i = 0; i < count; i++) insert.run(Buffer.alloc(${PAGE_BYTES - 200}, i % 251)); });
for (let done = 0; done < ${PAGE_ROWS}; done += ${ROWS_PER_COMMIT}) commit(${ROWS_PER_COMMIT});
process.kill(process.pid, 'SIGKILL');
`;

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('sqlite connections', () => {
  test('open in WAL mode with durable commits and the long checkpoint interval', () => {
    const { dir, cleanup } = tempDir();
    try {
      for (const [durability, synchronous] of [
        ['full', 2],
        ['flusher', 1],
      ] as const) {
        const db = openDatabase(join(dir, `${durability}.db`), durability);
        try {
          assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
          assert.equal(Number(db.pragma('synchronous', { simple: true })), synchronous);
          assert.equal(Number(db.pragma('wal_autocheckpoint', { simple: true })), WAL_CHECKPOINT_PAGES);
          assert.equal(Number(db.pragma('journal_size_limit', { simple: true })), WAL_SIZE_LIMIT_BYTES);
        } finally {
          db.close();
        }
      }
      assert.ok(WAL_CHECKPOINT_PAGES > PAGE_ROWS && PAGE_ROWS > SQLITE_DEFAULT_CHECKPOINT_PAGES);
    } finally {
      cleanup();
    }
  });

  test('a WAL grown past its limit under a reader is cut back once the reader is done', () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    const db = openDatabase(path);
    try {
      const commit = pagesTable(db);
      const reader = openReader(path);
      const growRows = Math.ceil((WAL_SIZE_LIMIT_BYTES * 1.25) / PAGE_BYTES);
      try {
        // A read transaction pins the WAL: checkpoints cannot copy past its snapshot, so the file grows.
        reader.exec('BEGIN');
        reader.prepare('SELECT count(*) FROM pages').get();
        for (let done = 0; done < growRows; done += ROWS_PER_COMMIT * 10) commit(ROWS_PER_COMMIT * 10);
        assert.ok(statSync(`${path}-wal`).size > WAL_SIZE_LIMIT_BYTES, 'the WAL grew past its limit');
        assert.throws(() => reader.exec('CREATE TABLE nope (id INTEGER)'), /readonly/i, 'the reader cannot write');
        reader.exec('COMMIT');
      } finally {
        reader.close();
      }
      // The next checkpoint copies everything; the commit after it reuses the WAL from its start and cuts it.
      db.pragma('wal_checkpoint(PASSIVE)');
      commit(1);
      assert.ok(statSync(`${path}-wal`).size <= WAL_SIZE_LIMIT_BYTES, `the WAL is ${statSync(`${path}-wal`).size} bytes`);
      assert.equal(Number(db.prepare('SELECT count(*) FROM pages').pluck().get()), Math.ceil(growRows / (ROWS_PER_COMMIT * 10)) * ROWS_PER_COMMIT * 10 + 1);
    } finally {
      db.close();
      cleanup();
    }
  });

  test('what was committed to the WAL and never checkpointed survives SIGKILL', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'wallet.db');
      const module = new URL('../../../src/platform/sqlite/open-database.js', import.meta.url).href;
      const child = await runNode(['--input-type=module', '-e', WRITER, module, path]);
      assert.equal(child.signal, 'SIGKILL', child.stderr);
      // No checkpoint ran: the rows are in the WAL only, not yet in the database file.
      assert.ok(statSync(`${path}-wal`).size > PAGE_ROWS * PAGE_BYTES, 'the WAL holds every page written');
      assert.ok(statSync(path).size < UNCHECKPOINTED_DATABASE_PAGES_MAX * PAGE_BYTES, 'the database file was not checkpointed into');
      const db = openDatabase(path);
      try {
        assert.equal(Number(db.prepare('SELECT count(*) FROM pages').pluck().get()), PAGE_ROWS);
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      } finally {
        db.close();
      }
    } finally {
      cleanup();
    }
  });
});
