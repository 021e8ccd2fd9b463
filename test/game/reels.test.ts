/**
 * Proves the reels maths (src/game/reels.ts): the enumeration's counts that
 * can be checked by hand, the feature solved exactly and in agreement with
 * Wald's identity, an RTP whose parts add up to the configured one and whose
 * value at any bet stays within the stated bound below it (never above),
 * whole-unit wins never rounded up, jpAmount within the bet, two rounds
 * reproduced from fixed seeds, and 1,000,000 simulated rounds landing within
 * a bound derived from the game's exact variance.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MULTIPLIER_BP_FLOOR, RTP_BP_MAX, RTP_BP_SCALE } from '../../src/game/dice.js';
import { drawSource } from '../../src/game/fairness.js';
import { add, compare, div, mul, ratio, sub, toNumber, type Ratio } from '../../src/game/ratio.js';
import {
  assertReelsRules,
  evaluate,
  featureMoments,
  FREE_SPIN_MULTIPLIER,
  FREE_SPINS_AWARD,
  FREE_SPINS_MAX,
  JACKPOT_BP_MAX,
  jackpotContribution,
  payScale,
  paytable,
  paytableRtp,
  playRound,
  REELS_RTP_BP_MIN,
  roundMoments,
  rtpAtBet,
  rtpSheet,
  STRIPS,
  windowOf,
  type ReelsRules,
} from '../../src/game/reels.js';
import { simulateReels } from '../../src/game/simulation.js';
import { sfc32, uniformIn } from './seeded-source.js';

const RULES: ReelsRules = { rtpBp: 9600, jackpotBp: 100 };
const SETTINGS: ReelsRules[] = [
  { rtpBp: REELS_RTP_BP_MIN, jackpotBp: JACKPOT_BP_MAX },
  { rtpBp: 9000, jackpotBp: 0 },
  RULES,
  { rtpBp: 9650, jackpotBp: 250 },
  { rtpBp: 9999, jackpotBp: 1 },
  { rtpBp: RTP_BP_MAX, jackpotBp: 0 },
];
const COMBINATIONS = 32n ** 3n;
const SEED = '42a74d918d42681cb18a700cdf117f54c16110cc50a95bc18fab3512221c1e82';

const bp = (value: number) => ratio(BigInt(value), BigInt(RTP_BP_SCALE));
const pow = (r: Ratio, n: number) => ratio(r.num ** BigInt(n), r.den ** BigInt(n));

test('the strips: 32 stops each, and no window shows two stars, crowns or sevens on one reel', () => {
  for (const strip of STRIPS) {
    assert.equal(strip.length, 32);
    for (let stop = 0; stop < strip.length; stop++) {
      const shown = windowOf([stop, stop, stop].map((s, reel) => s % STRIPS[reel]!.length));
      for (const reel of shown) for (const symbol of ['S', 'J', '7']) assert.ok(reel.filter((s) => s === symbol).length <= 1, reel.join(''));
    }
  }
  // Stop 0 shows the strip's last symbol above and its second below.
  assert.deepEqual(windowOf([0, 0, 0]), [
    ['P', '-', 'O'],
    ['L', 'M', 'P'],
    ['L', 'P', 'O'],
  ]);
  assert.throws(() => windowOf([32, 0, 0]));
  assert.throws(() => windowOf([0, 0]));
});

test('a window pays each line, cherry pairs from the left, and nothing for stars or crowns', () => {
  // Each reel's rows top, middle, bottom: the middle line reads O O O.
  const oranges = evaluate([1, 10, 1]); // '-OP', 'POB', 'POP'
  assert.deepEqual(oranges.lines, [{ line: 1, symbols: 'OOO', pay: 5 }]);
  assert.equal(oranges.pay, 5);
  // Line 5 (bottom, middle, top) reads C C M: a cherry pair.
  const cherries = evaluate([4, 29, 17]); // 'LSC', 'SCP', 'M-S'
  assert.deepEqual(cherries.lines, [{ line: 5, symbols: 'CCM', pay: 2 }]);
  assert.equal(cherries.scatter, true);
  const crowns = evaluate([9, 14, 3]); // 'CJM', 'LJ-', 'PJ-'
  assert.equal(crowns.jackpotLine, true);
  assert.equal(crowns.pay, 0);
});

test('the enumeration: star, crown and hit counts that can be checked by hand', () => {
  const sheet = rtpSheet(RULES);
  // A reel shows a star on the three stops around each of its stars: 6, 6 and 9 of 32.
  assert.deepEqual(sheet.triggerChance, ratio(6n * 6n * 9n, COMBINATIONS));
  // One crown per reel, on the middle row: one combination.
  assert.deepEqual(sheet.jackpotChance, ratio(1n, COMBINATIONS));
  assert.deepEqual(sheet.hitFrequency, ratio(6599n, COMBINATIONS));
});

test('the paytable returns R0 = 1.013660445927..., as an independent count of the same strips gives it', () => {
  const r0 = paytableRtp();
  assert.equal((r0.num * 10n ** 12n) / r0.den, 1_013_660_445_927n);
  const sheet = rtpSheet(RULES);
  assert.equal((sheet.meanFreeSpins.num * 10n ** 9n) / sheet.meanFreeSpins.den, 11_096_508_402n);
});

test('the feature solved exactly: its spin counts by hand, and its win as Wald gives it', () => {
  const p = ratio(324n, COMBINATIONS);
  const q = sub(ratio(1n), p);
  const feature = featureMoments((pay) => BigInt(pay));
  assert.deepEqual([...feature.spinsDistribution.keys()], [10, 20, 30, 40, 50]);
  // 10 spins: no star on any of them. 20: exactly one retrigger, within the first 10, then none in the next 10.
  assert.deepEqual(feature.spinsDistribution.get(10), pow(q, 10));
  assert.deepEqual(feature.spinsDistribution.get(20), mul(ratio(10n), mul(p, pow(q, 19))));
  const total = [...feature.spinsDistribution.values()].reduce(add);
  assert.deepEqual(total, ratio(1n));
  const mean = [...feature.spinsDistribution].reduce((sum, [spins, chance]) => add(sum, mul(ratio(BigInt(spins)), chance)), ratio(0n));
  assert.deepEqual(feature.meanSpins, mean);
  // Without the cap the mean would be 10 / (1 − 10p); the cap only shortens it.
  assert.ok(compare(feature.meanSpins, div(ratio(10n), sub(ratio(1n), mul(ratio(10n), p)))) < 0);
  // Wald: E[sum of the spins' pays] = E[spins] × E[pay of one spin].
  const perSpin = roundMoments(
    (pay) => BigInt(pay),
    () => 0n,
  ).base.mean;
  assert.deepEqual(feature.win.mean, mul(feature.meanSpins, perSpin));
});

for (const rules of SETTINGS) {
  test(`RTP ${rules.rtpBp} bp (jackpot ${rules.jackpotBp}): the parts add up to it exactly, and every bet returns it less at most the stated bound`, () => {
    const sheet = rtpSheet(rules);
    assert.deepEqual(sheet.total, bp(rules.rtpBp));
    assert.deepEqual(sheet.jackpot, bp(rules.jackpotBp));
    assert.deepEqual(add(sheet.base, sheet.freeSpins), mul(sheet.scale, paytableRtp()));
    for (const bet of [1n, 7n, 10n, 20n, 50n, 100n, 250n, 1000n, 12_345n, 10n ** 9n]) {
      const atBet = rtpAtBet(rules, bet);
      assert.deepEqual(atBet.total, add(add(atBet.base, atBet.freeSpins), atBet.jackpot));
      const shortfall = sub(sheet.total, atBet.total);
      assert.ok(compare(shortfall, ratio(0n)) >= 0, `never above the configured RTP: ${rules.rtpBp} at ${bet}`);
      // Each paying spin drops less than one minor unit; the contribution drops (bet × jackpotBp mod 10^4) / 10^4 units.
      const dropped = ratio((bet * BigInt(rules.jackpotBp)) % BigInt(RTP_BP_SCALE), BigInt(RTP_BP_SCALE) * bet);
      const bound = add(div(sheet.payingSpins, ratio(bet)), dropped);
      assert.ok(compare(shortfall, bound) < 0, `${rules.rtpBp} at ${bet}: ${toNumber(shortfall)} >= ${toNumber(bound)}`);
    }
  });
}

test('the shortfall at a bet of 1.00 is below 0.23 %, and vanishes as bets grow', () => {
  const shortfall = (bet: bigint) => toNumber(sub(bp(RULES.rtpBp), rtpAtBet(RULES, bet).total));
  assert.ok(shortfall(100n) < 0.0023, String(shortfall(100n)));
  assert.ok(shortfall(10n ** 9n) < 1e-8, String(shortfall(10n ** 9n)));
  assert.ok(shortfall(1000n) < shortfall(100n));
});

test('the RTP is bounded, and at the least generous rules the smallest pay still beats the stake', () => {
  assert.throws(() => assertReelsRules({ rtpBp: REELS_RTP_BP_MIN - 1, jackpotBp: 0 }));
  assert.throws(() => assertReelsRules({ rtpBp: RTP_BP_MAX + 1, jackpotBp: 0 }));
  assert.throws(() => assertReelsRules({ rtpBp: 9600.5, jackpotBp: 0 }));
  assert.throws(() => assertReelsRules({ rtpBp: 9600, jackpotBp: JACKPOT_BP_MAX + 1 }));
  assert.throws(() => assertReelsRules({ rtpBp: 9600, jackpotBp: -1 }));
  const least = paytable({ rtpBp: REELS_RTP_BP_MIN, jackpotBp: JACKPOT_BP_MAX });
  const smallest = least.at(-1)!;
  assert.equal(smallest.symbols, 'CC*');
  assert.ok(smallest.payBp >= MULTIPLIER_BP_FLOOR, `${smallest.payBp} bp`);
});

test('the paytable as shown: each pay scaled by (rtp − jackpot) / R0, in bp rounded down', () => {
  const rows = paytable(RULES);
  assert.deepEqual(rows[0], { symbols: '777', pay: 200, payBp: 1_874_394 }); // 200 × 0.95 / 1.0136604459 = 187.43949...
  assert.deepEqual(
    rows.map((row) => row.symbols),
    ['777', 'BBB', 'LLL', 'PPP', 'OOO', 'CCC', 'MMM', 'CC*'],
  );
});

test('the largest round: a base spin with stars, four retriggers at the best star pay, 46 free spins at the best pay', () => {
  // The best window pays 204 (7OC / 7OC / 7MC: 777 on the top line, CCC on the bottom), the best with stars 15
  // (LSC / LOS / LOS: LLL on the top line): 15 + 3 × (4 × 15 + 46 × 204).
  assert.equal(evaluate([24, 21, 8]).pay, 204);
  assert.equal(evaluate([4, 27, 23]).pay, 15);
  const sheet = rtpSheet(RULES);
  assert.deepEqual(sheet.maxWin, mul(sheet.scale, ratio(15n + 3n * (4n * 15n + 46n * 204n))));
  assert.equal(FREE_SPINS_MAX, 50);
  assert.equal(FREE_SPINS_AWARD, 10);
  assert.equal(FREE_SPIN_MULTIPLIER, 3);
});

test('jpAmount: the contribution is rounded down and never more than the bet', () => {
  assert.equal(jackpotContribution(RULES, 100n), 1n);
  assert.equal(jackpotContribution(RULES, 99n), 0n);
  assert.equal(jackpotContribution({ rtpBp: 9650, jackpotBp: 250 }, 12_345n), 308n); // 308.625
  assert.equal(jackpotContribution({ rtpBp: 9000, jackpotBp: 0 }, 10n ** 12n), 0n);
  assert.throws(() => jackpotContribution(RULES, 0n));
});

test('a free-spins round with a retrigger, reproduced from fixed seeds', () => {
  const round = playRound(RULES, 100n, drawSource(SEED, 'golden', 385));
  // Base spin: windows LSC / SCP / M-S. Line 5 reads C C M: a cherry pair, 2 × 0.9371974647 = 1.874... -> 1.87.
  assert.deepEqual(round.base.stops, [4, 29, 17]);
  assert.deepEqual(
    round.base.window.map((reel) => reel.join('')),
    ['LSC', 'SCP', 'M-S'],
  );
  assert.equal(round.base.winMinor, 187n);
  assert.equal(round.base.scatter, true);
  assert.equal(round.base.freeSpinsAwarded, 10);
  // The first free spin shows a star on every reel again (PLS / LOS / OSM): ten more.
  assert.equal(round.freeSpins[0]!.freeSpinsAwarded, 10);
  assert.equal(round.freeSpins.length, 20);
  const expected: [number[], bigint][] = [
    [[3, 27, 24], 0n],
    [[12, 31, 7], 0n],
    [[14, 20, 13], 562n],
    [[31, 7, 18], 0n],
    [[9, 3, 13], 1405n],
    [[1, 10, 20], 0n],
    [[20, 15, 23], 0n],
    [[7, 7, 24], 0n],
    [[21, 4, 0], 0n],
    [[25, 19, 7], 562n],
    [[30, 7, 25], 0n],
    [[20, 6, 17], 0n],
    [[6, 30, 30], 1124n],
    [[14, 31, 1], 0n],
    [[18, 29, 28], 0n],
    [[17, 1, 0], 0n],
    [[15, 14, 1], 0n],
    [[23, 21, 2], 1405n],
    [[18, 28, 6], 0n],
    [[26, 14, 20], 0n],
  ];
  assert.deepEqual(
    round.freeSpins.map((spin) => [spin.stops, spin.winMinor]),
    expected,
  );
  // A free cherry pair: 2 × 3 × 0.937197... = 5.623 -> 5.62; three oranges 5 × 3 × 0.937197... = 14.05.
  assert.ok(round.freeSpins.every((spin) => spin.multiplier === FREE_SPIN_MULTIPLIER));
  assert.equal(round.winMinor, 5245n);
  assert.equal(round.jackpot, false);
  assert.equal(round.jackpotContributionMinor, 1n);
});

test('a jackpot round, reproduced from fixed seeds: three crowns on the middle line', () => {
  const round = playRound(RULES, 100n, drawSource(SEED, 'golden', 635));
  assert.deepEqual(round.base.stops, [9, 14, 3]);
  assert.deepEqual(
    round.base.window.map((reel) => reel.join('')),
    ['CJM', 'LJ-', 'PJ-'],
  );
  assert.equal(round.jackpot, true);
  assert.equal(round.winMinor, 0n);
  assert.deepEqual(round.freeSpins, []);
});

test('crowns in a free spin win no jackpot', () => {
  // Base spin with stars (nonce 21's: CSO / MSO / SMB), then crowns on the middle line of every free spin.
  const stops = [26, 5, 25, ...Array.from({ length: FREE_SPINS_AWARD }, () => [9, 14, 3]).flat()];
  const round = playRound(RULES, 100n, () => stops.shift()!);
  assert.equal(round.freeSpins.length, FREE_SPINS_AWARD);
  assert.ok(round.freeSpins.every((spin) => spin.jackpotLine && spin.winMinor === 0n));
  assert.equal(round.jackpot, false);
});

test('a source that draws off the strip is refused', () => {
  assert.throws(() => playRound(RULES, 100n, () => 32), /not a stop/);
  assert.throws(() => playRound(RULES, 100n, () => 1.5), /not a stop/);
  assert.throws(() => playRound(RULES, 0n, () => 0));
});

test('property: wins are whole minor units, rounded down and never up; the round adds up; jpAmount within the bet', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: REELS_RTP_BP_MIN, max: RTP_BP_MAX }),
      fc.integer({ min: 0, max: JACKPOT_BP_MAX }),
      fc.bigInt({ min: 1n, max: 10n ** 18n }),
      fc.tuple(fc.integer(), fc.integer(), fc.integer(), fc.integer()),
      (rtpBp, jackpotBp, bet, seed) => {
        const rules = { rtpBp, jackpotBp };
        const next32 = sfc32(...seed);
        const round = playRound(rules, bet, (n) => uniformIn(next32, n));
        const scale = payScale(rules);
        for (const spin of [round.base, ...round.freeSpins]) {
          assert.equal(typeof spin.winMinor, 'bigint');
          // win <= bet × pay × multiplier × scale < win + 1
          const exact = bet * BigInt(spin.pay * spin.multiplier) * scale.num;
          assert.ok(spin.winMinor * scale.den <= exact && exact < (spin.winMinor + 1n) * scale.den);
        }
        assert.equal(
          round.winMinor,
          round.freeSpins.reduce((sum, spin) => sum + spin.winMinor, round.base.winMinor),
        );
        assert.ok(round.jackpotContributionMinor >= 0n && round.jackpotContributionMinor <= bet);
        assert.ok(round.freeSpins.length <= FREE_SPINS_MAX);
        const awarded = [round.base, ...round.freeSpins].reduce((sum, spin) => sum + spin.freeSpinsAwarded, 0);
        assert.equal(round.freeSpins.length, awarded);
      },
    ),
    { numRuns: 2000 },
  );
});

// ------------------------------------------------------------------ simulation

/**
 * The tolerance. Let X be a round's win divided by its bet (the jackpot pool
 * excluded: its payout is the pool's, not the paytable's). Over n
 * independent rounds the measured return has standard error sigma(X) /
 * sqrt(n), and rtpAtBet gives X's variance exactly, with the rounding of
 * wins: about 25.5 at RTP 96 %, so sigma(X) is about 5.05 and the standard
 * error over 10^6 rounds about 0.005. The base spins alone, whose variance
 * is far smaller, are checked against their own exact share, and the
 * feature's and the jackpot's frequencies against theirs (binomial). Five
 * standard errors each: a correct game fails one with probability below
 * 1e-6; the source is seeded, so a run is reproducible.
 */
const ROUNDS = 1_000_000;
const STANDARD_ERRORS = 5;
const BET_MINOR = 100n;

test(`RTP 96 %: ${ROUNDS} simulated rounds land within ${STANDARD_ERRORS} standard errors of the exact values`, () => {
  const exact = rtpAtBet(RULES, BET_MINOR);
  const sheet = rtpSheet(RULES);
  const within = (measured: number, expected: number, variance: number, count: number, what: string) => {
    const tolerance = STANDARD_ERRORS * Math.sqrt(variance / count);
    assert.ok(Math.abs(measured - expected) <= tolerance, `${what}: measured ${measured}, exact ${expected}, tolerance ${tolerance}`);
    return tolerance;
  };
  const next32 = sfc32(0x9e3779b9, 0x243f6a88, 0xb7e15162, RULES.rtpBp);
  const result = simulateReels({ rules: RULES, rounds: ROUNDS, betMinor: BET_MINOR, draw: (n) => uniformIn(next32, n) });

  assert.equal(result.stakedMinor, BET_MINOR * BigInt(ROUNDS));
  assert.equal(result.contributedMinor, BigInt(ROUNDS) * jackpotContribution(RULES, BET_MINOR));
  const game = toNumber(add(exact.base, exact.freeSpins));
  const tolerance = within(result.rtp, game, toNumber(exact.variance), ROUNDS, 'the game');
  assert.ok(tolerance < 0.03, `the stated tolerance: ${tolerance}`);
  const base = Number(result.baseReturnedMinor) / Number(result.stakedMinor);
  within(base, toNumber(exact.base), toNumber(exact.baseVariance), ROUNDS, 'the base spins');

  const trigger = toNumber(sheet.triggerChance);
  within(result.features / ROUNDS, trigger, trigger * (1 - trigger), ROUNDS, 'features per round');
  const jackpot = toNumber(sheet.jackpotChance);
  within(result.jackpots / ROUNDS, jackpot, jackpot * (1 - jackpot), ROUNDS, 'jackpots per round');
  const spinsSquared = [...sheet.freeSpinsDistribution].reduce((sum, [spins, chance]) => sum + spins * spins * toNumber(chance), 0);
  const meanSpins = toNumber(sheet.meanFreeSpins);
  within(result.freeSpins / result.features, meanSpins, spinsSquared - meanSpins ** 2, result.features, 'free spins per feature');
});
