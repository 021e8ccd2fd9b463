/**
 * What the staff stores (sqlite-staff.ts, postgres-staff.ts) take and answer,
 * on both servers.
 */
import type { AuditEntry, AuditRow, StaffListing } from '../access/staff.js';
import type { Role } from '../access/roles.js';

/**
 * A back-office write carries its audit row (access/staff.ts) when a staff
 * account or the CLI makes it: the store writes the row in the same
 * database transaction as the change, and only when the change is made (a
 * refusal writes nothing; its caller writes the refusal's row itself, with
 * appendAudit). The entry's status is the one the caller answers on success.
 */
export interface Audited {
  audit?: AuditEntry | undefined;
}

/** A new staff account and its first token; the token itself is never stored, only its hash (access/staff-token.ts). */
export interface AddStaffCommand extends Audited {
  name: string;
  role: Role;
  /** The provider's scope: the operators it may see and act on; null is all (always null on the operator's side). */
  operators: readonly string[] | null;
  tokenId: string;
  /** SHA-256 of the token, lowercase hex. */
  tokenHash: string;
  expiresAt: number;
  now: number;
}

/** Revokes a whole account (by name: it and every token of it) or one token (by id). */
export interface RevokeStaffCommand extends Audited {
  nameOrTokenId: string;
  now: number;
}

export interface StaffAdded {
  ok: true;
  staff: StaffListing;
}

export interface StaffRevoked {
  ok: true;
  name: string;
  /** The tokens revoked by this call (none when all already were). */
  tokenIds: string[];
}

/** A page of the audit log, newest first; `before` is the previous page's nextCursor (a row id). */
export interface AuditPageRequest {
  limit: number;
  before?: number | undefined;
}

export interface AuditPage {
  items: AuditRow[];
  nextCursor: number | null;
}
