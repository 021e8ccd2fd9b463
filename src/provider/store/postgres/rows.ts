/**
 * The provider's rows as postgres.js gives them, read into the contract's
 * types by the readers written once for every backend (rowReaders), and
 * the condition that keeps a listing to a staff account's operators.
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import { scopeCondition } from '../../../staff/postgres-staff.js';
import { rowReaders } from '../provider-store.js';

/** A pool or a transaction: what a read or a write may run on. */
export type Querier = postgres.Sql | postgres.TransactionSql;

/**
 * Ids, nonces and epoch milliseconds are well within 2^53: plain numbers,
 * checked (postgres.js gives int8 columns as text, int4 as numbers).
 */
export function int(value: unknown): number {
  const number = Number(value as string | number);
  assert.ok(Number.isSafeInteger(number), `${String(value)} is a safe integer`);
  return number;
}

const intOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : int(value));
export const money = (value: unknown): bigint => BigInt(value as string);
const moneyOrNull = (value: unknown): bigint | null => (value === null ? null : BigInt(value as string));

// postgres.js gives int8 columns as text and booleans as booleans.
export const { sessionOf, roundOf, payoutOf, campaignOf, callOf } = rowReaders({
  int,
  intOrNull,
  money,
  moneyOrNull,
  booleanOrNull: (value) => value as boolean | null,
});

/** A row's operator is in a scope (a staff account's operators), or every row when the scope is null. */
export function inScope(sql: postgres.Sql, alias: string, operators: readonly string[] | null) {
  return scopeCondition(sql, operators, `${alias}.operator_id`);
}
