/**
 * The PostgreSQL ledger. Every method is one database transaction under READ
 * COMMITTED. Every write of a player first takes that player's wallet row
 * lock (SELECT ... FOR UPDATE; several players: in ascending row id, in one
 * statement), the one lock order of this store; ids are claimed through
 * their unique index (a plain INSERT, which waits for a concurrent claim of
 * the same id and fails if it is taken); balances move by a conditional
 * update that must find the balance the plan was made from. The wallet rules
 * are those of src/ledger, and only those: each call reads a snapshot under
 * the lock, plans it with planTransaction, planPayout, ... and writes the plan.
 *
 * The operations live in one file per family, with the same names as
 * SQLite's (sqlite/), so that the two can be diffed: the hot /transaction
 * and /payout, group-committed (ledger-transfers.ts), players and sessions
 * (ledger-players.ts), the back office's reads (ledger-reads.ts), on what
 * they share (ledger-rows.ts). This class puts them together, and is what
 * the store's handlers (postgres-operations.ts) and the hot batcher call.
 */
import type postgres from 'postgres';
import type { RulesConfig } from '../../ledger/rules.js';
import type { Currencies } from '../../protocol/money.js';
import { LedgerPlayers } from './ledger-players.js';
import { LedgerReads } from './ledger-reads.js';
import { LedgerRows } from './ledger-rows.js';
import { LedgerTransfers } from './ledger-transfers.js';

export type { BatchCounts, HotCall, HotResult } from './ledger-transfers.js';

export class PostgresLedger {
  readonly transfers: LedgerTransfers;
  readonly players: LedgerPlayers;
  readonly reads: LedgerReads;

  constructor(sql: postgres.Sql, currencies: Currencies, rules: RulesConfig) {
    const rows = new LedgerRows(sql, currencies, rules);
    this.transfers = new LedgerTransfers(rows);
    this.players = new LedgerPlayers(rows);
    this.reads = new LedgerReads(rows);
  }
}
