/**
 * What the SQLite provider store adds to the contract
 * (provider-store-contract.test.ts, payout-store.test.ts): it commits once
 * per event-loop turn. Every write of a turn joins one transaction, an
 * outcome the outbox records included; a write that fails rolls back alone;
 * nothing of a turn is visible to another connection (or durable) before
 * the turn ends, and `durable()` answers only after that commit, rejecting
 * if it failed, when nothing of the turn is kept.
 *
 * Its outbox: a turn's rollback takes a real round and its request in the
 * outbox with it; a claim runs between turns and takes only items whose
 * commit is durable; a crash between the final answer on an item and the
 * round it settles keeps neither. A file of version 1 is migrated with its
 * pending rounds enqueued, and what turns commit is checkpointed in the
 * background.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CLAIM_LIMITS, type Answer } from '../../../src/dispatch/outbox.js';
import { migrate } from '../../../src/platform/sqlite/migrate.js';
import { openDatabase } from '../../../src/platform/sqlite/open-database.js';
import type { GameSessionRow } from '../../../src/provider/store/provider-store.js';
import { PROVIDER_MIGRATIONS, SqliteProviderStore } from '../../../src/provider/store/sqlite/provider-store.js';
import { tempDir } from '../../helpers.js';
import { until, walState } from '../../platform/sqlite/wal-state.js';
import { begun, realRound, realSession, SEED, sealedNext } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

let temp: ReturnType<typeof tempDir>;
let path: string;
let store: SqliteProviderStore;
/** Another connection to the same file: it sees only what was committed. */
let other: Database.Database;

beforeEach(() => {
  temp = tempDir('wagerlink-provider-store-');
  path = join(temp.dir, 'provider.db');
  store = SqliteProviderStore.open(path);
  other = new Database(path, { readonly: true });
});

afterEach(async () => {
  other.close();
  await store.close();
  temp.cleanup();
});

const openSession = (): Promise<GameSessionRow> => realSession(store, { operatorId: 'op', now: NOW });
const roundOf = (session: GameSessionRow, nonce: number) => realRound(session, nonce, NOW);

const committedRounds = () => Number((other.prepare('SELECT count(*) AS n FROM rounds').get() as { n: number }).n);

test('the writes of one turn are committed together when the turn ends, and durable() waits for that commit', async () => {
  const first = await openSession();
  const second = await openSession();
  begun(await store.beginRealRound(roundOf(first, 0), sealedNext(SEED)));
  begun(await store.beginRealRound(roundOf(second, 0), sealedNext(SEED)));
  const payout = await store.createPayout({
    payoutId: randomUUID(),
    operatorId: 'op',
    playerId: 'p-1',
    currency: 'EUR',
    amountMinor: 1n,
    campaignId: randomUUID(),
    createdAt: NOW,
  });
  assert.ok(payout.ok && payout.kind === 'created');
  // This connection reads its own open turn; another sees nothing of it yet.
  assert.equal((await store.listRounds(10)).length, 2);
  assert.equal(committedRounds(), 0);
  assert.equal(other.prepare('SELECT count(*) FROM payouts').pluck().get(), 0);
  await store.durable();
  assert.equal(committedRounds(), 2);
  assert.equal(Number((other.prepare('SELECT count(*) AS n FROM game_sessions').get() as { n: number }).n), 2);
  assert.equal(other.prepare('SELECT count(*) FROM payouts').pluck().get(), 1);
});

test('a write that fails rolls back alone; the rest of its turn is committed', async () => {
  const session = await openSession();
  const first = begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED)));
  // A round whose insert fails (its id is taken) after its seed moved and its request was enqueued: its savepoint takes both back.
  await assert.rejects(store.beginRealRound({ ...roundOf(session, 1), roundId: first.roundId }, sealedNext(SEED)), /UNIQUE/);
  assert.equal((await store.session(session.pk)).nonce, 1);
  begun(await store.beginRealRound(roundOf(session, 1), sealedNext(SEED)));
  await store.durable();
  assert.equal(other.prepare('SELECT count(*) FROM dispatch_items').pluck().get(), 2);
  assert.deepEqual(
    other
      .prepare('SELECT nonce FROM rounds ORDER BY id')
      .all()
      .map((row) => Number((row as { nonce: number }).nonce)),
    [0, 1],
  );
  assert.equal((await store.session(session.pk)).nonce, 2);
});

test('a turn whose commit fails keeps nothing, and durable() rejects', async () => {
  const session = await openSession();
  await store.durable();
  await store.touchSession(session.pk, NOW + 1_000);
  // A reference checked only at COMMIT, to nothing: the commit of the turn fails.
  const db = (store as unknown as { db: Database.Database }).db;
  db.pragma('defer_foreign_keys = ON');
  db.prepare("INSERT INTO campaign_players (campaign_pk, player_id) VALUES (999, 'nobody')").run();
  await assert.rejects(store.durable(), /FOREIGN KEY/);
  assert.equal((await store.session(session.pk)).lastActiveAt, NOW, 'the turn was rolled back whole');
  // The next turn commits as usual.
  await store.touchSession(session.pk, NOW + 2_000);
  await store.durable();
  assert.equal(Number((other.prepare('SELECT last_active_at AS t FROM game_sessions').get() as { t: number }).t), NOW + 2_000);
});

test('closing commits the open turn', async () => {
  const session = await openSession();
  begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED)));
  await store.close();
  assert.equal(committedRounds(), 1);
  store = SqliteProviderStore.open(path);
  assert.equal((await store.listRounds(10))[0]?.status, 'pending');
});

test('its migrations are recorded in schema_migrations, as the wallet store records its own', () => {
  assert.deepEqual(
    other.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all().map(Number),
    PROVIDER_MIGRATIONS.map((one) => one.version),
  );
  assert.equal(Number(other.pragma('user_version', { simple: true })), 0);
});

/** A file as version 1 of the store wrote it, with a real round left pending, its versions counted in schema_migrations or in user_version; `path` names it. */
async function versionOneFile(counted: 'schema_migrations' | 'user_version'): Promise<{ sessionId: string; roundId: string; body: string }> {
  await store.close();
  other.close();
  path = join(temp.dir, 'v1.db');
  const v1 = openDatabase(path);
  migrate(v1, PROVIDER_MIGRATIONS.slice(0, 1));
  const sessionId = randomUUID();
  v1.prepare(
    `INSERT INTO game_sessions
      (id, session_id, launch_id, mode, operator_id, game, player_id, operator_session_id, currency, language, balance, server_seed, nonce, created_at, last_active_at)
    VALUES (1, ?, ?, 'real', 'op', 'dice', 'p-1', ?, 'EUR', 'en', 10000, ?, 1, ?, ?)`,
  ).run(sessionId, randomUUID(), randomUUID(), SEED, NOW, NOW);
  const roundId = randomUUID();
  const body = JSON.stringify({ round: { id: roundId, finished: true }, note: 'the bytes it sent, é' });
  v1.prepare(
    `INSERT INTO rounds (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id,
      chance_pct, threshold, roll, server_seed, server_seed_hash, client_seed, nonce, request_body, status, attempts, created_at)
    VALUES (?, 1, 'real', 'op', 'p-1', 'dice', 'EUR', 100, 0, ?, ?, 50, 5000, 7000, ?, ?, 'c', 0, ?, 'pending', 7, ?)`,
  ).run(roundId, randomUUID(), randomUUID(), SEED, 'cd'.repeat(32), body, NOW);
  if (counted === 'user_version') {
    // Before the shared migration runner, the store counted its versions in PRAGMA user_version only.
    v1.exec('DROP TABLE schema_migrations');
    v1.pragma('user_version = 1');
  }
  v1.close();
  other = new Database(path, { readonly: true });
  return { sessionId, roundId, body };
}

test('a database that counted its migrations in user_version is adopted: nothing is applied again, and its rows stay', async () => {
  const { sessionId } = await versionOneFile('user_version');
  store = SqliteProviderStore.open(path);
  assert.equal((await store.session(1)).sessionId, sessionId);
  assert.deepEqual(
    other.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all().map(Number),
    PROVIDER_MIGRATIONS.map((one) => one.version),
  );
  assert.equal(Number(other.pragma('user_version', { simple: true })), 0);
  // Opened again, it finds everything applied.
  await store.close();
  store = SqliteProviderStore.open(path);
  assert.equal((await store.session(1)).sessionId, sessionId);
});

test('version 2 enqueues the rounds version 1 left pending, with the exact bytes they were sent with', async () => {
  const { roundId, body } = await versionOneFile('schema_migrations');
  store = SqliteProviderStore.open(path);
  const [round] = await store.pendingRounds(1);
  assert.equal(round?.roundId, roundId);
  const item = await store.outbox.item(round!.dispatchItemId!);
  assert.deepEqual(
    { operatorId: item?.operatorId, orderingKey: item?.orderingKey, kind: item?.kind, path: item?.path, status: item?.status, due: item?.nextAttemptAt },
    { operatorId: 'op', orderingKey: roundId, kind: 'bet', path: '/transaction', status: 'pending', due: NOW },
  );
  assert.equal(item?.body.toString('utf8'), body);
  // Version 7 leaves the item the one copy: the round reads its body through it.
  assert.equal(round?.requestBody, body);
  assert.equal(other.prepare('SELECT request_body FROM rounds WHERE id = ?').pluck().get(round!.pk), null);
  const [claimed] = await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  assert.equal(claimed?.id, item?.id);
});

test('what a turn committed is copied into the database file in the background, without the writer checkpointing', async () => {
  const session = await openSession();
  for (let nonce = 0; nonce < 20; nonce++) {
    begun(await store.beginRealRound(roundOf(session, nonce), sealedNext(SEED)));
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

// ---------------------------------------------------------------- the outbox

const committedItems = () =>
  other.prepare('SELECT id, status, ordering_key FROM dispatch_items ORDER BY id').all() as { id: number; status: string; ordering_key: string }[];
const committedStatus = (pk: number) => other.prepare('SELECT status FROM rounds WHERE id = ?').pluck().get(pk);
const OK = (balance: string): Answer => ({ status: 200, detail: 'HTTP 200', balance });

test("a turn's rollback takes a real round and its request in the outbox with it", async () => {
  const session = await openSession();
  const round = roundOf(session, 0);
  begun(await store.beginRealRound(round, sealedNext(SEED)));
  await store.durable();
  // A turn that cannot commit takes its round and its item with it.
  begun(await store.beginRealRound(roundOf(session, 1), sealedNext(SEED)));
  const db = (store as unknown as { db: Database.Database }).db;
  db.pragma('defer_foreign_keys = ON');
  db.prepare("INSERT INTO campaign_players (campaign_pk, player_id) VALUES (999, 'nobody')").run();
  await assert.rejects(store.durable(), /FOREIGN KEY/);
  assert.deepEqual(
    committedItems().map((one) => one.ordering_key),
    [round.roundId],
  );
  assert.equal(committedRounds(), 1);
});

test('a claim runs between turns and takes only items whose commit is durable', async () => {
  const session = await openSession();
  const round = begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED)));
  // The turn is open: the claim waits for it to end, and for the sync of what it committed.
  const claiming = store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  assert.equal(committedItems().length, 0);
  const claimed = await claiming;
  assert.deepEqual(
    claimed.map((one) => one.id),
    [round.dispatchItemId],
  );
  assert.equal(committedItems().length, 1);
  assert.equal(committedStatus(round.pk), 'pending');
  // Nothing left to claim, and a claim with no turn open and nothing unsynced takes no wait for a sync.
  const sync = store.durable.bind(store);
  let waited = 0;
  store.durable = () => (waited++, sync());
  try {
    assert.deepEqual(await store.outbox.claim(NOW, 'node', CLAIM_LIMITS), []);
  } finally {
    store.durable = sync;
  }
  assert.equal(waited, 0);
});

test('a claim that finds no turn open still waits for one a write opens before the claim resumes', async () => {
  const session = await openSession();
  const round = begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED)));
  await store.durable();
  // No turn is open when the claim starts, but it resumes only after an await: a write made in between
  // (here at once, under load any request's) opens a turn, and the claim must not run inside it.
  const claiming = store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  const touched = store.touchSession(session.pk, NOW + 1);
  const [claimed] = await Promise.all([claiming, touched]);
  assert.deepEqual(
    claimed.map((one) => one.id),
    [round.dispatchItemId],
  );
  await store.durable();
  assert.deepEqual(
    committedItems().map((one) => one.status),
    ['pending'],
  );
});

test('an outcome joins the open turn: neither it nor the round it finishes is committed before the turn ends', async () => {
  const session = await openSession();
  const round = begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED)));
  await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  assert.ok(await store.outbox.sent(round.dispatchItemId!, 'node', OK('98.5'), NOW + 1));
  assert.equal((await store.round(round.pk)).status, 'settled', 'this connection reads its own turn');
  assert.equal(committedStatus(round.pk), 'pending');
  assert.deepEqual(
    committedItems().map((one) => one.status),
    ['pending'],
  );
  await store.durable();
  assert.equal(committedStatus(round.pk), 'settled');
  assert.deepEqual(
    committedItems().map((one) => one.status),
    ['sent'],
  );
});

test('a crash between the final answer on the item and the round it settles keeps neither: the item is sent again after a restart', async () => {
  const session = await openSession();
  const round = begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED)));
  await store.durable();
  await store.close();
  // Another process records the operator's 200 and dies in that database transaction: after the item's update, before the round's.
  const child = `
    const [storeUrl, path, now] = process.argv.slice(1);
    const { SqliteProviderStore } = await import(storeUrl);
    const store = SqliteProviderStore.open(path);
    store.db.function('crash', () => process.kill(process.pid, 'SIGKILL'));
    store.db.exec('CREATE TEMP TRIGGER crash_before_round BEFORE UPDATE OF status ON rounds BEGIN SELECT crash(); END');
    const [item] = await store.outbox.claim(Number(now), 'child', { batchSizeMax: 1, operatorInFlightMax: 1, leaseMs: 1 });
    await store.outbox.sent(item.id, 'child', { status: 200, detail: 'HTTP 200', balance: '1' }, Number(now));
    await store.durable();
    console.log('the process lived on');
  `;
  const storeUrl = new URL('../../../src/provider/store/sqlite/provider-store.js', import.meta.url).href;
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', child, storeUrl, path, String(NOW + 1)], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(ran.signal, 'SIGKILL', `${ran.stdout}${ran.stderr}`);

  store = SqliteProviderStore.open(path);
  const item = await store.outbox.item(round.dispatchItemId!);
  assert.equal(item?.status, 'pending');
  assert.equal(item?.attempts, 1, 'the claim had committed');
  assert.equal((await store.round(round.pk)).status, 'pending');
  const [again] = await store.outbox.claim(NOW + 2, 'node', CLAIM_LIMITS);
  assert.equal(again?.id, round.dispatchItemId);
  assert.ok(await store.outbox.sent(again!.id, 'node', OK('1'), NOW + 3));
  assert.equal((await store.round(round.pk)).status, 'settled');
  assert.equal((await store.round(round.pk)).attempts, 2);
});
