/**
 * Proves that the game returns its configured RTP: 1,000,000 rounds are
 * simulated (pure maths, no I/O) and the measured return lands within a
 * tolerance derived from the game's variance.
 *
 * The tolerance. Let X be one round's payout divided by its bet. Over n
 * independent rounds the measured RTP has standard error sigma(X) / sqrt(n).
 * Each round here picks its chance uniformly from the game's range (10 % to
 * 95 % for "medium"), so X's variance is that of the mixture, computed
 * exactly from the outcome table: about 1.58 at RTP 97 %, so sigma(X) is
 * about 1.26 and the standard error over 10^6 rounds about 0.0013. The test
 * allows 5 standard errors (about ±0.0063): a correct game fails it with
 * probability below 1e-6, while an RTP off by a single percentage point
 * fails it every time. The rolls come from a seeded generator, so the run is
 * reproducible; the uniformity of the real HMAC rolls is proved in
 * fairness.test.ts. The reels' simulation is in reels.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quote, roundMoments, chanceRange, ROLL_OUTCOMES, type DiceRules } from '../../src/game/dice.js';
import { simulate } from '../../src/game/simulation.js';
import { sfc32, uniform } from './seeded-source.js';

const ROUNDS = 1_000_000;
const BET_MINOR = 100n; // 1.00
const STANDARD_ERRORS = 5;

/** Mean and variance of X = payout / bet for the mixture of chances, exactly from the table. */
function mixtureMoments(rules: DiceRules): { mean: number; variance: number } {
  const { min, max } = chanceRange(rules);
  let mean = 0;
  let second = 0;
  const count = max - min + 1;
  for (let chancePct = min; chancePct <= max; chancePct++) {
    const moments = roundMoments(BET_MINOR, quote(rules, BET_MINOR, chancePct)!);
    mean += moments.mean / count;
    second += (moments.variance + moments.mean ** 2) / count;
  }
  return { mean, variance: second - mean ** 2 };
}

for (const rules of [
  { rtpBp: 9700, volatility: 'medium' },
  { rtpBp: 9000, volatility: 'low' },
] as DiceRules[]) {
  const { mean, variance } = mixtureMoments(rules);
  const tolerance = STANDARD_ERRORS * Math.sqrt(variance / ROUNDS);
  test(`RTP ${rules.rtpBp / 100} % (${rules.volatility}): ${ROUNDS} simulated rounds land within ±${tolerance.toFixed(4)} of it`, () => {
    const configured = rules.rtpBp / 10_000;
    // The exact expectation sits just below the configured RTP (the rounding of wins, see dice.ts).
    assert.ok(mean <= configured && configured - mean < 1e-4, `exact mean ${mean}`);
    assert.ok(tolerance < 0.01, `the stated tolerance is tight: ${tolerance}`);

    const next32 = sfc32(0x9e3779b9, 0x243f6a88, 0xb7e15162, rules.rtpBp);
    const pick = uniform(next32, 1_000_000);
    const { min, max } = chanceRange(rules);
    const chanceOf = () => min + (pick() % (max - min + 1));
    const result = simulate({ rules, rounds: ROUNDS, betMinor: BET_MINOR, chanceOf, nextRoll: uniform(next32, ROLL_OUTCOMES) });

    assert.equal(result.stakedMinor, BET_MINOR * BigInt(ROUNDS));
    assert.ok(Math.abs(result.rtp - configured) <= tolerance, `measured ${result.rtp}, configured ${configured}, tolerance ${tolerance}`);
    assert.ok(Math.abs(result.rtp - mean) <= tolerance, `measured ${result.rtp}, exact ${mean}`);
  });
}
