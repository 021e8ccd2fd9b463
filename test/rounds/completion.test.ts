/**
 * Proves when a round is done and what finishes it (src/rounds/completion.ts):
 * a refused bet refuses a reels round and a refused win does not; the last
 * call's answer settles it; the base spin's call follows the bet at once,
 * the feature's only once every free spin is played; a feature is done
 * when its spins are all played; the completion plays every spin left,
 * from the count it read; only the seed a round's commitment names may be
 * revealed; a player waits for a round's final answer, or a reels round's
 * base spin booked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { commitment } from '../../src/game/fairness.js';
import { assertRevealable, completionOf, featureDone, reelsBaseBooked, reelsCallStep, roundFinished } from '../../src/rounds/completion.js';
import { reelsPart, round, seedHex } from './round-fixtures.js';

test('a refused bet refuses the round; nothing follows it', () => {
  assert.deepEqual(reelsCallStep(reelsPart({ calls: 2, callsDone: 1 }), 1, false), { finish: 'refused', next: null });
  assert.deepEqual(reelsCallStep(reelsPart({ calls: 3, callsDone: 1, freeSpins: 10 }), 1, false), { finish: 'refused', next: null });
});

test("an accepted bet sends the base spin's call next, whatever the feature", () => {
  assert.deepEqual(reelsCallStep(reelsPart({ calls: 2, callsDone: 1 }), 1, true), { finish: null, next: 2 });
  assert.deepEqual(reelsCallStep(reelsPart({ calls: 3, callsDone: 1, freeSpins: 10, freeSpinsPlayed: 0 }), 1, true), { finish: null, next: 2 });
});

test("the feature's call waits for its last free spin; then the base spin's answer sends it", () => {
  assert.deepEqual(reelsCallStep(reelsPart({ calls: 3, callsDone: 2, freeSpins: 10, freeSpinsPlayed: 4 }), 2, true), { finish: null, next: null });
  assert.deepEqual(reelsCallStep(reelsPart({ calls: 3, callsDone: 2, freeSpins: 10, freeSpinsPlayed: 10 }), 2, true), { finish: null, next: 3 });
});

test("the last call's answer settles the round, accepted or refused: a refused win keeps its refusal on the call", () => {
  for (const accepted of [true, false]) {
    assert.deepEqual(reelsCallStep(reelsPart({ calls: 2, callsDone: 2 }), 2, accepted), { finish: 'settled', next: null });
    assert.deepEqual(reelsCallStep(reelsPart({ calls: 3, callsDone: 3, freeSpins: 10, freeSpinsPlayed: 10 }), 3, accepted), { finish: 'settled', next: null });
  }
});

test('a step never names a call past the last, nor finishes a round with calls left unless its bet was refused', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 3 }),
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 0, max: 12 }),
      fc.integer({ min: 0, max: 12 }),
      fc.boolean(),
      (calls, done, spins, played, accepted) => {
        fc.pre(done <= calls && played <= spins);
        const step = reelsCallStep(reelsPart({ calls, callsDone: done, freeSpins: spins, freeSpinsPlayed: played }), done, accepted);
        if (step.next !== null) assert.ok(step.next <= calls && step.next === done + 1);
        if (step.finish === 'settled') assert.equal(done, calls);
        if (step.finish === 'refused') assert.ok(done === 1 && !accepted);
        assert.ok(step.finish === null || step.next === null);
      },
    ),
  );
});

test('a feature is done when every free spin is played, and a round without one is done at once', () => {
  assert.equal(featureDone(reelsPart({ freeSpins: 0, freeSpinsPlayed: 0 })), true);
  assert.equal(featureDone(reelsPart({ freeSpins: 10, freeSpinsPlayed: 9 })), false);
  assert.equal(featureDone(reelsPart({ freeSpins: 10, freeSpinsPlayed: 10 })), true);
});

test('the completion plays every free spin left, from the count it read', () => {
  assert.deepEqual(completionOf(reelsPart({ freeSpins: 10, freeSpinsPlayed: 3 })), { from: 3, to: 10 });
  assert.deepEqual(completionOf(reelsPart({ freeSpins: 25, freeSpinsPlayed: 0 })), { from: 0, to: 25 });
});

test('only the seed its commitment names is revealed with a round', () => {
  const seed = seedHex(5);
  assert.doesNotThrow(() => assertRevealable({ roundId: 'r', serverSeedHash: commitment(seed) }, seed));
  assert.throws(() => assertRevealable({ roundId: 'r', serverSeedHash: commitment(seed) }, seedHex(6)), /the seed revealed for round r/);
});

test('a player waits for the final answer, or for a reels round its bet and base spin booked', () => {
  assert.equal(roundFinished(round({ status: 'pending' })), false);
  assert.equal(roundFinished(round({ status: 'settled' })), true);
  assert.equal(roundFinished(round({ status: 'refused' })), true);
  assert.equal(reelsBaseBooked(round({ kind: 'reels', status: 'pending', reels: reelsPart({ calls: 3, callsDone: 1 }) })), false);
  assert.equal(reelsBaseBooked(round({ kind: 'reels', status: 'pending', reels: reelsPart({ calls: 3, callsDone: 2 }) })), true);
  assert.equal(reelsBaseBooked(round({ kind: 'reels', status: 'refused', reels: reelsPart({ calls: 2, callsDone: 1 }) })), true);
});
