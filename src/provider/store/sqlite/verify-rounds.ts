/**
 * `verify` on SQLite: the provider's records read on one snapshot
 * (../verify-reading.ts) and judged by src/rounds/books.ts.
 *
 * A file is read and judged in a thread of its own, on a connection of its
 * own, in one read transaction (verify-worker.ts, by
 * src/platform/sqlite/snapshot-read.ts, as the wallet's verify): in WAL mode
 * it sees the snapshot it started with while the store's writer goes on
 * committing, and neither the writer nor the HTTP thread waits for it, so a
 * verify asked of a serving node (GET /admin/verify) costs its games
 * nothing but a core. A database in memory has no other connection: it is
 * read on the writer's, between turns, in one run, so that no write joins
 * it.
 */
import type Database from 'better-sqlite3';
import { readSnapshotInThread, type SnapshotReading } from '../../../platform/sqlite/snapshot-read.js';
import { UnavailableError } from '../../../protocol/errors.js';
import type { Currencies } from '../../../protocol/money.js';
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

/** What the verify thread (verify-worker.ts) is started with. */
export interface VerifyWorkerInit {
  path: string;
  /** What makes the store's currencies (protocol/money.ts): a thread cannot be handed them. */
  cryptoDecimals: Readonly<Record<string, number>>;
}

/** Reads everything `verify` judges from `db`, in the read transaction its caller holds, and judges it. */
export function judgeRecords(db: Database.Database, currencies: Currencies): RoundBooksVerdict {
  const books = new RoundBooks(currencies);
  const run = runner(db);
  const reading = readBooks(SQLITE, books);
  for (let step = reading.next(); !step.done;) step = reading.next(run(step.value));
  return books.verdict();
}

/**
 * A verify that could not finish reading (the file could not be read, a
 * query failed, the store closed under it) is an error, not a verdict, and
 * its reason reaches the caller: GET /admin/verify answers it in a 503's
 * detail and the CLI prints it. Nothing was changed, and asking again is safe.
 */
function verifyFailed(reason: string, cause?: unknown): UnavailableError {
  return new UnavailableError(`verify could not finish: ${reason}`, cause === undefined ? undefined : { cause });
}

export class VerifyRounds {
  /** The verify in its thread, while one runs: stopped when the store closes. */
  private reading: SnapshotReading<RoundBooksVerdict> | undefined;
  /** The last verify asked for, settled or not: the next waits for it. */
  private verifying: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly database: ProviderDatabase,
    private readonly path: string,
  ) {}

  verify(): Promise<RoundBooksVerdict> {
    if (this.path === ':memory:') return this.database.betweenTurns(() => judgeRecords(this.database.db, this.database.currencies));
    // One at a time: each reads every row, and two at once would only slow both.
    const next = this.verifying.then(() => this.verifyBeside());
    this.verifying = next.catch(() => undefined);
    return next;
  }

  private async verifyBeside(): Promise<RoundBooksVerdict> {
    if (this.closed) throw verifyFailed('the store is closed');
    const init: VerifyWorkerInit = { path: this.path, cryptoDecimals: this.database.currencies.cryptoDecimals };
    const reading = readSnapshotInThread<RoundBooksVerdict>(new URL('./verify-worker.js', import.meta.url), init, verifyFailed);
    this.reading = reading;
    try {
      return await reading.result;
    } finally {
      this.reading = undefined;
    }
  }

  /** Stops a verify in flight: it only reads, so nothing is lost, and its caller is told the store closed. */
  async close(): Promise<void> {
    this.closed = true;
    await this.reading?.stop();
  }
}
