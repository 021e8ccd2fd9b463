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
 * Sealing itself (AES-256-GCM with a key and IV derived per seal, the
 * format, the keyring) is src/access/keyring.ts, shared with the operator's
 * integration secrets. The additional data here binds a sealed seed to its
 * place (a session at one nonce, or one round): a sealed seed copied to
 * another row, or left at a nonce that has moved on, does not open.
 *
 * The keys are held in a private field: neither JSON nor util.inspect of a
 * keyring shows them, only their ids.
 */
import { inspect } from 'node:util';
import { commitment, isServerSeed, SERVER_SEED_BYTES } from '../game/fairness.js';
import { KEY_BYTES, KEY_ID_PATTERN, Keyring, keyBytes, sealedKeyIdOf } from '../access/keyring.js';
import type { GameSessionRow, RoundRow, SeedSealing } from './store/provider-store.js';

/** 256-bit keys: AES-256's, and HKDF-SHA256's full strength. */
export const SEED_KEY_BYTES = KEY_BYTES;
/** A key id: short and plain, since it is written into every sealed seed and read by people rotating keys. */
export const SEED_KEY_ID_PATTERN = KEY_ID_PATTERN;
/**
 * Keys one ring holds: the current one and the older ones that rounds still
 * open may need. More means a ring nobody has pruned since many rotations.
 */
export const SEED_KEYS_MAX = 16;

const KEY_INFO = 'wagerlink server seed v1';
const NOUN = 'server seed';

/** Where a sealed seed belongs: its session's next round (at that nonce), or one round whose seed is not yet revealed. */
export type SeedPlace = { session: string; nonce: number } | { round: string };

function additionalData(place: SeedPlace): string {
  const where = 'round' in place ? `round ${place.round}` : `session ${place.session} nonce ${place.nonce}`;
  return `${KEY_INFO}: ${where}`;
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
  readonly #ring: Keyring;
  readonly currentId: string;

  constructor(keys: ReadonlyMap<string, Buffer>, currentId: string) {
    this.#ring = new Keyring(keys, currentId, { info: KEY_INFO, noun: NOUN, keyNoun: 'seed', missingKey: (keyId) => new SeedKeyMissingError(keyId) });
    this.currentId = currentId;
  }

  /** The ids of the ring's keys, the current one among them. */
  get ids(): string[] {
    return this.#ring.ids;
  }

  /** Seals a seed (lowercase hex) for its place under the current key. */
  seal(seedHex: string, place: SeedPlace): string {
    if (!isServerSeed(seedHex)) throw new Error('a server seed is 32 bytes of lowercase hex');
    return this.#ring.seal(Buffer.from(seedHex, 'hex'), additionalData(place));
  }

  /**
   * The seed a sealed seed holds, for its place. Throws SeedKeyMissingError
   * when its key is not in the ring, and an error when it is not a sealed
   * seed of that place (altered, or copied from elsewhere).
   */
  open(sealed: string, place: SeedPlace): string {
    sealedKeyId(sealed);
    return this.#ring.open(sealed, additionalData(place), SERVER_SEED_BYTES).toString('hex');
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
  return sealedKeyIdOf(sealed, NOUN);
}

/**
 * A key's text in the config: 32 bytes as 64 hex digits, or as base64
 * (standard or URL-safe, padded or not), as `openssl rand -base64 32`
 * writes it. Undefined when it is neither.
 */
export function seedKeyBytes(text: string): Buffer | undefined {
  return keyBytes(text);
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
