/**
 * Proves what a player is shown of rounds (src/rounds/views.ts): a dice
 * round pending shows nothing of its outcome, settled its roll, win and
 * seed; a reels round is `betting` (nothing shown, its seed not even
 * opened) until its bet and base spin are booked, then `feature` with the
 * spins played so far, `closing` with every spin shown and its wins on
 * their way, `settled` with its seed; fun rounds skip the betting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commitment, drawSource } from '../../src/game/fairness.js';
import { playRound } from '../../src/game/reels.js';
import { reelsGameView, reelsRoundView, roundView, stageOf } from '../../src/rounds/views.js';
import { reelsPart, REELS_RULES, round, seedWithFeature } from './round-fixtures.js';

test('a pending dice round shows nothing of its outcome; a settled one its roll, win and seed', () => {
  const pending = roundView(round({ status: 'pending' }), 2);
  assert.equal(pending.status, 'pending');
  assert.deepEqual([pending.roll, pending.win, pending.serverSeed], [undefined, undefined, undefined]);
  const settled = roundView(round({ status: 'settled', winMinor: 250n, roll: 42 }), 2);
  assert.deepEqual([settled.status, settled.roll, settled.win, settled.bet], ['settled', 42, '2.5', '1']);
  assert.equal(typeof settled.serverSeed, 'string');
  // A refused round is shown as not settled: its outcome never happened.
  assert.equal(roundView(round({ status: 'refused' }), 2).status, 'pending');
});

test('a reels round goes betting, feature, closing, settled; a fun round skips the betting', () => {
  const reels = (callsDone: number, played: number) => reelsPart({ calls: 3, callsDone, freeSpins: 10, freeSpinsPlayed: played });
  assert.equal(stageOf({ mode: 'real', status: 'pending', reels: reels(1, 0) }), 'betting');
  assert.equal(stageOf({ mode: 'real', status: 'pending', reels: reels(2, 3) }), 'feature');
  assert.equal(stageOf({ mode: 'real', status: 'pending', reels: reels(2, 10) }), 'closing');
  assert.equal(stageOf({ mode: 'real', status: 'settled', reels: reels(3, 10) }), 'settled');
  assert.equal(stageOf({ mode: 'fun', status: 'pending', reels: reelsPart({ calls: 0, freeSpins: 10, freeSpinsPlayed: 0 }) }), 'feature');
});

test('a reels round while betting shows nothing and opens no seed; in its feature, the spins played so far', () => {
  const seed = seedWithFeature(100n);
  const drawn = playRound(REELS_RULES, 100n, drawSource(seed, 'client', 3));
  const base = {
    kind: 'reels' as const,
    betMinor: 100n,
    clientSeed: 'client',
    nonce: 3,
    serverSeed: null,
    sealedSeed: 'sealed',
    serverSeedHash: commitment(seed),
  };
  const betting = reelsRoundView(round({ ...base, reels: reelsPart({ calls: 3, callsDone: 1, freeSpins: drawn.freeSpins.length }) }), 2, () =>
    assert.fail('no seed is opened while betting'),
  );
  assert.equal(betting.stage, 'betting');
  assert.deepEqual([betting.base, betting.feature, betting.win, betting.serverSeed], [undefined, undefined, undefined, undefined]);
  const feature = reelsRoundView(
    round({ ...base, reels: reelsPart({ calls: 3, callsDone: 2, freeSpins: drawn.freeSpins.length, freeSpinsPlayed: 1 }) }),
    2,
    () => seed,
  );
  assert.equal(feature.stage, 'feature');
  assert.equal(feature.feature!.played, 1);
  assert.equal(feature.feature!.spins.length, 1);
  assert.equal(feature.feature!.left, drawn.freeSpins.length - 1);
  assert.equal(feature.serverSeed, undefined, 'the seed stays hidden while spins are left');
  const settled = reelsRoundView(
    round({
      ...base,
      status: 'settled',
      serverSeed: seed,
      sealedSeed: null,
      reels: reelsPart({ calls: 3, callsDone: 3, freeSpins: drawn.freeSpins.length, freeSpinsPlayed: drawn.freeSpins.length }),
    }),
    2,
    (shown) => shown.serverSeed!,
  );
  assert.equal(settled.serverSeed, seed);
  assert.equal(settled.feature!.spins.length, drawn.freeSpins.length);
});

test("a reels game's view tells its rules", () => {
  const view = reelsGameView({ slug: 'lucky-reels', title: 'Lucky Reels', rules: REELS_RULES });
  assert.deepEqual([view.kind, view.rtp, view.jackpotShare, view.rtpBp], ['reels', '0.96', '0.01', 9_600]);
});
