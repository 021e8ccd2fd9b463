/**
 * `verify` on PostgreSQL: the provider's records read on one snapshot
 * (../verify-reading.ts) and judged by src/rounds/books.ts.
 *
 * One REPEATABLE READ, read-only database transaction: every page sees the
 * snapshot of the first, while every node goes on committing. It holds one
 * connection of the pool for as long as it reads, and has no deadline: a
 * large store takes longer to read than any request may.
 */
import type postgres from 'postgres';
import { RoundBooks, type RoundBooksVerdict } from '../../../rounds/books.js';
import type { Row } from '../provider-store.js';
import { readBooks, type VerifyDialect } from '../verify-reading.js';
import type { ProviderDatabase } from './provider-database.js';

const POSTGRES: VerifyDialect = { text: (column) => `convert_from(${column}, 'UTF8')`, param: (n) => `$${n}` };

export class VerifyRounds {
  constructor(private readonly database: ProviderDatabase) {}

  async verify(): Promise<RoundBooksVerdict> {
    const books = new RoundBooks(this.database.currencies);
    await this.database.sql.begin('isolation level repeatable read read only', async (dbTx) => {
      await dbTx`SET LOCAL statement_timeout = 0`;
      const reading = readBooks(POSTGRES, books);
      for (let step = reading.next(); !step.done;) {
        step = reading.next((await dbTx.unsafe(step.value.sql, step.value.params as postgres.ParameterOrJSON<never>[])) as Row[]);
      }
    });
    return books.verdict();
  }
}
