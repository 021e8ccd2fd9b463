/**
 * Proves what only the PostgreSQL outbox (src/dispatch/postgres/outbox.ts)
 * has to prove; its contract is proved with every backend's in
 * outbox-contract.test.ts:
 * - three nodes, each on a pool of its own, claim and answer at the same
 *   time over a few hundred items of several keys and operators while one
 *   of them dies holding its leases: no item is leased to two nodes at
 *   once, a key's next item is never claimed before the one before it is
 *   final, no operator ever has more in flight than its limit (checked by
 *   each claim and by a watcher reading the table meanwhile), the dead
 *   node's items are taken by the others once its leases run out and not
 *   before, and every item ends final;
 * - a claim leaves an operator that another node's claim holds to that
 *   claim, and claims the other operators' items at once;
 * - the table is a migration a caller's own list includes, applied once,
 *   with CHECK constraints that refuse what the outbox never writes;
 * - a serialization failure or deadlock in an outcome's transaction is run
 *   again, a bounded number of times, and then reaches the caller with
 *   nothing applied;
 * - two open transactions adding to one key at once: the later fails and
 *   changes nothing.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimLimits, NewItem, Outbox, OutboxItem } from '../../../src/dispatch/outbox.js';
import { CONFLICT_RETRIES_MAX, OUTBOX_MIGRATION, PostgresOutbox } from '../../../src/dispatch/postgres/outbox.js';
import { migrate } from '../../../src/platform/postgres/migrate.js';
import { openDatabase } from '../../../src/platform/postgres/open-database.js';
import { mulberry32 } from '../../harness/seeded-random.js';
import { freshSchema, POSTGRES_UNAVAILABLE, type Schema } from '../../stores/postgres-fixtures.js';
import { OUTBOX_BACKENDS, TEST_POOL, type OutboxDatabase } from '../outbox-backends.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const postgresBackend = OUTBOX_BACKENDS.find((backend) => backend.name === 'postgres');
const skip = postgresBackend === undefined ? 'STORES leaves PostgreSQL out' : POSTGRES_UNAVAILABLE;

function item(operatorId: string, orderingKey: string, extra: Partial<NewItem> = {}): NewItem {
  return { operatorId, orderingKey, kind: 'bet', path: '/transaction', body: JSON.stringify({ orderingKey }), ...extra };
}

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('PostgreSQL outbox', { skip }, () => {
  let db: OutboxDatabase;

  beforeEach(async () => {
    db = await postgresBackend!.open('pg');
  });

  afterEach(async () => {
    await db.close();
  });

  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  test('three nodes claiming at once, one of them dying with its leases: one lease per item, key order, the operator limit, every item final', async () => {
    const random = mulberry32(7);
    const draw = (n: number) => Math.floor(random() * n);
    const operators = ['op-0', 'op-1', 'op-2', 'op-3'];
    const items: NewItem[] = [];
    for (const operatorId of operators) {
      for (let key = 0; key < 20; key += 1) {
        const count = 1 + draw(6);
        for (let n = 0; n < count; n += 1) items.push(item(operatorId, `${operatorId}/k${key}`, { afterRefusal: 'continue', kind: n === 0 ? 'bet' : 'win' }));
      }
    }
    // Shuffled, so that a key's items are spread over the ids; each key's order is the order they are enqueued in.
    for (let i = items.length - 1; i > 0; i -= 1) {
      const j = draw(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    for (let start = 0; start < items.length; start += 50) await db.enqueue(items.slice(start, start + 50), NOW);
    const total = items.length;
    assert.ok(total >= 200, `${total} items`);

    const limits: ClaimLimits = { batchSizeMax: 5, operatorInFlightMax: 3, leaseMs: 20_000 };
    /** The shared clock, moved on by every node: a claim counts 1 ms, an empty claim 500 ms. */
    let now = NOW;
    /** What each node holds: leased to it, and its outcome not yet asked for. */
    const held = new Map<number, { node: string; until: number; operatorId: string }>();
    /** Per key, the sequences final or being made final. */
    const finished = new Map<string, Set<number>>();
    let finals = 0;
    const violations: string[] = [];
    let claiming = 0;
    let claimingMax = 0;
    const deadNode = 'c';
    let deadHeld: OutboxItem[] = [];
    const takenFromDead: { id: number; at: number }[] = [];

    const nodes = ['a', 'b', 'c'].map((name) => ({ name, outbox: db.node() }));

    function checkClaim(node: string, at: number, claimed: OutboxItem[]): void {
      for (const one of claimed) {
        const holder = held.get(one.id);
        if (holder && holder.until > at) violations.push(`item ${one.id} leased to ${node} at ${at} while ${holder.node} holds it until ${holder.until}`);
        const done = finished.get(one.orderingKey) ?? new Set<number>();
        for (let earlier = 1; earlier < one.sequence; earlier += 1) {
          if (!done.has(earlier)) violations.push(`${one.orderingKey}: item ${one.sequence} claimed before item ${earlier} was final`);
        }
        if (deadHeld.some((dead) => dead.id === one.id) && !takenFromDead.some((taken) => taken.id === one.id)) takenFromDead.push({ id: one.id, at });
        held.set(one.id, { node, until: at + limits.leaseMs, operatorId: one.operatorId });
      }
      for (const operatorId of operators) {
        const inFlight = [...held.values()].filter((one) => one.operatorId === operatorId && one.until > at).length;
        if (inFlight > limits.operatorInFlightMax) violations.push(`${operatorId}: ${inFlight} in flight after ${node}'s claim at ${at}`);
      }
    }

    async function runNode(name: string, outbox: Outbox): Promise<void> {
      for (let turn = 0; finals < total; turn += 1) {
        assert.ok(turn < 5_000, `node ${name} still looping after ${turn} turns, ${finals} of ${total} final`);
        const at = now;
        now += 1;
        claiming += 1;
        claimingMax = Math.max(claimingMax, claiming);
        const claimed = await outbox.claim(at, name, limits).finally(() => (claiming -= 1));
        checkClaim(name, at, claimed);
        if (name === deadNode && turn >= 6 && claimed.length > 0) {
          // The node dies mid-send: its leases stay in the table, and nobody answers for them.
          deadHeld = claimed;
          return;
        }
        if (claimed.length === 0) {
          now += 500;
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        for (const one of claimed) {
          held.delete(one.id);
          const fate = draw(20);
          if (fate < 3) {
            assert.ok(await outbox.retryLater(one.id, name, now + 3, { status: 503, detail: 'busy' }));
            continue;
          }
          const done = finished.get(one.orderingKey) ?? new Set<number>();
          done.add(one.sequence);
          finished.set(one.orderingKey, done);
          finals += 1;
          if (fate < 4) assert.ok((await outbox.refused(one.id, name, { status: 409, code: 'CONFLICT', detail: 'no' }, now)).applied);
          else assert.ok(await outbox.sent(one.id, name, { status: 200, detail: 'OK' }, now));
        }
      }
    }

    /** Reads the table meanwhile: at no moment has an operator more live leases than its limit. */
    let watching = true;
    let watched = 0;
    async function watch(): Promise<void> {
      const reader = db.node();
      while (watching) {
        for (const entry of await countLiveLeases(reader, now)) {
          if (entry.count > limits.operatorInFlightMax) violations.push(`${entry.operatorId}: ${entry.count} live leases in the table at ${now}`);
        }
        watched += 1;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }

    const watcher = watch();
    try {
      await Promise.all(nodes.map(({ name, outbox }) => runNode(name, outbox)));
    } finally {
      watching = false;
      await watcher;
    }

    assert.deepEqual(violations, []);
    assert.ok(claimingMax >= 2, 'claims overlapped');
    assert.ok(watched > 0);
    assert.ok(deadHeld.length > 0, 'the dead node died holding items');
    // Each item the dead node held was taken by another once its lease ran out, and not before.
    const deadUntil = Math.max(...deadHeld.map((one) => one.leaseExpiresAt!));
    assert.deepEqual(takenFromDead.map((one) => one.id).sort(), deadHeld.map((one) => one.id).sort());
    for (const taken of takenFromDead) assert.ok(taken.at >= deadUntil, `item ${taken.id} taken at ${taken.at}, its lease ran to ${deadUntil}`);
    const outbox = db.node();
    for (const dead of deadHeld) {
      const after = await outbox.item(dead.id);
      assert.ok(after!.attempts >= 2, `item ${dead.id} attempted again`);
      assert.equal(await outbox.retryLater(dead.id, deadNode, now, { detail: 'ETIMEDOUT' }), false, "the dead node's late retry applies to nothing");
    }
    assert.deepEqual(await outbox.list({ status: 'pending' }), []);
    const sent = (await outbox.list({ status: 'sent' })).length;
    const refused = (await outbox.list({ status: 'refused' })).length;
    assert.equal(sent + refused, total);
  });

  test('an operator another node is claiming for is left to it; the others are claimed', async () => {
    const [first, second] = await db.enqueue([item('op-1', 'r-1'), item('op-2', 'r-2')], NOW);
    const outbox = db.node();
    // Another node's claim for op-1, in progress: it holds op-1's claim lock until it commits.
    const other = openDatabase(db.url!, TEST_POOL, 'wagerlink-outbox-test');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const claiming = other.begin(async (dbTx) => {
      await dbTx`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('dispatch:' || ${'op-1'}::text))`;
      locked();
      await released;
    });
    try {
      await Promise.race([holding, claiming]);
      const limits = { batchSizeMax: 10, operatorInFlightMax: 10, leaseMs: 30_000 };
      assert.deepEqual(
        (await outbox.claim(NOW, 'a', limits)).map((one) => one.id),
        [second],
        'op-2 only, and at once',
      );
      release();
      await claiming;
      assert.deepEqual(
        (await outbox.claim(NOW, 'a', limits)).map((one) => one.id),
        [first],
        'op-1 once the other claim is over',
      );
    } finally {
      release();
      await claiming.catch(() => {});
      await other.end({ timeout: 5 });
    }
  });

  test('two open transactions adding to one key at once: the later fails and changes nothing', async () => {
    const first = await db.enqueueOpen(item('op-1', 'r-1'), NOW);
    // Its refusal is taken from the start: it may arrive before the await after the first's commit returns here.
    const second = db.enqueue([item('op-1', 'r-1', { kind: 'win' })], NOW).then(
      () => undefined,
      (error: { code?: string }) => error,
    );
    // The later insert waits for the first transaction's row in the key's unique index before that one commits.
    for (let waits = 0; !(await insertWaiting()); waits += 1) {
      assert.ok(waits < 500, 'the later insert waits on the first');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await first.commit();
    assert.equal((await second)?.code, '23505', 'the later insert fails on the key');
    const outbox = db.node();
    assert.deepEqual(
      (await outbox.list({ status: 'pending' })).map((one) => [one.kind, one.sequence]),
      [['bet', 1]],
    );
    assert.equal(await db.causes(), 0, 'the later transaction wrote nothing');
    await db.enqueue([item('op-1', 'r-1', { kind: 'win' })], NOW);
    assert.deepEqual(
      (await outbox.list({ status: 'pending' })).map((one) => [one.kind, one.sequence]),
      [
        ['bet', 1],
        ['win', 2],
      ],
    );
  });

  test('a conflict in an outcome’s transaction is run again, a bounded number of times, then reaches the caller with nothing applied', async () => {
    const conflict = (code: string) => Object.assign(new Error(`conflict ${code}`), { code });
    let calls = 0;
    let failures = 2;
    const outbox = db.node({
      onFinal: () => {
        calls += 1;
        if (failures > 0) {
          failures -= 1;
          throw conflict(calls % 2 === 0 ? '40P01' : '40001');
        }
      },
    });
    const [first, second] = await db.enqueue([item('op-1', 'r-1'), item('op-1', 'r-2')], NOW);
    await outbox.claim(NOW, 'a', { batchSizeMax: 10, operatorInFlightMax: 10, leaseMs: 30_000 });
    assert.ok(await outbox.sent(first!, 'a', { status: 200, detail: 'OK' }, NOW));
    assert.equal(calls, 3, 'two conflicts, then the run that commits');
    assert.deepEqual(await db.notes(), [{ itemId: first, outcome: 'sent' }]);

    calls = 0;
    failures = Infinity;
    await assert.rejects(outbox.sent(second!, 'a', { status: 200, detail: 'OK' }, NOW), /conflict/);
    assert.equal(calls, CONFLICT_RETRIES_MAX + 1);
    assert.equal((await outbox.item(second!))?.status, 'pending');
    assert.equal((await db.notes()).length, 1);
  });
});

describe('PostgreSQL outbox: its migration', { skip }, () => {
  let schema: Schema;
  beforeEach(async () => {
    schema = await freshSchema('outbox_migration');
  });
  afterEach(async () => {
    await schema.drop();
  });

  test("is a version a caller's own list includes, applied once, and its CHECKs refuse what the outbox never writes", async () => {
    const sql = openDatabase(schema.url(), TEST_POOL, 'wagerlink-outbox-test');
    try {
      const list = [
        { version: 1, name: 'rounds', sql: 'CREATE TABLE rounds (id bigint PRIMARY KEY, dispatch_item_id bigint)' },
        { version: 2, ...OUTBOX_MIGRATION },
      ];
      assert.deepEqual(await migrate(sql, list), [1, 2]);
      assert.deepEqual(await migrate(sql, list), [], 'nothing left to do');
      const { id } = await sql.begin(async (dbTx) => {
        const added = await PostgresOutbox.enqueue(dbTx, item('op-1', 'r-1'), NOW);
        await dbTx`INSERT INTO rounds (id, dispatch_item_id) VALUES (1, ${added.id})`;
        return added;
      });
      const [round] = await sql<{ dispatch_item_id: string }[]>`SELECT dispatch_item_id FROM rounds`;
      assert.equal(Number(round!.dispatch_item_id), id);
      for (const [column, value] of [
        ['status', 'lost'],
        ['kind', 'refund'],
        ['after_refusal', 'maybe'],
        ['sequence', 0],
        ['attempts', -1],
      ] as const) {
        await assert.rejects(
          sql.unsafe(`UPDATE dispatch_items SET ${column} = $1 WHERE id = $2`, [value, id]),
          (error: { code?: string }) => error.code === '23514',
          `${column} = ${value}`,
        );
      }
      const outbox = new PostgresOutbox(sql);
      assert.equal((await outbox.item(id))?.status, 'pending');
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});

/** An insert into the outbox's table is waiting for a lock in this database. */
async function insertWaiting(): Promise<boolean> {
  const admin = openDatabase(process.env.DATABASE_URL!, { ...TEST_POOL, poolSize: 1 }, 'wagerlink-outbox-test');
  try {
    const rows = await admin`SELECT 1 FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO dispatch_items%'`;
    return rows.length > 0;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

async function countLiveLeases(outbox: Outbox, at: number): Promise<{ operatorId: string; count: number }[]> {
  // Through the contract only: the pending items listed, those whose lease runs past `at`.
  const pending = await outbox.list({ status: 'pending' });
  const counts = new Map<string, number>();
  for (const one of pending) if ((one.leaseExpiresAt ?? 0) > at) counts.set(one.operatorId, (counts.get(one.operatorId) ?? 0) + 1);
  return [...counts].map(([operatorId, count]) => ({ operatorId, count }));
}
