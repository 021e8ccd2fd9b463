/**
 * Proves the books of a PostgreSQL ledger with the checks of the SQLite
 * store (sqlite/verify-ledger.ts): every transfer is well-formed, within one
 * currency and between accounts that exist, every kept wallet balance equals
 * the sum of its postings and is not negative, and each currency sums to
 * zero across all accounts (src/ledger/books.ts decides from the counts and
 * sums read here).
 *
 * It only reads, in one REPEATABLE READ, read-only database transaction, so
 * every query sees the same snapshot while the wallet keeps committing. The
 * store runs it on a connection of its own (postgres-store.ts). Unlike
 * SQLite's, it needs no thread of its own: the database does the reading,
 * and PostgreSQL sums int8 into numeric, which cannot overflow.
 */
import type postgres from 'postgres';
import { checkBooks } from '../../ledger/books.js';
import type { VerifyReport } from '../store.js';

/** int8 and numeric arrive as decimal text (postgres.js keeps them exact). */
type Int8 = string;

export async function verifyLedger(sql: postgres.Sql): Promise<VerifyReport> {
  return sql.begin('isolation level repeatable read read only', async (dbTx) => {
    // Summing a large ledger takes longer than any request may, and reads every row.
    await dbTx`SET LOCAL statement_timeout = 0`;
    await dbTx`SET LOCAL enable_seqscan = on`;
    const count = async (query: string) => Number((await dbTx.unsafe<{ n: Int8 }[]>(query))[0]!.n);
    const counts = {
      transfers: await count('SELECT COUNT(*) AS n FROM transfers'),
      malformed: await count(
        'SELECT COUNT(*) AS n FROM transfers WHERE amount < 0 OR jp_amount < 0 OR jp_amount > amount OR debit_account_id = credit_account_id',
      ),
      crossCurrency: await count(`SELECT COUNT(*) AS n FROM transfers t
        JOIN accounts d ON d.id = t.debit_account_id JOIN accounts c ON c.id = t.credit_account_id WHERE d.currency <> c.currency`),
      dangling: await count(`SELECT COUNT(*) AS n FROM transfers t WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.debit_account_id)
        OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.credit_account_id)`),
    };
    const accounts = await dbTx<{ kind: string; ref: string; currency: string; balance: Int8 | null; derived: string }[]>`
      WITH flows AS (
        SELECT credit_account_id AS account_id, SUM(amount) AS amount FROM transfers GROUP BY credit_account_id
        UNION ALL
        SELECT debit_account_id, -SUM(amount) FROM transfers GROUP BY debit_account_id),
      derived AS (SELECT account_id, SUM(amount) AS amount FROM flows GROUP BY account_id)
      SELECT a.kind, a.ref, a.currency, a.balance, COALESCE(d.amount, 0)::text AS derived
      FROM accounts a LEFT JOIN derived d ON d.account_id = a.id`;
    return checkBooks(
      counts,
      accounts.map((account) => ({
        kind: account.kind,
        ref: account.ref,
        currency: account.currency,
        balance: account.balance === null ? null : BigInt(account.balance),
        derived: BigInt(account.derived),
      })),
    );
  });
}
