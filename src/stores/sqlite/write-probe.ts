/**
 * What /health asks the SQLite writer while its writes are failing (a full
 * disk, an I/O error, a lock held elsewhere): does a write commit again?
 * The store remembers the last failure of a write (sqlite-store.ts) and,
 * until this probe commits or a write goes through, /health answers 503
 * naming it. When nothing has failed, /health only reads (SELECT 1): it is
 * polled every few seconds by load balancers, and a write of its own each
 * time would cost a commit, and on durable settings an fsync, for nothing.
 *
 * It runs on the writer's own connection, between two batches, in a
 * database transaction of its own, so it meets the same disk, the same
 * limits and the same locks as the bets; and it leaves nothing behind: the
 * row it writes is deleted again before its COMMIT.
 */
import type Database from 'better-sqlite3';

/**
 * Bytes the probe writes. More than a page, so that it needs pages of its own: a write that only
 * rewrote a page already in the file can pass on a full disk, where a
 * bet, which adds rows, fails. Small enough to cost nothing.
 */
export const WRITE_PROBE_BYTES = 16 * 1024;

/** The probe's row in the migrations' bookkeeping table: real migrations are numbered from 1. */
const PROBE_VERSION = -1;

/** Returns once the probe committed; throws SQLite's error when writing fails, as any write's failure is thrown. */
export function probeWrite(db: Database.Database): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)').run(PROBE_VERSION, 'x'.repeat(WRITE_PROBE_BYTES));
    db.prepare('DELETE FROM schema_migrations WHERE version = ?').run(PROBE_VERSION);
    db.exec('COMMIT');
  } catch (error) {
    // SQLite may have rolled it back itself (a full disk, an I/O error); the first failure is the one to tell.
    try {
      if (db.inTransaction) db.exec('ROLLBACK');
    } catch {
      // The connection is no worse off than the failure above left it.
    }
    throw error;
  }
}
