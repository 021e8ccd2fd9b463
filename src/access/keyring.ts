/**
 * A keyring of 256-bit keys, and sealing with it: the one piece of code that
 * keeps a secret in a database so that the database alone does not give it.
 * The provider's server seeds not yet revealed (src/provider/seed-keyring.ts)
 * and the operator's integration secrets (integrations.ts) are both sealed
 * here.
 *
 * AES-256-GCM. Each seal derives its own AES key and IV from the ring's key
 * and a random salt (HKDF-SHA256, with the ring's `info`), so no AES key
 * ever meets two IVs: random 96-bit IVs under one key are good for 2^32
 * seals only (NIST SP 800-38D §8.3), which a busy provider would reach
 * within weeks. The additional data, which each caller names, binds a
 * sealed value to its place (a row, and which of its fields): a sealed
 * value copied to another row does not open.
 *
 * Format: "v1." + key id + "." + base64url(salt[16] || ciphertext || tag[16]).
 * The key id is written into every sealed value, so that a ring holding an
 * older key still opens what that key sealed, and a rotation can move each
 * value to the current key at its own pace.
 *
 * The keys are held in a private field: neither JSON nor util.inspect of a
 * keyring shows them, only their ids. No I/O: the salt's randomness is the
 * caller's to give (by default node:crypto's).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

/** 256-bit keys: AES-256's, and HKDF-SHA256's full strength. */
export const KEY_BYTES = 32;
/** A key id: short and plain, since it is written into every sealed value and read by people rotating keys. */
export const KEY_ID_PATTERN = '^[A-Za-z0-9_-]{1,32}$';
const KEY_ID_RE = new RegExp(KEY_ID_PATTERN);

const VERSION = 'v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface KeyringOptions {
  /** HKDF's info: names what the ring seals, so that the same key sealing two kinds of value derives apart. */
  info: string;
  /** What a value sealed under a key the ring does not hold throws: each caller says how to put the key back. */
  missingKey: (keyId: string) => Error;
  /** What the ring seals, in words, for its errors ("server seed"). */
  noun: string;
  /** What its keys are called, for its errors ("seed": "seed key k1"). */
  keyNoun: string;
}

/** Keys by id: the current one seals, every one opens. */
export class Keyring {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly currentId: string;
  readonly #options: KeyringOptions;

  constructor(keys: ReadonlyMap<string, Buffer>, currentId: string, options: KeyringOptions) {
    if (!keys.has(currentId)) throw new Error(`the current ${options.keyNoun} key ${currentId} is one of the ring`);
    for (const [id, key] of keys) {
      if (!KEY_ID_RE.test(id)) throw new Error(`${options.keyNoun} key id ${JSON.stringify(id)} does not match ${KEY_ID_PATTERN}`);
      if (key.length !== KEY_BYTES) throw new Error(`${options.keyNoun} key ${id} has ${KEY_BYTES} bytes`);
    }
    this.#keys = new Map([...keys].map(([id, key]) => [id, Buffer.from(key)]));
    this.currentId = currentId;
    this.#options = options;
  }

  /** The ids of the ring's keys, the current one among them. */
  get ids(): string[] {
    return [...this.#keys.keys()];
  }

  /** Seals `plain` for the place `additionalData` names, under the current key. */
  seal(plain: Buffer, additionalData: string, random: (bytes: number) => Buffer = randomBytes): string {
    const salt = random(SALT_BYTES);
    const { key, iv } = this.derive(this.#keys.get(this.currentId)!, salt);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(additionalData));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return `${VERSION}.${this.currentId}.${Buffer.concat([salt, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /**
   * The bytes a sealed value holds, for its place. Throws the ring's
   * missingKey error when its key is not in the ring, and an error when it
   * is not a sealed value of that place (altered, copied from elsewhere) or,
   * given `plainBytes`, not of that length.
   */
  open(sealed: string, additionalData: string, plainBytes?: number): Buffer {
    const keyId = sealedKeyIdOf(sealed, this.#options.noun);
    const master = this.#keys.get(keyId);
    if (master === undefined) throw this.#options.missingKey(keyId);
    const bytes = Buffer.from(sealed.slice(VERSION.length + keyId.length + 2), 'base64url');
    const wrongLength = plainBytes === undefined ? bytes.length < SALT_BYTES + TAG_BYTES : bytes.length !== SALT_BYTES + plainBytes + TAG_BYTES;
    if (wrongLength) throw new Error(`a sealed ${this.#options.noun} has the wrong length`);
    const { key, iv } = this.derive(master, bytes.subarray(0, SALT_BYTES));
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(additionalData));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(SALT_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new Error(
        `a ${this.#options.noun} sealed under ${this.#options.keyNoun} key "${keyId}" does not open for its place: it was altered, or belongs to another row`,
      );
    }
  }

  private derive(master: Buffer, salt: Buffer): { key: Buffer; iv: Buffer } {
    const bytes = Buffer.from(hkdfSync('sha256', master, salt, this.#options.info, KEY_BYTES + IV_BYTES));
    return { key: bytes.subarray(0, KEY_BYTES), iv: bytes.subarray(KEY_BYTES) };
  }

  toJSON(): { current: string; keys: string[] } {
    return { current: this.currentId, keys: this.ids };
  }

  [inspect.custom](): string {
    return `Keyring { current: ${this.currentId}, keys: [${this.ids.join(', ')}] }`;
  }
}

/** The id of the key a sealed value was sealed under (read from its text; no key needed). */
export function sealedKeyIdOf(sealed: string, noun: string): string {
  const [version, keyId] = sealed.split('.', 3);
  if (version !== VERSION || keyId === undefined || !KEY_ID_RE.test(keyId)) throw new Error(`not a sealed ${noun}`);
  return keyId;
}

/**
 * A key's text in a configuration: 32 bytes as 64 hex digits, or as base64
 * (standard or URL-safe, padded or not), as `openssl rand -base64 32`
 * writes it. Undefined when it is neither.
 */
export function keyBytes(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) return undefined;
  const bytes = Buffer.from(text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url');
  return bytes.length === KEY_BYTES ? bytes : undefined;
}
