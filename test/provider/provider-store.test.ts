/**
 * The provider's round log commits once per event-loop turn: every write of
 * a turn joins one transaction, a write that fails rolls back alone, nothing
 * of a turn is visible to another connection (or durable) before the turn
 * ends, and `durable()` answers only after that commit, rejecting if it
 * failed, when nothing of the turn is kept.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ProviderStore, type GameSessionRow, type NewRound } from '../../src/provider/provider-store.js';
import { tempDir } from '../helpers.js';
import { until, walState } from '../platform/sqlite/wal-state.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const SEED = 'ab'.repeat(32);

let temp: ReturnType<typeof tempDir>;
let path: string;
let store: ProviderStore;
/** Another connection to the same file: it sees only what was committed. */
let other: Database.Database;

beforeEach(() => {
  temp = tempDir('wagerlink-provider-store-');
  path = join(temp.dir, 'provider.db');
  store = ProviderStore.open(path);
  other = new Database(path, { readonly: true });
});

afterEach(async () => {
  other.close();
  await store.close();
  temp.cleanup();
});

function openSession(): GameSessionRow {
  return store.createSession({
    sessionId: randomUUID(),
    launchId: randomUUID(),
    mode: 'real',
    operatorId: 'op',
    walletId: null,
    game: 'dice',
    playerId: 'p-1',
    operatorSessionId: randomUUID(),
    currency: 'EUR',
    country: null,
    language: 'en',
    balanceMinor: 10_000n,
    serverSeed: SEED,
    now: NOW,
  });
}

function roundOf(session: GameSessionRow, nonce: number): NewRound {
  return {
    roundId: randomUUID(),
    sessionPk: session.pk,
    mode: 'real',
    operatorId: 'op',
    playerId: 'p-1',
    game: 'dice',
    currency: 'EUR',
    betMinor: 100n,
    winMinor: 0n,
    betTxId: randomUUID(),
    winTxId: randomUUID(),
    campaignId: null,
    campaignFinished: null,
    chancePct: 50,
    threshold: 5_000,
    roll: 7_000,
    serverSeed: SEED,
    serverSeedHash: 'cd'.repeat(32),
    clientSeed: 'c',
    nonce,
    requestBody: '{}',
    createdAt: NOW,
  };
}

const committedRounds = () => Number((other.prepare('SELECT count(*) AS n FROM rounds').get() as { n: number }).n);

test('the writes of one turn are committed together when the turn ends, and durable() waits for that commit', async () => {
  const first = openSession();
  const second = openSession();
  store.beginRealRound(roundOf(first, 0), SEED);
  store.beginRealRound(roundOf(second, 0), SEED);
  // This connection reads its own open turn; another sees nothing of it yet.
  assert.equal(store.listRounds(10).length, 2);
  assert.equal(committedRounds(), 0);
  await store.durable();
  assert.equal(committedRounds(), 2);
  assert.equal(Number((other.prepare('SELECT count(*) AS n FROM game_sessions').get() as { n: number }).n), 2);
});

test('a write that fails rolls back alone; the rest of its turn is committed', async () => {
  const session = openSession();
  store.beginRealRound(roundOf(session, 0), SEED);
  // The same nonce again: a concurrent round of one session, refused by its guard.
  assert.throws(() => store.beginRealRound(roundOf(session, 0), SEED), /one at a time/);
  store.beginRealRound(roundOf(session, 1), SEED);
  await store.durable();
  assert.deepEqual(
    other.prepare('SELECT nonce FROM rounds ORDER BY id').all().map((row) => Number((row as { nonce: number }).nonce)),
    [0, 1],
  );
  assert.equal(store.session(session.pk).nonce, 2);
});

test('a turn whose commit fails keeps nothing, and durable() rejects', async () => {
  const session = openSession();
  await store.durable();
  store.touchSession(session.pk, NOW + 1_000);
  // A reference checked only at COMMIT, to nothing: the commit of the turn fails.
  const db = (store as unknown as { db: Database.Database }).db;
  db.pragma('defer_foreign_keys = ON');
  db.prepare("INSERT INTO campaign_players (campaign_pk, player_id) VALUES (999, 'nobody')").run();
  await assert.rejects(store.durable(), /FOREIGN KEY/);
  assert.equal(store.session(session.pk).lastActiveAt, NOW, 'the turn was rolled back whole');
  // The next turn commits as usual.
  store.touchSession(session.pk, NOW + 2_000);
  await store.durable();
  assert.equal(Number((other.prepare('SELECT last_active_at AS t FROM game_sessions').get() as { t: number }).t), NOW + 2_000);
});

test('closing commits the open turn', async () => {
  const session = openSession();
  store.beginRealRound(roundOf(session, 0), SEED);
  await store.close();
  assert.equal(committedRounds(), 1);
  store = ProviderStore.open(path);
  assert.equal(store.listRounds(10)[0]?.status, 'pending');
});

test('its migrations are recorded in schema_migrations, as the wallet store records its own', () => {
  assert.deepEqual(other.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all().map(Number), [1]);
  assert.equal(Number(other.pragma('user_version', { simple: true })), 0);
});

test('a database that counted its migrations in user_version is adopted: nothing is applied again, and its rows stay', async () => {
  const session = openSession();
  await store.durable();
  await store.close();
  // The file as the store left it before the shared migration runner: version 1 counted in PRAGMA user_version only.
  const legacy = new Database(path);
  legacy.exec('DROP TABLE IF EXISTS schema_migrations');
  legacy.pragma('user_version = 1');
  legacy.close();

  store = ProviderStore.open(path);
  assert.equal(store.session(session.pk).sessionId, session.sessionId);
  assert.deepEqual(other.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all().map(Number), [1]);
  assert.equal(Number(other.pragma('user_version', { simple: true })), 0);
  // Opened again, it finds everything applied.
  await store.close();
  store = ProviderStore.open(path);
  assert.equal(store.session(session.pk).sessionId, session.sessionId);
});

test('what a turn committed is copied into the database file in the background, without the writer checkpointing', async () => {
  const session = openSession();
  for (let nonce = 0; nonce < 20; nonce++) {
    store.beginRealRound(roundOf(session, nonce), SEED);
    await store.durable();
  }
  const observer = new Database(path);
  try {
    // Far fewer pages than the writer's own checkpoint interval: only the background passes copy them.
    await until(() => {
      const state = walState(observer);
      return state.log > 0 && state.checkpointed === state.log;
    }, 'the background passes copied the rounds');
  } finally {
    observer.close();
  }
});
