/**
 * `verify` on SQLite: the provider's records read on one snapshot
 * (../verify-reading.ts) and judged by src/rounds/books.ts.
 *
 * A file is read on a connection of its own, in one read transaction: in
 * WAL mode it sees the snapshot it started with while the store's writer
 * goes on committing, and never blocks it. The pages are read one per turn
 * of the event loop, so that a verify asked of a serving node leaves its
 * HTTP thread free between pages. A database in memory has no other
 * connection: it is read on the writer's, between turns, in one run, so
 * that no write joins it.
 */
import type Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { openReader } from '../../../platform/sqlite/open-database.js';
import { RoundBooks, type RoundBooksVerdict } from '../../../rounds/books.js';
import type { Row } from '../provider-store.js';
import { readBooks, type VerifyDialect, type VerifyQuery } from '../verify-reading.js';
import type { ProviderDatabase } from './provider-database.js';

const SQLITE: VerifyDialect = { text: (column) => `CAST(${column} AS TEXT)`, param: () => '?' };

/** Runs the verify's queries on `db`, each prepared once, its integers as bigints (the readers take them exactly). */
function runner(db: Database.Database): (query: VerifyQuery) => Row[] {
  const prepared = new Map<string, Database.Statement>();
  return (query) => {
    let statement = prepared.get(query.sql);
    if (statement === undefined) prepared.set(query.sql, (statement = db.prepare(query.sql).safeIntegers(true)));
    return statement.all(...query.params) as Row[];
  };
}

export class VerifyRounds {
  constructor(
    private readonly database: ProviderDatabase,
    private readonly path: string,
  ) {}

  async verify(): Promise<RoundBooksVerdict> {
    const books = new RoundBooks(this.database.currencies);
    if (this.path === ':memory:') {
      return this.database.betweenTurns(() => {
        const run = runner(this.database.db);
        const reading = readBooks(SQLITE, books);
        for (let step = reading.next(); !step.done;) step = reading.next(run(step.value));
        return books.verdict();
      });
    }
    const db = openReader(this.path);
    try {
      // One read transaction: every page sees the snapshot of the first.
      db.exec('BEGIN');
      const run = runner(db);
      const reading = readBooks(SQLITE, books);
      for (let step = reading.next(); !step.done;) {
        const rows = run(step.value);
        await nextTurn();
        step = reading.next(rows);
      }
      db.exec('COMMIT');
    } finally {
      db.close();
    }
    return books.verdict();
  }
}
