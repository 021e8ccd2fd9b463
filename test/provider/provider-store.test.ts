/**
 * The provider's round log commits once per event-loop turn: every write of
 * a turn joins one transaction, a write that fails rolls back alone, nothing
 * of a turn is visible to another connection (or durable) before the turn
 * ends, and `durable()` answers only after that commit, rejecting if it
 * failed, when nothing of the turn is kept.
 *
 * Its outbox: a real round and its request in the outbox are written in one
 * transaction (a rollback leaves neither); a claim runs between turns and
 * takes only items whose commit is durable; the final answer on an item and
 * the round it settles or refuses commit together, so that neither a failed
 * round update nor a crash between the two can leave one without the
 * other. A file of version 1 is migrated with its pending rounds enqueued.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CLAIM_LIMITS } from '../../src/dispatch/outbox.js';
import { migrate } from '../../src/platform/sqlite/migrate.js';
import { openDatabase } from '../../src/platform/sqlite/open-database.js';
import { PROVIDER_MIGRATIONS, ProviderStore, type GameSessionRow } from '../../src/provider/provider-store.js';
import { tempDir } from '../helpers.js';
import { until, walState } from '../platform/sqlite/wal-state.js';
import { realRound, realSession, SEED } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

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

const openSession = (): GameSessionRow => realSession(store, { operatorId: 'op', now: NOW });
const roundOf = (session: GameSessionRow, nonce: number) => realRound(session, nonce, NOW);

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
  assert.deepEqual(other.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all().map(Number), [1, 2, 3]);
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
  v1.prepare(`INSERT INTO game_sessions
      (id, session_id, launch_id, mode, operator_id, game, player_id, operator_session_id, currency, language, balance, server_seed, nonce, created_at, last_active_at)
    VALUES (1, ?, ?, 'real', 'op', 'dice', 'p-1', ?, 'EUR', 'en', 10000, ?, 1, ?, ?)`).run(sessionId, randomUUID(), randomUUID(), SEED, NOW, NOW);
  const roundId = randomUUID();
  const body = JSON.stringify({ round: { id: roundId, finished: true }, note: 'the bytes it sent, é' });
  v1.prepare(`INSERT INTO rounds (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id,
      chance_pct, threshold, roll, server_seed, server_seed_hash, client_seed, nonce, request_body, status, attempts, created_at)
    VALUES (?, 1, 'real', 'op', 'p-1', 'dice', 'EUR', 100, 0, ?, ?, 50, 5000, 7000, ?, ?, 'c', 0, ?, 'pending', 7, ?)`).run(
    roundId, randomUUID(), randomUUID(), SEED, 'cd'.repeat(32), body, NOW,
  );
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
  store = ProviderStore.open(path);
  assert.equal(store.session(1).sessionId, sessionId);
  assert.deepEqual(other.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all().map(Number), [1, 2, 3]);
  assert.equal(Number(other.pragma('user_version', { simple: true })), 0);
  // Opened again, it finds everything applied.
  await store.close();
  store = ProviderStore.open(path);
  assert.equal(store.session(1).sessionId, sessionId);
});

test('version 2 enqueues the rounds version 1 left pending, with the exact bytes they were sent with', async () => {
  const { roundId, body } = await versionOneFile('schema_migrations');
  store = ProviderStore.open(path);
  const [round] = store.pendingRounds(1);
  assert.equal(round?.roundId, roundId);
  const item = await store.outbox.item(round!.dispatchItemId!);
  assert.deepEqual(
    { operatorId: item?.operatorId, orderingKey: item?.orderingKey, kind: item?.kind, path: item?.path, status: item?.status, due: item?.nextAttemptAt },
    { operatorId: 'op', orderingKey: roundId, kind: 'bet', path: '/transaction', status: 'pending', due: NOW },
  );
  assert.equal(item?.body.toString('utf8'), body);
  const [claimed] = await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  assert.equal(claimed?.id, item?.id);
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

// ---------------------------------------------------------------- the outbox

const committedItems = () => other.prepare('SELECT id, status, ordering_key FROM dispatch_items ORDER BY id').all() as { id: number; status: string; ordering_key: string }[];
const committedRound = (pk: number) =>
  other.prepare('SELECT status, refusal_code, refusal_detail, balance_after, attempts FROM rounds WHERE id = ?').safeIntegers(true).get(pk) as Record<string, unknown>;
const committedBalance = (pk: number) => other.prepare('SELECT balance FROM game_sessions WHERE id = ?').safeIntegers(true).pluck().get(pk);
const OK = (body: string) => ({ status: 200, detail: 'HTTP 200', body });

test("a real round and its request in the outbox are written in one transaction: the round's failure or its turn's rollback leaves neither", async () => {
  const session = openSession();
  const round = roundOf(session, 0);
  const begun = store.beginRealRound(round, SEED);
  const item = await store.outbox.item(begun.dispatchItemId!);
  assert.deepEqual(
    { operatorId: item?.operatorId, orderingKey: item?.orderingKey, kind: item?.kind, path: item?.path, status: item?.status, at: item?.nextAttemptAt },
    { operatorId: 'op', orderingKey: round.roundId, kind: 'bet', path: '/transaction', status: 'pending', at: NOW },
  );
  assert.equal(item?.body.toString('utf8'), round.requestBody);
  // A concurrent round of the session fails its guard: nothing of it is enqueued.
  assert.throws(() => store.beginRealRound(roundOf(session, 0), SEED), /one at a time/);
  assert.equal(committedItems().length, 1);

  // A turn that cannot commit takes its round and its item with it.
  store.beginRealRound(roundOf(session, 1), SEED);
  const db = (store as unknown as { db: Database.Database }).db;
  db.pragma('defer_foreign_keys = ON');
  db.prepare("INSERT INTO campaign_players (campaign_pk, player_id) VALUES (999, 'nobody')").run();
  await assert.rejects(store.durable(), /FOREIGN KEY/);
  assert.deepEqual(committedItems().map((one) => one.ordering_key), [round.roundId]);
  assert.equal(committedRounds(), 1);
});

test('a claim runs between turns and takes only items whose commit is durable', async () => {
  const session = openSession();
  const begun = store.beginRealRound(roundOf(session, 0), SEED);
  // The turn is open: the claim waits for it to end, and for the sync of what it committed.
  const claiming = store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  assert.equal(committedItems().length, 0);
  const claimed = await claiming;
  assert.deepEqual(claimed.map((one) => one.id), [begun.dispatchItemId]);
  assert.equal(committedItems().length, 1);
  assert.equal(committedRound(begun.pk).status, 'pending');
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

test("the operator's final answer and the round it settles or refuses commit together, with the session's balance", async () => {
  const session = openSession();
  const [won, refused, resolved] = [0, 1, 2].map((nonce) => {
    const begun = store.beginRealRound(roundOf(session, nonce), SEED);
    return begun;
  });
  const claimed = await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  assert.equal(claimed.length, 3);
  const finished: number[] = [];
  const stop = store.onRoundFinished((round) => finished.push(round.pk));
  try {
    assert.ok(await store.outbox.sent(won!.dispatchItemId!, 'node', OK('{"balance":98.5}'), NOW + 1));
    const refusal = { status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'bet 1 exceeds balance 0.4', balance: '0.4' };
    assert.ok((await store.outbox.refused(refused!.dispatchItemId!, 'node', refusal, NOW + 2)).applied);
    // Settled by hand: it needs no lease, only none in flight.
    await store.outbox.retryLater(resolved!.dispatchItemId!, 'node', NOW + 10, { status: 503, detail: 'busy' });
    assert.ok(await store.outbox.resolve(resolved!.dispatchItemId!, 'WAL-7', NOW + 3));
    assert.deepEqual(finished, [won!.pk, refused!.pk, resolved!.pk]);
    assert.equal(committedRound(won!.pk).status, 'pending', 'nothing is committed before the turn ends');
    await store.durable();
  } finally {
    stop();
  }
  assert.deepEqual(committedItems().map((one) => one.status), ['sent', 'refused', 'resolved']);
  assert.deepEqual(committedRound(won!.pk), { status: 'settled', refusal_code: null, refusal_detail: null, balance_after: 9_850n, attempts: 1n });
  assert.deepEqual(committedRound(refused!.pk), {
    status: 'refused',
    refusal_code: 'INSUFFICIENT_FUNDS',
    refusal_detail: 'bet 1 exceeds balance 0.4',
    balance_after: 40n,
    attempts: 1n,
  });
  assert.deepEqual(committedRound(resolved!.pk), { status: 'settled', refusal_code: null, refusal_detail: null, balance_after: null, attempts: 1n });
  // The settled round's balance is the session's; neither the refusal nor the round settled by hand moved it.
  assert.equal(committedBalance(session.pk), 9_850n);
  // A 200 whose balance the currency cannot hold exactly is booked, its balance not believed.
  const odd = store.beginRealRound(roundOf(session, 3), SEED);
  await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
  await store.outbox.sent(odd.dispatchItemId!, 'node', OK('{"balance":1.005}'), NOW + 4);
  await store.durable();
  assert.deepEqual(committedRound(odd.pk), { status: 'settled', refusal_code: null, refusal_detail: null, balance_after: null, attempts: 1n });
  assert.equal(committedBalance(session.pk), 9_850n);
});

test('a round that cannot be finished rolls back the final answer with it: the item stays pending and is sent again', async () => {
  const session = openSession();
  const begun = store.beginRealRound(roundOf(session, 0), SEED);
  await store.outbox.claim(NOW, 'node', { ...CLAIM_LIMITS, leaseMs: 1_000 });
  const db = (store as unknown as { db: Database.Database }).db;
  db.exec("CREATE TEMP TRIGGER rounds_stuck BEFORE UPDATE OF status ON rounds BEGIN SELECT RAISE(ABORT, 'the round log refused the update'); END");
  await assert.rejects(store.outbox.sent(begun.dispatchItemId!, 'node', OK('{"balance":1}'), NOW + 1), /refused the update/);
  await assert.rejects(store.outbox.refused(begun.dispatchItemId!, 'node', { status: 409, detail: 'no' }, NOW + 1), /refused the update/);
  await store.durable();
  assert.deepEqual(committedItems().map((one) => one.status), ['pending']);
  assert.equal(committedRound(begun.pk).status, 'pending');
  db.exec('DROP TRIGGER rounds_stuck');
  const [again] = await store.outbox.claim(NOW + 1_000, 'node', CLAIM_LIMITS);
  assert.equal(again?.id, begun.dispatchItemId);
  assert.ok(await store.outbox.sent(again!.id, 'node', OK('{"balance":1}'), NOW + 1_001));
  await store.durable();
  assert.equal(committedRound(begun.pk).status, 'settled');
});

test('a crash between the final answer on the item and the round it settles keeps neither: the item is sent again after a restart', async () => {
  const session = openSession();
  const begun = store.beginRealRound(roundOf(session, 0), SEED);
  await store.durable();
  await store.close();
  // Another process records the operator's 200 and dies in that database transaction: after the item's update, before the round's.
  const child = `
    const [storeUrl, path, now] = process.argv.slice(1);
    const { ProviderStore } = await import(storeUrl);
    const store = ProviderStore.open(path);
    store.db.function('crash', () => process.kill(process.pid, 'SIGKILL'));
    store.db.exec('CREATE TEMP TRIGGER crash_before_round BEFORE UPDATE OF status ON rounds BEGIN SELECT crash(); END');
    const [item] = await store.outbox.claim(Number(now), 'child', { batchSizeMax: 1, operatorInFlightMax: 1, leaseMs: 1 });
    await store.outbox.sent(item.id, 'child', { status: 200, detail: 'HTTP 200', body: '{"balance":1}' }, Number(now));
    await store.durable();
    console.log('the process lived on');
  `;
  const storeUrl = new URL('../../src/provider/provider-store.js', import.meta.url).href;
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', child, storeUrl, path, String(NOW + 1)], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(ran.signal, 'SIGKILL', `${ran.stdout}${ran.stderr}`);

  store = ProviderStore.open(path);
  const item = await store.outbox.item(begun.dispatchItemId!);
  assert.equal(item?.status, 'pending');
  assert.equal(item?.attempts, 1, 'the claim had committed');
  assert.equal(store.round(begun.pk).status, 'pending');
  const [again] = await store.outbox.claim(NOW + 2, 'node', CLAIM_LIMITS);
  assert.equal(again?.id, begun.dispatchItemId);
  assert.ok(await store.outbox.sent(again!.id, 'node', OK('{"balance":1}'), NOW + 3));
  assert.equal(store.round(begun.pk).status, 'settled');
  assert.equal(store.round(begun.pk).attempts, 2);
});
