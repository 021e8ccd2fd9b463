/**
 * Staff accounts, their tokens and the audit log on SQLite (staff-schema.ts),
 * for the operator's wallet store and the provider's store alike. Every method runs on the writer, inside the database
 * transaction its caller opened, so that an audit row handed in with a
 * change commits with it or not at all. PostgreSQL's postgres-staff.ts does
 * the same on its tables.
 */
import type Database from 'better-sqlite3';
import { refuse, type Refusal } from '../protocol/errors.js';
import type { AuditEntry, StaffListing, StaffTokenFound } from '../access/staff.js';
import type * as Records from './staff-records.js';
import { accountOf, auditRow, tokenRow } from './staff-records.js';
import type { AddStaffCommand, AuditPage, AuditPageRequest, RevokeStaffCommand, StaffAdded, StaffRevoked } from './staff-commands.js';

type AccountRecord = Records.AccountRecord<number>;
type TokenRecord = Records.TokenRecord<number>;
type AuditRecord = Records.AuditRecord<number>;

function prepareStatements(db: Database.Database) {
  // Rows here hold times and ids well within a double: plain numbers, not the connection's bigints.
  const prepare = (text: string) => db.prepare(text).safeIntegers(false);
  return {
    account: prepare('SELECT name, role, operators, created_at, revoked_at FROM staff_accounts WHERE name = ?'),
    accounts: prepare('SELECT name, role, operators, created_at, revoked_at FROM staff_accounts ORDER BY name'),
    tokens: prepare('SELECT token_id, name, created_at, expires_at, revoked_at FROM staff_tokens ORDER BY name, created_at, token_id'),
    tokensOf: prepare('SELECT token_id, name, created_at, expires_at, revoked_at FROM staff_tokens WHERE name = ? ORDER BY created_at, token_id'),
    tokenById: prepare('SELECT token_id, name, created_at, expires_at, revoked_at FROM staff_tokens WHERE token_id = ?'),
    tokenByHash: prepare('SELECT token_id, name, created_at, expires_at, revoked_at FROM staff_tokens WHERE token_hash = ?'),
    insertAccount: prepare('INSERT INTO staff_accounts (name, role, operators, created_at) VALUES (?, ?, ?, ?)'),
    insertToken: prepare('INSERT INTO staff_tokens (token_id, name, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
    revokeAccount: prepare('UPDATE staff_accounts SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL'),
    revokeTokensOf: prepare('UPDATE staff_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL RETURNING token_id').pluck(true),
    revokeToken: prepare('UPDATE staff_tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL RETURNING token_id').pluck(true),
    insertAudit: prepare(`INSERT INTO staff_audit (at, actor, token_id, method, route, target, amount, currency, address, operator_id, status, code)
      VALUES (@at, @actor, @tokenId, @method, @route, @target, @amount, @currency, @address, @operatorId, @status, @code)`),
    // A scope is a JSON array of operator ids, or NULL for every row (the provider's scoped accounts read their operators' rows).
    audit: prepare(`SELECT id, at, actor, token_id, method, route, target, amount, currency, address, operator_id, status, code
      FROM staff_audit WHERE id < @before AND (@scope IS NULL OR operator_id IN (SELECT value FROM json_each(@scope)))
      ORDER BY id DESC LIMIT @limit`),
  };
}

export class SqliteStaff {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  /** Writes the audit row of a change that was made: called inside the change's savepoint. */
  audited<T extends { ok: boolean }>(audit: AuditEntry | undefined, outcome: T): T {
    if (audit && outcome.ok) this.appendAudit(audit);
    return outcome;
  }

  appendAudit(entry: AuditEntry): { ok: true } {
    this.statements.insertAudit.run(entry);
    return { ok: true };
  }

  addStaff(command: AddStaffCommand): StaffAdded | Refusal {
    if (this.statements.account.get(command.name)) return refuse('STAFF_EXISTS', `a staff account named ${command.name} exists (names are never reused)`);
    this.statements.insertAccount.run(command.name, command.role, command.operators === null ? null : JSON.stringify(command.operators), command.now);
    this.statements.insertToken.run(command.tokenId, command.name, command.tokenHash, command.now, command.expiresAt);
    return this.audited(command.audit, { ok: true, staff: this.listing(this.statements.account.get(command.name) as AccountRecord) });
  }

  revokeStaff(command: RevokeStaffCommand): StaffRevoked | Refusal {
    const key = command.nameOrTokenId;
    const account = this.statements.account.get(key) as AccountRecord | undefined;
    if (account) {
      this.statements.revokeAccount.run(command.now, key);
      const tokenIds = this.statements.revokeTokensOf.all(command.now, key) as string[];
      return this.audited(command.audit, { ok: true, name: key, tokenIds });
    }
    const token = this.statements.tokenById.get(key) as TokenRecord | undefined;
    if (!token) return refuse('STAFF_NOT_FOUND', `no staff account or token ${key}`);
    const tokenIds = this.statements.revokeToken.all(command.now, key) as string[];
    return this.audited(command.audit, { ok: true, name: token.name, tokenIds });
  }

  listStaff(): StaffListing[] {
    const tokens = (this.statements.tokens.all() as TokenRecord[]).map(tokenRow);
    return (this.statements.accounts.all() as AccountRecord[]).map((account) => ({
      ...accountOf(account),
      tokens: tokens.filter((token) => token.name === account.name),
    }));
  }

  findStaffToken(tokenHash: string): StaffTokenFound | null {
    const token = this.statements.tokenByHash.get(tokenHash) as TokenRecord | undefined;
    if (!token) return null;
    const account = this.statements.account.get(token.name) as AccountRecord;
    return { account: accountOf(account), token: tokenRow(token) };
  }

  listAudit(page: AuditPageRequest, operators: readonly string[] | null = null): AuditPage {
    const rows = this.statements.audit.all({
      before: page.before ?? Number.MAX_SAFE_INTEGER,
      scope: operators === null ? null : JSON.stringify(operators),
      limit: page.limit,
    }) as AuditRecord[];
    return { items: rows.map(auditRow), nextCursor: rows.length === page.limit ? rows[rows.length - 1]!.id : null };
  }

  private listing(account: AccountRecord): StaffListing {
    return { ...accountOf(account), tokens: (this.statements.tokensOf.all(account.name) as TokenRecord[]).map(tokenRow) };
  }
}
