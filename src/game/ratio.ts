/**
 * Exact fractions of bigints, for the maths sheets of the games: an RTP
 * proved by enumeration is a fraction whose denominator can be the number
 * of stop combinations raised to the length of a free-spins feature (over
 * 700 bits), far past what a double or a fixed decimal holds exactly.
 * Always reduced, with a positive denominator, so equal values compare equal
 * member by member.
 */
import assert from 'node:assert/strict';

export interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

export function ratio(num: bigint, den = 1n): Ratio {
  assert.ok(den !== 0n, 'a ratio has a non-zero denominator');
  const sign = den < 0n ? -1n : 1n;
  const divisor = gcd(num, den) || 1n;
  return { num: (sign * num) / divisor, den: (sign * den) / divisor };
}

export const ZERO: Ratio = ratio(0n);

export function add(a: Ratio, b: Ratio): Ratio {
  return ratio(a.num * b.den + b.num * a.den, a.den * b.den);
}

export function sub(a: Ratio, b: Ratio): Ratio {
  return ratio(a.num * b.den - b.num * a.den, a.den * b.den);
}

export function mul(a: Ratio, b: Ratio): Ratio {
  return ratio(a.num * b.num, a.den * b.den);
}

export function div(a: Ratio, b: Ratio): Ratio {
  assert.ok(b.num !== 0n, 'division by zero');
  return ratio(a.num * b.den, a.den * b.num);
}

/** -1, 0 or 1 as a is below, equal to or above b. */
export function compare(a: Ratio, b: Ratio): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** floor(r × scale): a ratio in parts per million is floorOf(r, 1_000_000n). */
export function floorOf(r: Ratio, scale = 1n): bigint {
  const scaled = r.num * scale;
  const quotient = scaled / r.den;
  // BigInt division truncates toward zero; floor moves negative non-integers one down.
  return scaled < 0n && quotient * r.den !== scaled ? quotient - 1n : quotient;
}

/** Significant digits kept when a ratio becomes a double, more than a double holds. */
const NUMBER_DIGITS = 10n ** 18n;

/** The nearest double, for tolerances and display only: never for money. */
export function toNumber(r: Ratio): number {
  const whole = floorOf(r);
  const fraction = floorOf(sub(r, ratio(whole)), NUMBER_DIGITS);
  return Number(whole) + Number(fraction) / Number(NUMBER_DIGITS);
}
