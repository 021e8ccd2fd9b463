/**
 * Turns raw request bytes into a checked value, or a refusal that names the
 * field (PROTOCOL.md §3, 400 INVALID_REQUEST). Pure: no I/O.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { refuse, type Refusal } from './errors.js';
import { hasOnlyExactNumbers, SIGNIFICANT_DIGITS_MAX } from './money.js';

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

/**
 * Parses a JSON body. The top level must be an object. A number with more
 * significant digits than a double keeps is refused (see money.ts).
 */
export function parseJsonObject(raw: string): Checked<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return refuse('INVALID_REQUEST', `body is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return refuse('INVALID_REQUEST', 'body must be a JSON object');
  }
  if (!hasOnlyExactNumbers(raw)) {
    return refuse('INVALID_REQUEST', `a number has more than ${SIGNIFICANT_DIGITS_MAX} significant digits and cannot be booked exactly`);
  }
  return { ok: true, value: value as Record<string, unknown> };
}
