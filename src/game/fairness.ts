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
 *
 * A game whose round needs several numbers (the reels: three stops a spin)
 * draws them from the same seeds by index, with the same rejection
 * (drawOf). Step by step, as the game page mirrors it with WebCrypto, the
 * draw number `index` (0, 1, 2, ...) of the round with nonce `nonce`, a
 * uniform integer in [0, n):
 *
 *   1. key = the 32 bytes of the server seed (hex-decoded);
 *   2. message = UTF-8 of `${clientSeed}:${nonce}:draw:${index}`;
 *   3. digest = HMAC-SHA256(key, message), 32 bytes;
 *   4. limit = floor(2^32 / n) × n;
 *   5. for each of the digest's eight 4-byte words, read big-endian as an
 *      unsigned integer w: if w < limit, the draw is w mod n; stop;
 *   6. if all eight were rejected, repeat 3 to 5 with the message
 *      `${clientSeed}:${nonce}:draw:${index}:${extra}` for extra = 1, 2, 3.
 *
 * The word "draw" keeps these messages apart from the roll's, which are
 * `${clientSeed}:${nonce}` and `${clientSeed}:${nonce}:${extra}`: a client
 * seed has no ":", so no message of one kind spells one of the other. Each
 * draw has a digest of its own, so any one of them is checked without the
 * others.
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

const WORD_RANGE = 2 ** 32;
const WORDS_PER_DIGEST = 8;
/**
 * Extra digests tried when every word of one was rejected. For a roll one
 * word is rejected with probability 2.3e-4, a whole digest with 1e-29; for
 * a draw (at most DRAW_RANGE_MAX outcomes) a word with less than 2^-16, a
 * digest with less than 2^-128. The bound exists so that the loop has one,
 * and is never reached in practice.
 */
const EXTRA_DIGESTS_MAX = 3;
/**
 * The most outcomes one draw may have. A reel strip has a few dozen stops;
 * the bound keeps a word's rejection chance below 2^-16, which is what
 * makes EXTRA_DIGESTS_MAX safe.
 */
export const DRAW_RANGE_MAX = 2 ** 16;

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

function assertRoundInputs(serverSeedHex: string, clientSeed: string, nonce: number): void {
  assert.ok(isServerSeed(serverSeedHex), 'a server seed is 32 bytes of lowercase hex');
  assert.ok(isClientSeed(clientSeed), 'a client seed matches CLIENT_SEED_PATTERN');
  assert.ok(Number.isSafeInteger(nonce) && nonce >= 0, 'a nonce is a whole number');
}

/** The roll of a round, from its revealed server seed, the client seed and the nonce. */
export function rollOf(serverSeedHex: string, clientSeed: string, nonce: number): number {
  assertRoundInputs(serverSeedHex, clientSeed, nonce);
  return uniformFromDigests(serverSeedHex, `${clientSeed}:${nonce}`, ROLL_OUTCOMES);
}

/**
 * Draw number `index` of a round, a uniform integer in [0, n), from its
 * revealed server seed, the client seed and the nonce (the steps are in
 * this file's head comment).
 */
export function drawOf(serverSeedHex: string, clientSeed: string, nonce: number, index: number, n: number): number {
  assertRoundInputs(serverSeedHex, clientSeed, nonce);
  assert.ok(Number.isSafeInteger(index) && index >= 0, 'a draw index is a whole number');
  assert.ok(Number.isInteger(n) && n >= 1 && n <= DRAW_RANGE_MAX, `a draw has 1 to ${DRAW_RANGE_MAX} outcomes, not ${n}`);
  return uniformFromDigests(serverSeedHex, `${clientSeed}:${nonce}:draw:${index}`, n);
}

/** The draws of one round in order (index 0, 1, 2, ...): the source a game's round is played from. */
export function drawSource(serverSeedHex: string, clientSeed: string, nonce: number): (n: number) => number {
  let index = 0;
  return (n) => drawOf(serverSeedHex, clientSeed, nonce, index++, n);
}

/**
 * The first word below the largest multiple of n that fits in 32 bits, of
 * HMAC-SHA256(seed, message), then of the same with ":1", ":2", ":3"
 * appended, reduced mod n.
 */
function uniformFromDigests(serverSeedHex: string, message: string, n: number): number {
  const key = Buffer.from(serverSeedHex, 'hex');
  const limit = Math.floor(WORD_RANGE / n) * n;
  for (let extra = 0; extra <= EXTRA_DIGESTS_MAX; extra++) {
    const digest = createHmac('sha256', key)
      .update(extra === 0 ? message : `${message}:${extra}`)
      .digest();
    for (let word = 0; word < WORDS_PER_DIGEST; word++) {
      const value = digest.readUInt32BE(word * 4);
      if (value < limit) return value % n;
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
