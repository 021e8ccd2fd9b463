/**
 * Verifiable rolls: a commitment scheme, as pure computation.
 *
 * Before a round the player sees SHA-256(serverSeed); the server seed itself
 * comes from `crypto` randomness and is revealed after the round. The roll is
 * derived from HMAC-SHA256(key = serverSeed, message = "clientSeed:nonce"),
 * where the client seed is the player's and the nonce counts the rounds of
 * the game session. Neither side can steer the roll: the server committed to
 * its seed before seeing the client seed, and the player cannot predict the
 * server seed from its hash. Anyone holding the three inputs can recompute
 * the roll (the game page does, with WebCrypto).
 *
 * The roll is uniform over [0, ROLL_OUTCOMES): successive big-endian 32-bit
 * words of the digest are read, and a word at or above the largest multiple
 * of ROLL_OUTCOMES below 2^32 is rejected, so no outcome is favoured by the
 * modulo.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { ROLL_OUTCOMES } from './dice.js';

/** 32 bytes: a server seed cannot be guessed from its hash. */
export const SERVER_SEED_BYTES = 32;
/** Client seeds are short printable tokens the player may type. */
export const CLIENT_SEED_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const CLIENT_SEED_RE = new RegExp(CLIENT_SEED_PATTERN);
const SERVER_SEED_RE = /^[0-9a-f]{64}$/;

const WORD_LIMIT = Math.floor(2 ** 32 / ROLL_OUTCOMES) * ROLL_OUTCOMES;
const WORDS_PER_DIGEST = 8;
/**
 * Extra digests tried when every word of one was rejected. One word is
 * rejected with probability 2.3e-4, a whole digest with 1e-29: the bound
 * exists so that the loop has one, and is never reached in practice.
 */
const EXTRA_DIGESTS_MAX = 3;

export function isClientSeed(value: string): boolean {
  return CLIENT_SEED_RE.test(value);
}

export function isServerSeed(value: string): boolean {
  return SERVER_SEED_RE.test(value);
}

/** The commitment shown before the round: lowercase hex SHA-256 of the seed's bytes. */
export function commitment(serverSeedHex: string): string {
  assert.ok(isServerSeed(serverSeedHex), 'a server seed is 32 bytes of lowercase hex');
  return createHash('sha256').update(Buffer.from(serverSeedHex, 'hex')).digest('hex');
}

/** The roll of a round, from its revealed server seed, the client seed and the nonce. */
export function rollOf(serverSeedHex: string, clientSeed: string, nonce: number): number {
  assert.ok(isServerSeed(serverSeedHex), 'a server seed is 32 bytes of lowercase hex');
  assert.ok(isClientSeed(clientSeed), 'a client seed matches CLIENT_SEED_PATTERN');
  assert.ok(Number.isSafeInteger(nonce) && nonce >= 0, 'a nonce is a whole number');
  const key = Buffer.from(serverSeedHex, 'hex');
  for (let extra = 0; extra <= EXTRA_DIGESTS_MAX; extra++) {
    const message = extra === 0 ? `${clientSeed}:${nonce}` : `${clientSeed}:${nonce}:${extra}`;
    const digest = createHmac('sha256', key).update(message).digest();
    for (let word = 0; word < WORDS_PER_DIGEST; word++) {
      const value = digest.readUInt32BE(word * 4);
      if (value < WORD_LIMIT) return value % ROLL_OUTCOMES;
    }
  }
  // Reaching here means SHA-256 is broken, or this code is.
  assert.fail('no acceptable word in any digest');
}

export interface RevealedRound {
  serverSeed: string;
  serverSeedHash: string;
  clientSeed: string;
  nonce: number;
  roll: number;
}

/** What a player or an auditor checks after a round. */
export function verifyRound(round: RevealedRound): boolean {
  if (!isServerSeed(round.serverSeed) || !isClientSeed(round.clientSeed)) return false;
  return commitment(round.serverSeed) === round.serverSeedHash && rollOf(round.serverSeed, round.clientSeed, round.nonce) === round.roll;
}
