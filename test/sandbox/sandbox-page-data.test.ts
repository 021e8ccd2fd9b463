/**
 * Proves that the data the sandbox's pages carry as browser code agrees
 * with the server code it copies: the back office's outbox filter offers
 * exactly the outbox's statuses (src/dispatch/outbox.ts ITEM_STATUSES,
 * "skipped" among them); the lobby writes every currency the wallet knows
 * with the wallet's digits, and writes an amount as the game pages do
 * (web/page.js setMoney: Intl's currency style with those digits), in each
 * of the pages' languages, never rounding one away; and each language of
 * the lobby has every text of English's with the same placeholders.
 * Reads the pages' modules as compiled into dist/web/sandbox.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import currencyCodes from 'currency-codes';
import { ITEM_STATUSES } from '../../src/dispatch/outbox.js';
import { CURRENCIES, DEFAULT_CRYPTO_DECIMALS } from '../../src/protocol/money.js';

/** A page module as compiled, by a URL the compiler does not follow (the pages are compiled apart, by web/sandbox/tsconfig.json). */
async function pageModule<T>(name: string): Promise<T> {
  return (await import(new URL(`../../web/sandbox/${name}.js`, import.meta.url).href)) as T;
}

const LANGUAGES = ['en', 'de-DE', 'es-ES', 'fr-FR'];

/** web/page.js setMoney and money, as the game pages write an amount. */
function gamePageMoney(language: string, currency: string, decimals: number, text: string): string {
  const digits = { minimumFractionDigits: decimals, maximumFractionDigits: decimals };
  try {
    return new Intl.NumberFormat(language, { style: 'currency', currency, ...digits }).format(text as unknown as number);
  } catch {
    return `${new Intl.NumberFormat(language, digits).format(text as unknown as number)} ${currency}`;
  }
}

test("the back office's outbox filter offers the outbox's statuses", async () => {
  const { OUTBOX_STATUSES } = await pageModule<{ OUTBOX_STATUSES: readonly string[] }>('outbox-statuses');
  assert.deepEqual([...OUTBOX_STATUSES], [...ITEM_STATUSES]);
  assert.ok(OUTBOX_STATUSES.includes('skipped'));
});

test('the lobby has the wallet’s digits for every currency it knows', async () => {
  const { currencyDigits } = await pageModule<{ currencyDigits: (code: string) => number }>('money-text');
  const codes = [...currencyCodes.codes(), ...Object.keys(DEFAULT_CRYPTO_DECIMALS)];
  const differ = codes.filter((code) => CURRENCIES.decimals(code) !== undefined && currencyDigits(code) !== CURRENCIES.decimals(code));
  assert.deepEqual(differ, []);
});

test('the lobby writes an amount as the game page writes it, in each language, and rounds none away', async () => {
  const { moneyFormat } = await pageModule<{ moneyFormat: (language: string, currency: string) => (amount: number) => string }>('money-text');
  const amounts: Record<string, number[]> = {
    EUR: [0, 20, 101.77, 0.1],
    USD: [250, 0.5],
    JPY: [20000, 25],
    BTC: [0.005, 0.000002],
    GBP: [20],
    HUF: [1.5],
    USDT: [12.345678],
  };
  for (const language of LANGUAGES) {
    for (const [currency, list] of Object.entries(amounts)) {
      const write = moneyFormat(language, currency);
      for (const amount of list) {
        assert.equal(write(amount), gamePageMoney(language, currency, CURRENCIES.decimals(currency)!, String(amount)), `${amount} ${currency} in ${language}`);
      }
    }
  }
  assert.equal(moneyFormat('de-DE', 'EUR')(101.77), '101,77\u00a0€');
  // More digits than the currency has are written, not rounded: money is never rounded for show.
  assert.equal(moneyFormat('en', 'EUR')(0.001), '€0.001');
});

test('each language of the lobby has every text of English’s, with its placeholders', async () => {
  const { LOBBY_STRINGS } = await pageModule<{ LOBBY_STRINGS: Record<string, Record<string, string>> }>('lobby-strings');
  const en = LOBBY_STRINGS.en!;
  const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  assert.deepEqual(Object.keys(LOBBY_STRINGS).sort(), ['de', 'en', 'es', 'fr']);
  for (const [language, strings] of Object.entries(LOBBY_STRINGS)) {
    assert.deepEqual(Object.keys(strings).sort(), Object.keys(en).sort(), language);
    for (const [key, text] of Object.entries(strings)) assert.deepEqual(placeholders(text), placeholders(en[key]!), `${language}.${key}`);
  }
});
