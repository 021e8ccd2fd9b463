/**
 * One value of the provider's config read for meaning: a decimal, an
 * amount in a currency's minor units, a rate, an RTP, a URL or an origin, a
 * known currency, a list without repeats. Each failure throws
 * ProviderConfigError naming the member at fault, e.g.
 * `games[0].ladders.EUR[2]: ...`, so that every step of provider-config.ts
 * reports alike.
 */
import { RTP_BP_MAX, RTP_BP_MIN, RTP_BP_SCALE } from '../game/dice.js';
import { amountMinorMax, decimalFromNumber, decimalFromString, toMinor, type Currencies, type Decimal } from '../protocol/money.js';
import type { Rational } from './ladders.js';

export class ProviderConfigError extends Error {
  override name = 'ProviderConfigError';
}

export function fail(member: string, message: string): never {
  throw new ProviderConfigError(`${member}: ${message}`);
}

export function decimalOf(member: string, value: string | number): Decimal {
  const decimal = typeof value === 'number' ? decimalFromNumber(value) : decimalFromString(value);
  if (!decimal) fail(member, `${JSON.stringify(value)} is not a non-negative decimal`);
  return decimal;
}

export function minorOf(member: string, value: string | number, currency: string, decimals: number): bigint {
  const minor = toMinor(decimalOf(member, value), decimals);
  if (minor === undefined) fail(member, `${value} has more decimals than ${currency} allows (${decimals})`);
  if (minor > amountMinorMax(decimals)) fail(member, `${value} is over the amount limit`);
  return minor;
}

export function rationalOf(member: string, value: string | number): Rational {
  const decimal = decimalOf(member, value);
  if (decimal.units === 0n) fail(member, 'must be greater than 0');
  return { num: decimal.units, den: 10n ** BigInt(decimal.scale) };
}

/** An origin as a Content-Security-Policy names one: http(s), a host, a port if not the default, and nothing after. */
export function pageOrigin(member: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(member, `${text} is not an origin such as https://casino.example`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== text.replace(/\/$/, '').toLowerCase()) {
    fail(member, `${text} must be an origin, scheme://host[:port] with http or https and no path: ${url.origin}`);
  }
  if (url.hostname.startsWith('[')) fail(member, `${text}: a Content-Security-Policy cannot name an IPv6 address; use the pages' host name`);
  return url.origin;
}

export function httpUrl(member: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(member, `${text} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(member, `${text} must be http or https`);
  if (url.search !== '' || url.hash !== '') fail(member, `${text} must not have a query or fragment`);
  return text.replace(/\/+$/, '');
}

export function knownCurrency(member: string, code: string, currencies: Currencies): number {
  const decimals = currencies.decimals(code);
  if (decimals === undefined) fail(member, `${code} is not a known currency (ISO 4217, or a code of cryptoDecimals)`);
  return decimals;
}

export function unique(member: string, values: readonly string[], what: string): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value)) fail(`${member}[${index}]`, `${what} ${value} appears twice`);
    seen.add(value);
  });
}

export function rtpBpOf(member: string, value: string | number): number {
  const rtp = decimalOf(member, value);
  const bp = toMinor(rtp, 4);
  if (bp === undefined) fail(member, 'has more than 4 decimals (basis points)');
  if (bp < BigInt(RTP_BP_MIN) || bp > BigInt(RTP_BP_MAX)) {
    fail(member, `must be between ${RTP_BP_MIN / RTP_BP_SCALE} and ${RTP_BP_MAX / RTP_BP_SCALE}, got ${value}`);
  }
  return Number(bp);
}
