/**
 * What a failed PostgreSQL call means, whoever made it (the wallet's store,
 * the outbox, the provider's store): run it again (PostgreSQL aborted it so
 * that another could go on, or an id it was about to claim was claimed
 * first), or the database is the problem (unreachable, restarting,
 * overloaded, too slow: 503), or neither (a bug: 500, nothing was applied).
 * One map for every caller, so that a SQLSTATE means the same everywhere.
 */

/** 40001: a serializable database (or a standby's conflict) refused the transaction; 40P01: a deadlock victim. */
const CONFLICT_SQLSTATES = new Set(['40001', '40P01']);

/**
 * SQLSTATE classes 08 (connection), 53 (insufficient resources), 57
 * (operator intervention: statement time-out, pg_terminate_backend,
 * shutdown), 58 (system I/O); a few single codes; and the client's own
 * connection errors. A failover gives only these: the lost primary's
 * CONNECTION_CLOSED, ECONNRESET and ECONNREFUSED, CONNECT_TIMEOUT while no
 * host takes writes, 57P01 from a node being demoted, 57P03 from one
 * starting up, 25006 from a standby (test/platform/postgres/errors.test.ts).
 */
const UNAVAILABLE_SQLSTATE_CLASSES = new Set(['08', '53', '57', '58']);
const UNAVAILABLE_SQLSTATES = new Set([
  '25006', // read_only_sql_transaction: connected to a standby, e.g. during a failover
  '25P03', // idle_in_transaction_session_timeout
  '55P03', // lock_not_available
  '40001', // serialization_failure, once retries are spent
  '40P01', // deadlock_detected, once retries are spent
]);
const UNAVAILABLE_CLIENT_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * An id this call was about to claim was claimed by a concurrent call first
 * (the wallet's unique ids: a transaction id, a payout id). Nothing of this
 * call was written; run again, it reads that row as seen. Retried like a
 * serialization failure, and unavailable like one once retries are spent.
 */
export class ClaimLostError extends Error {
  override name = 'ClaimLostError';
}

/** PostgreSQL aborted the transaction so that a concurrent one could go on (serialization failure, deadlock): running it again can succeed. */
export function isConflict(error: unknown): boolean {
  return CONFLICT_SQLSTATES.has(codeOf(error) ?? '');
}

/** Running the same call again can succeed: a conflict, or a claim lost to a concurrent call. */
export function isRetryable(error: unknown): boolean {
  return error instanceof ClaimLostError || isConflict(error);
}

/** The database, not the call, is the problem: answer 503 and let the caller resend. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof ClaimLostError) return true;
  const code = codeOf(error);
  if (code === undefined) return false;
  if (UNAVAILABLE_CLIENT_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
  return /^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_SQLSTATE_CLASSES.has(code.slice(0, 2));
}
