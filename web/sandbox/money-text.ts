/**
 * Amounts as the lobby writes them: in the page's language with
 * Intl.NumberFormat and the currency's digits, as the game pages write them
 * (web/page.js setMoney), so that a balance reads the same in the lobby and
 * in the game beside it. Intl is given the amount's exact decimal text
 * (String of the JSON number the server wrote exactly), never a float to
 * round, and never fewer digits than the amount has.
 */

/**
 * The wallet's digits for the currencies where Intl's differ: the crypto
 * currencies it knows by default (src/protocol/money.ts
 * DEFAULT_CRYPTO_DECIMALS), which are not in ISO 4217, and the ISO codes
 * for which Intl (CLDR) writes fewer digits than ISO 4217 gives them (HUF,
 * IDR, ...). A test holds currencyDigits equal to the wallet's for every
 * currency it knows.
 */
export const CURRENCY_DIGITS: Readonly<Record<string, number>> = {
  BTC: 8,
  ETH: 8,
  LTC: 8,
  USDT: 6,
  USDC: 6,
  AFN: 2,
  ALL: 2,
  COP: 2,
  HUF: 2,
  IDR: 2,
  IQD: 3,
  IRR: 2,
  KPW: 2,
  LAK: 2,
  LBP: 2,
  MGA: 2,
  MMK: 2,
  PKR: 2,
  SOS: 2,
  SYP: 2,
  YER: 2,
};

/** The currency's digits as the wallet has them: CURRENCY_DIGITS's, else Intl's, else 2. */
export function currencyDigits(currency: string): number {
  const known = CURRENCY_DIGITS[currency];
  if (known !== undefined) return known;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Digits after the point in a number's shortest exact text (1e-7 has 7). */
function fractionDigits(text: string): number {
  const [mantissa = '', exponent = '0'] = text.toLowerCase().split('e');
  const fraction = mantissa.split('.')[1] ?? '';
  return Math.max(0, fraction.length - Number(exponent));
}

/** Writes amounts of `currency` in `language` (a BCP 47 tag; one Intl cannot take falls back to en). */
export function moneyFormat(language: string, currency: string): (amount: number) => string {
  const digits = currencyDigits(currency);
  const format = (more: number): ((text: string) => string) => {
    const options = { minimumFractionDigits: digits, maximumFractionDigits: Math.max(digits, more) };
    const tag = Intl.NumberFormat.supportedLocalesOf([language]).length > 0 ? language : 'en';
    try {
      const intl = new Intl.NumberFormat(tag, { style: 'currency', currency, ...options });
      return (text) => intl.format(text as unknown as number);
    } catch {
      // Codes Intl does not take as a currency (USDT, ...): the number and the code, as the game pages write them.
    }
    const intl = new Intl.NumberFormat(tag, options);
    return (text) => `${intl.format(text as unknown as number)} ${currency}`;
  };
  const plain = format(0);
  return (amount) => {
    const text = String(amount);
    const more = fractionDigits(text);
    return more > digits ? format(more)(text) : plain(text);
  };
}
