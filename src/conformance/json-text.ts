/**
 * Writes a case's body as JSON text with its numbers exactly as the case
 * spells them. Amounts are RawJsonNumber (protocol/json.ts); a case that
 * checks how a receiver reads a spelling JSON allows but JavaScript would
 * not keep (`1e1`, `1.100`, `-0`, `1e400`) gives a JsonToken, written as it
 * is, unquoted.
 */
import { RawJsonNumber, stringifyVerbatim, type Verbatim } from '../protocol/json.js';

/** A JSON token written verbatim: a number in the spelling a case is about. */
export class JsonToken {
  constructor(readonly text: string) {
    if (!/^-?[0-9][0-9.eE+-]*$/.test(text)) throw new Error(`not a JSON number token: ${text}`);
  }
}

export function token(text: string): JsonToken {
  return new JsonToken(text);
}

const spelt = (value: unknown): value is Verbatim => value instanceof RawJsonNumber || value instanceof JsonToken;

/** JSON.stringify that writes RawJsonNumber and JsonToken values as bare number text. */
export function writeJson(value: unknown): string {
  return stringifyVerbatim(value, spelt);
}
