/**
 * Bet ladders: the amounts a player can bet, per game and currency, as
 * strictly ascending minor units (docs/protocol.md §8).
 *
 * A game either lists a ladder for a currency, or names one of its ladders
 * as the base, and the ladder of another currency is derived from it with
 * the configured exchange rates by this rule:
 *
 * 1. Convert each base amount exactly (rational arithmetic) into the target
 *    currency: amount × rate(target) / rate(base currency).
 * 2. Round it to the nearest "nice" amount of the target currency: a value
 *    1, 2, 2.5 or 5 times a power of ten that the currency's decimals can
 *    hold (2.5 needs one decimal more than its power of ten), and at least
 *    one minor unit. "Nearest" is by ratio (0.35 goes to 0.25, not 0.5, if
 *    0.25 is closer in proportion); a tie goes to the larger amount.
 * 3. Drop repeats, so the ladder stays strictly ascending.
 *
 * For example, with 1 EUR = 160 JPY the EUR ladder 0.10, 0.20, 0.50, 1
 * becomes 20, 25 (32 is nearer 25 than 50 in ratio), 100, 200 JPY... see
 * the tests for worked cases.
 */
import assert from 'node:assert/strict';
import { amountMinorMax } from '../protocol/money.js';

/** A positive rational number. */
export interface Rational {
  num: bigint;
  den: bigint;
}

/** Nice mantissas, in tenths: 1, 2, 2.5, 5. */
const NICE_TENTHS = [10n, 20n, 25n, 50n] as const;
/** Powers of ten tried when rounding: far beyond any amount (10^18 minor units) times any rate. */
const NICE_EXPONENT_MAX = 60;

function compareRatios(a: Rational, b: Rational): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** How far a candidate is from v in proportion: max(c/v, v/c), as a fraction. */
function distance(candidate: bigint, v: Rational): Rational {
  const cv = candidate * v.den;
  return cv >= v.num ? { num: cv, den: v.num } : { num: v.num, den: cv };
}

/** The nice amount (minor units) nearest to v (minor units). */
export function niceMinor(v: Rational): bigint {
  assert.ok(v.num > 0n && v.den > 0n, 'a positive amount');
  let best = 1n;
  let bestDistance = distance(1n, v);
  for (let exponent = 0; exponent <= NICE_EXPONENT_MAX; exponent++) {
    const power = 10n ** BigInt(exponent);
    // Candidates at this power grow beyond v × 10: no later one can be nearer.
    if (power * v.den > v.num * 10n && exponent > 0) break;
    for (const tenths of NICE_TENTHS) {
      const scaled = tenths * power;
      if (scaled % 10n !== 0n) continue; // 2.5 minor units cannot be paid
      const candidate = scaled / 10n;
      const d = distance(candidate, v);
      const order = compareRatios(d, bestDistance);
      if (order < 0 || (order === 0 && candidate > best)) {
        best = candidate;
        bestDistance = d;
      }
    }
  }
  return best;
}

/**
 * One amount in another currency (minor units), exactly converted and
 * rounded to the nearest nice amount, as every step of a derived ladder is
 * (rules 1 and 2 above): `ratio` is target units per base unit (major).
 * Undefined when it is more than an amount of the target may be.
 */
export function convertNice(amount: bigint, baseDecimals: number, ratio: Rational, targetDecimals: number): bigint | undefined {
  assert.ok(ratio.num > 0n && ratio.den > 0n, 'a positive exchange rate');
  assert.ok(amount > 0n, 'a positive amount');
  // amount / 10^bd major × ratio × 10^td minor
  const num = amount * ratio.num * 10n ** BigInt(targetDecimals);
  const den = ratio.den * 10n ** BigInt(baseDecimals);
  const nice = niceMinor({ num, den });
  return nice > amountMinorMax(targetDecimals) ? undefined : nice;
}

/** Converts a ladder between currencies: `ratio` is target units per base unit (major). */
export function deriveLadder(base: readonly bigint[], baseDecimals: number, ratio: Rational, targetDecimals: number): bigint[] {
  const out: bigint[] = [];
  for (const amount of base) {
    const nice = convertNice(amount, baseDecimals, ratio, targetDecimals);
    if (nice === undefined) break;
    if (out.length === 0 || nice > out[out.length - 1]!) out.push(nice);
  }
  return out;
}

export type LadderProblem = { index: number; problem: 'not-positive' | 'not-ascending' | 'too-large' };

/** Checks a ladder of minor units: positive, strictly ascending, each within the amount limit. */
export function checkLadder(amounts: readonly bigint[], decimals: number): LadderProblem | undefined {
  const max = amountMinorMax(decimals);
  for (let index = 0; index < amounts.length; index++) {
    const amount = amounts[index]!;
    if (amount <= 0n) return { index, problem: 'not-positive' };
    if (amount > max) return { index, problem: 'too-large' };
    if (index > 0 && amount <= amounts[index - 1]!) return { index, problem: 'not-ascending' };
  }
  return undefined;
}
