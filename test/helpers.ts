/**
 * Shared fixtures: an operator app on a fresh database of either backend
 * (a SQLite file by default), signed requests, and a controllable clock.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type postgres from 'postgres';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { OperatorAppOptions } from '../src/operator/operator-app.js';
import type { World } from '../src/operator/operator-service.js';
import { sign } from '../src/protocol/signing.js';
import type { WalletStore } from '../src/stores/operations.js';
import type { RulesConfig } from '../src/ledger/rules.js';
import { openPostgresStore, POSTGRES_UNAVAILABLE, TEST_POOL_SIZE } from './stores/postgres-fixtures.js';

export const SECRET = 'test-secret';
export const NEXT_SECRET = 'test-secret-next';
export const ACCESS_TOKEN = 'test-access-token';
export const ADMIN_TOKEN = 'test-admin-token';

export class TestClock {
  constructor(public now = Date.parse('2026-01-01T00:00:00Z')) {}
  advance(ms: number): void {
    this.now += ms;
  }
}

export function tempDir(prefix = 'wagerlink-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export type OperatorBackendName = 'sqlite' | 'postgres';

export interface OperatorBackend {
  name: OperatorBackendName;
  /** Why the backend cannot run here (a test then skips, saying so), or undefined when it can. */
  unavailable?: string;
}

/**
 * The backends an HTTP-level rule runs over: SQLite always, PostgreSQL when
 * DATABASE_URL is set. `STORES=sqlite` (or `postgres`) narrows the list.
 */
export const OPERATOR_BACKENDS: OperatorBackend[] = (() => {
  const all: OperatorBackend[] = [{ name: 'sqlite' }, { name: 'postgres', ...(POSTGRES_UNAVAILABLE ? { unavailable: POSTGRES_UNAVAILABLE } : {}) }];
  const wanted = process.env.STORES?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return wanted ? all.filter((backend) => wanted.includes(backend.name)) : all;
})();

export interface Operator {
  app: FastifyInstance;
  store: WalletStore;
  backend: OperatorBackendName;
  clock: TestClock;
  /** The SQLite file (SQLite only). */
  dbPath: string;
  /**
   * A second app on a store of its own over the same database (the SQLite
   * file, or the PostgreSQL schema), with the same settings: what a test
   * reads once the first store is closed. The caller closes it; the
   * database outlives it until close().
   */
  reopen: () => Promise<{ app: FastifyInstance; store: WalletStore; close: () => Promise<void> }>;
  /**
   * Runs one SQL statement on the operator's database beside its store (a
   * connection of the test's own) and answers its rows: what a test reads
   * or breaks underneath the app. Rejects with the database's error.
   */
  sql: (statement: string) => Promise<Record<string, unknown>[]>;
  close: () => Promise<void>;
}

// eslint-disable-next-line max-lines-per-function -- one operator put together for a test, on either backend, in the order serve uses
export async function makeOperator(
  options: {
    rules?: RulesConfig;
    app?: Partial<OperatorAppOptions>;
    cryptoDecimals?: Record<string, number>;
    /** Default 'sqlite'. */
    backend?: OperatorBackendName;
  } = {},
): Promise<Operator> {
  // The app, the stores and the drivers are imported here, not at the top: most test files that import this module for its
  // other helpers (temp folders, signed requests over HTTP, a served operator's settings) start no operator in-process,
  // and loading the app (Fastify, both stores) cost each of them about 0.6 s of CPU.
  const { buildOperatorApp } = await import('../src/operator/operator-app.js');
  const backend = options.backend ?? 'sqlite';
  const { dir, cleanup: removeDir } = tempDir();
  const dbPath = join(dir, 'operator.db');
  const settings = {
    ...(options.rules ? { rules: options.rules } : {}),
    ...(options.cryptoDecimals ? { cryptoDecimals: options.cryptoDecimals } : {}),
  };
  let store: WalletStore;
  let openAgain: () => Promise<WalletStore>;
  let cleanup: () => Promise<void> | void;
  let sql: Operator['sql'];
  if (backend === 'postgres') {
    const [{ PostgresStore }, { default: postgres }] = await Promise.all([import('../src/stores/postgres/postgres-store.js'), import('postgres')]);
    const opened = await openPostgresStore('operator', settings);
    store = opened.store;
    openAgain = () => PostgresStore.open({ url: opened.schema.url(), ...settings, settings: { poolSize: TEST_POOL_SIZE } });
    let client: postgres.Sql | undefined;
    sql = async (statement) => {
      client ??= postgres(opened.schema.url(), { max: 1, onnotice: () => {} });
      return [...(await client.unsafe(statement))] as Record<string, unknown>[];
    };
    // The fixture's cleanup closes the store and drops its schema.
    cleanup = async () => {
      await client?.end({ timeout: 5 });
      await opened.cleanup();
      removeDir();
    };
  } else {
    const [{ SqliteStore }, { default: Database }] = await Promise.all([import('../src/stores/sqlite/sqlite-store.js'), import('better-sqlite3')]);
    store = await SqliteStore.open({ path: dbPath, ...settings });
    openAgain = () => SqliteStore.open({ path: dbPath, ...settings });
    let connection: Database.Database | undefined;
    sql = async (statement) => {
      connection ??= new Database(dbPath);
      const prepared = connection.prepare(statement);
      if (prepared.reader) return prepared.all() as Record<string, unknown>[];
      prepared.run();
      return [];
    };
    cleanup = async () => {
      connection?.close();
      await store.close();
      removeDir();
    };
  }
  const clock = new TestClock();
  let keys = 0;
  const world: World = { clock: () => clock.now, newId: () => randomUUID(), newLaunchKey: () => `key-${++keys}-${randomUUID()}` };
  const appOn = (on: WalletStore) =>
    buildOperatorApp({
      store: on,
      secrets: [SECRET, NEXT_SECRET],
      accessTokens: [ACCESS_TOKEN],
      adminToken: ADMIN_TOKEN,
      world,
      ...options.app,
    });
  const app = await appOn(store);
  return {
    app,
    store,
    backend,
    clock,
    dbPath,
    sql,
    reopen: async () => {
      const again = await openAgain();
      let second: FastifyInstance;
      try {
        second = await appOn(again);
      } catch (error) {
        await again.close();
        throw error;
      }
      return {
        app: second,
        store: again,
        close: async () => {
          await second.close();
          await again.close();
        },
      };
    },
    close: async () => {
      await app.close();
      await cleanup();
    },
  };
}

export function walletHeaders(body: string, secret = SECRET): Record<string, string> {
  return {
    'content-type': 'application/json',
    authorization: `Bearer ${ACCESS_TOKEN}`,
    'x-server-authorization': sign(secret, body),
  };
}

/** A signed wallet call, as a provider sends it. */
export async function wallet(app: FastifyInstance, url: string, body: unknown) {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await app.inject({ method: 'POST', url, payload, headers: walletHeaders(payload) });
  return { status: response.statusCode, body: response.json() as Record<string, unknown>, headers: response.headers, raw: response.body };
}

export async function admin(app: FastifyInstance, method: 'GET' | 'POST', url: string, body?: unknown) {
  const response = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown>, headers: response.headers, raw: response.body };
}

/** A player with a session on `game`: the usual fixture of a wallet test. */
export async function playerWithSession(
  app: FastifyInstance,
  options: { playerId?: string; currency?: string; balance?: number; game?: string; country?: string } = {},
) {
  const playerId = options.playerId ?? `player-${randomUUID().slice(0, 8)}`;
  const game = options.game ?? 'dice';
  const created = await admin(app, 'POST', '/admin/players', {
    playerId,
    currency: options.currency ?? 'EUR',
    balance: options.balance ?? 100,
    country: options.country ?? 'DE',
  });
  if (created.status !== 201) throw new Error(`player not created: ${created.raw}`);
  const key = await admin(app, 'POST', '/admin/launch-keys', { playerId, game });
  if (key.status !== 201) throw new Error(`launch key not created: ${key.raw}`);
  const session = await wallet(app, '/authenticate', { key: key.body.key, game });
  if (session.status !== 200) throw new Error(`not authenticated: ${session.raw}`);
  return { playerId, game, sessionId: session.body.sessionId as string, key: key.body.key as string };
}

export function tx(type: 'bet' | 'win', amount: number, extra: { id?: string; jpAmount?: number } = {}) {
  return { id: extra.id ?? randomUUID(), type, amount, ...(extra.jpAmount === undefined ? {} : { jpAmount: extra.jpAmount }) };
}

export function transactionBody(
  fixture: { playerId: string; game: string; sessionId: string },
  transactions: ReturnType<typeof tx>[],
  round: { id?: string; finished?: boolean } = {},
  extra: Record<string, unknown> = {},
) {
  return {
    sessionId: fixture.sessionId,
    playerId: fixture.playerId,
    game: fixture.game,
    transactions,
    round: { id: round.id ?? randomUUID(), finished: round.finished ?? true },
    ...extra,
  };
}

export async function balanceOf(app: FastifyInstance, playerId: string): Promise<number> {
  const player = await admin(app, 'GET', `/admin/players/${playerId}`);
  return player.body.balance as number;
}

/** Counts the intervals started while `work` runs. */
export async function intervalsStartedBy<T>(work: () => Promise<T>): Promise<{ value: T; started: number }> {
  const original = globalThis.setInterval;
  let started = 0;
  globalThis.setInterval = ((...args: Parameters<typeof setInterval>) => {
    started++;
    return original(...args);
  }) as typeof setInterval;
  try {
    return { value: await work(), started };
  } finally {
    globalThis.setInterval = original;
  }
}

// ------------------------------------------------------------- real sockets

// (Import declarations are hoisted; this one sits with the helpers that use it.)
import { request, type Dispatcher } from 'undici';

/** An answer read over a real socket, body kept as the exact text received. */
export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** A signed wallet call over a real socket (undici); the signature covers exactly `bodyText`. */
export async function postSigned(origin: string, path: string, bodyText: string, dispatcher?: Dispatcher): Promise<HttpAnswer> {
  const response = await request(new URL(path, origin), {
    method: 'POST',
    headers: walletHeaders(bodyText),
    body: bodyText,
    ...(dispatcher === undefined ? {} : { dispatcher }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text };
}

/** A back-office call over a real socket. */
export async function adminOverHttp(
  origin: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  dispatcher?: Dispatcher,
): Promise<HttpAnswer & { body: Record<string, unknown> }> {
  const response = await request(new URL(path, origin), {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(dispatcher === undefined ? {} : { dispatcher }),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    contentType: String(response.headers['content-type'] ?? ''),
    text,
    body: JSON.parse(text) as Record<string, unknown>,
  };
}

export interface LedgerItem {
  id: string;
  kind: string;
  amount: number;
  roundId: string | null;
}

/** Pages of the ledger listing read before giving up: bounds the walk if a cursor never ends. */
const LEDGER_PAGES_MAX = 1_000;

/**
 * Every transfer of a player, newest first, walked page by page with the
 * cursor of GET /admin/players/:id/transactions. `get` performs one
 * back-office GET (inject or a real socket) and returns status and body text.
 */
export async function ledgerOf(get: (url: string) => Promise<{ status: number; text: string }>, playerId: string): Promise<LedgerItem[]> {
  const items: LedgerItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < LEDGER_PAGES_MAX; page++) {
    const url = `/admin/players/${encodeURIComponent(playerId)}/transactions?limit=500${cursor === null ? '' : `&cursor=${cursor}`}`;
    const answer = await get(url);
    if (answer.status !== 200) throw new Error(`ledger listing failed: ${answer.status} ${answer.text}`);
    const body = JSON.parse(answer.text) as { items: LedgerItem[]; nextCursor: string | null };
    items.push(...body.items);
    cursor = body.nextCursor;
    if (cursor === null) return items;
  }
  throw new Error(`ledger listing of ${playerId} did not end within ${LEDGER_PAGES_MAX} pages`);
}

/**
 * The environment of `wagerlink operator serve` as a child process: listening
 * on 127.0.0.1:`port`, on the SQLite file `database`, with the tests' admin
 * token and the given (by default the tests') secret and access token.
 */
export function operatorServeEnv(port: number, database: string, credentials: { secret?: string; accessToken?: string } = {}): Record<string, string> {
  return {
    WAGERLINK_HOST: '127.0.0.1',
    WAGERLINK_PORT: String(port),
    WAGERLINK_DATABASE: database,
    WAGERLINK_SECRET: credentials.secret ?? SECRET,
    WAGERLINK_ACCESS_TOKENS: credentials.accessToken ?? ACCESS_TOKEN,
    WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN,
  };
}
