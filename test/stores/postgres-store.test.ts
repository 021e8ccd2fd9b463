/**
 * What only the PostgreSQL store has to prove, beyond the contract suite:
 * its migrations keep the SQLite versions and are safe when nodes start
 * together, and version 5 keeps the launch keys a version 4 schema held in
 * clear as digests only, each still opening its session, and version 8
 * gives the sessions opened before it to `default`, refusing another
 * integration's calls on them; two stores on one database (two nodes) never apply an id twice;
 * a statement time-out, a terminated connection and a database that cannot
 * be reached answer UnavailableError (503) with nothing half-applied, and the
 * store recovers by itself once the database answers again.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { launchKeyDigest } from '../../src/ledger/rules.js';
import { UnavailableError } from '../../src/protocol/errors.js';
import type { TransactionRequest } from '../../src/protocol/schemas.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/stores/postgres/migrations.js';
import { isRetryable, isUnavailable, ClaimLostError } from '../../src/platform/postgres/errors.js';
import { GGR } from '../../src/stores/postgres/ledger-reads.js';
import { pgArray } from '../../src/stores/postgres/ledger-rows.js';
import { PostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { migrateDatabase } from '../../src/stores/open-store.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/stores/sqlite/migrations.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { DAY_MS } from '../../src/stores/store.js';
import { DATABASE_URL, freshSchema, openPostgresStore, openTwoPostgresStores, POSTGRES_UNAVAILABLE, type Schema } from './postgres-fixtures.js';
import { ggrOfThreeDays, NOW as FIXTURES_NOW } from './store-fixtures.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function ids(prefix: number) {
  let next = 0;
  return () => `${prefix.toString(16).padStart(8, '0')}-0000-4000-8000-${(++next).toString(16).padStart(12, '0')}`;
}

async function open(store: WalletStore, id: () => string, playerId: string, balance: number) {
  assert.ok((await store.createPlayer({ playerId, currency: 'EUR', balance, depositId: id(), now: NOW })).ok);
  const key = `key-${playerId}`;
  assert.ok((await store.createLaunchKey({ playerId, game: 'dice', key, now: NOW })).ok);
  const auth = await store.authenticate({ key, game: 'dice', now: NOW, newSessionId: id() });
  assert.ok(auth.ok, JSON.stringify(auth));
  return { sessionId: auth.sessionId, playerId, game: 'dice' };
}

function betOf(s: { sessionId: string; playerId: string; game: string }, id: () => string, amount = 1): TransactionRequest {
  return { ...s, transactions: [{ id: id(), type: 'bet', amount }], round: { id: id(), finished: true } };
}

async function bookedBets(store: WalletStore, playerId: string): Promise<string[]> {
  const found: string[] = [];
  let before: bigint | undefined;
  for (let page = 0; page < 100; page++) {
    const listed = await store.listTransfers({ playerId, limit: 500, before });
    assert.ok(listed.ok);
    found.push(...listed.items.filter((item) => item.kind === 'bet').map((item) => item.id));
    if (listed.next === null) return found;
    before = listed.next;
  }
  throw new Error('listing did not end');
}

/** Resends a call answered UnavailableError, as every caller does (docs/protocol.md §3), a bounded number of times. */
const RESENDS_MAX = 10;
async function resendingOn503<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof UnavailableError) || attempt >= RESENDS_MAX) throw error;
    }
  }
}

describe('postgres store: without a database', () => {
  test('migrations: the ledger is version 1 in both stores; each store numbers its later ones in order', () => {
    assert.deepEqual(POSTGRES_MIGRATIONS[0]!.name, SQLITE_MIGRATIONS[0]!.name);
    for (const list of [POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS]) {
      assert.deepEqual(
        list.map((m) => m.version),
        list.map((_m, i) => i + 1),
      );
    }
  });

  test('arrays travel as literals that keep every element exact', () => {
    assert.equal(pgArray([]), '{}');
    assert.equal(pgArray(['a', null, 'NULL', 'x,y', 'q"u\\o', '', ' sp ']), '{"a",NULL,"NULL","x,y","q\\"u\\\\o",""," sp "}');
  });

  test('errors: PostgreSQL aborts are retried, lost connections and time-outs are 503, bugs are neither', () => {
    const withCode = (code: string) => Object.assign(new Error(code), { code });
    for (const code of ['40001', '40P01']) assert.ok(isRetryable(withCode(code)), code);
    assert.ok(isRetryable(new ClaimLostError('x')));
    for (const code of ['57014', '57P01', '08006', '53300', '25006', 'ECONNREFUSED', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT']) {
      assert.ok(isUnavailable(withCode(code)), code);
      assert.ok(!isRetryable(withCode(code)), code);
    }
    for (const code of ['23505', '42P01', 'XX000', '22003']) {
      assert.ok(!isUnavailable(withCode(code)) && !isRetryable(withCode(code)), code);
    }
    assert.ok(!isUnavailable(new Error('no code')));
  });
});

describe('postgres store: migrations', { skip: POSTGRES_UNAVAILABLE }, () => {
  let schema: Schema;
  before(async () => {
    schema = await freshSchema('migrate');
  });
  after(async () => schema.drop());

  test('nodes that start together apply each version once', async () => {
    const stores = await Promise.all(Array.from({ length: 3 }, () => PostgresStore.open({ url: schema.url(), settings: { poolSize: 1 } })));
    await Promise.all(stores.map((store) => store.close()));
    const rows = await schema.admin.unsafe(`SELECT version, name FROM ${schema.name}.schema_migrations ORDER BY version`);
    assert.deepEqual(
      rows.map((row) => [row.version, row.name]),
      POSTGRES_MIGRATIONS.map((m) => [m.version, m.name]),
    );
    assert.deepEqual(await migrateDatabase(schema.url()), []);
  });

  test('a version 3 schema gains the transfers-by-time index: the GGR report reads its span through it and sums the same', async () => {
    const url = schema.url();
    await migrateDatabase(url);
    // Sequential scans off: on a handful of rows a scan is the cheaper plan, and the question is whether the
    // index serves this query at all.
    const plan = () =>
      schema.admin.begin(async (dbTx) => {
        await dbTx.unsafe(`SET LOCAL search_path = ${schema.name}`);
        await dbTx`SET LOCAL enable_seqscan = off`;
        const rows = await dbTx.unsafe(`EXPLAIN ${GGR}`, [FIXTURES_NOW, FIXTURES_NOW + DAY_MS, null]);
        return rows.map((row) => row['QUERY PLAN'] as string).join('\n');
      });
    // Bets over three days, booked by the store; then the schema as version 3 left it. Version 4 adds the
    // index and nothing else, so without the index and its row the schema is a version 3 one.
    const span = { from: FIXTURES_NOW, to: FIXTURES_NOW + 3 * DAY_MS };
    const before = await ggrOfThreeDays(() => PostgresStore.open({ url, settings: { poolSize: 1 } }));
    await schema.admin.unsafe(`DROP INDEX ${schema.name}.transfers_by_time; DELETE FROM ${schema.name}.schema_migrations WHERE version = 4`);
    // Version 3 has no index on the time: the span is a filter over every transfer, read in some other order.
    assert.doesNotMatch(await plan(), /Index Cond: \(\(created_at >=/, 'version 3 reads every transfer');

    const reopened = await PostgresStore.open({ url, settings: { poolSize: 1 } });
    try {
      assert.deepEqual(await reopened.ggr(span), before);
    } finally {
      await reopened.close();
    }
    assert.match(await plan(), /(Index Scan using|Bitmap Index Scan on) transfers_by_time\b.*\n\s+Index Cond: \(\(created_at >= .* AND \(created_at < /);
    const rows = await schema.admin.unsafe(`SELECT version FROM ${schema.name}.schema_migrations ORDER BY version`);
    assert.deepEqual(
      rows.map((row) => row.version),
      POSTGRES_MIGRATIONS.map((m) => m.version),
    );
  });
});

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('postgres store: launch-key digests', { skip: POSTGRES_UNAVAILABLE }, () => {
  let schema: Schema;
  before(async () => {
    schema = await freshSchema('digests');
  });
  after(async () => schema.drop());

  // eslint-disable-next-line max-lines-per-function -- a test: one scenario told in order, which splitting would scatter
  test('a version 4 schema keeps its launch keys as digests after version 5, and each key still opens its session', async () => {
    const url = schema.url();
    // Keys made and one used by the store; then the launch_keys table as version 4 left it: the keys in clear.
    const keys = [randomBytes(32), randomBytes(32), randomBytes(32)].map((bytes) => bytes.toString('base64url'));
    const store = await PostgresStore.open({ url, settings: { poolSize: 1 } });
    let sessionId: string;
    try {
      for (const playerId of ['k-ann', 'k-bob']) {
        assert.ok((await store.createPlayer({ playerId, currency: 'EUR', balance: 5, depositId: randomUUID(), now: NOW })).ok);
      }
      for (const [i, key] of keys.entries()) assert.ok((await store.createLaunchKey({ playerId: i < 2 ? 'k-ann' : 'k-bob', game: 'dice', key, now: NOW })).ok);
      const opened = await store.authenticate({ key: keys[0]!, game: 'dice', now: NOW, newSessionId: randomUUID() });
      assert.ok(opened.ok);
      sessionId = opened.sessionId;
    } finally {
      await store.close();
    }
    const keyOf = new Map(keys.map((key) => [launchKeyDigest(key).toString('hex'), key]));
    const table = `${schema.name}.launch_keys`;
    const rows = await schema.admin.unsafe(`SELECT id, key_hash, player_pk, game, created_at, expires_at, session_pk FROM ${table} ORDER BY id`);
    const version1 = /CREATE TABLE launch_keys \([^;]*\);/.exec(POSTGRES_MIGRATIONS[0]!.sql)![0].replace('launch_keys', table);
    await schema.admin.begin(async (dbTx) => {
      // Version 10 added a column to the table: it runs again on the table as version 1 made it.
      await dbTx.unsafe(`DROP TABLE ${table}; ${version1} DELETE FROM ${schema.name}.schema_migrations WHERE version IN (5, 10)`);
      for (const row of rows) {
        await dbTx.unsafe(
          `INSERT INTO ${table} (id, key, player_pk, game, created_at, expires_at, session_pk) OVERRIDING SYSTEM VALUE
          VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [row.id, keyOf.get((row.key_hash as Buffer).toString('hex'))!, row.player_pk, row.game, row.created_at, row.expires_at, row.session_pk],
        );
      }
      await dbTx.unsafe(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`);
    });
    // A control: version 4 holds the keys in clear.
    const before4 = await schema.admin.unsafe(`SELECT key FROM ${table} ORDER BY id`);
    assert.deepEqual(
      before4.map((row) => row.key),
      keys,
    );

    const reopened = await PostgresStore.open({ url, settings: { poolSize: 1 } });
    try {
      const reload = await reopened.authenticate({ key: keys[0]!, game: 'dice', now: NOW + 1, newSessionId: randomUUID() });
      assert.ok(reload.ok && reload.sessionId === sessionId, JSON.stringify(reload));
      for (const key of keys.slice(1)) {
        const opened = await reopened.authenticate({ key, game: 'dice', now: NOW + 1, newSessionId: randomUUID() });
        assert.ok(opened.ok && opened.sessionId !== sessionId, JSON.stringify(opened));
      }
      // New keys take ids after the copied ones.
      const more = randomBytes(32).toString('base64url');
      assert.ok((await reopened.createLaunchKey({ playerId: 'k-bob', game: 'dice', key: more, now: NOW + 2 })).ok);
      assert.ok((await reopened.authenticate({ key: more, game: 'dice', now: NOW + 2, newSessionId: randomUUID() })).ok);
    } finally {
      await reopened.close();
    }
    const columns = await schema.admin<{ name: string }[]>`SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = ${schema.name} AND table_name = 'launch_keys' ORDER BY ordinal_position`;
    assert.deepEqual(
      columns.map((column) => column.name),
      ['id', 'key_hash', 'player_pk', 'game', 'created_at', 'expires_at', 'session_pk', 'integration_id'],
    );
    const stored = await schema.admin.unsafe(`SELECT id, key_hash FROM ${table} ORDER BY id`);
    assert.deepEqual(
      stored.slice(0, 3).map((row) => keyOf.get((row.key_hash as Buffer).toString('hex'))),
      keys,
    );
    assert.deepEqual(
      stored.map((row) => Number(row.id)),
      rows.map((row) => Number(row.id)).concat(Number(rows.at(-1)!.id) + 1),
    );
    const versions = await schema.admin.unsafe(`SELECT version FROM ${schema.name}.schema_migrations ORDER BY version`);
    assert.deepEqual(
      versions.map((row) => row.version),
      POSTGRES_MIGRATIONS.map((m) => m.version),
    );
  });
});

describe('postgres store: session integrations', { skip: POSTGRES_UNAVAILABLE }, () => {
  let schema: Schema;
  before(async () => {
    schema = await freshSchema('sessionint');
  });
  after(async () => schema.drop());

  test("a version 7 schema's sessions belong to `default` after version 8: its calls book, another integration's are refused", async () => {
    const url = schema.url();
    const key = randomBytes(32).toString('base64url');
    const store = await PostgresStore.open({ url, settings: { poolSize: 1 } });
    let sessionId: string;
    try {
      assert.ok((await store.createPlayer({ playerId: 'i-ann', currency: 'EUR', balance: 5, depositId: randomUUID(), now: NOW })).ok);
      assert.ok((await store.createLaunchKey({ playerId: 'i-ann', game: 'dice', key, now: NOW })).ok);
      const opened = await store.authenticate({ key, game: 'dice', now: NOW, newSessionId: randomUUID() });
      assert.ok(opened.ok);
      sessionId = opened.sessionId;
    } finally {
      await store.close();
    }
    // The sessions table as version 7 left it: no integration column.
    await schema.admin.unsafe(`ALTER TABLE ${schema.name}.sessions DROP COLUMN integration_id; DELETE FROM ${schema.name}.schema_migrations WHERE version = 8`);

    const reopened = await PostgresStore.open({ url, settings: { poolSize: 1 } });
    try {
      const bet = (integrationId?: string) =>
        reopened.transact({
          request: checkedTransaction({
            sessionId,
            playerId: 'i-ann',
            game: 'dice',
            transactions: [{ id: randomUUID(), type: 'bet', amount: 1 }],
            round: { id: randomUUID(), finished: true },
          }),
          now: NOW + 1,
          ...(integrationId === undefined ? {} : { integrationId }),
        });
      const foreign = await bet('studio-a');
      assert.ok(!foreign.ok && foreign.code === 'INTEGRATION_MISMATCH', JSON.stringify(foreign));
      const reload = await reopened.authenticate({ key, game: 'dice', now: NOW + 1, newSessionId: randomUUID(), integrationId: 'studio-a' });
      assert.ok(!reload.ok && reload.code === 'INTEGRATION_MISMATCH', JSON.stringify(reload));
      const own = await bet();
      assert.ok(own.ok && own.balance === '4', JSON.stringify(own));
      assert.ok((await reopened.authenticate({ key, game: 'dice', now: NOW + 2, newSessionId: randomUUID() })).ok);
    } finally {
      await reopened.close();
    }
    const sessions = await schema.admin.unsafe(`SELECT integration_id FROM ${schema.name}.sessions`);
    assert.deepEqual(
      sessions.map((row) => row.integration_id),
      ['default'],
    );
    const versions = await schema.admin.unsafe(`SELECT version FROM ${schema.name}.schema_migrations ORDER BY version`);
    assert.deepEqual(
      versions.map((row) => row.version),
      POSTGRES_MIGRATIONS.map((m) => m.version),
    );
  });
});

describe('postgres store: two nodes on one database', { skip: POSTGRES_UNAVAILABLE }, () => {
  let first: PostgresStore;
  let second: PostgresStore;
  let cleanup: () => Promise<void>;
  const id = ids(0x2d0de);
  before(async () => {
    ({ first, second, cleanup } = await openTwoPostgresStores('twonodes'));
  });
  after(async () => cleanup());

  test('the same request sent to both at once applies once', async () => {
    const s = await open(first, id, 'two-same', 100);
    for (let i = 0; i < 10; i++) {
      const request = betOf(s, id, 5);
      const outcomes = await Promise.all([first, second, first, second].map((store) => store.transact({ request: checkedTransaction(request), now: NOW })));
      for (const outcome of outcomes) assert.ok(outcome.ok && outcome.balance === String(100 - 5 * (i + 1)), JSON.stringify(outcome));
      assert.equal(outcomes.filter((outcome) => outcome.ok && outcome.booked.length > 0).length, 1);
    }
    assert.equal((await bookedBets(first, 'two-same')).length, 10);
  });

  test('two players claiming one id through two nodes: one owns it, the other is refused', async () => {
    const left = await open(first, id, 'two-left', 100);
    const right = await open(second, id, 'two-right', 100);
    for (let i = 0; i < 20; i++) {
      const shared = id();
      const [a, b] = await Promise.all([
        first.transact({
          request: checkedTransaction({ ...left, transactions: [{ id: shared, type: 'bet', amount: 1 }], round: { id: id(), finished: true } }),
          now: NOW,
        }),
        second.transact({
          request: checkedTransaction({ ...right, transactions: [{ id: shared, type: 'bet', amount: 1 }], round: { id: id(), finished: true } }),
          now: NOW,
        }),
      ]);
      assert.equal([a, b].filter((outcome) => outcome.ok).length, 1, JSON.stringify([a, b]));
      const refused = [a, b].find((outcome) => !outcome.ok);
      assert.ok(refused && !refused.ok && refused.code === 'DUPLICATE_CONFLICT', JSON.stringify(refused));
    }
    const owned = [...(await bookedBets(first, 'two-left')), ...(await bookedBets(first, 'two-right'))];
    assert.equal(new Set(owned).size, 20);
    const report = await second.verify();
    assert.ok(report.ok, report.problems.join('\n'));
  });
});

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('postgres store: faults', { skip: POSTGRES_UNAVAILABLE }, () => {
  test('a statement time-out answers 503, applies nothing, and the next call goes through', async () => {
    const { store, schema, cleanup } = await openPostgresStore('timeout', { settings: { statementTimeoutMs: 300 } });
    try {
      const id = ids(0x71e);
      const s = await open(store, id, 'slow', 100);
      // Another session holds the wallet's row lock longer than the time-out.
      const holder = await schema.admin.reserve();
      try {
        await holder.unsafe('BEGIN');
        await holder.unsafe(
          `SELECT 1 FROM ${schema.name}.accounts WHERE id = (SELECT account_id FROM ${schema.name}.players WHERE player_id = 'slow') FOR UPDATE`,
        );
        const stuck = betOf(s, id, 10);
        await assert.rejects(store.transact({ request: checkedTransaction(stuck), now: NOW }), (error: unknown) => {
          assert.ok(error instanceof UnavailableError, String(error));
          assert.match(error.message, /statement timeout|canceling statement/);
          return true;
        });
        await holder.unsafe('ROLLBACK');
        const player = await store.getPlayer('slow');
        assert.ok(player.ok && player.balance === '100', 'nothing of the timed-out bet is booked');
        assert.deepEqual(await bookedBets(store, 'slow'), []);
        // Resent, it applies once.
        const again = await store.transact({ request: checkedTransaction(stuck), now: NOW });
        assert.ok(again.ok && again.balance === '90', JSON.stringify(again));
      } finally {
        holder.release();
      }
      const report = await store.verify();
      assert.ok(report.ok, report.problems.join('\n'));
    } finally {
      await cleanup();
    }
  });

  test('connections terminated in the middle of a load: 503s, nothing half-applied, resent bets apply once', async () => {
    const application = `wl-terminate-${process.pid}`;
    const { store, schema, cleanup } = await openPostgresStore('terminate', { parameters: { application_name: application } });
    try {
      const id = ids(0x7e3);
      const s = await open(store, id, 'cut', 1_000_000);
      const sent = new Map<string, TransactionRequest>();
      const unanswered: TransactionRequest[] = [];
      let acknowledged = 0;
      let cuts = 0;
      /** Waves of bets in flight; the connections are cut during some of them. */
      const WAVES = 12;
      const PER_WAVE = 25;
      for (let wave = 0; wave < WAVES; wave++) {
        const requests = Array.from({ length: PER_WAVE }, () => betOf(s, id, 1));
        for (const request of requests) sent.set(request.transactions[0]!.id, request);
        // Settled from the start: a call may fail while the cut below is awaited.
        const settling = Promise.allSettled(requests.map((request) => store.transact({ request: checkedTransaction(request), now: NOW })));
        if (wave % 3 === 1) {
          const killed = await schema.admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${application}`;
          cuts += killed.length;
        }
        const settled = await settling;
        settled.forEach((result, index) => {
          if (result.status === 'fulfilled') {
            assert.ok(result.value.ok, JSON.stringify(result.value));
            acknowledged++;
          } else {
            assert.ok(result.reason instanceof UnavailableError, String(result.reason));
            unanswered.push(requests[index]!);
          }
        });
      }
      assert.ok(cuts > 0, 'no connection was terminated: the test proved nothing');
      // The store recovered by itself: every unanswered bet, resent as a
      // client would (a connection killed while idle fails its next call),
      // is answered now.
      for (const request of unanswered) {
        const outcome = await resendingOn503(() => store.transact({ request: checkedTransaction(request), now: NOW }));
        assert.ok(outcome.ok, JSON.stringify(outcome));
      }
      const booked = await resendingOn503(() => bookedBets(store, 'cut'));
      assert.equal(new Set(booked).size, booked.length, 'a bet is booked twice');
      assert.deepEqual(new Set(booked), new Set(sent.keys()), 'the ledger holds exactly the bets sent');
      const player = await resendingOn503(() => store.getPlayer('cut'));
      assert.ok(player.ok && player.balance === String(1_000_000 - sent.size));
      const report = await resendingOn503(() => store.verify());
      assert.ok(report.ok, report.problems.join('\n'));
      console.log(`terminate summary: sent ${sent.size}, acknowledged first time ${acknowledged}, 503 then resent ${unanswered.length}, backends cut ${cuts}`);
    } finally {
      await cleanup();
    }
  });

  test('verify has no call deadline and a connection of its own: it outlasts the deadline while the pool serves', async () => {
    const schema = await freshSchema('verify');
    // A call deadline of 0.7 s, and a pool of one connection.
    const store = await PostgresStore.open({ url: schema.url(), settings: { poolSize: 1, statementTimeoutMs: 200, connectTimeoutS: 0.5 } });
    let release = () => {};
    try {
      const id = ids(0x7a1);
      const s = await open(store, id, 'reader', 100);
      assert.ok((await store.transact({ request: checkedTransaction(betOf(s, id, 1)), now: NOW })).ok);
      // Another session holds a lock that every read of the transfers waits for, as a verify of a large ledger takes its time.
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked = () => {};
      const lockHeld = new Promise<void>((resolve) => (locked = resolve));
      const holding = schema.admin.begin(async (tx) => {
        await tx.unsafe(`LOCK TABLE ${schema.name}.transfers IN ACCESS EXCLUSIVE MODE`);
        locked();
        await released;
      });
      await lockHeld;
      const started = Date.now();
      const verifying = store.verify();
      verifying.catch(() => {});
      // The store's one pooled connection is not the verify's: other calls are answered meanwhile.
      const player = await store.getPlayer('reader');
      assert.ok(player.ok && player.balance === '99', JSON.stringify(player));
      await sleep(1_500);
      release();
      await holding;
      const report = await verifying;
      assert.ok(report.ok, report.problems.join('\n'));
      assert.ok(Date.now() - started >= 1_500, 'the verify waited for the lock, past two call deadlines');
    } finally {
      release();
      await store.close();
      await schema.drop();
    }
  });

  test('a connection gone silent (a fail-over, a dropped route): 503 at the deadline, then the store stops, and a new one serves the resend', async () => {
    const { proxy, schema, url } = await behindProxy('silent');
    // Short time-outs: the call deadline is 1.5 s, and a batch unsettled for 3 s is a stall.
    const options = { url, settings: { poolSize: 2, statementTimeoutMs: 500, connectTimeoutS: 1 }, batchStallMs: 3_000 };
    const store = await PostgresStore.open(options);
    let next: PostgresStore | undefined;
    try {
      const id = ids(0x5e1);
      const s = await open(store, id, 'silent', 100);
      assert.ok((await store.transact({ request: checkedTransaction(betOf(s, id, 1)), now: NOW })).ok);
      let hasStopped = false;
      const stopped = new Promise<Error>((resolve) =>
        store.onFatal((error) => {
          hasStopped = true;
          resolve(error);
        }),
      );

      proxy.silence();
      const lost = betOf(s, id, 1);
      await assert.rejects(store.transact({ request: checkedTransaction(lost), now: NOW }), UnavailableError);
      // The call deadline (1.5 s) and the stall (3 s) run on the same process's timers: the first due fires first.
      assert.equal(hasStopped, false, 'the caller has its 503 at the call deadline, before the store stops at the stall');
      const error = await Promise.race([
        stopped,
        sleep(10_000, undefined, { ref: false }).then(() => assert.fail('the store never stopped: its pool stays stuck on the silent connection')),
      ]);
      assert.match(error.message, /no answer from PostgreSQL for 3000 ms/);
      await assert.rejects(store.transact({ request: checkedTransaction(lost), now: NOW }), /the store is closed/);

      // What a restart does: new connections, and the resend is answered.
      proxy.restore();
      next = await PostgresStore.open(options);
      const outcome = await next.transact({ request: checkedTransaction(lost), now: NOW });
      assert.ok(outcome.ok && outcome.balance === '98', JSON.stringify(outcome));
      const report = await next.verify();
      assert.ok(report.ok, report.problems.join('\n'));
    } finally {
      await next?.close();
      await Promise.race([store.close(), sleep(100)]);
      await proxy.close();
      await schema.drop();
    }
  });

  test('a database that cannot be reached answers 503 fast, and the store recovers when it is back', async () => {
    const { proxy, schema, url } = await behindProxy('proxy');
    // Short time-outs: the call deadline is 1.5 s.
    const store = await PostgresStore.open({ url, settings: { poolSize: 2, statementTimeoutMs: 500, connectTimeoutS: 1 } });
    try {
      const id = ids(0x9c0);
      const s = await open(store, id, 'away', 100);
      const first = await store.transact({ request: checkedTransaction(betOf(s, id, 1)), now: NOW });
      assert.ok(first.ok);

      proxy.cut();
      const lost = betOf(s, id, 1);
      await assert.rejects(store.transact({ request: checkedTransaction(lost), now: NOW }), UnavailableError);
      await assert.rejects(store.ping(), UnavailableError);

      proxy.restore();
      // Back: the store reconnects on its own. A few tries, since the first may race the restore.
      let outcome: Awaited<ReturnType<WalletStore['transact']>> | undefined;
      for (let attempt = 0; attempt < 20 && outcome === undefined; attempt++) {
        try {
          outcome = await store.transact({ request: checkedTransaction(lost), now: NOW });
        } catch (error) {
          assert.ok(error instanceof UnavailableError, String(error));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      assert.ok(outcome?.ok && outcome.balance === '98', JSON.stringify(outcome));
      await store.ping();
      const report = await store.verify();
      assert.ok(report.ok, report.problems.join('\n'));
    } finally {
      await store.close();
      await proxy.close();
      await schema.drop();
    }
  });
});

/** A fresh schema reached through a CuttableProxy: the URL points at the proxy. */
async function behindProxy(label: string): Promise<{ proxy: CuttableProxy; schema: Schema; url: string }> {
  const target = new URL(DATABASE_URL!);
  const proxy = new CuttableProxy(target.hostname, Number(target.port || 5432));
  const port = await proxy.listen();
  const schema = await freshSchema(label);
  const via = new URL(schema.url());
  via.hostname = '127.0.0.1';
  via.port = String(port);
  return { proxy, schema, url: via.toString() };
}

/**
 * A TCP proxy to the database that can drop every connection and refuse new
 * ones, or go silent (keep every connection open, accept new ones, and pass
 * nothing on), then let them through again.
 */
class CuttableProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private down = false;
  private silent = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {
    this.server = createServer((client) => {
      if (this.down) {
        client.destroy();
        return;
      }
      if (this.silent) {
        this.sockets.add(client);
        client.on('close', () => this.sockets.delete(client));
        client.on('error', () => client.destroy());
        client.pause();
        return;
      }
      const upstream = connect(this.port, this.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return (this.server.address() as { port: number }).port;
  }

  cut(): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
  }

  /** As a database that failed over, or a route that was dropped: no reset, no answer. */
  silence(): void {
    this.silent = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
    }
  }

  /** Lets new connections through again; the ones cut or silenced stay dead. */
  restore(): void {
    this.down = false;
    this.silent = false;
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    this.server.close();
    await once(this.server, 'close');
  }
}
