/**
 * Money at the edge (docs/protocol.md §4). On the wire an amount is a JSON number
 * in major units; inside it is a bigint of minor units. Conversion happens
 * once, exactly, with the currency's decimals checked; no float arithmetic
 * ever touches an amount.
 */
import currencyCodes from 'currency-codes';

/** A non-negative decimal: value = units / 10^scale. */
export interface Decimal {
  units: bigint;
  scale: number;
}

/**
 * docs/protocol.md §4: an amount above 10^12 major units is refused. Whatever the
 * currency, an amount is also kept at or below 10^18 minor units, so that it
 * and the sums of a few of them stay inside the ledger's signed 64-bit
 * columns. For a currency with at most 6 decimals the first limit is the
 * tighter one; for 8-decimal crypto it caps one amount at 10^10 BTC.
 */
export const AMOUNT_MAJOR_MAX = 10n ** 12n;
export const AMOUNT_MINOR_MAX = 10n ** 18n;
/** The ledger's columns are signed 64-bit integers. */
export const BALANCE_MINOR_MAX = 2n ** 63n - 1n;

/**
 * An IEEE-754 double holds every decimal of up to 15 significant digits
 * exactly, and no more. A JSON number with more digits may already have been
 * rounded by the parser, so a body that holds one is refused instead of
 * booked at a value nobody sent.
 */
export const SIGNIFICANT_DIGITS_MAX = 15;

/**
 * A crypto currency may be configured with at most this many decimals.
 * Balances are kept in signed 64-bit minor units, so at d decimals a
 * balance can reach (2^63 - 1) / 10^d major units: 92 billion at 8, 9.2
 * million at 12, but only 9.2 at 18 (ETH's wei), where a player could not
 * hold ten coins and a few wins would be refused. 12 is the most decimals
 * for which a balance of a million major units still fits, the least we
 * call a useful range; a currency of finer units (ETH, 18) is configured
 * with fewer decimals, and its amounts are refused past that precision.
 * (The operator's own accounts, derived by summing transfers, may pass
 * 2^63 whatever this limit: verify sums them exactly.)
 */
export const CRYPTO_DECIMALS_MAX = 12;

/** Why a crypto code or its decimals cannot be configured, or undefined when they can. */
export function cryptoDecimalsProblem(code: string, decimals: number): string | undefined {
  if (!/^[A-Z0-9]{2,10}$/.test(code)) return `crypto currency "${code}": a code is 2 to 10 capital letters or digits`;
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > CRYPTO_DECIMALS_MAX) {
    return (
      `crypto currency ${code}: decimals must be a whole number 0..${CRYPTO_DECIMALS_MAX}, got ${decimals} ` +
      `(balances are signed 64-bit minor units: at ${CRYPTO_DECIMALS_MAX} decimals a balance holds at most ` +
      `${BALANCE_MINOR_MAX / 10n ** BigInt(CRYPTO_DECIMALS_MAX)} major units)`
    );
  }
  return undefined;
}

/** Crypto codes are not in ISO 4217; their decimals are configured (docs/protocol.md §4). */
export const DEFAULT_CRYPTO_DECIMALS: Readonly<Record<string, number>> = {
  BTC: 8,
  ETH: 8,
  LTC: 8,
  USDT: 6,
  USDC: 6,
};

/** ISO 4217 codes that are not money a player can hold: metals, funds, test codes. */
const NON_WALLET_CODES = new Set([
  'XAU',
  'XAG',
  'XPD',
  'XPT',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XSU',
  'XUA',
  'XTS',
  'XXX',
  'BOV',
  'CHE',
  'CHW',
  'CLF',
  'COU',
  'MXV',
  'USN',
  'UYI',
  'UYW',
]);

export interface Currencies {
  /** Decimals of a currency, or undefined if it is not one we know. */
  decimals(code: string): number | undefined;
  /**
   * The crypto currencies' decimals it was made with: all that makes it
   * (the ISO table is the package's), so that a thread of its own, which
   * cannot be handed a function, makes the same one (createCurrencies).
   */
  readonly cryptoDecimals: Readonly<Record<string, number>>;
}

export function createCurrencies(crypto: Readonly<Record<string, number>> = DEFAULT_CRYPTO_DECIMALS): Currencies {
  const table = new Map<string, number>();
  for (const code of currencyCodes.codes()) {
    const entry = currencyCodes.code(code);
    if (entry && !NON_WALLET_CODES.has(code)) table.set(code, entry.digits);
  }
  for (const [code, digits] of Object.entries(crypto)) {
    const problem = cryptoDecimalsProblem(code, digits);
    if (problem !== undefined) throw new Error(problem);
    table.set(code, digits);
  }
  return { decimals: (code) => table.get(code), cryptoDecimals: { ...crypto } };
}

export const CURRENCIES = createCurrencies();

/**
 * The exact decimal a JSON number stands for. JavaScript's shortest
 * round-trip form of a double is the decimal that was sent whenever it had at
 * most SIGNIFICANT_DIGITS_MAX digits, which `hasOnlyExactNumbers` checks on
 * the raw body. Undefined for negatives, -0 among them (a sender that wrote
 * "-0" meant a negative amount or made a mistake; neither is booked as 0),
 * and for non-finite values.
 */
export function decimalFromNumber(value: number): Decimal | undefined {
  if (!Number.isFinite(value) || value < 0 || Object.is(value, -0)) return undefined;
  // Cut by index rather than split: this runs for every amount of every bet.
  const text = String(value);
  const e = text.indexOf('e');
  const mantissa = e < 0 ? text : text.slice(0, e);
  const exponent = e < 0 ? 0 : Number(text.slice(e + 1));
  const point = mantissa.indexOf('.');
  let units = BigInt(point < 0 ? mantissa : mantissa.slice(0, point) + mantissa.slice(point + 1));
  let scale = (point < 0 ? 0 : mantissa.length - point - 1) - exponent;
  if (scale < 0) {
    units *= pow10(-scale);
    scale = 0;
  }
  return { units, scale };
}

/**
 * The text JavaScript gives the number a decimal came from (decimalFromNumber):
 * Number#toString's rules (ECMA-262, Number::toString) applied to its
 * digits, so that a refusal quotes an amount exactly as it did while amounts
 * were doubles ("1e-7", "1e+21", "10.5"), without a double ever holding it.
 */
export function decimalText({ units, scale }: Decimal): string {
  if (units === 0n) return '0';
  let digits = units.toString();
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === ZERO) end--;
  // value = 0.d1d2...dk × 10^n, with k significant digits (ECMA-262's n and k).
  const n = digits.length - scale;
  digits = digits.slice(0, end);
  const k = digits.length;
  if (k <= n && n <= 21) return digits + '0'.repeat(n - k);
  if (0 < n && n <= 21) return `${digits.slice(0, n)}.${digits.slice(n)}`;
  if (-6 < n && n <= 0) return `0.${'0'.repeat(-n)}${digits}`;
  const exponent = n - 1;
  const mantissa = k === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${Math.abs(exponent)}`;
}

/** True if a <= b, exactly. */
export function decimalAtMost(a: Decimal, b: Decimal): boolean {
  const scale = Math.max(a.scale, b.scale);
  return a.units * pow10(scale - a.scale) <= b.units * pow10(scale - b.scale);
}

/** Powers of ten as bigints, computed once for the exponents money uses (decimals, scales); others on demand. */
const POW10: readonly bigint[] = Array.from({ length: 40 }, (_, n) => 10n ** BigInt(n));
function pow10(exponent: number): bigint {
  return POW10[exponent] ?? 10n ** BigInt(exponent);
}

/** Minor units of a decimal, or undefined if it has more decimals than the currency. */
export function toMinor(amount: Decimal, decimals: number): bigint | undefined {
  let { units, scale } = amount;
  // Trailing zeros carry no precision: 1.50 with 1 decimal is 1.5.
  while (scale > decimals && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  if (scale > decimals) return undefined;
  return units * pow10(decimals - scale);
}

export function amountMinorMax(decimals: number): bigint {
  const byMajor = AMOUNT_MAJOR_MAX * pow10(decimals);
  return byMajor < AMOUNT_MINOR_MAX ? byMajor : AMOUNT_MINOR_MAX;
}

export type AmountProblem = 'too-many-decimals' | 'too-large';

/** Converts a wire amount for a currency; the problem names why it cannot be booked. */
export function amountToMinor(amount: Decimal, decimals: number): bigint | AmountProblem {
  const minor = toMinor(amount, decimals);
  if (minor === undefined) return 'too-many-decimals';
  if (minor > amountMinorMax(decimals)) return 'too-large';
  return minor;
}

const ZERO = '0'.charCodeAt(0);

/** JSON number text for an amount of minor units: exact at any size, no trailing zeros. */
export function formatMinor(minor: bigint, decimals: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString();
  if (decimals === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(decimals + 1, '0');
  const point = padded.length - decimals;
  // Trailing zeros dropped by a scan rather than a regular expression: every answer formats a balance.
  let end = padded.length;
  while (end > point && padded.charCodeAt(end - 1) === ZERO) end--;
  const text = end > point ? `${padded.slice(0, point)}.${padded.slice(point, end)}` : padded.slice(0, point);
  return negative ? `-${text}` : text;
}

/** A human rendering with all decimals, for `detail` messages: 12.50. */
export function displayMinor(minor: bigint, decimals: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return negative ? `-${text}` : text;
}

/** Parses a decimal string such as "12.50" (the CLI's and config files' form). */
export function decimalFromString(text: string): Decimal | undefined {
  const match = /^(\d{1,20})(?:\.(\d{1,18}))?$/.exec(text.trim());
  if (!match) return undefined;
  const whole = match[1] ?? '';
  const fraction = match[2] ?? '';
  return { units: BigInt(whole + fraction), scale: fraction.length };
}

/**
 * A number's significant digits all lie in its mantissa, one unbroken run of
 * digits and at most one point. A text with no such run longer than
 * SIGNIFICANT_DIGITS_MAX characters holds no inexact number; most request
 * bodies are ruled out by this one native scan.
 */
const LONG_MANTISSA = new RegExp(`[0-9.]{${SIGNIFICANT_DIGITS_MAX + 1},}`);

/**
 * The significant digits of a number's mantissa, json[start, end): its
 * digits from the first that is not 0, with the zeros after the last that is
 * not 0 left out (they carry no precision: 1000 and 0.50 hold one digit).
 */
export function significantDigits(json: string, start: number, end: number): number {
  let significant = 0;
  let pendingZeros = 0;
  let started = false;
  for (let i = start; i < end; i++) {
    const d = json.charCodeAt(i);
    if (d === 0x2e) continue; // '.'
    if (d === 0x30) {
      if (started) pendingZeros++;
      continue;
    }
    started = true;
    significant += pendingZeros + 1;
    pendingZeros = 0;
  }
  return significant;
}

/**
 * The values of the number tokens (outside strings) of a JSON text that have
 * more than SIGNIFICANT_DIGITS_MAX significant digits: the numbers JSON.parse
 * may have rounded. Almost always empty. One pass over the characters.
 * (Request bodies get the same answer from the I-JSON scan, i-json.ts, which
 * reads their numbers anyway; this one serves answers, files and arguments.)
 */
export function inexactNumbers(json: string): number[] {
  const found: number[] = [];
  if (!LONG_MANTISSA.test(json)) return found;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c < 0x30 || c > 0x39) continue;
    // A number token starts here; its sign does not change its digits.
    const start = json.charCodeAt(i - 1) === 0x2d ? i - 1 : i;
    const mantissaStart = i;
    for (; i < json.length; i++) {
      const d = json.charCodeAt(i);
      if (d !== 0x2e && (d < 0x30 || d > 0x39)) break;
    }
    const significant = significantDigits(json, mantissaStart, i);
    let end = i;
    // Take the exponent into the token's value; its digits are few.
    if (json.charCodeAt(end) === 0x65 || json.charCodeAt(end) === 0x45) {
      end++;
      if (json.charCodeAt(end) === 0x2b || json.charCodeAt(end) === 0x2d) end++;
      while (end < json.length && json.charCodeAt(end) >= 0x30 && json.charCodeAt(end) <= 0x39) end++;
    }
    if (significant > SIGNIFICANT_DIGITS_MAX) found.push(Number(json.slice(start, end)));
    i = end - 1;
  }
  return found;
}

/** True when JSON.parse kept every number of the text exactly. */
export function hasOnlyExactNumbers(json: string): boolean {
  return inexactNumbers(json).length === 0;
}
