/**
 * Proves the bound on configured crypto decimals: WAGERLINK_CRYPTO_DECIMALS
 * takes 0 to CRYPTO_DECIMALS_MAX decimals, the most for which a balance of
 * a million major units still fits the ledger's signed 64-bit minor units,
 * and start-up refuses more (ETH's 18, say) with a message that says why,
 * before any store is opened.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, readOperatorConfig } from '../../src/operator/operator-config.js';
import { BALANCE_MINOR_MAX, createCurrencies, CRYPTO_DECIMALS_MAX } from '../../src/protocol/money.js';
import { cleanEnv, runWagerlink } from '../harness/child-process.js';
import { tempDir } from '../helpers.js';

/** The least balance range, in major units, that a configurable currency must hold. */
const USEFUL_BALANCE_MAJOR = 10n ** 6n;

test('the bound is the most decimals that still hold a million major units in 64 bits', () => {
  assert.ok(USEFUL_BALANCE_MAJOR * 10n ** BigInt(CRYPTO_DECIMALS_MAX) <= BALANCE_MINOR_MAX);
  assert.ok(USEFUL_BALANCE_MAJOR * 10n ** BigInt(CRYPTO_DECIMALS_MAX + 1) > BALANCE_MINOR_MAX);
});

test('decimals up to the bound are accepted, more are refused naming the variable and the bound', () => {
  const config = readOperatorConfig({ WAGERLINK_CRYPTO_DECIMALS: `BTC=8,ETH=${CRYPTO_DECIMALS_MAX},XRP=0` });
  assert.deepEqual(config.cryptoDecimals, { BTC: 8, ETH: CRYPTO_DECIMALS_MAX, XRP: 0 });
  assert.equal(createCurrencies(config.cryptoDecimals).decimals('ETH'), CRYPTO_DECIMALS_MAX);
  for (const decimals of [CRYPTO_DECIMALS_MAX + 1, 18, 99]) {
    assert.throws(
      () => readOperatorConfig({ WAGERLINK_CRYPTO_DECIMALS: `BTC=8,ETH=${decimals}` }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.match(error.message, /^WAGERLINK_CRYPTO_DECIMALS: crypto currency ETH: decimals must be a whole number 0\.\.12, got \d+/);
        assert.match(error.message, /signed 64-bit/);
        return true;
      },
    );
    // The stores apply the same rule to whatever they are given.
    assert.throws(() => createCurrencies({ ETH: decimals }), /decimals must be a whole number 0\.\.12/);
  }
});

test('a command refuses to start with too many decimals and says why, without touching the database', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'operator.db');
    const result = await runWagerlink(['operator', 'verify', '--database', path], { env: cleanEnv({ WAGERLINK_CRYPTO_DECIMALS: 'ETH=18' }) });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^wagerlink: WAGERLINK_CRYPTO_DECIMALS: crypto currency ETH: decimals must be a whole number 0\.\.12, got 18/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(existsSync(path), false, 'no database was created');
  } finally {
    cleanup();
  }
});
