/**
 * Proves the commitment scheme (src/game/fairness.ts): the hash shown before
 * a round is SHA-256 of the seed revealed after it, a roll is a pure
 * function of (server seed, client seed, nonce) that anyone can recompute,
 * any change to a revealed input is caught, and rolls are uniform; the
 * draws of a round are derived by the documented steps, apart from the
 * rolls, and uniform too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { ROLL_OUTCOMES } from '../../src/game/dice.js';
import { commitment, drawOf, drawSource, DRAW_RANGE_MAX, isClientSeed, rollOf, verifyRound } from '../../src/game/fairness.js';

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

test('a rejected word is skipped: nonce 11724 reads its roll from the second word', () => {
  const digest = createHmac('sha256', Buffer.from(SEED, 'hex')).update('abc:11724').digest();
  assert.ok(digest.readUInt32BE(0) >= 4_294_000_000, 'the first word is at or above the largest multiple of 10^6');
  assert.equal(rollOf(SEED, 'abc', 11_724), digest.readUInt32BE(4) % ROLL_OUTCOMES);
  assert.equal(rollOf(SEED, 'abc', 11_724), 684_483);
});

test('a draw follows the documented steps: the first accepted word of HMAC-SHA256(seed, "clientSeed:nonce:draw:index"), mod n', () => {
  const digest = createHmac('sha256', Buffer.from(SEED, 'hex')).update('abc:0:draw:0').digest();
  assert.equal(drawOf(SEED, 'abc', 0, 0, 32), digest.readUInt32BE(0) % 32);
  // Frozen vectors: the game page's verification mirrors them.
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((index) => drawOf(SEED, 'abc', 0, index, 32)),
    [20, 24, 10, 8, 20, 29],
  );
  assert.equal(drawOf(SEED, 'abc', 7, 3, 1000), 319);
  assert.equal(drawOf(SEED, 'abc', 0, 0, DRAW_RANGE_MAX), 48_244);
  assert.equal(drawOf(SEED, 'abc', 0, 0, 1), 0);
  const source = drawSource(SEED, 'abc', 0);
  assert.deepEqual(
    [32, 32, 32, 1000].map((n) => source(n)),
    [20, 24, 10, drawOf(SEED, 'abc', 0, 3, 1000)],
  );
});

test("a draw has 1 to DRAW_RANGE_MAX outcomes, and its inputs are checked like a roll's", () => {
  assert.throws(() => drawOf(SEED, 'abc', 0, 0, 0));
  assert.throws(() => drawOf(SEED, 'abc', 0, 0, DRAW_RANGE_MAX + 1));
  assert.throws(() => drawOf(SEED, 'abc', 0, 0, 2.5));
  assert.throws(() => drawOf(SEED, 'abc', 0, -1, 32));
  assert.throws(() => drawOf(SEED, 'a:b', 0, 0, 32));
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

test('draws are uniform: a chi-square test over 64,000 draws of a 32-stop reel', () => {
  const draws = 64_000;
  const stops = 32;
  const counts = new Array<number>(stops).fill(0);
  const source = drawSource(SEED, 'uniformity', 0);
  for (let i = 0; i < draws; i++) counts[source(stops)]! += 1;
  const expected = draws / stops;
  const chiSquare = counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
  // 31 degrees of freedom: P(chi-square > 73) is about 3e-5.
  assert.ok(chiSquare < 73, `chi-square ${chiSquare.toFixed(1)} over counts ${counts.join(',')}`);
});
