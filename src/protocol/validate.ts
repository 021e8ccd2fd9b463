/**
 * Turns raw request bytes into a checked value, or a refusal that names the
 * field (PROTOCOL.md §3, 400 INVALID_REQUEST). Pure: no I/O.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { refuse, type Refusal } from './errors.js';
import { inexactNumbers, SIGNIFICANT_DIGITS_MAX } from './money.js';

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

export interface ParsedBody {
  ok: true;
  value: Record<string, unknown>;
  /** Numbers of the body that a double may not hold exactly (see money.ts). */
  inexact: readonly number[];
}

/** Parses a JSON body. The top level must be an object. */
export function parseJsonObject(raw: string): ParsedBody | Refusal {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return refuse('INVALID_REQUEST', `body is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return refuse('INVALID_REQUEST', 'body must be a JSON object');
  }
  return { ok: true, value: value as Record<string, unknown>, inexact: inexactNumbers(raw) };
}

/**
 * Refuses a money member whose number had more significant digits than a
 * double keeps: it may have been rounded in parsing, and an amount nobody
 * sent is never booked. Numbers elsewhere (members we do not know) are left
 * alone, as PROTOCOL.md §1 asks.
 */
export function checkMoneyExact(
  money: () => readonly [field: string, value: number | undefined][],
  inexact: readonly number[],
): Refusal | undefined {
  // The money members are listed only when some number may have been rounded: almost never.
  if (inexact.length === 0) return undefined;
  for (const [field, value] of money()) {
    if (value !== undefined && inexact.includes(value)) {
      return refuse('INVALID_REQUEST', `${field}: has more than ${SIGNIFICANT_DIGITS_MAX} significant digits and cannot be booked exactly`);
    }
  }
  return undefined;
}

export interface BodyReader<T extends TSchema> {
  /** JSON text -> checked value: parse, schema, then exact money. */
  read(raw: string): Checked<Static<T>>;
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
      return checkMoneyExact(() => money(checked.value), parsed.inexact) ?? checked;
    },
  };
}
