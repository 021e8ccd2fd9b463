/**
 * Proves that money parsing and formatting are exact: decimals per currency,
 * round-trips between wire numbers and minor units, no float drift when
 * amounts are summed, and refusal of numbers a double cannot hold exactly;
 * an exact decimal quoted in a refusal reads as the number it came from, and
 * compares exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  AMOUNT_MINOR_MAX,
  amountMinorMax,
  amountToMinor,
  createCurrencies,
  CURRENCIES,
  decimalFromNumber,
  decimalAtMost,
  decimalFromString,
  decimalText,
  displayMinor,
  formatMinor,
  hasOnlyExactNumbers,
  toMinor,
} from '../../src/protocol/money.js';

test('currency decimals come from ISO 4217, crypto from configuration', () => {
  assert.equal(CURRENCIES.decimals('EUR'), 2);
  assert.equal(CURRENCIES.decimals('JPY'), 0);
  assert.equal(CURRENCIES.decimals('KWD'), 3);
  assert.equal(CURRENCIES.decimals('BTC'), 8);
  assert.equal(CURRENCIES.decimals('USDT'), 6);
  assert.equal(CURRENCIES.decimals('XAU'), undefined, 'metals are not wallet currencies');
  assert.equal(CURRENCIES.decimals('ZZZ'), undefined);
  assert.equal(createCurrencies({ DOGE: 8 }).decimals('DOGE'), 8);
  assert.equal(createCurrencies({ DOGE: 8 }).decimals('BTC'), undefined, 'configured crypto replaces the defaults');
  assert.throws(() => createCurrencies({ BAD: 40 }));
  // Balances are signed 64-bit minor units: at most 12 decimals (CRYPTO_DECIMALS_MAX), not ETH's 18.
  assert.equal(createCurrencies({ ETH: 12 }).decimals('ETH'), 12);
  assert.throws(() => createCurrencies({ ETH: 13 }), /0\.\.12/);
});

test('wire numbers convert exactly to minor units', () => {
  const minor = (value: number, decimals: number) => toMinor(decimalFromNumber(value)!, decimals);
  assert.equal(minor(12.5, 2), 1250n);
  assert.equal(minor(0.1, 2), 10n);
  assert.equal(minor(0.3, 2), 30n);
  assert.equal(minor(1e-8, 8), 1n);
  assert.equal(minor(1e21, 0), 10n ** 21n);
  assert.equal(minor(100, 0), 100n);
  assert.equal(minor(1.5, 0), undefined, 'JPY has no decimals');
  assert.equal(minor(0.001, 2), undefined);
  assert.equal(minor(0.001, 3), 1n, 'KWD has three');
  assert.equal(decimalFromNumber(-1), undefined);
  assert.equal(decimalFromNumber(-0), undefined, '-0 is not an amount of 0');
  assert.equal(decimalFromNumber(Number.NaN), undefined);
  assert.equal(decimalFromNumber(Number.POSITIVE_INFINITY), undefined);
});

test('amounts above 10^12 major units, or 10^18 minor units, are refused', () => {
  assert.equal(amountToMinor(decimalFromNumber(1e12)!, 2), 10n ** 14n);
  assert.equal(amountToMinor(decimalFromNumber(1e12 + 0.01)!, 2), 'too-large');
  assert.equal(amountMinorMax(8), AMOUNT_MINOR_MAX);
  assert.equal(amountToMinor(decimalFromNumber(1e10)!, 8), 10n ** 18n);
  assert.equal(amountToMinor(decimalFromNumber(1e10 + 1)!, 8), 'too-large');
});

test('formatting writes exact JSON number text', () => {
  assert.equal(formatMinor(1050n, 2), '10.5');
  assert.equal(formatMinor(1000n, 2), '10');
  assert.equal(formatMinor(5n, 2), '0.05');
  assert.equal(formatMinor(0n, 2), '0');
  assert.equal(formatMinor(-5n, 2), '-0.05');
  assert.equal(formatMinor(123n, 0), '123');
  assert.equal(formatMinor(100000000000012345678n, 8), '1000000000000.12345678');
  assert.equal(displayMinor(1250n, 2), '12.50');
  assert.equal(displayMinor(5n, 3), '0.005');
});

test('property: minor units -> JSON text -> number -> minor units is the identity', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 8 }), fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), (decimals, minor) => {
      const text = formatMinor(minor, decimals);
      // At most 15 digits: JSON.parse keeps every such number exactly.
      const parsed = JSON.parse(text) as number;
      assert.equal(toMinor(decimalFromNumber(parsed)!, decimals), minor);
      assert.ok(hasOnlyExactNumbers(`{"a":${text}}`));
    }),
    { numRuns: 5000 },
  );
});

test('property: the decimal of any finite non-negative double reads back as that double', () => {
  fc.assert(
    fc.property(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (value) => {
      const decimal = decimalFromNumber(value)!;
      assert.ok(decimal.scale >= 0 && decimal.units >= 0n);
      assert.ok(Object.is(Number(`${decimal.units}e-${decimal.scale}`), value === 0 ? 0 : value), String(value));
    }),
    { numRuns: 5000 },
  );
});

test('property: sums of parsed amounts have no float drift', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 50 }), (cents) => {
      const wire = cents.map((c) => Number(formatMinor(BigInt(c), 2)));
      const total = wire.reduce((sum, amount) => sum + toMinor(decimalFromNumber(amount)!, 2)!, 0n);
      assert.equal(
        total,
        cents.reduce((sum, c) => sum + BigInt(c), 0n),
      );
    }),
    { numRuns: 2000 },
  );
});

test('property: decimals beyond the currency are always refused, never rounded', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 1_000_000 }), (decimals, lastDigit, whole) => {
      // One digit past the currency's decimals, non-zero.
      const text = `${whole}.${'0'.repeat(decimals)}${lastDigit}`;
      assert.equal(toMinor(decimalFromNumber(Number(text))!, decimals), undefined, text);
    }),
    { numRuns: 2000 },
  );
});

test('numbers with more than 15 significant digits are detected in raw JSON, strings are not numbers', () => {
  assert.ok(hasOnlyExactNumbers('{"amount":123456789012.345}'));
  assert.ok(!hasOnlyExactNumbers('{"amount":1234567890.1234567}'));
  assert.ok(!hasOnlyExactNumbers('{"amount":0.30000000000000001}'));
  assert.ok(hasOnlyExactNumbers('{"amount":0.000000000000001}'), 'leading zeros are not significant');
  assert.ok(hasOnlyExactNumbers('{"amount":1000000000000000000000}'), 'trailing zeros of an integer are not significant');
  assert.ok(hasOnlyExactNumbers('{"id":"12345678901234567890","x":"\\"1234567890123456789"}'));
  assert.ok(hasOnlyExactNumbers('{"amount":1.5e-7,"b":[1,2,3]}'));
  assert.ok(!hasOnlyExactNumbers('[1,2,12345678901234567]'));
});

test('property: a number with more than 15 significant digits is found wherever its point and exponent are', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 24 }),
      fc.integer({ min: 1, max: 9 }),
      fc.nat(),
      fc.constantFrom('', 'e5', 'E-3', 'e+2'),
      fc.constantFrom('-', ''),
      (digits, lead, pointAt, exponent, sign) => {
        // 16 to 25 significant digits: a non-zero first and last digit.
        const all = [lead, ...digits.slice(0, -1), Math.max(1, digits.at(-1)!)].join('');
        const point = 1 + (pointAt % all.length);
        const mantissa = point === all.length ? all : `${all.slice(0, point)}.${all.slice(point)}`;
        const text = `{"regulatory":"${'7'.repeat(20)}","amount":${sign}${mantissa}${exponent},"x":[1,2]}`;
        assert.ok(!hasOnlyExactNumbers(text), text);
      },
    ),
    { numRuns: 2000 },
  );
});

test('property: any number JSON.stringify writes is kept exactly when it passes the check', () => {
  fc.assert(
    fc.property(fc.double({ min: 0, max: 1e15, noNaN: true, noDefaultInfinity: true }), (value) => {
      const text = JSON.stringify({ amount: value });
      if (!hasOnlyExactNumbers(text)) return;
      const decimal = decimalFromNumber((JSON.parse(text) as { amount: number }).amount)!;
      // The decimal we book, written back, is the text that was sent.
      const scale = decimal.scale;
      assert.equal(Number(formatMinor(decimal.units, scale)), value);
    }),
    { numRuns: 5000 },
  );
});

test('decimal strings (CLI and config form) parse strictly', () => {
  assert.deepEqual(decimalFromString('12.50'), { units: 1250n, scale: 2 });
  assert.deepEqual(decimalFromString('7'), { units: 7n, scale: 0 });
  assert.equal(decimalFromString('-1'), undefined);
  assert.equal(decimalFromString('1e5'), undefined);
  assert.equal(decimalFromString('1.'), undefined);
});

test('an exact decimal reads as JavaScript writes the number it came from, for every double', () => {
  for (const value of [0, 1, 10.5, 0.07, 1e-7, 1.5e-7, 1e-6, 123456789.12345678, 1e21, 1.5e21, 1e20, 9007199254740991, 5e-324, 0.1 + 0.2]) {
    assert.equal(decimalText(decimalFromNumber(value)!), String(value));
  }
  fc.assert(
    fc.property(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (value) => {
      fc.pre(!Object.is(value, -0));
      assert.equal(decimalText(decimalFromNumber(value)!), String(value));
    }),
    { numRuns: 5_000 },
  );
});

test('decimals compare exactly, whatever their scales', () => {
  assert.ok(decimalAtMost({ units: 150n, scale: 2 }, { units: 15n, scale: 1 }));
  assert.ok(!decimalAtMost({ units: 151n, scale: 2 }, { units: 15n, scale: 1 }));
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.nat(12), fc.nat(12), (a, b, sa, sb) => {
      const scale = Math.max(sa, sb);
      const expected = a * 10n ** BigInt(scale - sa) <= b * 10n ** BigInt(scale - sb);
      assert.equal(decimalAtMost({ units: a, scale: sa }, { units: b, scale: sb }), expected);
    }),
  );
});
