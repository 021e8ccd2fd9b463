/**
 * Turns raw request bytes into a checked value, or a refusal that names the
 * field (docs/protocol.md §3, 400 INVALID_REQUEST). Pure: no I/O.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { refuse, type Refusal } from './errors.js';
import { scanIJson, utf8Text, type JsonNumbers } from './i-json.js';
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

export function compile<T extends TSchema>(schema: T): Validator<T> {
  const compiled: TypeCheck<T> = TypeCompiler.Compile(schema);
  return {
    check(value) {
      if (compiled.Check(value)) return { ok: true, value };
      const first = compiled.Errors(value).First();
      if (!first) return refuse('INVALID_REQUEST', 'body does not match the schema');
      // A missing member reports the member's own path with an undefined value.
      const message = first.value === undefined ? 'is required' : first.message.charAt(0).toLowerCase() + first.message.slice(1);
      return refuse('INVALID_REQUEST', `${fieldName(first.path)}: ${message}`);
    },
  };
}

export interface ParsedBody extends JsonNumbers {
  ok: true;
  value: Record<string, unknown>;
}

/**
 * Parses a JSON body: UTF-8 (when given bytes), JSON, an object at the top,
 * and I-JSON (i-json.ts: no member name twice, no unpaired surrogate, no
 * U+0000, no number out of a double's range).
 */
export function parseJsonObject(raw: string | Uint8Array): ParsedBody | Refusal {
  const text = typeof raw === 'string' ? raw : utf8Text(raw);
  if (typeof text !== 'string') return text;
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
export function checkMoney(
  money: () => readonly [field: string, value: number | undefined][],
  numbers: JsonNumbers,
): Refusal | undefined {
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
export function compileBody<T extends TSchema>(
  schema: T,
  money: (value: Static<T>) => [field: string, value: number | undefined][] = () => [],
): BodyReader<T> {
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
