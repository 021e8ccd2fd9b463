/**
 * Proves the books of a SQLite ledger: every transfer is well-formed and
 * within one currency, every kept wallet balance equals the sum of its
 * postings and is not negative, each currency sums to zero across all
 * accounts, every link of the players' history chains holds, and the id
 * indexes hold every id once (id-index.ts).
 *
 * It only reads, through whatever connection it is given, and the caller
 * holds one read transaction around it so that every query sees the same
 * snapshot. The store runs it on a connection of its own in a thread of
 * its own (verify-worker.ts), so that the writer keeps committing while it
 * reads: in WAL mode a reader sees the snapshot it started with, whatever
 * is committed meanwhile.
 */
import type Database from 'better-sqlite3';
import { checkBooks, type AccountTotal } from '../../ledger/books.js';
import type { VerifyReport } from '../store.js';

export function verifyLedger(db: Database.Database): VerifyReport {
  const count = (sql: string) => Number((db.prepare(sql).get() as { n: bigint }).n);
  /** Rows of a chain whose link is not the player's previous row. */
  const unlinked = (table: 'transfers' | 'rounds', prev: string) =>
    count(`SELECT COUNT(*) AS n FROM (SELECT ${prev} AS prev,
      LAG(id) OVER (PARTITION BY player_pk ORDER BY id) AS expected FROM ${table}) WHERE prev IS NOT expected`);
  /**
   * Ids held by two rows, rows at or under their bucket's mark that the
   * merged index misses, and merged entries that name no such row
   * (id-index.ts): each would let a replay be booked again. One scan of
   * the table: a row under its mark must have its entry, a row above it
   * must not; every entry must be one of those found (the entries are
   * unique, so their count tells); and the rows above the marks, the only
   * ones no entry vouches for, must not repeat an id among themselves.
   */
  const badIds = (table: 'transfers' | 'rounds', merged: string) => {
    const byte = (at: number) => `instr('0123456789ABCDEF', substr(hex(substr(t.uuid, 1, 1)), ${at}, 1)) - 1`;
    // The mark is looked up per row by its key: as a join, SQLite would scan the table once per mark.
    // LIMIT -1 keeps the subquery from being flattened into the sums, which would look it up three times.
    const rows = db
      .prepare(
        `SELECT COALESCE(SUM(r.under), 0) AS under,
           COALESCE(SUM(r.under AND NOT EXISTS (SELECT 1 FROM ${merged} k WHERE k.uuid = r.uuid AND k.row_id = r.id)), 0) AS missing,
           COALESCE(SUM(NOT r.under AND EXISTS (SELECT 1 FROM ${merged} k WHERE k.uuid = r.uuid)), 0) AS taken
         FROM (SELECT t.id, t.uuid, t.id <= (SELECT merged_upto FROM id_marks
                 WHERE tbl = '${table}' AND bucket = (${byte(1)}) * 16 + ${byte(2)}) AS under
               FROM ${table} t LIMIT -1) r`,
      )
      .get() as { under: bigint; missing: bigint; taken: bigint };
    return (
      Number(rows.missing) +
      Number(rows.taken) +
      Math.abs(count(`SELECT COUNT(*) AS n FROM ${merged}`) - (Number(rows.under) - Number(rows.missing))) +
      count(`SELECT COUNT(*) - COUNT(DISTINCT uuid) AS n FROM ${table} t
        WHERE t.id > (SELECT MIN(merged_upto) FROM id_marks WHERE tbl = '${table}')
          AND t.id > (SELECT merged_upto FROM id_marks WHERE tbl = '${table}' AND bucket = (${byte(1)}) * 16 + ${byte(2)})`)
    );
  };
  const counts = {
    transfers: count('SELECT COUNT(*) AS n FROM transfers'),
    malformed: count(
      'SELECT COUNT(*) AS n FROM transfers WHERE amount < 0 OR jp_amount < 0 OR jp_amount > amount OR debit_account_id = credit_account_id',
    ),
    crossCurrency: count(`SELECT COUNT(*) AS n FROM transfers t
      JOIN accounts d ON d.id = t.debit_account_id JOIN accounts c ON c.id = t.credit_account_id WHERE d.currency <> c.currency`),
    dangling: count(`SELECT COUNT(*) AS n FROM transfers t WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.debit_account_id)
      OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.credit_account_id)`),
    // Each row must point to the player's previous row, and each wallet to the player's newest (migration 2).
    brokenLinks:
      unlinked('transfers', 'prev_player_transfer_id') +
      unlinked('rounds', 'prev_player_round_id') +
      count(`WITH transfer_heads AS (SELECT player_pk, MAX(id) AS id FROM transfers GROUP BY player_pk),
          round_heads AS (SELECT player_pk, MAX(id) AS id FROM rounds GROUP BY player_pk)
        SELECT COUNT(*) AS n FROM players p JOIN accounts a ON a.id = p.account_id
          LEFT JOIN transfer_heads t ON t.player_pk = p.id LEFT JOIN round_heads r ON r.player_pk = p.id
        WHERE a.last_transfer_id IS NOT t.id OR a.last_round_id IS NOT r.id`),
    badIds: badIds('transfers', 'transfer_ids') + badIds('rounds', 'round_ids'),
  };
  const accounts = db
    .prepare(
      `WITH flows AS (
         SELECT credit_account_id AS account_id, SUM(amount) AS amount FROM transfers GROUP BY credit_account_id
         UNION ALL
         SELECT debit_account_id, -SUM(amount) FROM transfers GROUP BY debit_account_id)
       SELECT a.kind, a.ref, a.currency, a.balance, COALESCE((SELECT SUM(f.amount) FROM flows f WHERE f.account_id = a.id), 0) AS derived
       FROM accounts a`,
    )
    .all() as AccountTotal[];
  return checkBooks(counts, accounts);
}
