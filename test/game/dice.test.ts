/**
 * Proves the dice maths (src/game/dice.ts): the chances each volatility
 * offers, that every quoted round returns the configured RTP within the
 * stated bound (never above it), that the threshold decides a round exactly,
 * and that tiny bets that cannot pay are refused rather than rounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  chanceRange,
  isOfferedChance,
  nominalMultiplierBp,
  outcomeTable,
  quote,
  roundMoments,
  ROLL_OUTCOMES,
  RTP_BP_SCALE,
  settle,
  type DiceRules,
} from '../../src/game/dice.js';

const RULES: DiceRules = { rtpBp: 9700, volatility: 'medium' };

test('volatility sets the smallest chance; the RTP caps the largest so a win pays at least 1.01x', () => {
  assert.deepEqual(chanceRange({ rtpBp: 9700, volatility: 'low' }), { min: 25, max: 95 });
  assert.deepEqual(chanceRange({ rtpBp: 9700, volatility: 'medium' }), { min: 10, max: 95 });
  assert.deepEqual(chanceRange({ rtpBp: 9700, volatility: 'high' }), { min: 1, max: 95 });
  assert.deepEqual(chanceRange({ rtpBp: 9000, volatility: 'high' }), { min: 1, max: 89 });
  assert.equal(isOfferedChance(RULES, 9), false);
  assert.equal(isOfferedChance(RULES, 10), true);
  assert.equal(isOfferedChance(RULES, 50.5), false);
  for (const row of outcomeTable({ rtpBp: 9000, volatility: 'high' })) assert.ok(row.multiplierBp >= 10_100, `${row.chancePct}: ${row.multiplierBp}`);
});

test('the outcome table: the nominal multiplier is RTP / chance', () => {
  assert.equal(nominalMultiplierBp(RULES, 50), 19_400);
  assert.equal(nominalMultiplierBp(RULES, 10), 97_000);
  const table = outcomeTable(RULES);
  assert.equal(table.length, 86);
  assert.deepEqual(table[0], { chancePct: 10, multiplierBp: 97_000 });
});

test('a round at 50 % with 1.00 pays 1.94 below roll 500000', () => {
  const q = quote(RULES, 100n, 50);
  assert.deepEqual(q, { winMinor: 194n, threshold: 500_000 });
  assert.deepEqual(settle(q!, 499_999), { won: true, winMinor: 194n });
  assert.deepEqual(settle(q!, 500_000), { won: false, winMinor: 0n });
  assert.deepEqual(settle(q!, 0), { won: true, winMinor: 194n });
  assert.deepEqual(settle(q!, ROLL_OUTCOMES - 1), { won: false, winMinor: 0n });
});

test('a rounded-down win moves the chance up, not the RTP down: 0.10 at 33 %', () => {
  // 0.10 × 0.97 / 0.33 = 0.2939...: the win is 0.29, and the chance becomes 0.97 × 0.10 / 0.29 = 33.4482 %.
  const q = quote(RULES, 10n, 33)!;
  assert.equal(q.winMinor, 29n);
  assert.equal(q.threshold, 334_482);
  const { rtpNumerator, rtpDenominator } = roundMoments(10n, q);
  const rtp = Number(rtpNumerator) / Number(rtpDenominator);
  assert.ok(rtp <= 0.97 && rtp > 0.97 - 1e-5, String(rtp));
});

test('every offered chance and bet returns the RTP less at most win / (bet × outcomes), never more', () => {
  for (const volatility of ['low', 'medium', 'high'] as const) {
    for (const rtpBp of [5000, 9000, 9650, 9700, 9900, 10_000]) {
      const rules = { rtpBp, volatility };
      for (const { chancePct } of outcomeTable(rules)) {
        for (const bet of [2n, 7n, 10n, 100n, 12_345n, 10n ** 18n]) {
          const q = quote(rules, bet, chancePct);
          if (!q) continue;
          assert.ok(q.threshold > 0 && q.threshold <= ROLL_OUTCOMES);
          const { rtpNumerator, rtpDenominator } = roundMoments(bet, q);
          // rtp_round <= rtp  <=>  num × SCALE <= rtpBp × den
          assert.ok(rtpNumerator * BigInt(RTP_BP_SCALE) <= BigInt(rtpBp) * rtpDenominator, `${rtpBp} ${chancePct} ${bet}`);
          // rtp - rtp_round < win / (bet × outcomes)  <=>  rtpBp × den - num × SCALE < win × SCALE
          const shortfall = BigInt(rtpBp) * rtpDenominator - rtpNumerator * BigInt(RTP_BP_SCALE);
          const capped = q.threshold === ROLL_OUTCOMES; // a round that always wins returns what it can
          if (!capped) assert.ok(shortfall < q.winMinor * BigInt(RTP_BP_SCALE), `${rtpBp} ${chancePct} ${bet}`);
        }
      }
    }
  }
});

test('property: for any RTP, chance and bet the round RTP is within 1e-4 below the configured one', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 5000, max: 10_000 }),
      fc.constantFrom('low' as const, 'medium' as const, 'high' as const),
      fc.bigInt({ min: 1n, max: 10n ** 18n }),
      fc.nat(),
      (rtpBp, volatility, bet, pick) => {
        const rules = { rtpBp, volatility };
        const { min, max } = chanceRange(rules);
        const chancePct = min + (pick % (max - min + 1));
        const q = quote(rules, bet, chancePct);
        assert.ok(q, 'every bet of at least one minor unit is quoted');
        const { rtpNumerator, rtpDenominator } = roundMoments(bet, q);
        const rtp = rtpBp / RTP_BP_SCALE;
        const roundRtp = Number((rtpNumerator * 10n ** 12n) / rtpDenominator) / 1e12;
        assert.ok(roundRtp <= rtp + 1e-12, `${roundRtp} > ${rtp}`);
        if (q.threshold < ROLL_OUTCOMES) assert.ok(rtp - roundRtp < 1e-4, `${rtp} - ${roundRtp}`);
      },
    ),
    { numRuns: 2000 },
  );
});

test('even one minor unit is quoted at every offered chance: the 1.01x floor keeps every win at least one unit', () => {
  for (const volatility of ['low', 'medium', 'high'] as const) {
    for (const rtpBp of [5000, 7777, 9700, 10_000]) {
      for (const { chancePct } of outcomeTable({ rtpBp, volatility })) {
        const q = quote({ rtpBp, volatility }, 1n, chancePct);
        assert.ok(q && q.winMinor >= 1n, `${rtpBp} ${volatility} ${chancePct}`);
      }
    }
  }
});

test('quoting an unoffered chance or a zero bet is a programming error', () => {
  assert.throws(() => quote(RULES, 100n, 5));
  assert.throws(() => quote(RULES, 0n, 50));
  assert.throws(() => settle({ winMinor: 1n, threshold: 1 }, ROLL_OUTCOMES));
});
