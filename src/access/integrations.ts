/**
 * The operator's integrations: one per game studio that calls the wallet,
 * each with its own secrets, access tokens, caller ranges, provider
 * endpoint and state (docs/operator.md, Integrations; decision 0012). Shapes,
 * limits and pure functions only, no I/O: the randomness that makes a token
 * or a secret is the caller's to give, and the keyring that seals secrets is
 * handed in.
 *
 * At rest, every credential is hashed or sealed. An access token is only
 * ever compared, so the database keeps its SHA-256 (a fast hash is right for
 * 256 random bits, as for staff tokens: no guess is cheaper for it). A
 * secret must be used, as the HMAC key of every call, so it cannot be
 * hashed: it is sealed (keyring.ts) under WAGERLINK_INTEGRATION_KEYS, with
 * the integration's id and which secret it is as the additional data, so
 * that a sealed secret copied to another row, or moved from next to current
 * by hand, does not open.
 */
import { createHash } from 'node:crypto';
import { refuse, type Refusal } from '../protocol/errors.js';
import { ENV_INTEGRATION_ID, INTEGRATION_ID_PATTERN } from '../protocol/integration-id.js';
import { parseRange } from './address-ranges.js';
import { Keyring, keyBytes, KEY_ID_PATTERN } from './keyring.js';

const INTEGRATION_ID_RE = new RegExp(INTEGRATION_ID_PATTERN);

export const INTEGRATION_STATES = ['active', 'paused', 'off'] as const;
/** active: every call; paused: bets refused (INTEGRATION_PAUSED), wins and payouts still booked; off: every call refused (INTEGRATION_OFF). */
export type IntegrationState = (typeof INTEGRATION_STATES)[number];

/**
 * Access tokens one integration holds: the current one and the next during a
 * rotation, with room for a rotation begun twice. More is a set nobody
 * pruned; each token is a credential to withdraw.
 */
export const INTEGRATION_TOKENS_MAX = 4;
/** Caller ranges of one integration: a studio calls from a few networks; every call is matched against them all. */
export const INTEGRATION_RANGES_MAX = 32;
/** Characters of a display name: a name for people, shown in lists, not a description. */
export const INTEGRATION_NAME_LENGTH_MAX = 100;
/** Characters of a provider endpoint's URL: any real base URL fits, and a megabyte of text is not one. */
export const PROVIDER_URL_LENGTH_MAX = 2_048;
/**
 * Integrations one wallet holds: every node keeps them all in memory and
 * reads them all again on each change, which stays a few milliseconds at
 * this size; an operator with more studios than this runs more wallets.
 */
export const INTEGRATIONS_MAX = 500;

const TOKEN_PREFIX = 'wli_';
/** Bytes of a token's and a secret's randomness: 256 bits, beyond any guessing. */
const RANDOM_BYTES = 32;
const KEY_INFO = 'wagerlink integration secret v1';

/** Which of an integration's two secrets a sealed value is: bound into its additional data. */
export type SecretSlot = 'current' | 'next';

/** An integration as the store keeps it: its secrets sealed, its tokens hashed. */
export interface StoredIntegration {
  id: string;
  name: string;
  state: IntegrationState;
  secretSealed: string;
  /** The next secret during a rotation, or null. */
  secretNextSealed: string | null;
  /** SHA-256 (lowercase hex) of each access token, oldest first. */
  tokenHashes: string[];
  /** Caller address ranges; empty admits any address. */
  ranges: string[];
  /** The provider endpoint's base URL, for /generate-launch-url and /game-bets; null when not given. */
  providerUrl: string | null;
  createdAt: number;
  updatedAt: number;
  /** Moves by one on every change: an update names the revision it was made from (a concurrent change refuses it). */
  revision: number;
}

/** The fields of a stored integration an update may set; those left out keep their value. */
export interface IntegrationChanges {
  name?: string;
  state?: IntegrationState;
  secretSealed?: string;
  secretNextSealed?: string | null;
  tokenHashes?: string[];
  ranges?: string[];
  providerUrl?: string | null;
}

/** A stored integration with changes made at `now`: the next revision. */
export function withChanges(stored: StoredIntegration, changes: IntegrationChanges, now: number): StoredIntegration {
  const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as IntegrationChanges;
  return { ...stored, ...defined, updatedAt: now, revision: stored.revision + 1 };
}

export function integrationNotFound(id: string): Refusal {
  return refuse('INTEGRATION_NOT_FOUND', `no stored integration ${id}`);
}

export function integrationExists(id: string): Refusal {
  return refuse('INTEGRATION_EXISTS', `an integration ${id} exists`);
}

export function integrationsFull(): Refusal {
  return refuse('STATE_CONFLICT', `the wallet holds ${INTEGRATIONS_MAX} integrations, its most: remove one first`);
}

export function integrationMovedOn(id: string, revision: number): Refusal {
  return refuse('STATE_CONFLICT', `integration ${id} changed since revision ${revision}: read it again and repeat the change`);
}

/** What a listing shows of an integration: never a secret, a sealed secret or a token's hash. */
export interface IntegrationView {
  id: string;
  name: string;
  state: IntegrationState;
  /** 'environment': the `default` integration of WAGERLINK_SECRET and WAGERLINK_ACCESS_TOKENS, not editable. */
  source: 'environment' | 'stored';
  tokens: number;
  /** A next secret is accepted besides the current one. */
  rotating: boolean;
  ranges: string[];
  providerUrl: string | null;
  createdAt: number | null;
  updatedAt: number | null;
  revision: number | null;
}

export function integrationView(stored: StoredIntegration): IntegrationView {
  return {
    id: stored.id,
    name: stored.name,
    state: stored.state,
    source: 'stored',
    tokens: stored.tokenHashes.length,
    rotating: stored.secretNextSealed !== null,
    ranges: [...stored.ranges],
    providerUrl: stored.providerUrl,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    revision: stored.revision,
  };
}

/** A new access token, `wli_` + 32 random bytes (base64url): shown once, to its maker; only its hash is stored. */
export function newIntegrationToken(random: (bytes: number) => Buffer): { token: string; tokenHash: string } {
  const token = `${TOKEN_PREFIX}${random(RANDOM_BYTES).toString('base64url')}`;
  return { token, tokenHash: integrationTokenHash(token) };
}

/** A new HMAC secret: 32 random bytes as base64url text, whose UTF-8 bytes are the key (docs/protocol.md §2.1). */
export function newIntegrationSecret(random: (bytes: number) => Buffer): string {
  return random(RANDOM_BYTES).toString('base64url');
}

/** SHA-256 of a presented bearer value, lowercase hex: what a token is stored and looked up by. */
export function integrationTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function secretPlace(id: string, slot: SecretSlot): string {
  return `${KEY_INFO}: integration ${id} ${slot}`;
}

/** A secret sealed for its integration and slot. */
export function sealSecret(ring: Keyring, id: string, slot: SecretSlot, secret: string): string {
  return ring.seal(Buffer.from(secret, 'utf8'), secretPlace(id, slot));
}

/** The secret a sealed secret holds; throws when its key is missing or it is not this integration's secret of this slot. */
export function openSecret(ring: Keyring, id: string, slot: SecretSlot, sealed: string): string {
  return ring.open(sealed, secretPlace(id, slot)).toString('utf8');
}

/** A sealed secret names a key WAGERLINK_INTEGRATION_KEYS does not hold. */
export class IntegrationKeyMissingError extends Error {
  override name = 'IntegrationKeyMissingError';
  constructor(readonly keyId: string) {
    super(
      `an integration secret is sealed under key "${keyId}", which WAGERLINK_INTEGRATION_KEYS no longer holds: ` +
        'put that key back (after the current one); a key may leave once every integration was rotated away from it',
    );
  }
}

export function integrationKeyring(keys: ReadonlyMap<string, Buffer>, currentId: string): Keyring {
  return new Keyring(keys, currentId, {
    info: KEY_INFO,
    noun: 'integration secret',
    keyNoun: 'integration',
    missingKey: (keyId) => new IntegrationKeyMissingError(keyId),
  });
}

/** Keys WAGERLINK_INTEGRATION_KEYS may hold: the current one and the older ones sealed secrets may still need. */
const INTEGRATION_KEYS_MAX = 16;

/** WAGERLINK_INTEGRATION_KEYS: `id:key,...`, the first the sealing key; every key 32 bytes, hex or base64. Throws naming what is wrong. */
export function parseIntegrationKeys(text: string): Keyring {
  const keys = new Map<string, Buffer>();
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) throw new Error('WAGERLINK_INTEGRATION_KEYS holds no key');
  if (parts.length > INTEGRATION_KEYS_MAX) throw new Error(`WAGERLINK_INTEGRATION_KEYS holds at most ${INTEGRATION_KEYS_MAX} keys`);
  for (const part of parts) {
    const at = part.indexOf(':');
    const id = at < 0 ? '' : part.slice(0, at);
    const key = keyBytes(part.slice(at + 1));
    if (!new RegExp(KEY_ID_PATTERN).test(id)) throw new Error(`WAGERLINK_INTEGRATION_KEYS: each entry is id:key, the id matching ${KEY_ID_PATTERN}`);
    if (key === undefined) throw new Error(`WAGERLINK_INTEGRATION_KEYS: key ${id} is not 32 bytes as 64 hex digits or base64`);
    if (keys.has(id)) throw new Error(`WAGERLINK_INTEGRATION_KEYS: key ${id} is given twice`);
    keys.set(id, key);
  }
  return integrationKeyring(keys, keys.keys().next().value!);
}

/** Why an id cannot be a stored integration's, or undefined. */
export function checkIntegrationId(id: string): string | undefined {
  if (!INTEGRATION_ID_RE.test(id)) return `id: "${id}" must be 1 to 63 of a-z, 0-9 and "-", starting with a letter or digit`;
  if (id === ENV_INTEGRATION_ID) return `id: ${ENV_INTEGRATION_ID} is the integration of WAGERLINK_SECRET and WAGERLINK_ACCESS_TOKENS, which is never stored`;
  return undefined;
}

export function checkIntegrationName(name: string): string | undefined {
  if (name.trim() === '' || name.length > INTEGRATION_NAME_LENGTH_MAX) return `name: must be 1 to ${INTEGRATION_NAME_LENGTH_MAX} characters`;
  // A name is shown in terminals and logs: no control characters.
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'name: must hold no control characters';
  return undefined;
}

/** Why a list of caller ranges cannot be kept, or undefined: each an IPv4/IPv6 address or CIDR range (address-ranges.ts). */
export function checkRanges(ranges: readonly string[]): string | undefined {
  if (ranges.length > INTEGRATION_RANGES_MAX) return `ranges: at most ${INTEGRATION_RANGES_MAX}`;
  const bad = ranges.find((range) => parseRange(range) === undefined);
  return bad === undefined ? undefined : `ranges: "${bad}" is not an IP address or CIDR range`;
}

/** Why a provider endpoint cannot be kept, or undefined: an http(s) URL without credentials, query or fragment. */
export function checkProviderUrl(url: string): string | undefined {
  if (url.length > PROVIDER_URL_LENGTH_MAX) return `providerUrl: at most ${PROVIDER_URL_LENGTH_MAX} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `providerUrl: "${url}" is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'providerUrl: must be http:// or https://';
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '') {
    return 'providerUrl: a base URL, without credentials, query or fragment';
  }
  return undefined;
}
