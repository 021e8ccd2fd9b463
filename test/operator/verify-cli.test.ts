/**
 * Proves that `wagerlink operator verify` catches books that do not balance:
 * it passes on a ledger written by the wallet, and fails (exit 1, naming the
 * problem) once a balance or a transfer is tampered with behind its back,
 * or a link of a player's history chain; and it passes on honest books
 * whose operator accounts have moved more than a 64-bit sum can hold.
 * SQLite only: the tampering edits the database file directly; verify on
 * PostgreSQL runs in multi-node.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { runWagerlink } from '../harness/child-process.js';
import { tempDir } from '../helpers.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

async function verify(path: string) {
  const result = await runWagerlink(['operator', 'verify', '--database', path]);
  assert.ok(result.stdout.length > 0, `no report: ${result.stderr}`);
  return { status: result.code, report: JSON.parse(result.stdout) as { ok: boolean; problems: string[] } };
}

/** Changes the file behind the wallet's back, then verify must fail (exit 1): the problems it names, one per line. */
async function tamper(path: string, sql: string): Promise<string> {
  const db = new Database(path);
  db.exec(sql);
  db.close();
  const result = await verify(path);
  assert.equal(result.status, 1);
  assert.equal(result.report.ok, false);
  return result.report.problems.join('\n');
}

test('verify passes on honest books and fails on tampered ones', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'operator.db');
    const store = await SqliteStore.open({ path });
    const now = Date.now();
    assert.ok((await store.createPlayer({ playerId: 'v1', currency: 'EUR', balance: 10, depositId: randomUUID(), now })).ok);
    assert.ok((await store.createPlayer({ playerId: 'v2', currency: 'EUR', balance: 5, depositId: randomUUID(), now })).ok);
    await store.close();

    const honest = await verify(path);
    assert.equal(honest.status, 0);
    assert.deepEqual(honest.report.problems, []);

    assert.match(
      await tamper(path, "UPDATE accounts SET balance = balance + 1 WHERE kind = 'player' AND ref = 'v1'"),
      /player v1: balance 1001 but postings sum to 1000/,
    );
    assert.match(
      await tamper(
        path,
        `UPDATE accounts SET balance = balance - 1 WHERE kind = 'player' AND ref = 'v1';
         UPDATE accounts SET currency = 'USD' WHERE kind = 'cash';`,
      ),
      /move money between currencies/,
    );
  } finally {
    cleanup();
  }
});

test("verify fails when a player's history chain is broken", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'operator.db');
    const store = await SqliteStore.open({ path });
    const now = Date.now();
    assert.ok((await store.createPlayer({ playerId: 'c1', currency: 'EUR', balance: 10, depositId: randomUUID(), now })).ok);
    assert.ok((await store.adjust({ id: randomUUID(), playerId: 'c1', type: 'deposit', amount: 1, now })).ok);
    assert.ok((await store.createPlayer({ playerId: 'c2', currency: 'EUR', balance: 5, depositId: randomUUID(), now })).ok);
    await store.close();
    assert.equal((await verify(path)).status, 0);

    // The newer transfer of c1 no longer points to the older one: a listing would stop after it.
    assert.match(
      await tamper(path, 'UPDATE transfers SET prev_player_transfer_id = NULL WHERE id = (SELECT MAX(id) FROM transfers WHERE player_pk = 1)'),
      /1 links of players' transfer and round histories are broken/,
    );

    // And a wallet that no longer points to its newest transfer.
    assert.match(
      await tamper(
        path,
        `UPDATE transfers SET prev_player_transfer_id = (SELECT MIN(id) FROM transfers WHERE player_pk = 1) WHERE id = (SELECT MAX(id) FROM transfers WHERE player_pk = 1);
         UPDATE accounts SET last_transfer_id = NULL WHERE kind = 'player' AND ref = 'c2';`,
      ),
      /1 links of players' transfer and round histories are broken/,
    );
  } finally {
    cleanup();
  }
});

test('verify fails when an id is held twice, or the id index misses or misnames one', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'operator.db');
    const store = await SqliteStore.open({ path });
    const now = Date.now();
    assert.ok((await store.createPlayer({ playerId: 'i1', currency: 'EUR', balance: 10, depositId: randomUUID(), now })).ok);
    assert.ok((await store.adjust({ id: randomUUID(), playerId: 'i1', type: 'deposit', amount: 1, now })).ok);
    assert.ok((await store.adjust({ id: randomUUID(), playerId: 'i1', type: 'deposit', amount: 2, now })).ok);
    await store.close();
    assert.equal((await verify(path)).status, 0);
    // The marks say every transfer is merged, but the merged index holds none of them.
    assert.match(await tamper(path, "UPDATE id_marks SET merged_upto = 3 WHERE tbl = 'transfers'"), /3 transfer or round ids are repeated or wrong/);
    // Merged, and one entry names another row.
    assert.match(
      await tamper(path, `INSERT INTO transfer_ids (uuid, row_id) SELECT uuid, CASE id WHEN 1 THEN 2 ELSE id END FROM transfers;`),
      /2 transfer or round ids are repeated or wrong/,
    );
    // Unmerged again, and two rows under one id.
    assert.match(
      await tamper(
        path,
        `DELETE FROM transfer_ids; UPDATE id_marks SET merged_upto = 0 WHERE tbl = 'transfers';
        UPDATE transfers SET uuid = (SELECT uuid FROM transfers WHERE id = 1) WHERE id = 3;`,
      ),
      /1 transfer or round ids are repeated or wrong/,
    );
  } finally {
    cleanup();
  }
});

test("verify passes when the operator's accounts hold more than a 64-bit sum can", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'operator.db');
    const store = await SqliteStore.open({ path });
    const now = Date.now();
    // Ten players each win 10^10 BTC (10^18 satoshis, the most one transaction may carry): the game account pays 10^19 in all.
    for (let i = 0; i < 10; i++) {
      const playerId = `whale-${i}`;
      assert.ok((await store.createPlayer({ playerId, currency: 'BTC', balance: 1, depositId: randomUUID(), now })).ok);
      const key = await store.createLaunchKey({ playerId, game: 'dice', key: randomUUID(), now });
      assert.ok(key.ok);
      const session = await store.authenticate({ key: key.key, game: 'dice', now, newSessionId: randomUUID() });
      assert.ok(session.ok);
      const win = await store.transact({
        request: checkedTransaction({
          sessionId: session.sessionId,
          playerId,
          game: 'dice',
          transactions: [{ id: randomUUID(), type: 'win', amount: 1e10 }],
          round: { id: randomUUID(), finished: true },
        }),
        now,
      });
      assert.ok(win.ok, JSON.stringify(win));
    }
    await store.close();

    const result = await verify(path);
    assert.equal(result.status, 0);
    assert.deepEqual(result.report.problems, []);
    assert.equal(result.report.ok, true);
  } finally {
    cleanup();
  }
});
