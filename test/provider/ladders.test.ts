/**
 * Proves the bet-ladder rule (src/provider/ladders.ts): "nice" amounts are
 * 1, 2, 2.5 or 5 times a power of ten that the currency can hold, the
 * nearest by ratio with ties going up; derived ladders are exact in the
 * target currency's decimals and strictly ascending; written ladders are
 * checked. Fun mode's play money in another currency is converted by the
 * same rule (`Catalog.converted`, `playMoneyIn`), and a fun launch plays in
 * the currency it names only where the operator's players could bet in it
 * and the provider has a rate for it (`funPlay`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkLadder, convertNice, deriveLadder, niceMinor } from '../../src/provider/ladders.js';
import { Catalog, funPlay, playMoneyIn } from '../../src/provider/catalog.js';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import { exampleConfigFile } from './provider-helpers.js';

const r = (num: bigint, den = 1n) => ({ num, den });

test('nice amounts: nearest of 1, 2, 2.5, 5 x 10^k by ratio, ties up, at least one minor unit', () => {
  assert.equal(niceMinor(r(16n)), 20n); // 16/10 = 1.6 > 20/16 = 1.25
  assert.equal(niceMinor(r(32n)), 25n); // 32/25 = 1.28 < 50/32 = 1.5625
  assert.equal(niceMinor(r(80n)), 100n);
  assert.equal(niceMinor(r(160n)), 200n);
  assert.equal(niceMinor(r(35n)), 25n); // 1.4 < 50/35 = 1.43
  assert.equal(niceMinor(r(36n)), 50n); // 36/25 = 1.44 > 50/36 = 1.39
  assert.equal(niceMinor(r(3n)), 2n); // 2.5 minor units cannot be paid; 3/2 = 1.5 < 5/3
  assert.equal(niceMinor(r(1n, 1000n)), 1n); // below one minor unit: one minor unit
  assert.equal(niceMinor(r(100n)), 100n);
  assert.equal(niceMinor(r(2_500_000n)), 2_500_000n);
  // In tenths of a minor unit 2.5 is payable at 10x: 22.3 -> 20, 22.4 -> 25 (the boundary is sqrt(20 x 25) = 22.36).
  assert.equal(niceMinor(r(223n, 10n)), 20n);
  assert.equal(niceMinor(r(224n, 10n)), 25n);
});

test('property: a nice amount is within a factor 1.6 of the value and of the nice form', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.bigInt({ min: 1n, max: 10n ** 6n }), (num, den) => {
      const nice = niceMinor(r(num, den));
      assert.ok(nice >= 1n);
      const text = nice.toString().replace(/0+$/, '');
      assert.ok(['1', '2', '25', '5'].includes(text), `${nice} is not nice`);
      if (num >= den) {
        // The widest step of the series is 2 -> 5 at 2.5 when 2.5 is not payable: the nearest is within sqrt(2.5) < 1.6.
        assert.ok(nice * den * 10n <= num * 16n && num * 10n <= nice * den * 16n, `${num}/${den} -> ${nice}`);
      }
    }),
    { numRuns: 1000 },
  );
});

test('EUR ladder derived to JPY, BTC, KWD and USD is exact in their decimals and strictly ascending', () => {
  const eur = [10n, 20n, 50n, 100n, 200n, 500n, 1000n, 2000n, 5000n, 10_000n];
  // 1 EUR = 160 JPY (0 decimals)
  assert.deepEqual(deriveLadder(eur, 2, r(160n), 0), [20n, 25n, 100n, 200n, 250n, 1000n, 2000n, 2500n, 10_000n, 20_000n]);
  // 1 EUR = 0.000016 BTC (8 decimals): 0.10 EUR = 160 satoshi -> 200
  assert.deepEqual(deriveLadder(eur, 2, r(16n, 1_000_000n), 8), [200n, 250n, 1000n, 2000n, 2500n, 10_000n, 20_000n, 25_000n, 100_000n, 200_000n]);
  // 1 EUR = 0.33 KWD (3 decimals): 0.10 EUR = 0.033 -> 0.025
  assert.deepEqual(deriveLadder(eur, 2, r(33n, 100n), 3), [25n, 50n, 200n, 250n, 500n, 2000n, 2500n, 5000n, 20_000n, 25_000n]);
  // Near parity, repeats are dropped: 0.10 and 0.11 both become 0.10.
  assert.deepEqual(deriveLadder([10n, 11n, 20n], 2, r(108n, 100n), 2), [10n, 20n]);
});

test('written ladders must be positive and strictly ascending', () => {
  assert.equal(checkLadder([10n, 20n, 50n], 2), undefined);
  assert.deepEqual(checkLadder([10n, 10n], 2), { index: 1, problem: 'not-ascending' });
  assert.deepEqual(checkLadder([20n, 10n], 2), { index: 1, problem: 'not-ascending' });
  assert.deepEqual(checkLadder([0n], 2), { index: 0, problem: 'not-positive' });
  assert.deepEqual(checkLadder([10n ** 15n], 2), { index: 0, problem: 'too-large' });
});

test('the catalog answers written ladders, derives the others from the base ladder, and has none without a rate', () => {
  const config = resolveProviderConfig(exampleConfigFile());
  const catalog = new Catalog(config);
  assert.deepEqual(catalog.ladder('dice', 'EUR'), [10n, 20n, 50n, 100n, 200n, 500n, 1000n, 2000n, 5000n, 10_000n]);
  assert.deepEqual(catalog.ladder('dice-high-roller', 'USD'), [100n, 500n, 1000n, 2500n, 5000n, 10_000n, 25_000n, 50_000n]);
  assert.deepEqual(catalog.ladder('dice', 'JPY'), [20n, 25n, 100n, 200n, 250n, 1000n, 2000n, 2500n, 10_000n, 20_000n]);
  assert.equal(catalog.ladder('dice', 'NOK'), undefined); // no rate
  assert.equal(catalog.ladder('dice', 'XYZ'), undefined); // no currency
  assert.equal(catalog.ladder('poker', 'EUR'), undefined);
  // Derived once: the same array comes back.
  assert.equal(catalog.ladder('dice', 'JPY'), catalog.ladder('dice', 'JPY'));
});

test('one amount converts as a derived step does, and is refused past the amount limit', () => {
  // 1000 EUR at 1.08 is 1080 USD: 1000 is nearer in ratio (1.08) than 2000 or 1000 x 2.5 would be.
  assert.equal(convertNice(100_000n, 2, r(108n, 100n), 2), 100_000n);
  assert.equal(convertNice(100_000n, 2, r(160n), 0), 200_000n); // 160000 JPY: 200000 (1.25) beats 100000 (1.6)
  assert.equal(convertNice(1n, 2, r(1n), 2), 1n);
  assert.equal(convertNice(10n ** 14n, 2, r(1000n), 2), undefined); // over AMOUNT_MINOR_MAX of two decimals
  assert.throws(() => convertNice(0n, 2, r(1n), 2), /a positive amount/);
});

test("fun mode's play money: the config's in its own currency, converted at the rates in another, none without a rate", () => {
  const config = resolveProviderConfig(exampleConfigFile());
  const catalog = new Catalog(config);
  assert.deepEqual(config.fun, { currency: 'EUR', balanceMinor: 100_000n });
  assert.equal(playMoneyIn(config.fun, catalog, 'EUR'), 100_000n);
  assert.equal(playMoneyIn(config.fun, catalog, 'USD'), 100_000n); // 1080 USD, nicely 1000
  assert.equal(playMoneyIn(config.fun, catalog, 'JPY'), 200_000n); // 160000 JPY, nicely 200000
  assert.equal(playMoneyIn(config.fun, catalog, 'BTC'), 2_000_000n); // 0.016 BTC, nicely 0.02
  assert.equal(playMoneyIn(config.fun, catalog, 'NOK'), undefined); // no rate
  assert.equal(playMoneyIn({ currency: 'EUR', balanceMinor: 0n }, catalog, 'USD'), 0n);
});

test('a fun launch plays in the currency it names where the operator offers bets in it and there is a rate; else it says why', () => {
  const file = exampleConfigFile();
  // AUD: a written ladder the operator offers, and no exchange rate to convert play money into.
  (file.operators[0]!.currencies as string[]).push('AUD');
  (file.games[0]!.ladders as Record<string, string[]>).AUD = ['1', '2'];
  const config = resolveProviderConfig(file);
  const catalog = new Catalog(config);
  const operator = config.operators[0]!;
  assert.deepEqual(funPlay(catalog, config.fun, operator, 'dice', undefined), { currency: 'EUR', balanceMinor: 100_000n });
  assert.deepEqual(funPlay(catalog, config.fun, operator, 'dice', 'JPY'), { currency: 'JPY', balanceMinor: 200_000n });
  assert.deepEqual(funPlay(catalog, config.fun, operator, 'dice', 'EUR'), { currency: 'EUR', balanceMinor: 100_000n });
  assert.equal(funPlay(catalog, config.fun, operator, 'dice', 'SEK'), `game dice has no bet ladder for SEK at operator ${operator.operatorId}`); // a rate, not offered
  assert.equal(funPlay(catalog, config.fun, operator, 'dice', 'QQQ'), `game dice has no bet ladder for QQQ at operator ${operator.operatorId}`);
  assert.equal(funPlay(catalog, config.fun, operator, 'dice', 'AUD'), 'the provider holds no play money in AUD: it has no exchange rate from EUR to it');
  const aussie = resolveProviderConfig({ ...exampleConfigFile(), fun: { currency: 'AUD', balance: '1000' } });
  assert.equal(
    funPlay(new Catalog(aussie), aussie.fun, aussie.operators[0]!, 'dice', undefined),
    'game dice has no bet ladder for the play-money currency AUD',
  );
});
