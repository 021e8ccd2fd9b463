/**
 * The provider's database as someone who can read it sees it (a replica, a
 * backup, a person with a SQL prompt): every value of every column of
 * every table, read on a connection of its own (only what is committed),
 * on SQLite (a file path) or PostgreSQL (a URL whose search_path names the
 * schema). The tests of server seeds at rest search it for seeds, and try
 * what an attacker would: every 32-byte value it holds, as a seed, against
 * the commitments the players are shown.
 */
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { commitment } from '../../../src/game/fairness.js';

export interface ScannedValue {
  table: string;
  column: string;
  value: string | Buffer;
}

/** Every text and binary value in the provider's database (numbers and nulls hold no seed). */
export async function everyValue(database: string): Promise<ScannedValue[]> {
  const found: ScannedValue[] = [];
  const keep = (table: string, row: Record<string, unknown>) => {
    for (const [column, value] of Object.entries(row)) {
      if (typeof value === 'string' || Buffer.isBuffer(value)) found.push({ table, column, value });
      else if (value instanceof Uint8Array) found.push({ table, column, value: Buffer.from(value) });
    }
  };
  if (/^postgres(ql)?:\/\//.test(database)) {
    const sql = postgres(database, { max: 1, onnotice: () => {} });
    try {
      const tables = await sql<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`;
      for (const { name } of tables) for (const row of await sql.unsafe(`SELECT * FROM "${name}"`)) keep(name, row);
    } finally {
      await sql.end({ timeout: 5 });
    }
    return found;
  }
  const db = new Database(database, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    for (const name of tables) for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]) keep(name, row);
  } finally {
    db.close();
  }
  return found;
}

/** The values that hold a seed (lowercase hex), in any of the forms it could be written: hex either case, base64, its 32 bytes. */
export function holding(values: readonly ScannedValue[], seedHex: string): ScannedValue[] {
  const bytes = Buffer.from(seedHex, 'hex');
  const texts = [seedHex, seedHex.toUpperCase(), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url')];
  return values.filter(({ value }) => {
    const text = typeof value === 'string' ? value : value.toString('latin1');
    return texts.some((form) => text.includes(form)) || (Buffer.isBuffer(value) && value.includes(bytes));
  });
}

/**
 * What an attacker holding the database alone would try as a seed: every
 * 64 hex digits in a row within a value, every 32 bytes in a row of a
 * binary value, and of the bytes any run of base64 in a value decodes to.
 * Answers those whose SHA-256 is one of `commitments` (none, if no seed
 * not yet revealed can be read from the database).
 */
export function seedsMatching(values: readonly ScannedValue[], commitments: ReadonlySet<string>): string[] {
  const candidates = new Set<string>();
  const windows = (bytes: Buffer) => {
    for (let at = 0; at + 32 <= bytes.length; at++) candidates.add(bytes.subarray(at, at + 32).toString('hex'));
  };
  for (const { value } of values) {
    const text = typeof value === 'string' ? value : value.toString('latin1');
    for (const run of text.match(/[0-9a-fA-F]{64,}/g) ?? []) windows(Buffer.from(run.slice(0, run.length - (run.length % 2)), 'hex'));
    for (const run of text.match(/[A-Za-z0-9+/_-]{43,}/g) ?? []) windows(Buffer.from(run.replace(/\+/g, '-').replace(/\//g, '_'), 'base64url'));
    if (Buffer.isBuffer(value)) windows(value);
  }
  return [...candidates].filter((candidate) => commitments.has(commitment(candidate)));
}
