/**
 * The shared migration runner: it applies a store's versions in order, each
 * once (a second run, or a second connection, applies nothing), records
 * them in schema_migrations, rolls a failing version back whole while those
 * before it stay, refuses a list numbered out of order, and can record
 * versions a database already holds without running them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { migrate, recordApplied, type Migration } from '../../../src/platform/sqlite/migrate.js';
import { openDatabase } from '../../../src/platform/sqlite/open-database.js';
import { tempDir } from '../../helpers.js';

const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)' },
  { version: 2, name: 'note-authors', sql: "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'nobody'" },
];

function withDatabase(run: (path: string) => void): void {
  const { dir, cleanup } = tempDir('wagerlink-migrate-');
  try {
    run(join(dir, 'store.db'));
  } finally {
    cleanup();
  }
}

const versionsOf = (db: ReturnType<typeof openDatabase>) =>
  (db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').raw().all() as [bigint, string][]).map(([version, name]) => [
    Number(version),
    name,
  ]);

test('applies the versions in order, each once, and records them', () => {
  withDatabase((path) => {
    const db = openDatabase(path);
    const other = openDatabase(path);
    try {
      assert.deepEqual(migrate(db, MIGRATIONS.slice(0, 1)), [1]);
      // A later release adds version 2: only it runs.
      assert.deepEqual(migrate(db, MIGRATIONS), [2]);
      assert.deepEqual(migrate(db, MIGRATIONS), []);
      // Another process opening the same file finds everything applied.
      assert.deepEqual(migrate(other, MIGRATIONS), []);
      assert.deepEqual(versionsOf(db), [
        [1, 'notes'],
        [2, 'note-authors'],
      ]);
      db.prepare('INSERT INTO notes (body) VALUES (?)').run('hello');
      assert.equal(db.prepare('SELECT author FROM notes').pluck().get(), 'nobody');
    } finally {
      other.close();
      db.close();
    }
  });
});

test('a version that fails rolls back whole and stops; the versions before it stay applied', () => {
  withDatabase((path) => {
    const db = openDatabase(path);
    try {
      const failing: Migration = { version: 3, name: 'broken', sql: 'CREATE TABLE tags (id INTEGER PRIMARY KEY); CREATE TABLE notes (id INTEGER)' };
      assert.throws(() => migrate(db, [...MIGRATIONS, failing]), /notes already exists/);
      assert.equal(db.inTransaction, false);
      assert.deepEqual(
        versionsOf(db).map(([version]) => version),
        [1, 2],
      );
      assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'tags'").pluck().get(), 0n);
    } finally {
      db.close();
    }
  });
});

test('a list numbered otherwise than 1, 2, 3 ... is a programming error, and nothing is applied', () => {
  withDatabase((path) => {
    const db = openDatabase(path);
    try {
      assert.throws(() => migrate(db, [MIGRATIONS[1]!, MIGRATIONS[0]!]), /version 1/);
      assert.throws(() => migrate(db, [{ ...MIGRATIONS[0]!, version: 0 }]), /version 1/);
      assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'notes'").pluck().get(), 0n);
    } finally {
      db.close();
    }
  });
});

test('versions a database already holds are recorded without running them, and the rest are applied', () => {
  withDatabase((path) => {
    const db = openDatabase(path);
    try {
      // The schema of version 1, built by other means.
      db.exec(MIGRATIONS[0]!.sql);
      assert.throws(() => recordApplied(db, MIGRATIONS.slice(0, 1), 0), /under the write lock/);
      db.transaction(() => recordApplied(db, MIGRATIONS.slice(0, 1), 0)).immediate();
      // Recording again changes nothing.
      db.transaction(() => recordApplied(db, MIGRATIONS.slice(0, 1), 5)).immediate();
      assert.deepEqual(migrate(db, MIGRATIONS), [2]);
      assert.deepEqual(db.prepare('SELECT version, applied_at FROM schema_migrations WHERE version = 1').raw().get(), [1n, 0n]);
    } finally {
      db.close();
    }
  });
});
