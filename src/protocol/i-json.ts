/**
 * Request bodies are I-JSON (RFC 7493; docs/protocol.md §1). JSON.parse takes
 * texts that I-JSON refuses, and each kind hurts a wallet:
 *
 * - A member name twice (`"amount":1,"amount":2`): JSON.parse keeps the last,
 *   another parser the first, so the signer and the wallet may book
 *   different amounts from the same signed bytes.
 * - An unpaired surrogate (`"\ud800"`) is not Unicode text: a store changes
 *   it on the way in (SQLite gives it back as U+FFFD; PostgreSQL makes
 *   `\ud800` and `\ud801` one and the same name), so nothing is stored
 *   verbatim and two ids may become one.
 * - U+0000 ends a string in C, and PostgreSQL refuses it in text: a 500,
 *   which a provider resends for ever.
 * - A number outside a double's range becomes Infinity, or 0 (`1e-400`),
 *   a bet nobody sent.
 * - Bytes that are not UTF-8 would be decoded with U+FFFD in their place:
 *   text nobody sent.
 *
 * Every such body is refused with 400 INVALID_REQUEST before any rule or
 * store sees it, so every backend answers the same bytes the same way. The
 * `detail` names what is wrong and where.
 *
 * The scan runs on every request body of both servers, /transaction's
 * included, so it reads a text once, jumps over strings with native
 * searches, and leaves the slow paths (escapes, long numbers, exponents,
 * large objects) to the bodies that need them. It also finds the numbers
 * that money.ts's exactness rule asks about, so a body is scanned once, not
 * twice: on the bench's single bet (286 bytes) it takes about 0.37 µs, less
 * than the scan for inexact numbers alone took before (0.42 µs; JSON.parse
 * of the same body takes about 0.8 µs). bench/body-read.ts measures it.
 * Pure: no I/O.
 */
import { isUtf8 } from 'node:buffer';
import { refuse, type Refusal } from './errors.js';
import { SIGNIFICANT_DIGITS_MAX, significantDigits } from './money.js';

/** What the scan learns of a body's numbers on the way (money.ts and validate.ts use it). */
export interface JsonNumbers {
  /** Values of the numbers with more than SIGNIFICANT_DIGITS_MAX significant digits: a double may have rounded them. Almost always empty. */
  inexact: readonly number[];
  /** Some number is a negative zero (`-0`, `-0.0`): valid I-JSON, but never an amount. */
  negativeZero: boolean;
}

export type IJsonScan = ({ ok: true } & JsonNumbers) | Refusal;

/**
 * The members of one object are compared name by name up to this many; past
 * it a Set takes over, so that an object of thousands of members costs a
 * hash per member instead of a comparison with every earlier one. A body's
 * objects hold about five members, and comparing them costs less than a Set:
 * with Sets from the first member, the scan of the bench's single bet took
 * about 0.8 µs instead of 0.4.
 */
const MEMBERS_COMPARED_MAX = 16;

/**
 * A number with no exponent whose mantissa (digits and point) has at most
 * this many characters lies within a double's range: Infinity needs 309
 * integer digits (1.8e308), and 0 needs 324 zeros after the point (below
 * 2.5e-324). Only longer ones, and those with an exponent, are converted to
 * be checked.
 */
const PLAIN_NUMBER_CHARS_IN_RANGE_MAX = 308;

/**
 * Wagerlink's profile (docs/protocol.md §1.2): arrays and objects nest at
 * most this many levels, or the body is refused before it is parsed. The
 * deepest body the interface defines has 3 (/transaction: the body, its
 * `transactions`, a transaction); the back office's and the game pages'
 * have 2 and 1. 16 leaves a sender's extension members (§1.3) room to nest
 * a dozen levels more, while a body of 256 KiB of `[` no longer makes
 * JSON.parse build 100,000 nested arrays (and every walk over a body after
 * it, the scan below and the schema's, as deep) before anything is judged.
 */
export const NESTING_DEPTH_MAX = 16;

/** Names and numbers quoted in a `detail` are cut to this many characters: a refusal does not echo a body back. */
const DETAIL_QUOTE_CHARS_MAX = 40;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const POINT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_U = 0x75;

const NO_NUMBERS: readonly number[] = Object.freeze([]);

/** `String.prototype.isWellFormed` (ES2024, in Node 20): the lib this project compiles against predates it. */
const isWellFormed = (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed;

/**
 * The text of a body's bytes, or a refusal if they are not UTF-8 (docs/protocol.md
 * §1). Overlong forms and encoded surrogates are not UTF-8 either.
 */
export function utf8Text(bytes: Uint8Array): string | Refusal {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isUtf8(buffer)) return refuse('INVALID_REQUEST', `body is not valid UTF-8 (byte ${firstInvalidByte(buffer)})`);
  return buffer.toString('utf8');
}

/**
 * The offset of the first byte that is not part of a UTF-8 character. Only
 * a refusal asks, so it decodes leniently and walks the characters: every
 * one before the first U+FFFD that the bytes do not spell (EF BF BD) was
 * decoded from exactly its own bytes.
 */
function firstInvalidByte(buffer: Buffer): number {
  let offset = 0;
  for (const character of buffer.toString('utf8')) {
    const point = character.codePointAt(0) ?? 0;
    if (point === 0xfffd && !(buffer[offset] === 0xef && buffer[offset + 1] === 0xbf && buffer[offset + 2] === 0xbd)) return offset;
    offset += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
  }
  return offset;
}

/**
 * Refuses a text whose arrays and objects nest deeper than `depthMax`
 * (NESTING_DEPTH_MAX): one linear pass, run before JSON.parse, that counts
 * `[` and `{` outside strings and stops at the first level over the limit.
 * Strings are jumped over with native searches; a quote is a string's end
 * unless an odd run of backslashes stands before it. It runs on every body,
 * /transaction's included: on the bench's single bet it takes about three
 * quarters of the I-JSON scan's time (0.45 µs against 0.6 µs, with a whole
 * read at 2.6 to 5 µs, on a shared, busy host; bench/body-read.ts). A plain
 * loop over every character, and a count of `[` and `{` first, were both
 * slower: most of a body's characters are inside strings.
 *
 * On a text that is not JSON the answer means nothing (JSON.parse then
 * says what is wrong), but the scan still ends, and never throws.
 */
export function nestingRefusal(text: string, depthMax: number = NESTING_DEPTH_MAX): Refusal | undefined {
  const length = text.length;
  let depth = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escapedQuote(text, end)) end = text.indexOf('"', end + 1);
      // A string that never ends: not JSON, and nothing after it can nest.
      if (end === -1) return undefined;
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > depthMax) {
        return refuse('INVALID_REQUEST', `body: arrays and objects nest deeper than ${depthMax} levels, the limit of docs/protocol.md §1.2`);
      }
    } else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && depth > 0) {
      depth--;
    }
  }
  return undefined;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes stands right before it. */
function escapedQuote(text: string, at: number): boolean {
  let before = at - 1;
  while (text.charCodeAt(before) === BACKSLASH) before--;
  return (at - 1 - before) % 2 === 1;
}

/**
 * Checks a JSON text that JSON.parse has accepted against I-JSON, and reads
 * what money.ts needs of its numbers on the way. One pass; see the module's
 * comment for what is refused and why.
 *
 * On a text that is not JSON the answer means nothing, but the scan still
 * ends, and never throws.
 */
// eslint-disable-next-line max-lines-per-function -- one pass of a scanner over the text: its states share the position and the stack
export function scanIJson(text: string): IJsonScan {
  // Raw unpaired surrogates: none in text decoded from UTF-8, so this native check almost never fails.
  if (!isWellFormed.call(text)) return loneSurrogateRefusal(text);
  const length = text.length;
  // Where the next backslash is: a string before it holds no escape and ends at the next quote.
  // It only moves forward, so finding it costs one pass over the text in all.
  let nextBackslash = text.indexOf('\\');
  if (nextBackslash === -1) nextBackslash = length;
  /** The member names of the open objects, by depth; a Set beside those past MEMBERS_COMPARED_MAX. */
  const names: string[][] = [];
  const nameSets: (Set<string> | undefined)[] = [];
  let depth = 0;
  let inexact: number[] | undefined;
  let negativeZero = false;

  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      if (nextBackslash < start) {
        nextBackslash = text.indexOf('\\', start);
        if (nextBackslash === -1) nextBackslash = length;
      }
      let end = text.indexOf('"', start);
      if (end === -1) end = length;
      const escaped = nextBackslash < end;
      if (escaped) {
        end = escapedStringEnd(text, nextBackslash);
        const problem = escapeProblem(text, start, end);
        if (problem !== undefined) return escapeRefusal(text, start - 1, problem);
      }
      i = end + 1;
      let after = i;
      while (isSpace(text.charCodeAt(after))) after++;
      if (text.charCodeAt(after) !== COLON) continue;
      // A string followed by a colon is a member name.
      const name = escaped ? decodedString(text, start - 1, end + 1) : text.slice(start, end);
      const seen = (names[depth] ??= []);
      let twice: boolean;
      if (seen.length < MEMBERS_COMPARED_MAX) {
        twice = seen.includes(name);
        seen.push(name);
      } else {
        const set = (nameSets[depth] ??= new Set(seen));
        twice = set.has(name);
        set.add(name);
      }
      if (twice) return duplicateRefusal(text, start - 1, name);
      i = after + 1;
      continue;
    }
    if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const start = i;
      let j = c === MINUS ? i + 1 : i;
      const mantissaStart = j;
      let d = text.charCodeAt(j);
      while ((d >= DIGIT_0 && d <= DIGIT_9) || d === POINT) d = text.charCodeAt(++j);
      const mantissaEnd = j;
      const exponent = d === LOWER_E || d === UPPER_E;
      if (exponent) {
        d = text.charCodeAt(++j);
        if (d === PLUS || d === MINUS) d = text.charCodeAt(++j);
        while (d >= DIGIT_0 && d <= DIGIT_9) d = text.charCodeAt(++j);
      }
      i = j;
      const mantissaChars = mantissaEnd - mantissaStart;
      if (exponent || mantissaChars > PLAIN_NUMBER_CHARS_IN_RANGE_MAX) {
        const value = Number(text.slice(start, j));
        // 0 is in range when every digit is 0; from other digits it is an underflow.
        if (!Number.isFinite(value) || (value === 0 && hasNonZeroDigit(text, mantissaStart, mantissaEnd))) {
          return numberRefusal(text, start, j);
        }
      }
      if (mantissaChars > SIGNIFICANT_DIGITS_MAX && significantDigits(text, mantissaStart, mantissaEnd) > SIGNIFICANT_DIGITS_MAX) {
        (inexact ??= []).push(Number(text.slice(start, j)));
      }
      if (c === MINUS && !hasNonZeroDigit(text, mantissaStart, mantissaEnd)) negativeZero = true;
      continue;
    }
    if (c === OPEN_OBJECT) {
      depth++;
      const seen = names[depth];
      if (seen !== undefined) seen.length = 0;
      nameSets[depth] = undefined;
    } else if (c === OPEN_ARRAY) {
      depth++;
    } else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && depth > 0) {
      depth--;
    }
    i++;
  }
  return { ok: true, inexact: inexact ?? NO_NUMBERS, negativeZero };
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function hasNonZeroDigit(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i);
    if (d >= DIGIT_1 && d <= DIGIT_9) return true;
  }
  return false;
}

/** The closing quote of a string, read from `from` inside it, escapes skipped. */
function escapedStringEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return text.length;
}

/** A string token's value; a text that is not JSON gets its raw characters. */
function decodedString(text: string, start: number, end: number): string {
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return text.slice(start + 1, end - 1);
  }
}

interface EscapeProblem {
  /** The escape's text, `\u0000` or `\ud800`. */
  escape: string;
  nul: boolean;
}

/** The first `\u` escape of the string text[start, end) that stands for U+0000 or an unpaired surrogate. */
function escapeProblem(text: string, start: number, end: number): EscapeProblem | undefined {
  for (let i = text.indexOf('\\', start); i !== -1 && i < end; i = text.indexOf('\\', i + 2)) {
    if (text.charCodeAt(i + 1) !== LOWER_U) continue;
    const unit = Number.parseInt(text.slice(i + 2, i + 6), 16);
    if (unit === 0) return { escape: text.slice(i, i + 6), nul: true };
    if (unit >= 0xd800 && unit <= 0xdbff) {
      // A high surrogate is paired only with a low one right after it.
      if (text.charCodeAt(i + 6) === BACKSLASH && text.charCodeAt(i + 7) === LOWER_U) {
        const next = Number.parseInt(text.slice(i + 8, i + 12), 16);
        if (next >= 0xdc00 && next <= 0xdfff) {
          i += 6;
          continue;
        }
      }
      return { escape: text.slice(i, i + 6), nul: false };
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return { escape: text.slice(i, i + 6), nul: false };
  }
  return undefined;
}

// ------------------------------------------------------------ refusals
// Only a refused body comes here, so these read the text again to say where.

function escapeRefusal(text: string, at: number, problem: EscapeProblem): Refusal {
  const where = locate(text, at);
  const what = problem.nul ? 'U+0000' : `an unpaired surrogate (${problem.escape})`;
  if (where.name === undefined) return refuse('INVALID_REQUEST', `${where.path}: holds ${what}`);
  return refuse('INVALID_REQUEST', `body: member name ${quoted(where.name)} holds ${what}${within(where.path)}`);
}

function loneSurrogateRefusal(text: string): Refusal {
  let at = 0;
  for (; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(at + 1);
      if (next >= 0xdc00 && next <= 0xdfff) at++;
      else break;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      break;
    }
  }
  const what = `an unpaired surrogate (U+${text.charCodeAt(at).toString(16).toUpperCase()})`;
  const where = locate(text, at);
  if (where.name === undefined) return refuse('INVALID_REQUEST', `${where.path}: holds ${what}`);
  return refuse('INVALID_REQUEST', `body: member name ${quoted(where.name)} holds ${what}${within(where.path)}`);
}

function duplicateRefusal(text: string, at: number, name: string): Refusal {
  return refuse('INVALID_REQUEST', `body: member ${quoted(name)} appears twice${within(locate(text, at).path)}`);
}

function numberRefusal(text: string, start: number, end: number): Refusal {
  const where = locate(text, start);
  return refuse('INVALID_REQUEST', `${where.path}: the number ${clip(text.slice(start, end))} is outside the range of a double`);
}

function within(path: string): string {
  return path === 'body' ? '' : ` in ${path}`;
}

function clip(text: string): string {
  return text.length > DETAIL_QUOTE_CHARS_MAX ? `${text.slice(0, DETAIL_QUOTE_CHARS_MAX)}...` : text;
}

/** A member name for a `detail`, in JSON quotes so that any character shows. */
function quoted(name: string): string {
  return JSON.stringify(clip(name));
}

interface Frame {
  array: boolean;
  index: number;
  /** The member being read, in an object. */
  name: string | undefined;
}

/**
 * Where the token that holds offset `at` lies: `path` names the value
 * (`transactions[0].amount`) or, for a member name, the object holding it,
 * with `name` set; `body` is the whole body.
 */
function locate(text: string, at: number): { path: string; name?: string } {
  const frames: Frame[] = [];
  const pathOf = (open: readonly Frame[]) => fieldPath(open.map((frame) => (frame.array ? frame.index : (frame.name ?? ''))));
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === QUOTE) {
      const end = escapedStringEnd(text, i + 1);
      let after = end + 1;
      while (isSpace(text.charCodeAt(after))) after++;
      const isName = text.charCodeAt(after) === COLON && top !== undefined && !top.array;
      if (at <= end) {
        return isName ? { path: pathOf(frames.slice(0, -1)), name: decodedString(text, i, end + 1) } : { path: pathOf(frames) };
      }
      if (isName) top.name = decodedString(text, i, end + 1);
      i = isName ? after + 1 : end + 1;
      continue;
    }
    if (i >= at) break;
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) frames.push({ array: c === OPEN_ARRAY, index: 0, name: undefined });
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) frames.pop();
    else if (c === COMMA && top) {
      if (top.array) top.index++;
      else top.name = undefined;
    }
    i++;
  }
  return { path: pathOf(frames) };
}

const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `transactions[0].amount`, as validate.ts names fields; a name that is not plain goes in quotes: `body["a b"]`. */
function fieldPath(segments: readonly (string | number)[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (PLAIN_NAME.test(segment)) path += path === '' ? segment : `.${segment}`;
    else path += `${path === '' ? 'body' : ''}[${quoted(segment)}]`;
  }
  return path === '' ? 'body' : path;
}
