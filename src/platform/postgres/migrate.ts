/**
 * Versioned schema migrations of a PostgreSQL schema, applied in order at
 * start. Each owner of a schema keeps its own list and its own numbers (the
 * wallet's in src/stores/postgres/migrations.ts; a database the outbox has
 * to itself, src/dispatch/postgres/outbox.ts); this runner is what they
 * share. A version, once released, never changes: a new change is a new
 * version.
 *
 * The versions applied are rows of schema_migrations. All pending versions
 * run in one database transaction, under an advisory lock: nodes that start
 * together wait for the first one and then find nothing left to do. DDL is
 * transactional in PostgreSQL, so a failed migration leaves nothing behind.
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';

export interface Migration {
  /** 1 for the first, then each the one before plus 1. */
  version: number;
  name: string;
  sql: string;
}

/** Any key works as long as every node uses the same one; the schema is the second key. */
const MIGRATION_LOCK_KEY = 0x776c6d67; // 'wlmg'

/** A list numbered otherwise is a programmer's error: a gap or a swap would apply versions out of order. */
function assertNumbered(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => assert.equal(migration.version, index + 1, `migration ${migration.name} is version ${index + 1}`));
}

/** Applies the migrations not yet applied, all in one database transaction. Returns the versions applied. */
export async function migrate(sql: postgres.Sql, migrations: readonly Migration[]): Promise<number[]> {
  assertNumbered(migrations);
  return sql.begin(async (dbTx) => {
    // A migration may rewrite a large table: it is not held to the statement time-out.
    await dbTx`SET LOCAL statement_timeout = 0`;
    await dbTx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}, hashtext(current_schema()))`;
    await dbTx`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`;
    const rows = await dbTx<{ version: number }[]>`SELECT version FROM schema_migrations`;
    const applied = new Set(rows.map((row) => row.version));
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await dbTx.unsafe(migration.sql);
      await dbTx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${migration.version}, ${migration.name}, ${Date.now()})`;
      done.push(migration.version);
    }
    return done;
  });
}
