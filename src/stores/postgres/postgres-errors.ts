/**
 * What a failed PostgreSQL call means for its caller: run it again
 * (PostgreSQL aborted it so that another could go on), answer 503 (the
 * database is unreachable, restarting, overloaded or took too long), or
 * neither (a bug: 500, nothing was applied).
 */

/**
 * An id this call was about to claim was claimed by a concurrent call first.
 * Nothing of this call was written; run again, it reads that row as seen.
 * Retried like a serialization failure.
 */
export class ClaimLostError extends Error {
  override name = 'ClaimLostError';
}

/** 40001: a serializable database (or a standby's conflict) refused the transaction; 40P01: a deadlock victim. */
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']);

/**
 * SQLSTATE classes 08 (connection), 53 (insufficient resources), 57
 * (operator intervention: statement time-out, pg_terminate_backend,
 * shutdown), 58 (system I/O); a few single codes; and the client's own
 * connection errors.
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

/** Running the same call again can succeed. */
export function isRetryable(error: unknown): boolean {
  return error instanceof ClaimLostError || RETRYABLE_SQLSTATES.has(codeOf(error) ?? '');
}

/** The database, not the call, is the problem: answer 503 and let the caller resend. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof ClaimLostError) return true;
  const code = codeOf(error);
  if (code === undefined) return false;
  if (UNAVAILABLE_CLIENT_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
  return /^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_SQLSTATE_CLASSES.has(code.slice(0, 2));
}
