/**
 * Versioned schema migrations of a SQLite database, applied in order when a
 * store opens it. Each store keeps its own list and its own numbers (the
 * wallet's in src/stores/sqlite/migrations.ts, the provider's in
 * src/provider/store/sqlite/migrations.ts); this runner is what they share. A
 * version, once released, never changes: a new change is a new version.
 *
 * The versions applied are rows of schema_migrations. Each pending version
 * runs in a database transaction of its own that takes the write lock first
 * (BEGIN IMMEDIATE) and looks again under it, so that two processes opening
 * the same file at once apply each version once. A version that fails rolls
 * back whole and stops the start; those before it stay applied.
 */
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';

export interface Migration {
  /** 1 for the first, then each the one before plus 1. */
  version: number;
  name: string;
  sql: string;
}

function createTable(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
}

/** A list numbered otherwise is a programmer's error: a gap or a swap would apply versions out of order. */
function assertNumbered(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => assert.equal(migration.version, index + 1, `migration ${migration.name} is version ${index + 1}`));
}

/** Applies the migrations not yet applied, each in its own database transaction. Returns the versions applied. */
export function migrate(db: Database.Database, migrations: readonly Migration[]): number[] {
  assertNumbered(migrations);
  createTable(db);
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number | bigint }[]).map((row) => Number(row.version)));
  const done: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    // IMMEDIATE takes the write lock first, so two processes starting together apply a version once.
    db.exec('BEGIN IMMEDIATE');
    try {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version);
      if (!again) {
        db.exec(migration.sql);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, Date.now());
        done.push(migration.version);
      }
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
  return done;
}

/**
 * Records `migrations` as applied without running them, for a database whose
 * schema already holds them (one that counted its versions some other way
 * before it used this runner). `appliedAt` 0 says the time is not known.
 * Versions already recorded are left as they are. The caller holds the write
 * lock, so that nothing applies a version in between.
 */
export function recordApplied(db: Database.Database, migrations: readonly Migration[], appliedAt: number): void {
  assert.ok(db.inTransaction, 'versions are recorded under the write lock');
  createTable(db);
  const insert = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?) ON CONFLICT (version) DO NOTHING');
  for (const migration of migrations) insert.run(migration.version, migration.name, appliedAt);
}
