/**
 * PostgreSQL for tests: DATABASE_URL names a database (CI creates a fresh
 * one per run); each test file or backend gets a schema of its own in it,
 * reached through search_path, and drops it when done, so runs and files
 * never see each other's rows. Without DATABASE_URL the PostgreSQL tests
 * skip, and say so.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { RulesConfig } from '../../src/ledger/rules.js';
import type { PostgresSettings } from '../../src/platform/postgres/settings.js';
import { PostgresStore } from '../../src/stores/postgres/postgres-store.js';

export const DATABASE_URL = process.env.DATABASE_URL || undefined;

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const POSTGRES_UNAVAILABLE: string | undefined = DATABASE_URL
  ? undefined
  : 'DATABASE_URL is not set, so PostgreSQL tests are skipped (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)';

/**
 * Pool of one test store. Test files run two at a time and some start three
 * servers: small pools keep the sum well under max_connections (100).
 */
export const TEST_POOL_SIZE = 4;

export interface Schema {
  name: string;
  /** DATABASE_URL with search_path set to this schema (and any extra connection parameters). */
  url: (parameters?: Record<string, string>) => string;
  /** A client on the database itself, for the test's own statements (one connection). */
  admin: postgres.Sql;
  drop: () => Promise<void>;
}

/** Creates an empty schema; drop() removes it with everything in it. */
export async function freshSchema(label: string): Promise<Schema> {
  if (!DATABASE_URL) throw new Error(POSTGRES_UNAVAILABLE);
  const name = `wl_${label.replace(/[^a-z0-9]/g, '_').slice(0, 20)}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${name}`);
  const url = (parameters: Record<string, string> = {}) => {
    const parsed = new URL(DATABASE_URL);
    parsed.searchParams.set('search_path', name);
    for (const [key, value] of Object.entries(parameters)) parsed.searchParams.set(key, value);
    return parsed.toString();
  };
  let dropped = false;
  return {
    name,
    url,
    admin,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      try {
        await admin.unsafe(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      } finally {
        await admin.end({ timeout: 5 });
      }
    },
  };
}

/** A PostgresStore on a fresh schema; cleanup closes it and drops the schema. */
export async function openPostgresStore(
  label: string,
  options: { rules?: RulesConfig; cryptoDecimals?: Record<string, number>; settings?: Partial<PostgresSettings>; parameters?: Record<string, string> } = {},
): Promise<{ store: PostgresStore; schema: Schema; cleanup: () => Promise<void> }> {
  const schema = await freshSchema(label);
  try {
    const store = await PostgresStore.open({
      url: schema.url(options.parameters),
      ...(options.rules ? { rules: options.rules } : {}),
      ...(options.cryptoDecimals ? { cryptoDecimals: options.cryptoDecimals } : {}),
      settings: { poolSize: TEST_POOL_SIZE, ...options.settings },
    });
    return {
      store,
      schema,
      cleanup: async () => {
        try {
          await store.close();
        } finally {
          await schema.drop();
        }
      },
    };
  } catch (error) {
    await schema.drop();
    throw error;
  }
}

/**
 * Makes every write to the schema's tables fail as on a full disk: a trigger
 * on each raises what PostgreSQL raises when it cannot extend a file,
 * SQLSTATE 53100 disk_full. Reads still work. Dropping the schema ends it.
 */
export async function fillPostgresDisk(schema: Schema): Promise<void> {
  await schema.admin.unsafe(`CREATE FUNCTION ${schema.name}.disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device' USING ERRCODE = 'disk_full';
    END $$`);
  const tables = await schema.admin<{ name: string }[]>`SELECT tablename AS name FROM pg_tables WHERE schemaname = ${schema.name}`;
  for (const { name } of tables) {
    await schema.admin.unsafe(`CREATE TRIGGER disk_full BEFORE INSERT OR UPDATE OR DELETE ON ${schema.name}.${name}
      FOR EACH STATEMENT EXECUTE FUNCTION ${schema.name}.disk_full()`);
  }
}

/** Two PostgresStores on one fresh schema, as two nodes of one database; cleanup closes both and drops the schema. */
export async function openTwoPostgresStores(label: string): Promise<{ first: PostgresStore; second: PostgresStore; cleanup: () => Promise<void> }> {
  const opened = await openPostgresStore(label);
  try {
    const second = await PostgresStore.open({ url: opened.schema.url(), settings: { poolSize: TEST_POOL_SIZE } });
    return {
      first: opened.store,
      second,
      cleanup: async () => {
        try {
          await second.close();
        } finally {
          await opened.cleanup();
        }
      },
    };
  } catch (error) {
    await opened.cleanup();
    throw error;
  }
}
