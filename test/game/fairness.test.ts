/**
 * Proves the commitment scheme (src/game/fairness.ts): the hash shown before
 * a round is SHA-256 of the seed revealed after it, a roll is a pure
 * function of (server seed, client seed, nonce) that anyone can recompute,
 * any change to a revealed input is caught, and rolls are uniform.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { ROLL_OUTCOMES } from '../../src/game/dice.js';
import { commitment, isClientSeed, rollOf, verifyRound } from '../../src/game/fairness.js';

const SEED = '42a74d918d42681cb18a700cdf117f54c16110cc50a95bc18fab3512221c1e82';

test('the commitment is SHA-256 of the seed bytes', () => {
  assert.equal(commitment(SEED), createHash('sha256').update(Buffer.from(SEED, 'hex')).digest('hex'));
  assert.throws(() => commitment('not-hex'));
});

test('a roll is the first accepted 32-bit word of HMAC-SHA256(seed, "clientSeed:nonce"), mod one million', () => {
  const digest = createHmac('sha256', Buffer.from(SEED, 'hex')).update('abc:0').digest();
  assert.equal(rollOf(SEED, 'abc', 0), digest.readUInt32BE(0) % ROLL_OUTCOMES);
  // A frozen vector: a change of the derivation would break every verification ever shown.
  assert.equal(rollOf(SEED, 'abc', 0), 239_617);
  assert.notEqual(rollOf(SEED, 'abc', 1), rollOf(SEED, 'abc', 0));
  assert.notEqual(rollOf(SEED, 'abd', 0), rollOf(SEED, 'abc', 0));
});

test('a revealed round verifies, and any change to it does not', () => {
  const round = { serverSeed: SEED, serverSeedHash: commitment(SEED), clientSeed: 'player-seed_1', nonce: 7, roll: rollOf(SEED, 'player-seed_1', 7) };
  assert.equal(verifyRound(round), true);
  const other = randomBytes(32).toString('hex');
  assert.equal(verifyRound({ ...round, serverSeed: other }), false);
  assert.equal(verifyRound({ ...round, serverSeedHash: commitment(other) }), false);
  assert.equal(verifyRound({ ...round, nonce: 8 }), false);
  assert.equal(verifyRound({ ...round, clientSeed: 'player-seed_2' }), false);
  assert.equal(verifyRound({ ...round, roll: (round.roll + 1) % ROLL_OUTCOMES }), false);
  assert.equal(verifyRound({ ...round, clientSeed: 'has space' }), false);
});

test('client seeds are short printable tokens', () => {
  assert.equal(isClientSeed('abc-DEF_123'), true);
  assert.equal(isClientSeed(''), false);
  assert.equal(isClientSeed('x'.repeat(65)), false);
  assert.equal(isClientSeed('a:b'), false);
});

test('rolls are uniform: a chi-square test over 100,000 rolls in 20 buckets', () => {
  const rolls = 100_000;
  const buckets = new Array<number>(20).fill(0);
  // A fixed seed keeps the test deterministic; the nonces vary the input as play does.
  for (let nonce = 0; nonce < rolls; nonce++) {
    const roll = rollOf(SEED, 'uniformity', nonce);
    assert.ok(roll >= 0 && roll < ROLL_OUTCOMES);
    buckets[Math.floor(roll / (ROLL_OUTCOMES / 20))]! += 1;
  }
  const expected = rolls / 20;
  const chiSquare = buckets.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
  // 19 degrees of freedom: P(chi-square > 54) is about 3e-5, so a fair source fails once in 30,000 runs.
  assert.ok(chiSquare < 54, `chi-square ${chiSquare.toFixed(1)} over buckets ${buckets.join(',')}`);
});
