/**
 * The SQLite ledger: each operation reads a snapshot, asks the pure rules in
 * src/ledger for a plan, and writes it. Every method is synchronous and runs
 * inside a database transaction opened by its caller (the batch writer),
 * so no other request can interleave between the read and the write.
 *
 * The operations live in one file per family, with the same names as
 * PostgreSQL's (postgres/), so that the two can be diffed: the hot
 * /transaction and /payout (ledger-transfers.ts), players and sessions
 * (ledger-players.ts), the back office's reads (ledger-reads.ts), on what
 * they share (ledger-rows.ts). This class puts them together, and is what
 * the writer's handlers (sqlite-operations.ts) and its life (batch-writer.ts)
 * call.
 */
import type Database from 'better-sqlite3';
import type { RulesConfig } from '../../ledger/rules.js';
import type { Currencies } from '../../protocol/money.js';
import { LedgerPlayers } from './ledger-players.js';
import { LedgerReads } from './ledger-reads.js';
import { LedgerRows } from './ledger-rows.js';
import { LedgerTransfers } from './ledger-transfers.js';

export class SqliteLedger {
  readonly transfers: LedgerTransfers;
  readonly players: LedgerPlayers;
  readonly reads: LedgerReads;
  private readonly rows: LedgerRows;

  constructor(db: Database.Database, currencies: Currencies, rules: RulesConfig) {
    this.rows = new LedgerRows(db, currencies, rules);
    this.transfers = new LedgerTransfers(this.rows);
    this.players = new LedgerPlayers(this.rows);
    this.reads = new LedgerReads(this.rows);
  }

  /** A call or a database transaction was rolled back other than by a refusal: what memory holds may be ahead (ledger-rows.ts). */
  forgetCache(): void {
    this.rows.forgetCache();
  }

  /** At the start of each write transaction: memory is forgotten when another connection has committed. */
  startWriting(): void {
    this.rows.startWriting();
  }

  /** Once before the first batch: reads the id indexes. */
  warm(): void {
    this.rows.warm();
  }

  /** After a batch's calls, before its COMMIT. */
  beforeCommit(): void {
    this.rows.beforeCommit();
  }
}
