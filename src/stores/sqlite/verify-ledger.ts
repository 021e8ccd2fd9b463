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

/**
 * SQLite's SUM of integers fails with "integer overflow" past 2^63 - 1,
 * and an operator's account (a game's, the cash account) keeps no balance
 * of its own: it is the sum of every transfer it took part in, which passes
 * 2^63 once enough players have won or deposited enough, whatever bounds
 * each player's balance (ten players winning 10^10 BTC, at 8 decimals). So
 * each amount is cut into three parts of PART_BITS bits, the top one signed
 * (SQLite's >> keeps the sign) and the two below it not, each part is
 * summed on its own, and the three sums are joined as a bigint in
 * JavaScript, where nothing overflows. A part is at most 2^21 in magnitude,
 * so the sum over an account's n transfers is at most n * 2^21 and could
 * only overflow past 2^42 transfers: at 64 bytes or more each, more than
 * the 2^48 bytes a SQLite file can hold. (Two halves of 32 bits would overflow past 2^31
 * rows into one account: a busy game account's bets of a few months.)
 * A negative amount, which only a damaged file could hold and which verify
 * reports, is summed exactly too.
 */
const PART_BITS = 21;
const PART_MASK = (1 << PART_BITS) - 1;

interface Parts {
  high: bigint;
  middle: bigint;
  low: bigint;
}

/**
 * The three part sums of the transfers' amounts as the columns high, middle
 * and low, negated for `sign` -1 (a sum of parts, unlike an amount, is far
 * from the ends of the 64-bit range, so negating it is exact).
 */
function sumParts(sign: 1 | -1): string {
  const minus = sign < 0 ? '-' : '';
  return `${minus}SUM(amount >> ${2 * PART_BITS}) AS high, ${minus}SUM((amount >> ${PART_BITS}) & ${PART_MASK}) AS middle,
    ${minus}SUM(amount & ${PART_MASK}) AS low`;
}

function joinParts({ high, middle, low }: Parts): bigint {
  return (BigInt(high) << BigInt(2 * PART_BITS)) + (BigInt(middle) << BigInt(PART_BITS)) + BigInt(low);
}

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
    malformed: count('SELECT COUNT(*) AS n FROM transfers WHERE amount < 0 OR jp_amount < 0 OR jp_amount > amount OR debit_account_id = credit_account_id'),
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
  // Each amount is summed in three parts (sumParts), so that no SUM overflows at any size.
  const credit = sumParts(1);
  const debit = sumParts(-1);
  const rows = db
    .prepare(
      `WITH flows AS (
         SELECT credit_account_id AS account_id, ${credit} FROM transfers GROUP BY credit_account_id
         UNION ALL
         SELECT debit_account_id, ${debit} FROM transfers GROUP BY debit_account_id),
       derived AS (SELECT account_id, SUM(high) AS high, SUM(middle) AS middle, SUM(low) AS low FROM flows GROUP BY account_id)
       SELECT a.kind, a.ref, a.currency, a.balance, COALESCE(d.high, 0) AS high, COALESCE(d.middle, 0) AS middle, COALESCE(d.low, 0) AS low
       FROM accounts a LEFT JOIN derived d ON d.account_id = a.id`,
    )
    .all() as (Omit<AccountTotal, 'derived'> & Parts)[];
  const accounts = rows.map(({ high, middle, low, ...account }): AccountTotal => ({ ...account, derived: joinParts({ high, middle, low }) }));
  return checkBooks(counts, accounts);
}
