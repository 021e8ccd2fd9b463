/**
 * The sandbox's back office works with staff accounts, not with the
 * servers' configured admin tokens: the operator's with an `admin` account
 * of the operator's own staff (the casino runs its wallet), the provider's
 * with a `payments` account scoped to the sandbox's operator, so that the
 * casino's staff can pay prizes and settle outbox items of their own
 * operator, within the role's limit, and see nothing of another's. Each
 * account is made on the first start and kept: its token in the data
 * folder's secrets file (owner-only), its hash in each server's database.
 * A start that finds its token gone, revoked or expired makes a new
 * account (names are never reused, so each has a suffix of its own).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { Role } from '../access/roles.js';
import { newStaffToken, STAFF_TOKEN_DAYS_MAX, staffTokenHash, tokenExpiresAt } from '../access/staff-token.js';
import { tokenValid, type AuditEntry, type StaffTokenFound } from '../access/staff.js';
import type { Refusal } from '../protocol/errors.js';
import type { AddStaffCommand, StaffAdded } from '../stores/store.js';
import { SECRETS_FILE } from './sandbox-secrets.js';

/** Where each side's token is kept in the secrets file. */
type StaffSecretName = 'operatorStaffToken' | 'providerStaffToken';

/** What the sandbox needs of either side's store. */
export interface StaffStore {
  findStaffToken(tokenHash: string): Promise<StaffTokenFound | null | undefined>;
  addStaff(command: AddStaffCommand): Promise<StaffAdded | Refusal>;
}

export interface SandboxStaffAccount {
  name: 'operatorStaffToken' | 'providerStaffToken';
  role: Role;
  /** The provider's scope; null on the operator's side. */
  operators: readonly string[] | null;
}

/** Reads a kept token, or undefined. */
function keptToken(dataDir: string, name: StaffSecretName): string | undefined {
  const value = (JSON.parse(readFileSync(join(dataDir, SECRETS_FILE), 'utf8')) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** Keeps a token in the secrets file: written whole to a new file (owner-only) and renamed over it, so that a crash leaves one or the other. */
function keepToken(dataDir: string, name: StaffSecretName, token: string): void {
  const path = join(dataDir, SECRETS_FILE);
  const secrets = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  secrets[name] = token;
  const next = `${path}.next`;
  writeFileSync(next, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  chmodSync(next, 0o600);
  renameSync(next, path);
}

/**
 * The back office's token of one side: the kept one while its account
 * holds it, else a new account's. Answers the token.
 */
export async function sandboxStaffToken(store: StaffStore, dataDir: string, account: SandboxStaffAccount, now = Date.now()): Promise<string> {
  const kept = keptToken(dataDir, account.name);
  if (kept !== undefined) {
    const found = await store.findStaffToken(staffTokenHash(kept));
    if (found && tokenValid(found, now)) return kept;
  }
  const made = newStaffToken(randomBytes);
  const name = `backoffice-${made.tokenId.slice(0, 6)}`;
  const audit: AuditEntry = {
    at: now,
    actor: 'sandbox',
    tokenId: null,
    method: 'CLI',
    route: 'sandbox',
    target: `staff=${name} token=${made.tokenId}`,
    amount: null,
    currency: null,
    address: null,
    operatorId: account.operators?.length === 1 ? account.operators[0]! : null,
    status: 201,
    code: null,
  };
  const added = await store.addStaff({
    name,
    role: account.role,
    operators: account.operators,
    tokenId: made.tokenId,
    tokenHash: made.tokenHash,
    // A sandbox lives long on a developer's machine: the longest life a token may have.
    expiresAt: tokenExpiresAt(now, STAFF_TOKEN_DAYS_MAX),
    now,
    audit,
  });
  if (!added.ok) throw new Error(`the sandbox's back-office account was not made: ${added.detail}`);
  keepToken(dataDir, account.name, made.token);
  return made.token;
}
