/**
 * Shared fixtures: an operator app on a fresh SQLite file, signed requests,
 * and a controllable clock.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildOperatorApp, type OperatorAppOptions } from '../src/operator/operator-app.js';
import type { World } from '../src/operator/operator-service.js';
import { sign } from '../src/protocol/signing.js';
import { SqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import type { RulesConfig } from '../src/ledger/rules.js';

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

export interface Operator {
  app: FastifyInstance;
  store: SqliteStore;
  clock: TestClock;
  dbPath: string;
  close: () => Promise<void>;
}

export async function makeOperator(
  options: { rules?: RulesConfig; app?: Partial<OperatorAppOptions>; cryptoDecimals?: Record<string, number> } = {},
): Promise<Operator> {
  const { dir, cleanup } = tempDir();
  const dbPath = join(dir, 'operator.db');
  const store = await SqliteStore.open({
    path: dbPath,
    ...(options.rules ? { rules: options.rules } : {}),
    ...(options.cryptoDecimals ? { cryptoDecimals: options.cryptoDecimals } : {}),
  });
  const clock = new TestClock();
  let keys = 0;
  const world: World = { clock: () => clock.now, newId: () => randomUUID(), newLaunchKey: () => `key-${++keys}-${randomUUID()}` };
  const app = await buildOperatorApp({
    store,
    secrets: [SECRET, NEXT_SECRET],
    accessTokens: [ACCESS_TOKEN],
    adminToken: ADMIN_TOKEN,
    world,
    ...options.app,
  });
  return {
    app,
    store,
    clock,
    dbPath,
    close: async () => {
      await app.close();
      await store.close();
      cleanup();
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
  return { status: response.statusCode, body: response.json() as Record<string, unknown>, raw: response.body };
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
