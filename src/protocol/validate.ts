/**
 * Turns raw request bytes into a checked value, or a refusal that names the
 * field (docs/protocol.md §3, 400 INVALID_REQUEST). Pure: no I/O.
 */
import { FormatRegistry, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { refuse, type Refusal } from './errors.js';
import { nestingRefusal, scanIJson, utf8Text, type JsonNumbers } from './i-json.js';
import { withInvisibleEscaped } from './player-id.js';
import { SIGNIFICANT_DIGITS_MAX } from './money.js';

export type Checked<T> = { ok: true; value: T } | Refusal;

export interface Validator<T extends TSchema> {
  check(value: unknown): Checked<Static<T>>;
}

/** `/transactions/0/amount` -> `transactions[0].amount` */
export function fieldName(path: string): string {
  if (path === '') return 'body';
  return path
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name === '' ? part : `${name}.${part}`), '');
}

/**
 * What each pattern and format of a schema asks for, in words: a refusal
 * says "a currency code of 2 to 10 capital letters or digits", never the
 * regular expression. Schemas register the words beside their pattern
 * (inWords), and compile() refuses a schema with a pattern that has none,
 * so that no refusal can show a regular expression.
 */
const EXPECTED_IN_WORDS = new Map<string, string>([
  ['format:uuid', 'a UUID in its 8-4-4-4-12 hexadecimal form'],
  ['format:date-time', 'an RFC 3339 date-time with its offset, such as 2026-12-01T00:00:00Z'],
]);

/** A pattern, with what it asks for in words; where a schema names a pattern, this is how. */
export function inWords(pattern: string, words: string): string {
  const known = EXPECTED_IN_WORDS.get(`pattern:${pattern}`);
  if (known !== undefined && known !== words) throw new Error(`pattern ${pattern} is described twice: "${known}" and "${words}"`);
  EXPECTED_IN_WORDS.set(`pattern:${pattern}`, words);
  return pattern;
}

/** Why a value fails a format of our own, in words, beside what the format asks for. */
const FORMAT_PROBLEMS = new Map<string, (value: string) => string | undefined>();

/**
 * A format of our own, for a rule no regular expression of a schema can say
 * (TypeBox compiles patterns without the u flag): `problem` tells why a
 * value fails it, or undefined when it passes; a refusal gives both.
 */
export function formatInWords(format: string, words: string, problem: (value: string) => string | undefined): string {
  if (EXPECTED_IN_WORDS.has(`format:${format}`)) throw new Error(`format ${format} is registered twice`);
  FormatRegistry.Set(format, (value) => problem(value) === undefined);
  EXPECTED_IN_WORDS.set(`format:${format}`, words);
  FORMAT_PROBLEMS.set(format, problem);
  return format;
}

/** The patterns and formats of a schema, however deep, that have no words: a programmer's error. */
function unworded(schema: unknown, found: string[] = []): string[] {
  if (schema === null || typeof schema !== 'object') return found;
  const { pattern, format } = schema as { pattern?: unknown; format?: unknown };
  if (typeof pattern === 'string' && !EXPECTED_IN_WORDS.has(`pattern:${pattern}`)) found.push(pattern);
  if (typeof format === 'string' && !EXPECTED_IN_WORDS.has(`format:${format}`)) found.push(`format ${format}`);
  for (const value of Object.values(schema)) unworded(value, found);
  return found;
}

/** What a schema accepts, in words, where it can be said shortly; undefined for objects and arrays. */
function expected(schema: TSchema): string | undefined {
  if (typeof schema.pattern === 'string') return EXPECTED_IN_WORDS.get(`pattern:${schema.pattern}`);
  if (typeof schema.format === 'string') return EXPECTED_IN_WORDS.get(`format:${schema.format}`);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.anyOf)) {
    const each = (schema.anyOf as TSchema[]).map(expected);
    return each.every((words) => words !== undefined) ? each.join(' or ') : undefined;
  }
  switch (schema.type) {
    case 'number':
      return schema.minimum === 0 ? 'a number, 0 or more' : 'a number';
    case 'integer':
      return 'a whole number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
  }
  return undefined;
}

/**
 * A value short enough to quote in a refusal, as JSON, with control,
 * format and invisible characters escaped: a quoted bidi override would
 * turn the message around it.
 */
const QUOTED_UNITS_MAX = 64;

function got(value: unknown): string {
  const text = JSON.stringify(value);
  return text !== undefined && text.length <= QUOTED_UNITS_MAX ? `, got ${withInvisibleEscaped(text)}` : '';
}

/** Why a value fails its schema's own format, when the format can say: `: it holds U+202E, ...`. */
function because(schema: TSchema, value: unknown): string {
  const problem = typeof schema.format === 'string' && typeof value === 'string' ? FORMAT_PROBLEMS.get(schema.format)?.(value) : undefined;
  return problem === undefined ? '' : `: ${problem}`;
}

export function compile<T extends TSchema>(schema: T): Validator<T> {
  const missing = unworded(schema);
  if (missing.length > 0) throw new Error(`no words for ${missing.join(', ')}: register them with inWords() beside the schema`);
  const compiled: TypeCheck<T> = TypeCompiler.Compile(schema);
  return {
    check(value) {
      if (compiled.Check(value)) return { ok: true, value };
      const first = compiled.Errors(value).First();
      if (!first) return refuse('INVALID_REQUEST', 'body does not match the schema');
      // A missing member reports the member's own path with an undefined value.
      if (first.value === undefined) return refuse('INVALID_REQUEST', `${fieldName(first.path)}: is required`);
      const inWordsOnly = first.type === ValueErrorType.StringPattern || first.type === ValueErrorType.StringFormat || first.type === ValueErrorType.Union;
      // A schema with a pattern and a format fails one of them: the words are those of the one it failed.
      const formatWords = first.type === ValueErrorType.StringFormat ? EXPECTED_IN_WORDS.get(`format:${String(first.schema.format)}`) : undefined;
      const words = inWordsOnly ? (formatWords ?? expected(first.schema)) : undefined;
      const reason = first.type === ValueErrorType.StringFormat ? because(first.schema, first.value) : '';
      const message = words !== undefined ? `must be ${words}${got(first.value)}${reason}` : first.message.charAt(0).toLowerCase() + first.message.slice(1);
      return refuse('INVALID_REQUEST', `${fieldName(first.path)}: ${message}`);
    },
  };
}

export interface ParsedBody extends JsonNumbers {
  ok: true;
  value: Record<string, unknown>;
}

/**
 * Parses a JSON body: UTF-8 (when given bytes), nesting within
 * NESTING_DEPTH_MAX (before JSON.parse sees it), JSON, an object at the top,
 * and I-JSON (i-json.ts: no member name twice, no unpaired surrogate, no
 * U+0000, no number out of a double's range).
 */
export function parseJsonObject(raw: string | Uint8Array): ParsedBody | Refusal {
  const text = typeof raw === 'string' ? raw : utf8Text(raw);
  if (typeof text !== 'string') return text;
  const tooDeep = nestingRefusal(text);
  if (tooDeep) return tooDeep;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return refuse('INVALID_REQUEST', `body is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return refuse('INVALID_REQUEST', 'body must be a JSON object');
  }
  // After JSON.parse: the scan relies on the text being JSON.
  const scanned = scanIJson(text);
  if (!scanned.ok) return scanned;
  return { ok: true, value: value as Record<string, unknown>, inexact: scanned.inexact, negativeZero: scanned.negativeZero };
}

/**
 * Refuses a money member that is -0 (an amount is never negative, docs/protocol.md
 * §4, and -0 >= 0 passes a schema's minimum), or whose number had more
 * significant digits than a double keeps: it may have been rounded in
 * parsing, and an amount nobody sent is never booked. Numbers elsewhere
 * (members we do not know) are left alone, as docs/protocol.md §1 asks.
 */
export function checkMoney(money: () => readonly [field: string, value: number | undefined][], numbers: JsonNumbers): Refusal | undefined {
  const { inexact, negativeZero } = numbers;
  // The money members are listed only when some number may have been rounded or is -0: almost never.
  if (inexact.length === 0 && !negativeZero) return undefined;
  for (const [field, value] of money()) {
    if (value === undefined) continue;
    if (Object.is(value, -0)) return refuse('INVALID_REQUEST', `${field}: is -0; an amount must not be negative`);
    if (inexact.includes(value)) {
      return refuse('INVALID_REQUEST', `${field}: has more than ${SIGNIFICANT_DIGITS_MAX} significant digits and cannot be booked exactly`);
    }
  }
  return undefined;
}

export interface BodyReader<T extends TSchema> {
  /** Body bytes (or their text) -> checked value: UTF-8, JSON, I-JSON, schema, then exact money. */
  read(raw: string | Uint8Array): Checked<Static<T>>;
}

/** A request body: its schema, and where its money members are. */
export function compileBody<T extends TSchema>(schema: T, money: (value: Static<T>) => [field: string, value: number | undefined][] = () => []): BodyReader<T> {
  const validator = compile(schema);
  return {
    read(raw) {
      const parsed = parseJsonObject(raw);
      if (!parsed.ok) return parsed;
      const checked = validator.check(parsed.value);
      if (!checked.ok) return checked;
      return checkMoney(() => money(checked.value), parsed) ?? checked;
    },
  };
}
