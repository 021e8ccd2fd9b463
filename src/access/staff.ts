/**
 * Staff accounts and the audit log as the stores keep them and the back
 * offices show them: shapes and pure decisions only (no I/O). Both sides'
 * stores write these; both back offices answer them.
 */
import type { Role } from './roles.js';

/** A staff account, as stored. `operators` is the provider's scope: the operator ids it may see and act on; null is all. */
export interface StaffAccount {
  name: string;
  role: Role;
  /** Provider only; the operator's accounts have null. */
  operators: readonly string[] | null;
  createdAt: number;
  /** When it was revoked (every token with it), or null. */
  revokedAt: number | null;
}

export interface StaffTokenRow {
  tokenId: string;
  name: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export type StaffListing = StaffAccount & { tokens: StaffTokenRow[] };

/** Who is calling: what a token, looked up, gives the app. */
export interface StaffIdentity {
  name: string;
  role: Role;
  /** Null for the configured admin token and the CLI. */
  tokenId: string | null;
  /** The operators it may see and act on (provider); null is all. */
  operators: readonly string[] | null;
}

/** What a store finds under a token's hash: the account and the token, valid or not. */
export interface StaffTokenFound {
  account: StaffAccount;
  token: StaffTokenRow;
}

/** A token authenticates only while it and its account are unrevoked and it has not expired. */
export function tokenValid(found: StaffTokenFound, now: number): boolean {
  return found.account.revokedAt === null && found.token.revokedAt === null && now < found.token.expiresAt;
}

export function identityOf(found: StaffTokenFound): StaffIdentity {
  return { name: found.account.name, role: found.account.role, tokenId: found.token.tokenId, operators: found.account.operators };
}

/**
 * One row of the audit log: who (account and token), when, what (method,
 * route, the target's ids, amount and currency), from where, and the answer.
 * Written for every state-changing call, refused ones included; where the
 * call changes state, in the same database transaction as the change.
 */
export interface AuditEntry {
  /** Epoch ms. */
  at: number;
  actor: string;
  tokenId: string | null;
  method: string;
  /** The route as declared, such as /admin/players/:playerId/adjustments, or the CLI command. */
  route: string;
  /** The ids the call names, such as `player=p1` or `operator=op1 payout=…`; null when none. */
  target: string | null;
  /** Exact decimal text of the money it moves, or null. */
  amount: string | null;
  currency: string | null;
  /** The caller's address; null for the CLI. */
  address: string | null;
  /** The operator the call concerns (provider), or null. */
  operatorId: string | null;
  status: number;
  code: string | null;
}

export type AuditRow = AuditEntry & { id: number };

/** Audit pages hold at most this many rows: bounds one query's work. */
export const AUDIT_PAGE_MAX = 500;
export const AUDIT_PAGE_DEFAULT = 50;

/** The actor the CLI writes: `cli:` and the system user who ran it. */
export function cliActor(user: string): string {
  return `cli:${user}`;
}
