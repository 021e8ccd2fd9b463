/**
 * Staff accounts, their tokens and the audit log on PostgreSQL
 * (staff-schema.ts), for the operator's wallet store and the provider's
 * store alike: the same tables and answers as sqlite-staff.ts. A change's audit row is written on the change's own
 * database transaction (`appendAudit(entry, dbTx)`), so that they commit
 * together or not at all.
 */
import type postgres from 'postgres';
import { refuse, type Refusal } from '../protocol/errors.js';
import type { AuditEntry, StaffListing, StaffTokenFound } from '../access/staff.js';
import type { Role } from '../access/roles.js';
import type * as Records from './staff-records.js';
import { accountOf, auditRow, tokenRow } from './staff-records.js';
import type { AddStaffCommand, AuditPage, AuditPageRequest, RevokeStaffCommand, StaffAdded, StaffRevoked } from './staff-commands.js';

/** bigint columns arrive as text. */
type Int8 = string;

type AccountRecord = Records.AccountRecord<Int8>;
type TokenRecord = Records.TokenRecord<Int8>;
type AuditRecord = Records.AuditRecord<Int8>;

type Sql = postgres.Sql | postgres.TransactionSql;

export class PostgresStaff {
  constructor(private readonly sql: postgres.Sql) {}

  async appendAudit(entry: AuditEntry): Promise<{ ok: true }> {
    await insertAudit(this.sql, entry);
    return { ok: true };
  }

  private audited<T extends { ok: boolean }>(dbTx: Sql, audit: AuditEntry | undefined, outcome: T): Promise<T> {
    return audited(dbTx, audit, outcome);
  }

  async addStaff(command: AddStaffCommand): Promise<StaffAdded | Refusal> {
    const exists = refuse('STAFF_EXISTS', `a staff account named ${command.name} exists (names are never reused)`);
    try {
      return await this.sql.begin(async (dbTx) => {
        const inserted = await dbTx`INSERT INTO staff_accounts (name, role, operators, created_at)
          VALUES (${command.name}, ${command.role}, ${command.operators === null ? null : JSON.stringify(command.operators)}, ${command.now})
          ON CONFLICT (name) DO NOTHING`;
        if (inserted.count === 0) return exists;
        await dbTx`INSERT INTO staff_tokens (token_id, name, token_hash, created_at, expires_at)
          VALUES (${command.tokenId}, ${command.name}, ${command.tokenHash}, ${command.now}, ${command.expiresAt})`;
        const [account] = await dbTx<AccountRecord[]>`SELECT name, role, operators, created_at, revoked_at FROM staff_accounts WHERE name = ${command.name}`;
        const tokens = await dbTx<TokenRecord[]>`SELECT token_id, name, created_at, expires_at, revoked_at FROM staff_tokens
          WHERE name = ${command.name} ORDER BY created_at, token_id`;
        return this.audited(dbTx, command.audit, { ok: true as const, staff: { ...accountOf(account!), tokens: tokens.map(tokenRow) } });
      });
    } catch (error) {
      // A concurrent creation of the same name won the primary key.
      if ((error as { code?: string }).code === '23505' && (error as { table_name?: string }).table_name === 'staff_accounts') return exists;
      throw error;
    }
  }

  async revokeStaff(command: RevokeStaffCommand): Promise<StaffRevoked | Refusal> {
    const key = command.nameOrTokenId;
    return this.sql.begin(async (dbTx) => {
      const [account] = await dbTx`SELECT 1 FROM staff_accounts WHERE name = ${key} FOR UPDATE`;
      if (account) {
        await dbTx`UPDATE staff_accounts SET revoked_at = ${command.now} WHERE name = ${key} AND revoked_at IS NULL`;
        const revoked = await dbTx<{ token_id: string }[]>`UPDATE staff_tokens SET revoked_at = ${command.now}
          WHERE name = ${key} AND revoked_at IS NULL RETURNING token_id`;
        return this.audited(dbTx, command.audit, { ok: true as const, name: key, tokenIds: revoked.map((r) => r.token_id).sort() });
      }
      const [token] = await dbTx<{ name: string }[]>`SELECT name FROM staff_tokens WHERE token_id = ${key} FOR UPDATE`;
      if (!token) return refuse('STAFF_NOT_FOUND', `no staff account or token ${key}`);
      const revoked = await dbTx<{ token_id: string }[]>`UPDATE staff_tokens SET revoked_at = ${command.now}
        WHERE token_id = ${key} AND revoked_at IS NULL RETURNING token_id`;
      return this.audited(dbTx, command.audit, { ok: true as const, name: token.name, tokenIds: revoked.map((r) => r.token_id) });
    });
  }

  async listStaff(): Promise<StaffListing[]> {
    const accounts = await this.sql<AccountRecord[]>`SELECT name, role, operators, created_at, revoked_at FROM staff_accounts ORDER BY name COLLATE "C"`;
    const tokens = (
      await this.sql<TokenRecord[]>`SELECT token_id, name, created_at, expires_at, revoked_at FROM staff_tokens
      ORDER BY created_at, token_id COLLATE "C"`
    ).map(tokenRow);
    return accounts.map((account) => ({ ...accountOf(account), tokens: tokens.filter((token) => token.name === account.name) }));
  }

  async findStaffToken(tokenHash: string): Promise<StaffTokenFound | null> {
    const [row] = await this.sql<(TokenRecord & { role: Role; operators: string | null; account_created_at: Int8; account_revoked_at: Int8 | null })[]>`
      SELECT t.token_id, t.name, t.created_at, t.expires_at, t.revoked_at, a.role, a.operators,
        a.created_at AS account_created_at, a.revoked_at AS account_revoked_at
      FROM staff_tokens t JOIN staff_accounts a ON a.name = t.name WHERE t.token_hash = ${tokenHash}`;
    if (!row) return null;
    return {
      account: accountOf({ name: row.name, role: row.role, operators: row.operators, created_at: row.account_created_at, revoked_at: row.account_revoked_at }),
      token: tokenRow(row),
    };
  }

  /** With `operators`, only their rows (the provider's scoped accounts). */
  async listAudit(page: AuditPageRequest, operators: readonly string[] | null = null): Promise<AuditPage> {
    const rows = await this.sql<AuditRecord[]>`SELECT id, at, actor, token_id, method, route, target, amount, currency, address, operator_id, status, code
      FROM staff_audit WHERE id < ${page.before ?? Number.MAX_SAFE_INTEGER}
        AND ${scopeCondition(this.sql, operators)}
      ORDER BY id DESC LIMIT ${page.limit}`;
    return { items: rows.map(auditRow), nextCursor: rows.length === page.limit ? Number(rows[rows.length - 1]!.id) : null };
  }
}

export async function insertAudit(dbTx: Sql, entry: AuditEntry): Promise<void> {
  await dbTx`INSERT INTO staff_audit (at, actor, token_id, method, route, target, amount, currency, address, operator_id, status, code)
    VALUES (${entry.at}, ${entry.actor}, ${entry.tokenId}, ${entry.method}, ${entry.route}, ${entry.target}, ${entry.amount},
      ${entry.currency}, ${entry.address}, ${entry.operatorId}, ${entry.status}, ${entry.code})`;
}

/** Writes a change's audit row on the change's database transaction, when the change was made; answers the outcome. */
export async function audited<T extends { ok: boolean }>(dbTx: Sql, audit: AuditEntry | undefined, outcome: T): Promise<T> {
  if (audit && outcome.ok) await insertAudit(dbTx, audit);
  return outcome;
}

/**
 * A row's operator is in a scope (a staff account's operators), or every row
 * when it is null. The scope goes as JSON text: an empty array is a scope of
 * no operator, which an array parameter cannot carry.
 */
export function scopeCondition(sql: postgres.Sql, operators: readonly string[] | null, column = 'operator_id') {
  if (operators === null) return sql`TRUE`;
  return sql`${sql(column)} IN (SELECT jsonb_array_elements_text(${JSON.stringify(operators)}::text::jsonb))`;
}
