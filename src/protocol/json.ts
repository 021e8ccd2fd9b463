/**
 * JSON with exact money. Amounts leave the ledger as decimal text
 * ("1000000000000.12345678") and must reach the wire as JSON numbers without
 * passing through a double, which could round them.
 */
import { randomBytes } from 'node:crypto';

export class RawJsonNumber {
  constructor(readonly text: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) throw new Error(`not a JSON number: ${text}`);
  }
}

export function raw(text: string): RawJsonNumber {
  return new RawJsonNumber(text);
}

/** A value written as its bare `text`, unquoted: a RawJsonNumber, or a number token a caller spells its own way. */
export interface Verbatim {
  readonly text: string;
}

// A marker no caller can forge: a string value can only equal it by knowing the nonce.
const MARK = `\u0000${randomBytes(8).toString('hex')}:`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replaceAll('\\', '\\\\')}([-0-9.eE+]+)"`, 'g');

const isRawJsonNumber = (value: unknown): value is RawJsonNumber => value instanceof RawJsonNumber;

/** JSON.stringify that writes RawJsonNumber values as bare number text. */
export function stringify(value: unknown): string {
  return stringifyVerbatim(value, isRawJsonNumber);
}

/**
 * JSON.stringify that writes the values `verbatim` picks as their bare
 * text. Only number tokens ([-0-9.eE+]) survive the marker: the
 * conformance kit writes amounts in spellings RawJsonNumber refuses
 * (`1e1`, `1e400`) with it.
 */
export function stringifyVerbatim(value: unknown, verbatim: (value: unknown) => value is Verbatim): string {
  let marked = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (verbatim(v)) {
      marked = true;
      return MARK + v.text;
    }
    return v;
  });
  return marked ? text.replace(MARKED, '$1') : text;
}
