/**
 * The provider's PostgreSQL database as every family of the store's
 * operations uses it: the pool, every call's deadline, a database
 * transaction run again after a conflict, and the writes in flight that
 * `durable()` waits for.
 *
 * Commits on PostgreSQL are durable when they return (synchronous_commit),
 * so a write's promise resolves once it is durable, and `durable()` waits
 * only for the writes still on their way.
 *
 * Every call, the outbox's included, has a deadline (callTimeoutMs: one
 * statement time-out plus one connection attempt, 4 s with the defaults)
 * and a failure of the database itself becomes an UnavailableError, which
 * the HTTP layer answers 503 with Retry-After: a database that is down,
 * stuck or out of connections turns into a prompt 503, never a hung
 * request. A transaction whose deadline passed is rolled back instead of
 * committed, so that what was answered 503 is not applied later (unless
 * its COMMIT was already on its way: every request is safe to resend).
 */
import type postgres from 'postgres';
import { CONFLICT_RETRIES_MAX } from '../../../dispatch/postgres/outbox.js';
import type { CallDeadline, CallDeadlines } from '../../../platform/postgres/call-deadlines.js';
import { isConflict, isUnavailable } from '../../../platform/postgres/errors.js';
import { UnavailableError } from '../../../protocol/errors.js';
import type { Currencies } from '../../../protocol/money.js';
import { PostgresStaff } from '../../../staff/postgres-staff.js';

export class ProviderDatabase {
  readonly staff: PostgresStaff;
  /** Writes called and not yet settled: durable() waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    readonly sql: postgres.Sql,
    readonly currencies: Currencies,
    private readonly deadlines: CallDeadlines,
  ) {
    this.staff = new PostgresStaff(sql);
  }

  /** Every write of this store has committed (durably) when its promise resolves: this waits for the ones on their way. */
  async durable(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** Waits for the writes on their way, then ends the pool. */
  async end(): Promise<void> {
    await this.durable();
    await this.sql.end({ timeout: 5 });
    this.deadlines.stop();
  }

  /** Counts a write in flight until it settles, for durable(). */
  track<T>(write: Promise<T>): Promise<T> {
    this.inFlight.add(write);
    const done = () => this.inFlight.delete(write);
    write.then(done, done);
    return write;
  }

  /**
   * Runs `work` in one database transaction, again up to
   * CONFLICT_RETRIES_MAX times if PostgreSQL aborts it for a deadlock or a
   * serialization failure; nothing of an aborted run was kept.
   */
  transaction<T>(work: (dbTx: postgres.TransactionSql) => Promise<T>): Promise<T> {
    return this.track(
      this.bounded(async (deadline) => {
        // Past the deadline the caller has its 503: roll back rather than apply what it was told was not.
        const inTime = async (dbTx: postgres.TransactionSql): Promise<T> => {
          const result = await work(dbTx);
          if (deadline.aborted) throw deadline.reason;
          return result;
        };
        for (let retries = 0; ; retries += 1) {
          try {
            return (await this.sql.begin(inTime)) as T;
          } catch (error) {
            if (!isConflict(error) || retries >= CONFLICT_RETRIES_MAX || deadline.aborted) throw error;
          }
        }
      }),
    );
  }

  /**
   * Runs one call under the call deadline: it answers by then, or rejects
   * with the deadline's UnavailableError; a failure of the database itself
   * becomes an UnavailableError too (unavailableOr).
   */
  async bounded<T>(call: (deadline: CallDeadline) => Promise<T>): Promise<T> {
    const deadline = this.deadlines.start();
    try {
      return await new Promise<T>((resolve, reject) => {
        deadline.addEventListener('abort', () => reject(deadline.reason));
        call(deadline).then(resolve, (error: unknown) => reject(unavailableOr(error)));
      });
    } finally {
      this.deadlines.settle(deadline);
    }
  }

  /** A single statement: atomic by itself. */
  write<T>(statement: Promise<T>): Promise<T> {
    return this.track(this.read(statement));
  }

  /** A failure of the database itself (unreachable, too slow, restarting) is the caller's 503: nothing was applied, resend. */
  read<T>(query: Promise<T>): Promise<T> {
    return this.bounded(() => query);
  }
}

/** The error as a 503 when the database, not the call, is the problem (src/platform/postgres/errors.ts); else as it is. */
export function unavailableOr(error: unknown): unknown {
  if (!isUnavailable(error)) return error;
  return new UnavailableError(`the provider's database is unavailable: ${(error as Error).message}; nothing was applied`, { cause: error });
}
