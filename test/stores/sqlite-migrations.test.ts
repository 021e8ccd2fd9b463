/**
 * SQLite migrations carry stored ledgers forward: a database written at
 * version 1 (with by-player indexes) reads the same after version 2 (with
 * per-player chains), and new bookings extend the chains it built; after
 * version 3 (id indexes), the ids it stored are still taken; after version
 * 6 (launch-key digests), the launch keys a version 5 ledger kept in clear
 * are kept as digests only, in its tables and in its file, and each still
 * opens (or reopens) its session; after version 9 (session integrations),
 * a session opened before belongs to the environment's integration,
 * `default`, and refuses another's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { launchKeyDigest } from '../../src/ledger/rules.js';
import { MIGRATIONS } from '../../src/stores/sqlite/migrations.js';
import { GGR } from '../../src/stores/sqlite/ledger-reads.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { DAY_MS } from '../../src/stores/store.js';
import { uuidToBytes } from '../../src/stores/uuid-bytes.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';
import { tempDir } from '../helpers.js';
import { ggrOfThreeDays } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

/** SQLite's plan for the GGR report's query, one line per step. */
function ggrPlan(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`EXPLAIN QUERY PLAN ${GGR}`).all(NOW, NOW + DAY_MS, null, null) as { detail: string }[]).map((step) => step.detail).join('\n');
  } finally {
    db.close();
  }
}

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('sqlite migrations', () => {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  test('a version 1 ledger is linked into per-player chains, and lists the same after', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'wallet.db');
      // A ledger as version 1 left it: two players whose rounds and transfers interleave.
      const db = new Database(path);
      db.pragma('journal_mode = WAL');
      db.exec(MIGRATIONS[0]!.sql);
      db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
      db.prepare('INSERT INTO schema_migrations VALUES (1, ?, ?)').run(MIGRATIONS[0]!.name, NOW);
      const addAccount = db.prepare('INSERT INTO accounts (kind, ref, currency, balance, created_at) VALUES (?, ?, ?, ?, ?)');
      const game = addAccount.run('game', 'dice', 'EUR', null, NOW).lastInsertRowid;
      const cash = addAccount.run('cash', 'deposits', 'EUR', null, NOW).lastInsertRowid;
      const players = ['m-ann', 'm-bob'].map((playerId) => {
        const account = addAccount.run('player', playerId, 'EUR', 0, NOW).lastInsertRowid;
        const pk = db
          .prepare('INSERT INTO players (player_id, account_id, currency, created_at) VALUES (?, ?, ?, ?)')
          .run(playerId, account, 'EUR', NOW).lastInsertRowid;
        return { playerId, account, pk, rounds: [] as string[], transfers: [] as string[] };
      });
      const addTransfer = db.prepare(`INSERT INTO transfers (uuid, kind, player_pk, debit_account_id, credit_account_id, amount, round_pk, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
      const addRound = db.prepare('INSERT INTO rounds (uuid, player_pk, game, finished, created_at) VALUES (?, ?, ?, 1, ?)');
      for (const p of players) {
        const id = randomUUID();
        addTransfer.run(uuidToBytes(id), 'deposit', p.pk, cash, p.account, 1000, null, NOW);
        db.prepare('UPDATE accounts SET balance = balance + 1000 WHERE id = ?').run(p.account);
        p.transfers.unshift(id);
      }
      for (let i = 0; i < 7; i++) {
        for (const p of players.slice(0, i % 3 === 0 ? 1 : 2)) {
          const round = randomUUID();
          const roundPk = addRound.run(uuidToBytes(round), p.pk, 'dice', NOW + i).lastInsertRowid;
          const bet = randomUUID();
          addTransfer.run(uuidToBytes(bet), 'bet', p.pk, p.account, game, 10, roundPk, NOW + i);
          db.prepare('UPDATE accounts SET balance = balance - 10 WHERE id = ?').run(p.account);
          p.rounds.unshift(round);
          p.transfers.unshift(bet);
        }
      }
      db.close();

      const store = await SqliteStore.open({ path });
      try {
        const deposit = randomUUID();
        const adjusted = await store.adjust({ id: deposit, playerId: 'm-bob', type: 'deposit', amount: 5, now: NOW + 100 });
        assert.ok(adjusted.ok);
        players[1]!.transfers.unshift(deposit);
        for (const p of players) {
          const rounds = await store.listRounds({ playerId: p.playerId, limit: 100 });
          assert.ok(rounds.ok);
          assert.deepEqual(
            rounds.items.map((r) => r.roundId),
            p.rounds,
          );
          const transfers = await store.listTransfers({ playerId: p.playerId, limit: 3 });
          const rest =
            transfers.ok && transfers.next !== null ? await store.listTransfers({ playerId: p.playerId, limit: 100, before: transfers.next }) : undefined;
          assert.ok(transfers.ok && rest?.ok);
          assert.deepEqual(
            [...transfers.items, ...rest.items].map((t) => t.id),
            p.transfers,
          );
        }
        // Version 3 moved the ids into the id indexes: ids stored before it are still taken.
        const before = await store.getPlayer('m-ann');
        const oldDeposit = players[0]!.transfers.at(-1)!;
        const replay = await store.adjust({ id: oldDeposit, playerId: 'm-ann', type: 'deposit', amount: 10, now: NOW + 200 });
        assert.ok(replay.ok && before.ok);
        assert.deepEqual([replay.balance, replay.booked], [before.balance, []]);
        const oldBet = players[0]!.transfers[0]!;
        const conflict = await store.adjust({ id: oldBet, playerId: 'm-ann', type: 'deposit', amount: 10, now: NOW + 200 });
        assert.equal(!conflict.ok && conflict.code, 'DUPLICATE_CONFLICT');
        const report = await store.verify();
        assert.equal(report.ok, true, JSON.stringify(report));
      } finally {
        await store.close();
      }
      const after = new Database(path, { readonly: true });
      const indexes = after.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%by_player'").all();
      // Every id is in its merged index, and every mark at the newest row of its table.
      const unmerged = after
        .prepare(
          'SELECT (SELECT COUNT(*) FROM transfers) - (SELECT COUNT(*) FROM transfer_ids), (SELECT COUNT(*) FROM rounds) - (SELECT COUNT(*) FROM round_ids)',
        )
        .raw()
        .get();
      const marks = after.prepare('SELECT tbl, COUNT(DISTINCT merged_upto), COUNT(*) FROM id_marks GROUP BY tbl ORDER BY tbl').raw().all();
      const versions = after.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
      after.close();
      assert.deepEqual(indexes, []);
      // The deposit booked after the migration is the one id above the marks.
      assert.deepEqual(unmerged, [1, 0]);
      assert.deepEqual(marks, [
        ['rounds', 1, 256],
        ['transfers', 1, 256],
      ]);
      assert.deepEqual(
        versions,
        MIGRATIONS.map((m) => m.version),
      );
    } finally {
      cleanup();
    }
  });

  test('a version 4 ledger gains the transfers-by-time index: the GGR report reads its span through it and sums the same', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'wallet.db');
      // Bets over three days, booked by the store; then the ledger as version 4 left it. Version 5 adds the
      // index and nothing else, so without the index and its row the file is a version 4 ledger.
      const span = { from: NOW, to: NOW + 3 * DAY_MS };
      const before = await ggrOfThreeDays(() => SqliteStore.open({ path }));
      const db = new Database(path);
      db.exec('DROP INDEX transfers_by_time; DELETE FROM schema_migrations WHERE version = 5');
      db.close();
      assert.match(ggrPlan(path), /^SCAN t$/m, 'version 4 reads every transfer');

      const reopened = await SqliteStore.open({ path });
      try {
        assert.deepEqual(await reopened.ggr(span), before);
      } finally {
        await reopened.close();
      }
      assert.match(ggrPlan(path), /^SEARCH t USING INDEX transfers_by_time \(created_at>\? AND created_at<\?\)$/m);
      const after = new Database(path, { readonly: true });
      const versions = after.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
      after.close();
      assert.deepEqual(
        versions,
        MIGRATIONS.map((m) => m.version),
      );
    } finally {
      cleanup();
    }
  });

  test('a version 5 ledger keeps its launch keys as digests after version 6, and each key still opens its session', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'wallet.db');
      // Keys made and one used by the store; then the launch_keys table as version 5 left it: the keys in clear.
      const keys = [randomBytes(32), randomBytes(32), randomBytes(32)].map((bytes) => bytes.toString('base64url'));
      const store = await SqliteStore.open({ path });
      let sessionId: string;
      try {
        for (const playerId of ['k-ann', 'k-bob']) {
          assert.ok((await store.createPlayer({ playerId, currency: 'EUR', balance: 5, depositId: randomUUID(), now: NOW })).ok);
        }
        for (const [i, key] of keys.entries())
          assert.ok((await store.createLaunchKey({ playerId: i < 2 ? 'k-ann' : 'k-bob', game: 'dice', key, now: NOW })).ok);
        const opened = await store.authenticate({ key: keys[0]!, game: 'dice', now: NOW, newSessionId: randomUUID() });
        assert.ok(opened.ok);
        sessionId = opened.sessionId;
      } finally {
        await store.close();
      }
      const db = new Database(path);
      const keyOf = new Map(keys.map((key) => [launchKeyDigest(key).toString('hex'), key]));
      const rows = db
        .prepare('SELECT id, key_hash, player_pk, game, created_at, expires_at, session_pk FROM launch_keys ORDER BY id')
        .raw()
        .all() as unknown[][];
      const version1 = /CREATE TABLE launch_keys \([^;]*\);/.exec(MIGRATIONS[0]!.sql)![0];
      // Version 11 added a column to the table: it runs again on the table as version 1 made it.
      db.exec(`DROP TABLE launch_keys; ${version1} DELETE FROM schema_migrations WHERE version IN (6, 11)`);
      const insert = db.prepare('INSERT INTO launch_keys (id, key, player_pk, game, created_at, expires_at, session_pk) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const [id, hash, ...rest] of rows) insert.run(id, keyOf.get((hash as Buffer).toString('hex')), ...rest);
      db.close();
      // A control: the file holds the keys in clear before version 6.
      assert.ok(
        keys.every((key) => readFileSync(path).includes(key)),
        'a version 5 file holds the keys',
      );

      const reopened = await SqliteStore.open({ path });
      try {
        const reload = await reopened.authenticate({ key: keys[0]!, game: 'dice', now: NOW + 1, newSessionId: randomUUID() });
        assert.ok(reload.ok && reload.sessionId === sessionId, JSON.stringify(reload));
        for (const key of keys.slice(1)) {
          const opened = await reopened.authenticate({ key, game: 'dice', now: NOW + 1, newSessionId: randomUUID() });
          assert.ok(opened.ok && opened.sessionId !== sessionId, JSON.stringify(opened));
        }
        const more = randomBytes(32).toString('base64url');
        assert.ok((await reopened.createLaunchKey({ playerId: 'k-bob', game: 'dice', key: more, now: NOW + 2 })).ok);
        assert.ok((await reopened.authenticate({ key: more, game: 'dice', now: NOW + 2, newSessionId: randomUUID() })).ok);
      } finally {
        await reopened.close();
      }
      const after = new Database(path, { readonly: true });
      const stored = after.prepare('SELECT * FROM launch_keys ORDER BY id').all() as Record<string, unknown>[];
      const versions = after.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
      after.close();
      assert.deepEqual(Object.keys(stored[0]!), ['id', 'key_hash', 'player_pk', 'game', 'created_at', 'expires_at', 'session_pk', 'integration_id']);
      assert.deepEqual(
        stored.slice(0, 3).map((row) => keyOf.get((row.key_hash as Buffer).toString('hex'))),
        keys,
      );
      // The old table's pages were zeroed as they were freed: no key is left in the file (the WAL was checkpointed into it at close).
      const file = readFileSync(path);
      for (const key of keys) assert.ok(!file.includes(key), 'the file holds no key in clear');
      assert.deepEqual(
        versions,
        MIGRATIONS.map((m) => m.version),
      );
    } finally {
      cleanup();
    }
  });

  test("a version 8 ledger's sessions belong to `default` after version 9: its calls book, another integration's are refused", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'wallet.db');
      const key = randomBytes(32).toString('base64url');
      const store = await SqliteStore.open({ path });
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
      // The sessions table as version 8 left it: no integration column.
      const db = new Database(path);
      db.exec('ALTER TABLE sessions DROP COLUMN integration_id; DELETE FROM schema_migrations WHERE version = 9');
      db.close();

      const reopened = await SqliteStore.open({ path });
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
      const after = new Database(path, { readonly: true });
      const integrations = after.prepare('SELECT integration_id FROM sessions').pluck().all();
      const versions = after.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
      after.close();
      assert.deepEqual(integrations, ['default']);
      assert.deepEqual(
        versions,
        MIGRATIONS.map((m) => m.version),
      );
    } finally {
      cleanup();
    }
  });

  test("a version 9 ledger's rounds and campaign closures belong to the environment's integration after version 10", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'wallet.db');
      const key = randomBytes(32).toString('base64url');
      const openRound = randomUUID();
      const campaign = randomUUID();
      const store = await SqliteStore.open({ path });
      let sessionId: string;
      const request = (transactions: { type: 'bet' | 'win'; amount: number }[], round: string, extra: object = {}) =>
        checkedTransaction({
          sessionId,
          playerId: 'r-ann',
          game: 'dice',
          transactions: transactions.map((t) => ({ id: randomUUID(), ...t })),
          round: { id: round, finished: false },
          ...extra,
        });
      try {
        assert.ok((await store.createPlayer({ playerId: 'r-ann', currency: 'EUR', balance: 5, depositId: randomUUID(), now: NOW })).ok);
        assert.ok((await store.createLaunchKey({ playerId: 'r-ann', game: 'dice', key, now: NOW })).ok);
        const opened = await store.authenticate({ key, game: 'dice', now: NOW, newSessionId: randomUUID() });
        assert.ok(opened.ok);
        sessionId = opened.sessionId;
        assert.ok((await store.transact({ request: request([{ type: 'bet', amount: 1 }], openRound), now: NOW })).ok);
        const free = request([{ type: 'bet', amount: 1 }], randomUUID(), { campaign: { id: campaign, type: 'freeBets', finished: true } });
        assert.ok((await store.transact({ request: free, now: NOW })).ok);
      } finally {
        await store.close();
      }
      // The two tables as version 9 left them: no integration on a round, closures keyed by campaign and player.
      const db = new Database(path);
      const closures = /CREATE TABLE campaign_closures \([^;]*\) WITHOUT ROWID;/.exec(MIGRATIONS[0]!.sql)![0];
      db.exec(`ALTER TABLE rounds DROP COLUMN integration_id;
        CREATE TEMP TABLE kept AS SELECT campaign_uuid, player_pk, closed_at FROM campaign_closures;
        DROP TABLE campaign_closures; ${closures}
        INSERT INTO campaign_closures SELECT * FROM kept; DROP TABLE kept;
        DELETE FROM schema_migrations WHERE version = 10`);
      db.close();

      const reopened = await SqliteStore.open({ path });
      try {
        const foreign = await reopened.transact({ request: request([{ type: 'win', amount: 1 }], openRound), now: NOW + 1, integrationId: 'studio-a' });
        assert.ok(!foreign.ok && foreign.code === 'INTEGRATION_MISMATCH', JSON.stringify(foreign));
        const again = request([{ type: 'bet', amount: 1 }], randomUUID(), { campaign: { id: campaign, type: 'freeBets', finished: false } });
        const finished = await reopened.transact({ request: again, now: NOW + 1 });
        assert.ok(!finished.ok && finished.code === 'CAMPAIGN_FINISHED', "the closure is still the environment integration's");
        const win = await reopened.transact({ request: request([{ type: 'win', amount: 2 }], openRound), now: NOW + 1 });
        assert.ok(win.ok && win.balance === '6', JSON.stringify(win));
      } finally {
        await reopened.close();
      }
      const after = new Database(path, { readonly: true });
      const rounds = after.prepare('SELECT DISTINCT integration_id FROM rounds').pluck().all();
      const closed = after.prepare('SELECT integration_id FROM campaign_closures').pluck().all();
      after.close();
      assert.deepEqual([rounds, closed], [['default'], ['default']]);
    } finally {
      cleanup();
    }
  });
});
