/**
 * Proves that the operator answers over HTTP exactly alike on SQLite and on
 * PostgreSQL, down to the problem+json bodies and the exact balances: the
 * same script of back-office and wallet calls, with the same clock and ids,
 * runs against the app on each store, and every answer (status, content type,
 * body bytes) must be identical.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildOperatorApp } from '../../src/operator/operator-app.js';
import type { World } from '../../src/operator/operator-service.js';
import { DEFAULT_RULES } from '../../src/ledger/rules.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, TestClock, tempDir, walletHeaders } from '../helpers.js';
import { openPostgresStore, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';

const IDLE = DEFAULT_RULES.sessionIdleMs;

interface Answer {
  call: string;
  status: number;
  contentType: string;
  body: string;
}

/**
 * A page cursor is a row id of the store that answered it, opaque to the
 * caller, who hands it back as it came (the script does). PostgreSQL's ids
 * keep gaps where an insert was refused (a batch planned from memory that met
 * an id seen before), so the two stores' cursors may differ; the pages they
 * lead to may not.
 */
function withoutCursor(answer: Answer): Answer {
  return {
    ...answer,
    call: answer.call.replace(/cursor=\d+/, 'cursor=<cursor>'),
    body: answer.body.replace(/"nextCursor":"\d+"/g, '"nextCursor":"<cursor>"'),
  };
}

/** An app on a store with a world that is the same on every run. */
async function appOn(store: WalletStore): Promise<{ app: FastifyInstance; clock: TestClock }> {
  const clock = new TestClock();
  let ids = 0;
  let keys = 0;
  const world: World = {
    clock: () => clock.now,
    newId: () => `0000beef-0000-4000-8000-${(++ids).toString(16).padStart(12, '0')}`,
    newLaunchKey: () => `parity-key-${++keys}`,
  };
  const app = await buildOperatorApp({ store, secrets: [SECRET], accessTokens: [ACCESS_TOKEN], adminToken: ADMIN_TOKEN, world });
  return { app, clock };
}

/** The script: every call a provider or an operator makes, with the answers the rules give. */
// eslint-disable-next-line max-lines-per-function -- one scripted scenario whose transcript every backend must match byte for byte, read in order
async function script(app: FastifyInstance, clock: TestClock): Promise<Answer[]> {
  const answers: Answer[] = [];
  let n = 0;
  const uuid = () => `0000cafe-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
  const record = (call: string, response: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
    answers.push({ call, status: response.statusCode, contentType: String(response.headers['content-type']), body: response.body });
    return JSON.parse(response.body) as Record<string, unknown>;
  };
  const adminCall = async (method: 'GET' | 'POST', url: string, body?: unknown) =>
    record(
      `${method} ${url}`,
      await app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      }),
    );
  const walletCall = async (url: string, body: unknown) => {
    const payload = JSON.stringify(body);
    return record(`POST ${url} ${payload}`, await app.inject({ method: 'POST', url, payload, headers: walletHeaders(payload) }));
  };

  await adminCall('POST', '/admin/players', { playerId: 'p-eur', currency: 'EUR', balance: 100, country: 'DE' });
  await adminCall('POST', '/admin/players', { playerId: 'p-eur', currency: 'EUR', balance: 1 });
  await adminCall('POST', '/admin/players', { playerId: 'p-jpy', currency: 'JPY', balance: 5000, country: 'JP' });
  await adminCall('POST', '/admin/players', { playerId: 'p-bad', currency: 'EUR', balance: 0.001 });
  await adminCall('GET', '/admin/players/nobody');
  const key = await adminCall('POST', '/admin/launch-keys', { playerId: 'p-eur', game: 'dice' });
  const keyJpy = await adminCall('POST', '/admin/launch-keys', { playerId: 'p-jpy', game: 'slots' });
  await walletCall('/authenticate', { key: 'no-such-key', game: 'dice' });
  await walletCall('/authenticate', { key: key.key, game: 'slots' });
  const session = await walletCall('/authenticate', { key: key.key, game: 'dice' });
  await walletCall('/authenticate', { key: key.key, game: 'dice' });
  const sessionJpy = await walletCall('/authenticate', { key: keyJpy.key, game: 'slots' });
  const s = { sessionId: session.sessionId as string, playerId: 'p-eur', game: 'dice' };
  const sJpy = { sessionId: sessionJpy.sessionId as string, playerId: 'p-jpy', game: 'slots' };

  const round = uuid();
  const betId = uuid();
  await walletCall('/transaction', { ...s, transactions: [{ id: betId, type: 'bet', amount: 12.5, jpAmount: 0.25 }], round: { id: round, finished: false } });
  await walletCall('/transaction', { ...s, transactions: [{ id: betId, type: 'bet', amount: 12.5, jpAmount: 0.25 }], round: { id: round, finished: false } });
  await walletCall('/transaction', { ...s, transactions: [{ id: betId, type: 'bet', amount: 13 }], round: { id: round, finished: false } });
  await walletCall('/transaction', {
    ...s,
    transactions: [
      { id: uuid(), type: 'win', amount: 0.1 },
      { id: uuid(), type: 'win', amount: 0.2 },
    ],
    round: { id: round, finished: true },
  });
  await walletCall('/transaction', { ...s, transactions: [{ id: uuid(), type: 'bet', amount: 1 }], round: { id: round, finished: true } });
  await walletCall('/transaction', { ...sJpy, transactions: [{ id: uuid(), type: 'bet', amount: 1 }], round: { id: round, finished: true } });
  await walletCall('/transaction', { ...s, transactions: [{ id: uuid(), type: 'bet', amount: 500 }], round: { id: uuid(), finished: true } });
  await walletCall('/transaction', { ...s, transactions: [{ id: uuid(), type: 'bet', amount: 0.125 }], round: { id: uuid(), finished: true } });
  await walletCall('/transaction', { ...s, playerId: 'p-jpy', transactions: [{ id: uuid(), type: 'bet', amount: 1 }], round: { id: uuid(), finished: true } });
  await walletCall('/transaction', { ...s, sessionId: uuid(), transactions: [{ id: uuid(), type: 'bet', amount: 1 }], round: { id: uuid(), finished: true } });
  await walletCall('/transaction', { ...sJpy, transactions: [{ id: uuid(), type: 'bet', amount: 1.5 }], round: { id: uuid(), finished: true } });
  const campaign = uuid();
  await walletCall('/transaction', {
    ...s,
    transactions: [
      { id: uuid(), type: 'bet', amount: 2 },
      { id: uuid(), type: 'win', amount: 7 },
    ],
    round: { id: uuid(), finished: true },
    campaign: { id: campaign, type: 'freeBets', finished: true },
    regulatory: 'DE:slot-session-42',
  });
  await walletCall('/transaction', {
    ...s,
    transactions: [{ id: uuid(), type: 'bet', amount: 2 }],
    round: { id: uuid(), finished: true },
    campaign: { id: campaign, type: 'freeBets', finished: false },
  });
  const payoutId = uuid();
  const tournament = uuid();
  await walletCall('/payout', { sessionId: s.sessionId, payoutId, amount: 25.05, campaign: { id: tournament, type: 'tournament' } });
  await walletCall('/payout', { sessionId: s.sessionId, payoutId, amount: 25.05, campaign: { id: tournament, type: 'tournament' } });
  await walletCall('/payout', { sessionId: s.sessionId, payoutId, amount: 25, campaign: { id: tournament, type: 'tournament' } });
  await walletCall('/payout', { sessionId: s.sessionId, payoutId: uuid(), amount: 0, campaign: { id: tournament, type: 'tournament' } });
  await walletCall('/payout', { sessionId: uuid(), payoutId: uuid(), amount: 1, campaign: { id: tournament, type: 'tournament' } });
  await adminCall('POST', '/admin/players/p-eur/block', { reason: 'self-excluded' });
  await walletCall('/transaction', { ...s, transactions: [{ id: uuid(), type: 'bet', amount: 1 }], round: { id: uuid(), finished: true } });
  await walletCall('/transaction', { ...s, transactions: [{ id: uuid(), type: 'win', amount: 1 }], round: { id: uuid(), finished: true } });
  await adminCall('POST', '/admin/players/p-eur/unblock');
  clock.advance(IDLE + 1);
  await walletCall('/transaction', { ...s, transactions: [{ id: uuid(), type: 'bet', amount: 1 }], round: { id: uuid(), finished: true } });
  await walletCall('/transaction', { ...s, transactions: [{ id: uuid(), type: 'win', amount: 3.33 }], round: { id: uuid(), finished: true } });
  await walletCall('/payout', { sessionId: s.sessionId, payoutId: uuid(), amount: 1.11, campaign: { id: tournament, type: 'tournament' } });
  const adjustment = uuid();
  await adminCall('POST', '/admin/players/p-eur/adjustments', { id: adjustment, type: 'deposit', amount: 10, reason: 'goodwill' });
  await adminCall('POST', '/admin/players/p-eur/adjustments', { id: adjustment, type: 'deposit', amount: 10 });
  await adminCall('POST', '/admin/players/p-eur/adjustments', { id: adjustment, type: 'withdrawal', amount: 10 });
  await adminCall('POST', '/admin/players/p-eur/adjustments', { id: uuid(), type: 'withdrawal', amount: 1_000_000 });
  await adminCall('POST', '/admin/players/nobody/adjustments', { id: uuid(), type: 'deposit', amount: 1 });
  await adminCall('GET', '/admin/players/p-eur');
  await adminCall('GET', '/admin/players/p-jpy');
  let cursor: string | null = null;
  for (let page = 0; page < 10; page++) {
    const listed = await adminCall('GET', `/admin/players/p-eur/transactions?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`);
    cursor = listed.nextCursor as string | null;
    if (cursor === null) break;
  }
  await adminCall('GET', '/admin/players/p-eur/rounds?limit=2');
  await adminCall('GET', '/admin/players/nobody/rounds');
  await adminCall('GET', '/admin/verify');
  return answers;
}

describe('operator over HTTP: SQLite and PostgreSQL alike', { skip: POSTGRES_UNAVAILABLE }, () => {
  const closers: (() => Promise<void>)[] = [];
  let sqlite: Answer[];
  let postgres: Answer[];

  before(async () => {
    const { dir, cleanup } = tempDir();
    const sqliteStore = await SqliteStore.open({ path: join(dir, 'operator.db') });
    const onSqlite = await appOn(sqliteStore);
    closers.push(async () => {
      await onSqlite.app.close();
      await sqliteStore.close();
      cleanup();
    });
    const pg = await openPostgresStore('parity');
    const onPostgres = await appOn(pg.store);
    closers.push(async () => {
      await onPostgres.app.close();
      await pg.cleanup();
    });
    sqlite = await script(onSqlite.app, onSqlite.clock);
    postgres = await script(onPostgres.app, onPostgres.clock);
  });

  after(async () => {
    for (const close of closers) await close();
  });

  test('every answer is the same: status, content type and body bytes (page cursors aside)', () => {
    assert.equal(postgres.length, sqlite.length);
    sqlite.forEach((expected, index) => assert.deepEqual(withoutCursor(postgres[index]!), withoutCursor(expected), `call ${index + 1}: ${expected.call}`));
  });

  test('the script reached the refusals it was written for', () => {
    const codes = new Set(sqlite.filter((answer) => answer.status >= 400).map((answer) => (JSON.parse(answer.body) as { code: string }).code));
    for (const code of [
      'PLAYER_EXISTS',
      'INVALID_REQUEST',
      'PLAYER_NOT_FOUND',
      'INVALID_LAUNCH_KEY',
      'SESSION_MISMATCH',
      'DUPLICATE_CONFLICT',
      'ROUND_CLOSED',
      'ROUND_MISMATCH',
      'INSUFFICIENT_FUNDS',
      'SESSION_NOT_FOUND',
      'CAMPAIGN_FINISHED',
      'PLAYER_BLOCKED',
      'SESSION_EXPIRED',
    ]) {
      assert.ok(codes.has(code), `no ${code} in the script`);
    }
    for (const answer of sqlite.filter((each) => each.status >= 400)) assert.match(answer.contentType, /^application\/problem\+json/);
    assert.equal((JSON.parse(sqlite.at(-1)!.body) as { ok: boolean }).ok, true, 'the books verify');
  });
});
