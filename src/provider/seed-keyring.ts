/**
 * The server seeds of rounds not yet played, kept so that the provider's
 * database alone does not give them (docs/games.md, Server seeds at rest).
 *
 * A seed that has been committed to (its SHA-256 shown to the player) but
 * not yet revealed is stored only sealed: AES-256-GCM under a key of the
 * provider's keyring, which lives in the provider's configuration
 * (`seedKeys`) and never in the database. Whoever reads the database (a
 * replica, a backup, a person with a SQL prompt) sees the commitment and
 * the sealed bytes, not the seed, so cannot pick a client seed that wins
 * the next round. Once a round is played its seed is revealed and stored
 * in plain text, as before: from then on it is for verification, and
 * verifying needs no key.
 *
 * Sealed, not derived: a seed is still fresh randomness, made when it is
 * committed to, and the key only hides it. A seed derived from the key
 * (HMAC of the key and the session) would make the key alone, with the
 * session ids that logs and exports carry, enough to know every seed; a
 * sealed seed needs both the key and the database row. Sealing also kept
 * the rounds a migrated database had open when it was upgraded (their
 * seeds could be sealed as they were), and it lets every session move to a
 * new key at its next round, so an old key is needed only briefly after a
 * rotation.
 *
 * Format: "v1." + key id + "." + base64url(salt[16] || ciphertext[32] ||
 * tag[16]). Each seal derives its own AES key and IV from the keyring's
 * key and the random salt (HKDF-SHA256), so no AES key ever meets two IVs:
 * random 96-bit IVs under one key are good for 2^32 seals only (NIST SP
 * 800-38D §8.3), which a busy provider would reach within weeks. The
 * additional data binds a sealed seed to its place (a session at one
 * nonce, or one round): a sealed seed copied to another row, or left at a
 * nonce that has moved on, does not open.
 *
 * The keys are held in a private field: neither JSON nor util.inspect of a
 * keyring shows them, only their ids.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { commitment, isServerSeed, SERVER_SEED_BYTES } from '../game/fairness.js';
import type { GameSessionRow, RoundRow, SeedSealing } from './store/provider-store.js';

/** 256-bit keys: AES-256's, and HKDF-SHA256's full strength. */
export const SEED_KEY_BYTES = 32;
/** A key id: short and plain, since it is written into every sealed seed and read by people rotating keys. */
export const SEED_KEY_ID_PATTERN = '^[A-Za-z0-9_-]{1,32}$';
const SEED_KEY_ID_RE = new RegExp(SEED_KEY_ID_PATTERN);
/**
 * Keys one ring holds: the current one and the older ones that rounds still
 * open may need. More means a ring nobody has pruned since many rotations.
 */
export const SEED_KEYS_MAX = 16;

const VERSION = 'v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_INFO = 'wagerlink server seed v1';

/** Where a sealed seed belongs: its session's next round (at that nonce), or one round whose seed is not yet revealed. */
export type SeedPlace = { session: string; nonce: number } | { round: string };

function additionalData(place: SeedPlace): Buffer {
  const where = 'round' in place ? `round ${place.round}` : `session ${place.session} nonce ${place.nonce}`;
  return Buffer.from(`${KEY_INFO}: ${where}`);
}

/** A sealed seed names a key the ring does not hold (it was removed too early). */
export class SeedKeyMissingError extends Error {
  override name = 'SeedKeyMissingError';
  constructor(readonly keyId: string) {
    super(
      `a server seed is sealed under seed key "${keyId}", which seedKeys.keys no longer holds: put that key back into the ring ` +
        '(a key may leave it once no open session or unfinished round needs it, docs/games.md)',
    );
  }
}

/** The keys of `seedKeys`, decoded: the current one seals, every one opens. */
export class SeedKeyring {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly currentId: string;

  constructor(keys: ReadonlyMap<string, Buffer>, currentId: string) {
    if (!keys.has(currentId)) throw new Error(`the current seed key ${currentId} is one of the ring`);
    for (const [id, key] of keys) {
      if (!SEED_KEY_ID_RE.test(id)) throw new Error(`seed key id ${JSON.stringify(id)} does not match ${SEED_KEY_ID_PATTERN}`);
      if (key.length !== SEED_KEY_BYTES) throw new Error(`seed key ${id} has ${SEED_KEY_BYTES} bytes`);
    }
    this.#keys = new Map([...keys].map(([id, key]) => [id, Buffer.from(key)]));
    this.currentId = currentId;
  }

  /** The ids of the ring's keys, the current one among them. */
  get ids(): string[] {
    return [...this.#keys.keys()];
  }

  /** Seals a seed (lowercase hex) for its place under the current key. */
  seal(seedHex: string, place: SeedPlace): string {
    if (!isServerSeed(seedHex)) throw new Error('a server seed is 32 bytes of lowercase hex');
    const salt = randomBytes(SALT_BYTES);
    const { key, iv } = this.derive(this.#keys.get(this.currentId)!, salt);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(additionalData(place));
    const body = Buffer.concat([cipher.update(Buffer.from(seedHex, 'hex')), cipher.final()]);
    return `${VERSION}.${this.currentId}.${Buffer.concat([salt, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /**
   * The seed a sealed seed holds, for its place. Throws SeedKeyMissingError
   * when its key is not in the ring, and an error when it is not a sealed
   * seed of that place (altered, or copied from elsewhere).
   */
  open(sealed: string, place: SeedPlace): string {
    const keyId = sealedKeyId(sealed);
    const master = this.#keys.get(keyId);
    if (master === undefined) throw new SeedKeyMissingError(keyId);
    const bytes = Buffer.from(sealed.slice(VERSION.length + keyId.length + 2), 'base64url');
    if (bytes.length !== SALT_BYTES + SERVER_SEED_BYTES + TAG_BYTES) throw new Error('a sealed server seed has the wrong length');
    const { key, iv } = this.derive(master, bytes.subarray(0, SALT_BYTES));
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(additionalData(place));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(SALT_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('hex');
    } catch {
      throw new Error(`a server seed sealed under seed key "${keyId}" does not open for its place: it was altered, or belongs to another row`);
    }
  }

  private derive(master: Buffer, salt: Buffer): { key: Buffer; iv: Buffer } {
    const bytes = Buffer.from(hkdfSync('sha256', master, salt, KEY_INFO, SEED_KEY_BYTES + IV_BYTES));
    return { key: bytes.subarray(0, SEED_KEY_BYTES), iv: bytes.subarray(SEED_KEY_BYTES) };
  }

  toJSON(): { current: string; keys: string[] } {
    return { current: this.currentId, keys: this.ids };
  }

  [inspect.custom](): string {
    return `SeedKeyring { current: ${this.currentId}, keys: [${this.ids.join(', ')}] }`;
  }
}

/** The id of the key a sealed seed was sealed under (read from its text; no key needed). */
export function sealedKeyId(sealed: string): string {
  const [version, keyId] = sealed.split('.', 3);
  if (version !== VERSION || keyId === undefined || !SEED_KEY_ID_RE.test(keyId)) throw new Error('not a sealed server seed');
  return keyId;
}

/**
 * A key's text in the config: 32 bytes as 64 hex digits, or as base64
 * (standard or URL-safe, padded or not), as `openssl rand -base64 32`
 * writes it. Undefined when it is neither.
 */
export function seedKeyBytes(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) return undefined;
  const bytes = Buffer.from(text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url');
  return bytes.length === SEED_KEY_BYTES ? bytes : undefined;
}

/** Where a session's next seed belongs: the session at that nonce. */
export function sessionPlace(session: { sessionId: string; nonce: number }): SeedPlace {
  return { session: session.sessionId, nonce: session.nonce };
}

/**
 * What the store's upgrade (`sealPlainSeeds`) and a new session or round
 * need: fresh seeds from `randomBytes` (the world's), sealed for their
 * place, with their commitments.
 */
export function seedSealing(keyring: SeedKeyring, random: (size: number) => Buffer): SeedSealing {
  return {
    fresh(sessionId, nonce) {
      const seed = random(SERVER_SEED_BYTES).toString('hex');
      return { sealed: keyring.seal(seed, { session: sessionId, nonce }), hash: commitment(seed) };
    },
    sealForRound: (seedHex, roundId) => keyring.seal(seedHex, { round: roundId }),
  };
}

/** The seed of a session's next round, opened, and checked against the commitment its player is shown. */
export function openSessionSeed(keyring: SeedKeyring, session: Pick<GameSessionRow, 'sessionId' | 'nonce' | 'sealedSeed' | 'serverSeedHash'>): string {
  return checked(keyring.open(session.sealedSeed, sessionPlace(session)), session.serverSeedHash);
}

/** A round's seed: revealed, or opened from its sealed form and checked against its commitment. */
export function openRoundSeed(keyring: SeedKeyring, round: Pick<RoundRow, 'roundId' | 'serverSeed' | 'sealedSeed' | 'serverSeedHash'>): string {
  if (round.serverSeed !== null) return round.serverSeed;
  if (round.sealedSeed === null) throw new Error(`round ${round.roundId} has neither a revealed nor a sealed seed`);
  return checked(keyring.open(round.sealedSeed, { round: round.roundId }), round.serverSeedHash);
}

/** A seed that opened but is not the one committed to means the row was altered: nothing is played from it. */
function checked(seedHex: string, serverSeedHash: string): string {
  if (commitment(seedHex) !== serverSeedHash)
    throw new Error('a sealed server seed opened to a seed that is not the one its commitment names: the row was altered');
  return seedHex;
}
