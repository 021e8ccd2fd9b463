/**
 * What a failed PostgreSQL call means for the wallet: run it again
 * (PostgreSQL aborted it so that another could go on, or an id it was about
 * to claim was claimed first), answer 503 (the database is unreachable,
 * restarting, overloaded or took too long), or neither (a bug: 500, nothing
 * was applied). The classification of SQLSTATEs is shared
 * (src/platform/postgres/postgres-errors.ts); the lost claim is the wallet's.
 */
import { isConflict, isUnavailable as isDatabaseUnavailable } from '../../platform/postgres/postgres-errors.js';

/**
 * An id this call was about to claim was claimed by a concurrent call first.
 * Nothing of this call was written; run again, it reads that row as seen.
 * Retried like a serialization failure.
 */
export class ClaimLostError extends Error {
  override name = 'ClaimLostError';
}

/** Running the same call again can succeed. */
export function isRetryable(error: unknown): boolean {
  return error instanceof ClaimLostError || isConflict(error);
}

/** The database, not the call, is the problem: answer 503 and let the caller resend. */
export function isUnavailable(error: unknown): boolean {
  return error instanceof ClaimLostError || isDatabaseUnavailable(error);
}
