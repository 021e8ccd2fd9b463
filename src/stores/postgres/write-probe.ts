/**
 * What /health asks PostgreSQL while its writes are failing: does a write
 * commit again? (The SQLite store asks the same, sqlite/write-probe.ts.)
 * The store remembers the last call that failed for a reason that stops
 * writes while reads may go on (refusesWrites below) and, until this probe
 * commits, /health answers 503 naming it. When nothing has failed, /health
 * only reads (SELECT 1): it is polled every few seconds by load balancers,
 * and a write of its own each time would cost every node a commit, and a
 * WAL flush, for nothing.
 *
 * The probe is a database transaction of its own on the store's pool, so it
 * meets the same database, disk and settings as the bets; it leaves nothing
 * behind: the row it writes is deleted again before its COMMIT.
 */
import type postgres from 'postgres';

/**
 * Bytes the probe writes: enough to need room of its own on a page, small
 * enough to cost nothing. (PostgreSQL extends a table a page at a time when
 * its pages are full, which is where a full disk first shows; a probe into
 * a small table may still find room where a ledger's tables do not, which
 * the next bet's failure then tells.)
 */
export const WRITE_PROBE_BYTES = 1_024;

/** The probe's row in the migrations' bookkeeping table: real migrations are numbered from 1. */
const PROBE_VERSION = -1;

/**
 * SQLSTATEs that say the database refuses writes while it may still answer
 * reads: class 53, insufficient resources (53100 disk_full, 53200
 * out_of_memory, 53300 too_many_connections), class 58, system errors
 * (58030 io_error), and 25006 read_only_sql_transaction (a standby, e.g.
 * during a failover). Connection losses are left out: ping's own read
 * fails on those already, and stops failing when they stop.
 */
export function refusesWrites(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return code === '25006' || code.startsWith('53') || code.startsWith('58');
}

/** Why a write failed, for /health's answer: PostgreSQL's message and its SQLSTATE. */
export function writeFailureOf(error: unknown): string {
  const { message, code } = error as { message?: string; code?: string };
  return `${message ?? String(error)}${code ? ` (SQLSTATE ${code})` : ''}`;
}

/** Resolves when a small write commits; rejects with PostgreSQL's error otherwise. */
export async function probeWrite(sql: postgres.Sql): Promise<void> {
  await sql.begin(async (dbTx) => {
    await dbTx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${PROBE_VERSION}, ${'x'.repeat(WRITE_PROBE_BYTES)}, 0)`;
    await dbTx`DELETE FROM schema_migrations WHERE version = ${PROBE_VERSION}`;
  });
}
