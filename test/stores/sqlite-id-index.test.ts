/**
 * The SQLite id indexes (id-index.ts) answer like a unique index: an id is
 * found whether it is still in memory or already merged, after a merge, a
 * rollback, a restart, and another connection's commit; merges keep every
 * bucket's mark close to the newest row even when ids are not random; and
 * an id held twice is a crash, never an answer. The filter over merged ids
 * never misses one, whoever merged it. Through the store, replays of merged
 * ids stay replays and the books verify.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { bucketOf, ID_BUCKETS, IdIndex, MERGE_IDS, MergedIdFilter } from '../../src/stores/sqlite/id-index.js';
import { migrate } from '../../src/stores/sqlite/migrations.js';
import { openDatabase } from '../../src/platform/sqlite/open-database.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { uuidToBytes } from '../../src/stores/uuid-bytes.js';
import { tempDir } from '../helpers.js';
import { NOW, openSession, singleBet } from './store-fixtures.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

/** A random UUID whose first byte, and so its bucket, is `byte` (two hex digits). */
function idIn(byte: string): string {
  return byte + randomUUID().slice(2);
}

function withDatabase(run: (db: Database.Database, path: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    const db = openDatabase(path);
    try {
      migrate(db);
      db.prepare("INSERT INTO players (player_id, account_id, currency, created_at) VALUES ('p', 1, 'EUR', 0)").run();
      await run(db, path);
    } finally {
      db.close();
      cleanup();
    }
  };
}

/** Inserts a round under `key` as the ledger does, and tells the index. */
function addRound(db: Database.Database, index: IdIndex, key: string): bigint {
  assert.equal(index.find(key, uuidToBytes(key)), undefined);
  const id = BigInt(db.prepare("INSERT INTO rounds (uuid, player_pk, game, created_at) VALUES (?, 1, 'dice', 0)").run(uuidToBytes(key)).lastInsertRowid);
  index.added(key, id);
  return id;
}

function marks(db: Database.Database, table: string): bigint[] {
  return db.prepare('SELECT merged_upto FROM id_marks WHERE tbl = ? ORDER BY bucket').pluck().all(table) as bigint[];
}

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('sqlite id index', () => {
  test('bucketOf reads the first byte of canonical text', () => {
    const bytes = Array.from({ length: ID_BUCKETS }, (_, i) => i);
    assert.deepEqual(
      bytes.map((byte) => bucketOf(`${byte.toString(16).padStart(2, '0')}000000-0000-4000-8000-000000000000`)),
      bytes,
    );
  });

  test(
    'ids are found before and after their bucket merges, in order, and after a rebuild',
    withDatabase((db) => {
      const index = new IdIndex(db, 'rounds', { mergeIds: 4, markLagRowsMax: 1_000 });
      const inA = ['a7', 'a7', 'a7', 'a7'].map((byte) => idIn(byte));
      const in3 = [idIn('3c'), idIn('3c')];
      const rows = new Map([...inA, ...in3].map((key) => [key, addRound(db, index, key)]));
      index.mergeDue();
      const merged = db.prepare('SELECT uuid, row_id FROM round_ids ORDER BY uuid').raw().all() as [Buffer, bigint][];
      // Only the full bucket merged.
      assert.deepEqual(
        merged.map(([uuid, rowId]) => [uuid.toString('hex'), rowId]),
        [...inA].sort().map((key) => [key.replaceAll('-', ''), rows.get(key)]),
      );
      const newest = rows.get(in3[1]!)!;
      assert.deepEqual(
        marks(db, 'rounds'),
        Array.from({ length: ID_BUCKETS }, (_, b) => (b === 0xa7 ? newest : 0n)),
      );
      for (const [key, id] of rows) assert.equal(index.find(key, uuidToBytes(key)), id);
      // A later id of the merged bucket is above its mark: it lives in memory, and a rebuild finds it there again.
      const late = idIn('a7');
      rows.set(late, addRound(db, index, late));
      for (const fresh of [index, new IdIndex(db, 'rounds')]) {
        fresh.forget();
        for (const [key, id] of rows) assert.equal(fresh.find(key, uuidToBytes(key)), id, key);
        const unknown = idIn('a7');
        assert.equal(fresh.find(unknown, uuidToBytes(unknown)), undefined);
      }
    }),
  );

  test(
    'an id whose insert was rolled back is free again once the index forgets',
    withDatabase((db) => {
      const index = new IdIndex(db, 'rounds');
      const kept = idIn('5e');
      addRound(db, index, kept);
      const lost = idIn('5e');
      db.exec('BEGIN');
      const lostRow = addRound(db, index, lost);
      db.exec('ROLLBACK');
      index.forget();
      assert.equal(index.find(lost, uuidToBytes(lost)), undefined);
      // SQLite hands the rolled-back row id out again.
      const again = idIn('5e');
      assert.equal(addRound(db, index, again), lostRow);
      assert.equal(index.find(again, uuidToBytes(again)), lostRow);
      assert.ok(index.find(kept, uuidToBytes(kept)) !== undefined);
    }),
  );

  test(
    'ids that all fall in one bucket leave no mark further behind than the lag allows',
    withDatabase((db) => {
      const lag = 8;
      const index = new IdIndex(db, 'rounds', { mergeIds: 1_000, markLagRowsMax: lag });
      let newest = 0n;
      for (let i = 0; i < 4 * ID_BUCKETS; i++) {
        newest = addRound(db, index, idIn('00'));
        index.mergeDue();
      }
      // One bucket merges per call, so a mark may fall behind by the lag plus one row per other bucket.
      for (const mark of marks(db, 'rounds')) assert.ok(newest - mark <= BigInt(lag + ID_BUCKETS), `mark ${mark}, newest ${newest}`);
    }),
  );

  test('the merged-id filter holds every id added, random or not, and few others', () => {
    const filter = new MergedIdFilter(100_000);
    const random = Array.from({ length: 100_000 }, () => uuidToBytes(randomUUID()));
    const sequential = Array.from({ length: 100_000 }, (_, i) => {
      const bytes = Buffer.alloc(16);
      bytes.writeUInt32BE(i, 12);
      return bytes;
    });
    for (const id of [...random, ...sequential]) filter.add(id);
    assert.ok([...random, ...sequential].every((id) => filter.mightHold(id)));
    const others = Array.from({ length: 100_000 }, () => uuidToBytes(randomUUID()));
    const sequentialOthers = Array.from({ length: 100_000 }, (_, i) => {
      const bytes = Buffer.alloc(16);
      bytes.writeUInt32BE(100_000 + i, 12);
      return bytes;
    });
    for (const group of [others, sequentialOthers]) {
      const held = group.filter((id) => filter.mightHold(id)).length;
      assert.ok(held < group.length / 100, `${held} of ${group.length} ids never added look held`);
    }
  });

  test(
    'ids another connection merged are found, and so are they after a merge of ours was rolled back',
    withDatabase((db, path) => {
      const limits = { mergeIds: 4, markLagRowsMax: 1_000 };
      const other = openDatabase(path);
      try {
        const mine = new IdIndex(db, 'rounds', limits);
        const theirs = new IdIndex(other, 'rounds', limits);
        // Both have read the (empty) merged table before the other connection merges.
        const warm = idIn('10');
        addRound(db, mine, warm);
        theirs.forget();
        assert.ok(theirs.find(warm, uuidToBytes(warm)) !== undefined);
        const merged = ['a7', 'a7', 'a7', 'a7'].map((byte) => idIn(byte));
        const rows = merged.map((key) => addRound(other, theirs, key));
        theirs.mergeDue();
        assert.equal(marks(db, 'rounds')[0xa7], rows.at(-1));
        // What PRAGMA data_version would make the writer do.
        mine.forget();
        merged.forEach((key, i) => assert.equal(mine.find(key, uuidToBytes(key)), rows[i], key));

        // A merge of ours, rolled back: its ids are gone, and new ids in their place are found once merged.
        db.exec('BEGIN');
        const lost = ['3c', '3c', '3c', '3c'].map((byte) => addRound(db, mine, idIn(byte)));
        mine.mergeDue();
        db.exec('ROLLBACK');
        mine.forget();
        const again = ['3c', '3c', '3c', '3c'].map((byte) => idIn(byte));
        assert.deepEqual(
          again.map((key) => addRound(db, mine, key)),
          lost,
        );
        mine.mergeDue();
        theirs.forget();
        for (const index of [mine, theirs]) again.forEach((key, i) => assert.equal(index.find(key, uuidToBytes(key)), lost[i], key));
      } finally {
        other.close();
      }
    }),
  );

  test(
    'an id added twice, or merged over an entry it already has, is a crash',
    withDatabase((db) => {
      const index = new IdIndex(db, 'rounds', { mergeIds: 1, markLagRowsMax: 1_000 });
      const key = idIn('71');
      const id = addRound(db, index, key);
      assert.throws(() => index.added(key, id + 1n), { name: 'AssertionError' });
      db.prepare('INSERT INTO round_ids (uuid, row_id) VALUES (?, ?)').run(uuidToBytes(key), id);
      assert.throws(() => index.mergeDue(), { name: 'AssertionError', message: /held by two rows/ });
    }),
  );
});

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('sqlite id index through the store', () => {
  test('replays of merged ids stay replays, across a restart; closed rounds stay closed; the books verify', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    try {
      let store = await SqliteStore.open({ path });
      const session = await openSession(store, 'merged');
      // Every id in bucket 0, so that bucket merges after MERGE_IDS bets.
      const requests = Array.from({ length: MERGE_IDS + 100 }, () => singleBet(session, 1, { tx: idIn('00'), round: idIn('00') }));
      for (let i = 0; i < requests.length; i += 500) {
        const outcomes = await Promise.all(requests.slice(i, i + 500).map((request) => store.transact({ request: checkedTransaction(request), now: NOW })));
        assert.ok(outcomes.every((outcome) => outcome.ok));
      }
      const balance = 1_000_000 - requests.length;
      const check = async () => {
        const db = new Database(path, { readonly: true });
        try {
          for (const table of ['transfers', 'rounds']) assert.ok(marks(db, table)[0]! >= BigInt(MERGE_IDS), `${table} bucket 0 merged`);
        } finally {
          db.close();
        }
        for (const request of [requests[0]!, requests[MERGE_IDS - 1]!, requests.at(-1)!]) {
          assert.deepEqual(await store.transact({ request: checkedTransaction(request), now: NOW }), {
            ok: true,
            balance: String(balance),
            currency: 'EUR',
            booked: [],
          });
          const other = await store.transact({
            request: checkedTransaction({ ...request, transactions: [{ ...request.transactions[0]!, amount: 2 }] }),
            now: NOW,
          });
          assert.equal(!other.ok && other.code, 'DUPLICATE_CONFLICT');
          const closed = await store.transact({ request: checkedTransaction(singleBet(session, 1, { tx: idIn('00'), round: request.round.id })), now: NOW });
          assert.equal(!closed.ok && closed.code, 'ROUND_CLOSED');
        }
        const report = await store.verify();
        assert.equal(report.ok, true, JSON.stringify(report));
      };
      await check();
      await store.close();
      store = await SqliteStore.open({ path });
      await check();
      await store.close();
    } finally {
      cleanup();
    }
  });

  test('an id booked through another connection is seen at once', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    try {
      const first = await SqliteStore.open({ path });
      const second = await SqliteStore.open({ path });
      try {
        const session = await openSession(first, 'shared');
        // Both connections have their ids in memory before either books.
        const warm = singleBet(session, 1);
        assert.ok((await first.transact({ request: checkedTransaction(warm), now: NOW })).ok);
        assert.ok((await second.transact({ request: checkedTransaction(warm), now: NOW })).ok);
        const request = singleBet(session, 5);
        assert.ok((await first.transact({ request: checkedTransaction(request), now: NOW })).ok);
        const replay = await second.transact({ request: checkedTransaction(request), now: NOW });
        assert.deepEqual(replay, { ok: true, balance: '999994', currency: 'EUR', booked: [] });
        const conflict = await second.transact({
          request: checkedTransaction({ ...request, transactions: [{ ...request.transactions[0]!, amount: 6 }] }),
          now: NOW,
        });
        assert.equal(!conflict.ok && conflict.code, 'DUPLICATE_CONFLICT');
        const report = await second.verify();
        assert.equal(report.ok, true, JSON.stringify(report));
      } finally {
        await second.close();
        await first.close();
      }
    } finally {
      cleanup();
    }
  });
});
