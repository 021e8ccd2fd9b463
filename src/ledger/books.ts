/**
 * What `verify` concludes from the ledger's totals, the same for every
 * store: each store only counts and sums in its own SQL, and this pure
 * function turns those numbers into the report.
 */

/** Lists at most this many problems; the last line counts the rest. */
export const VERIFY_PROBLEMS_MAX = 100;

export interface TransferCounts {
  transfers: number;
  /** Negative, jpAmount over amount, or one account on both sides. */
  malformed: number;
  /** Debit and credit accounts of different currencies. */
  crossCurrency: number;
  /** Naming an account that does not exist. */
  dangling: number;
  /**
   * Links of a store's per-player history chains (SQLite) that do not point
   * where they should, so a back-office listing would miss or misorder rows.
   * Absent where histories are read through an index instead.
   */
  brokenLinks?: number;
  /**
   * Transfer and round ids that a store's own id indexes (SQLite) hold
   * wrong: repeated, missed or misnamed, so a replay could be booked again.
   * Absent where a unique index of the database holds them.
   */
  badIds?: number;
}

export interface AccountTotal {
  kind: string;
  ref: string;
  currency: string;
  /** The kept balance (player wallets only), minor units. */
  balance: bigint | null;
  /**
   * Credits minus debits over every transfer, minor units, exact at any
   * size: an operator's account is bounded by nothing but the ledger, and
   * may pass the 64-bit range that every single amount and balance keeps
   * to, so a store sums without overflow and hands over a bigint; the
   * totals per currency below are bigints too.
   */
  derived: bigint;
}

export interface BooksReport {
  ok: boolean;
  transfers: number;
  accounts: number;
  problems: string[];
}

/**
 * Every transfer is well formed and within one currency, every kept wallet
 * balance equals the sum of its postings and is not negative, only wallets
 * keep a balance, and each currency sums to zero across all accounts.
 */
export function checkBooks(counts: TransferCounts, accounts: readonly AccountTotal[]): BooksReport {
  const problems: string[] = [];
  let problemCount = 0;
  const report = (problem: string) => {
    problemCount++;
    if (problems.length < VERIFY_PROBLEMS_MAX) problems.push(problem);
  };
  if (counts.malformed > 0) report(`${counts.malformed} transfers are malformed (negative, jpAmount over amount, or one account on both sides)`);
  if (counts.crossCurrency > 0) report(`${counts.crossCurrency} transfers move money between currencies`);
  if (counts.dangling > 0) report(`${counts.dangling} transfers name an account that does not exist`);
  if (counts.brokenLinks !== undefined && counts.brokenLinks > 0) {
    report(`${counts.brokenLinks} links of players' transfer and round histories are broken: listings would miss rows`);
  }
  if (counts.badIds !== undefined && counts.badIds > 0) {
    report(`${counts.badIds} transfer or round ids are repeated or wrong in the id indexes: a replay could be booked twice`);
  }
  const perCurrency = new Map<string, bigint>();
  for (const account of accounts) {
    perCurrency.set(account.currency, (perCurrency.get(account.currency) ?? 0n) + account.derived);
    if (account.kind === 'player') {
      if (account.balance === null) report(`player account ${account.ref} keeps no balance`);
      else if (account.balance !== account.derived) {
        report(`player ${account.ref}: balance ${account.balance} but postings sum to ${account.derived} (${account.currency} minor units)`);
      }
      if (account.derived < 0n) report(`player ${account.ref}: postings sum to a negative balance ${account.derived}`);
    } else if (account.balance !== null) {
      report(`${account.kind} account ${account.ref} keeps a balance; only player wallets do`);
    }
  }
  for (const [currency, sum] of perCurrency) {
    if (sum !== 0n) report(`${currency}: accounts sum to ${sum}, not 0`);
  }
  if (problemCount > problems.length) problems.push(`... and ${problemCount - problems.length} more`);
  return { ok: problemCount === 0, transfers: counts.transfers, accounts: accounts.length, problems };
}
