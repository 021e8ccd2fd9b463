/**
 * Writes a case's body as JSON text with its numbers exactly as the case
 * spells them. Amounts are RawJsonNumber (protocol/json.ts); a case that
 * checks how a receiver reads a spelling JSON allows but JavaScript would
 * not keep (`1e1`, `1.100`, `-0`, `1e400`) gives a JsonToken, written as it
 * is, unquoted.
 */
import { randomBytes } from 'node:crypto';
import { RawJsonNumber } from '../protocol/json.js';

/** A JSON token written verbatim: a number in the spelling a case is about. */
export class JsonToken {
  constructor(readonly text: string) {
    if (!/^-?[0-9][0-9.eE+-]*$/.test(text)) throw new Error(`not a JSON number token: ${text}`);
  }
}

export function token(text: string): JsonToken {
  return new JsonToken(text);
}

// A marker no body can hold by accident: a string equals it only by knowing the nonce.
const MARK = `\u0001${randomBytes(8).toString('hex')}:`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replaceAll('\\', '\\\\')}([-0-9.eE+]+)"`, 'g');

/** JSON.stringify that writes RawJsonNumber and JsonToken values as bare number text. */
export function writeJson(value: unknown): string {
  let marked = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RawJsonNumber || v instanceof JsonToken) {
      marked = true;
      return MARK + v.text;
    }
    return v;
  });
  return marked ? text.replace(MARKED, '$1') : text;
}
