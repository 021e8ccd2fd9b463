/**
 * The provider's rows as SQLite gives them, read into the contract's types
 * by the readers written once for every backend (rowReaders), and the
 * condition that keeps a listing to a staff account's operators.
 */
import type Database from 'better-sqlite3';
import { rowReaders } from '../provider-store.js';

export const num = (value: unknown): number => Number(value as bigint);
const numOrNull = (value: unknown): number | null => (value === null ? null : Number(value as bigint));

// better-sqlite3 gives INTEGER columns as bigints (safeIntegers) and a flag as 0 or 1.
export const { sessionOf, roundOf, payoutOf, campaignOf, callOf } = rowReaders({
  int: num,
  intOrNull: numOrNull,
  money: (value) => value as bigint,
  moneyOrNull: (value) => value as bigint | null,
  booleanOrNull: (value) => (value === null ? null : num(value) === 1),
});

/** A row's operator is in a scope given as JSON text (an array of operator ids), or NULL for every operator. */
export const IN_SCOPE = (alias: string) => `(? IS NULL OR ${alias}.operator_id IN (SELECT value FROM json_each(?)))`;
/** The parameter IN_SCOPE takes (twice: SQLite binds each ? once). */
export function scopeOf(operators: readonly string[] | null): string | null {
  return operators === null ? null : JSON.stringify(operators);
}

/**
 * Statements prepared once per connection, for the functions several
 * families share (a round read, a call enqueued): the first call on a
 * connection prepares them, every later one finds them.
 */
export function perConnection<T>(prepare: (db: Database.Database) => T): (db: Database.Database) => T {
  const prepared = new WeakMap<Database.Database, T>();
  return (db) => {
    let found = prepared.get(db);
    if (found === undefined) {
      found = prepare(db);
      prepared.set(db, found);
    }
    return found;
  };
}
