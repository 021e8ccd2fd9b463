/**
 * The staff tables' rows as both dialects read them, and what they answer
 * of them: sqlite-staff.ts and postgres-staff.ts differ only in how a 64-bit
 * column arrives (a number from SQLite, text from postgres.js), so the row
 * types take that type and the readers convert it once here.
 */
import type { AuditRow, StaffAccount, StaffTokenRow } from '../access/staff.js';
import type { Role } from '../access/roles.js';

export interface AccountRecord<Int> {
  name: string;
  role: Role;
  operators: string | null;
  created_at: Int;
  revoked_at: Int | null;
}

export interface TokenRecord<Int> {
  token_id: string;
  name: string;
  created_at: Int;
  expires_at: Int;
  revoked_at: Int | null;
}

export interface AuditRecord<Int> {
  id: Int;
  at: Int;
  actor: string;
  token_id: string | null;
  method: string;
  route: string;
  target: string | null;
  amount: string | null;
  currency: string | null;
  address: string | null;
  operator_id: string | null;
  status: number;
  code: string | null;
}

/** A time or id of these tables: epoch ms and row ids stay well within a double. */
type Int = number | string;

const time = (value: Int | null) => (value === null ? null : Number(value));

export function accountOf(record: AccountRecord<Int>): StaffAccount {
  return {
    name: record.name,
    role: record.role,
    operators: record.operators === null ? null : (JSON.parse(record.operators) as string[]),
    createdAt: Number(record.created_at),
    revokedAt: time(record.revoked_at),
  };
}

export function tokenRow(record: TokenRecord<Int>): StaffTokenRow {
  return {
    tokenId: record.token_id,
    name: record.name,
    createdAt: Number(record.created_at),
    expiresAt: Number(record.expires_at),
    revokedAt: time(record.revoked_at),
  };
}

export function auditRow(r: AuditRecord<Int>): AuditRow {
  return {
    id: Number(r.id),
    at: Number(r.at),
    actor: r.actor,
    tokenId: r.token_id,
    method: r.method,
    route: r.route,
    target: r.target,
    amount: r.amount,
    currency: r.currency,
    address: r.address,
    operatorId: r.operator_id,
    status: r.status,
    code: r.code,
  };
}
