/**
 * `verify` on PostgreSQL: the provider's records read on one snapshot
 * (../verify-reading.ts) and judged by src/rounds/books.ts.
 *
 * One REPEATABLE READ, read-only database transaction: every page sees the
 * snapshot of the first, while every node goes on committing. It holds one
 * connection of the pool for as long as it reads, and has no deadline: a
 * large store takes longer to read than any request may. The reads are
 * the database's work and this thread only waits for them, so a verify
 * asked of a serving node (GET /admin/verify) leaves its HTTP thread free
 * but for judging each page as it comes.
 */
import type postgres from 'postgres';
import { RoundBooks, type RoundBooksVerdict } from '../../../rounds/books.js';
import type { Row } from '../provider-store.js';
import { readBooks, type VerifyDialect } from '../verify-reading.js';
import { unavailableOr, type ProviderDatabase } from './provider-database.js';

const POSTGRES: VerifyDialect = { text: (column) => `convert_from(${column}, 'UTF8')`, param: (n) => `$${n}` };

export class VerifyRounds {
  /** The last verify asked for, settled or not: the next waits for it. */
  private verifying: Promise<unknown> = Promise.resolve();

  constructor(private readonly database: ProviderDatabase) {}

  /** One at a time per node: each holds a connection of the pool while it reads every row, and two at once would only slow both. */
  verify(): Promise<RoundBooksVerdict> {
    const next = this.verifying.then(() => this.read());
    this.verifying = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<RoundBooksVerdict> {
    const books = new RoundBooks(this.database.currencies);
    try {
      await this.database.sql.begin('isolation level repeatable read read only', async (dbTx) => {
        await dbTx`SET LOCAL statement_timeout = 0`;
        const reading = readBooks(POSTGRES, books);
        for (let step = reading.next(); !step.done;) {
          step = reading.next((await dbTx.unsafe(step.value.sql, step.value.params as postgres.ParameterOrJSON<never>[])) as Row[]);
        }
      });
    } catch (error) {
      // A database that fails under the read is the caller's 503: nothing was changed, and asking again is safe.
      throw unavailableOr(error);
    }
    return books.verdict();
  }
}
