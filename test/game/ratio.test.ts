/**
 * Proves the exact fractions the maths sheets are computed with
 * (src/game/ratio.ts): always reduced with a positive denominator, field
 * operations that agree with each other, comparison and floor exact at any
 * size, and a conversion to double that is only ever used for display.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { add, compare, div, floorOf, mul, ratio, sub, toNumber } from '../../src/game/ratio.js';

const anyRatio = fc
  .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.bigInt({ min: 1n, max: 10n ** 40n }), fc.boolean())
  .map(([num, den, negativeDen]) => ratio(num, negativeDen ? -den : den));

test('a ratio is reduced, with a positive denominator', () => {
  assert.deepEqual(ratio(6n, -4n), { num: -3n, den: 2n });
  assert.deepEqual(ratio(0n, 7n), { num: 0n, den: 1n });
  assert.throws(() => ratio(1n, 0n));
  assert.throws(() => div(ratio(1n), ratio(0n)));
});

test('floor rounds toward minus infinity; toNumber is near the value', () => {
  assert.equal(floorOf(ratio(7n, 2n)), 3n);
  assert.equal(floorOf(ratio(-7n, 2n)), -4n);
  assert.equal(floorOf(ratio(-6n, 2n)), -3n);
  assert.equal(floorOf(ratio(1n, 3n), 1_000_000n), 333_333n);
  assert.equal(toNumber(ratio(1n, 3n)), 1 / 3);
  assert.equal(toNumber(ratio(-5n, 4n)), -1.25);
  // Far beyond a double's exact integers, and with a denominator of hundreds of digits.
  assert.ok(Math.abs(toNumber(ratio(10n ** 300n + 1n, 3n * 10n ** 299n)) - 10 / 3) < 1e-12);
});

test('property: sums, differences, products and quotients agree, and compare orders by the difference', () => {
  fc.assert(
    fc.property(anyRatio, anyRatio, (a, b) => {
      assert.deepEqual(sub(add(a, b), b), a);
      if (b.num !== 0n) assert.deepEqual(mul(div(a, b), b), a);
      assert.equal(compare(a, b), Math.sign(Number(sub(a, b).num)));
      assert.equal(compare(a, b), -compare(b, a));
      const floor = floorOf(a);
      assert.ok(compare(ratio(floor), a) <= 0 && compare(a, ratio(floor + 1n)) < 0);
      for (const r of [a, add(a, b), mul(a, b)]) assert.ok(r.den > 0n);
    }),
    { numRuns: 1000 },
  );
});
