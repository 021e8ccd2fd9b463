/**
 * The SQLite writer keeps each session's player in memory between bets
 * (wallet-memory.ts). It must never answer from a stale copy: when another
 * connection writes the same file (another process, or the CLI beside the
 * server), the next bet sees it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { tempDir } from '../helpers.js';
import { NOW, openSession, singleBet } from './store-fixtures.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

describe('sqlite writer memory', () => {
  test("another connection's adjustment, block and bets reach the next bet", async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    const serving = await SqliteStore.open({ path });
    const beside = await SqliteStore.open({ path });
    try {
      const session = await openSession(serving, 'h-ann', 10);
      const bet = (store: SqliteStore, amount: number) => store.transact({ request: checkedTransaction(singleBet(session, amount)), now: NOW });

      assert.equal((await bet(serving, 1)).balance, '9');
      const deposit = await beside.adjust({ id: randomUUID(), playerId: 'h-ann', type: 'deposit', amount: 5, now: NOW });
      assert.ok(deposit.ok && deposit.balance === '14');
      assert.equal((await bet(serving, 1)).balance, '13', 'the deposit made beside is seen');
      assert.equal((await bet(beside, 2)).balance, '11');
      assert.equal((await bet(serving, 1)).balance, '10', 'the bet made beside is seen, and the chains stay linked');
      await beside.setBlocked({ playerId: 'h-ann', blocked: true, now: NOW });
      const refused = await bet(serving, 1);
      assert.ok(!refused.ok && refused.code === 'PLAYER_BLOCKED' && refused.balance === '10');

      const report = await serving.verify();
      assert.ok(report.ok, JSON.stringify(report));
      const transfers = await serving.listTransfers({ playerId: 'h-ann', limit: 50 });
      assert.ok(transfers.ok);
      assert.deepEqual(
        transfers.items.map((t) => [t.kind, t.amount]),
        [
          ['bet', '1'],
          ['bet', '2'],
          ['bet', '1'],
          ['deposit', '5'],
          ['bet', '1'],
          ['deposit', '10'],
        ],
      );
    } finally {
      await beside.close();
      await serving.close();
      cleanup();
    }
  });
});
