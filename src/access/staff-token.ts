/**
 * Staff tokens: their format, how they are kept, and how long they live.
 *
 * A token is `wls_<token id>_<secret>`: the id (8 random bytes, hex) names
 * the token in listings, revocations and the audit log, and is not secret;
 * the secret is 32 random bytes (base64url). The database keeps only the
 * SHA-256 of the whole token. A fast hash is right here, unlike for a
 * password: a token carries 256 random bits, so no guess of it is cheaper
 * for being fast, and a salt or a slow hash would only cost every request.
 * Looking a token up by its hash leaks nothing an attacker could use: the
 * hash of a guess says nothing of a real token's.
 *
 * The randomness comes in as a parameter (no I/O here).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const STAFF_TOKEN_PREFIX = 'wls_';
/** Bytes of a token's id: enough to be unique among a back office's tokens, short enough to read out. */
const STAFF_TOKEN_ID_BYTES = 8;
/** Bytes of a token's secret: 256 bits, beyond any guessing. */
const STAFF_TOKEN_SECRET_BYTES = 32;
/**
 * A token's life when its maker names none: 90 days, a quarter, the rotation
 * a payments back office commonly asks for. `--expires-days` sets another.
 */
export const STAFF_TOKEN_DAYS_DEFAULT = 90;
/** The longest life a token may be given: a year; a longer-lived credential outlives the reasons it was issued. */
export const STAFF_TOKEN_DAYS_MAX = 366;
const DAY_MS = 86_400_000;

/** A name of a staff account: short, plain, and never one of the reserved actors' (ADMIN_TOKEN_ACTOR, `cli:`). */
const STAFF_NAME_PATTERN = /^[a-z][a-z0-9._-]{0,63}$/;

/** The audit's name for the configured admin token (WAGERLINK_ADMIN_TOKEN; the provider config's adminToken). */
export const ADMIN_TOKEN_ACTOR = 'admin-token';

const TOKEN_PATTERN = /^wls_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface NewStaffToken {
  /** Shown once, to its maker; never stored. */
  token: string;
  tokenId: string;
  /** SHA-256 of the token, lowercase hex: what the database keeps. */
  tokenHash: string;
}

/** Makes a token from random bytes (`random(n)` gives n of them). */
export function newStaffToken(random: (bytes: number) => Buffer): NewStaffToken {
  const tokenId = random(STAFF_TOKEN_ID_BYTES).toString('hex');
  const token = `${STAFF_TOKEN_PREFIX}${tokenId}_${random(STAFF_TOKEN_SECRET_BYTES).toString('base64url')}`;
  return { token, tokenId, tokenHash: staffTokenHash(token) };
}

/** Whether a bearer value has a staff token's shape: only such a value is looked up in the database. */
export function isStaffTokenShape(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function staffTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function checkStaffName(name: string): string | undefined {
  if (!STAFF_NAME_PATTERN.test(name)) return `name: "${name}" must be 1 to 64 of a-z, 0-9, ".", "_", "-", starting with a letter`;
  if (name === ADMIN_TOKEN_ACTOR) return `name: ${ADMIN_TOKEN_ACTOR} is the configured admin token's name in the audit log`;
  return undefined;
}

/** The expiry (epoch ms) of a token made at `now` for `days` days. */
export function tokenExpiresAt(now: number, days: number = STAFF_TOKEN_DAYS_DEFAULT): number {
  return now + days * DAY_MS;
}

export function checkTokenDays(days: number): string | undefined {
  return Number.isInteger(days) && days >= 1 && days <= STAFF_TOKEN_DAYS_MAX ? undefined : `expires-days: must be a whole number 1..${STAFF_TOKEN_DAYS_MAX}`;
}

/**
 * The configured admin token, kept either as it is or as `sha256:<hex>`
 * (then the configuration holds no usable credential). Answers whether a
 * bearer value is it, in time that does not depend on where they differ.
 */
export function adminTokenMatcher(configured: string): (presented: string | undefined) => boolean {
  const hashed = /^sha256:([0-9a-f]{64})$/.exec(configured);
  const expected = Buffer.from(hashed ? hashed[1]! : staffTokenHash(configured), 'hex');
  return (presented) => presented !== undefined && timingSafeEqual(Buffer.from(staffTokenHash(presented), 'hex'), expected);
}
