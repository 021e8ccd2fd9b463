/**
 * Proves what only the SQLite outbox (src/dispatch/sqlite/outbox.ts) does;
 * its contract is proved with every backend's in outbox-contract.test.ts:
 * - a claim never runs inside an open database transaction of its
 *   connection (it would see, and send, rows that may still roll back);
 * - a claim takes no item above the id its caller knows durable
 *   (`claimableIdMax`).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CLAIM_LIMITS, type NewItem } from '../../../src/dispatch/outbox.js';
import { openOutboxDatabase, SqliteOutbox } from '../../../src/dispatch/sqlite/outbox.js';
import { tempDir } from '../../helpers.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const temp = tempDir('wagerlink-sqlite-outbox-');
after(() => temp.cleanup());

function item(orderingKey: string): NewItem {
  return { operatorId: 'op-1', orderingKey, kind: 'bet', path: '/transaction', body: '{}' };
}

test('a claim never runs inside an open database transaction of its connection', async () => {
  const db = openOutboxDatabase(join(temp.dir, 'open.db'));
  const outbox = new SqliteOutbox(db);
  db.exec('BEGIN');
  SqliteOutbox.enqueue(db, item('r-1'), NOW);
  await assert.rejects(outbox.claim(NOW, 'a', CLAIM_LIMITS), /outside any open database transaction/);
  db.exec('COMMIT');
  assert.equal((await outbox.claim(NOW, 'a', CLAIM_LIMITS)).length, 1);
  db.close();
});

test('a claim takes no item above the id its caller knows durable', async () => {
  const db = openOutboxDatabase(join(temp.dir, 'durable.db'));
  let durable = 0;
  const gated = new SqliteOutbox(db, { claimableIdMax: () => durable });
  const [first, second] = db.transaction(() => [item('r-1'), item('r-2')].map((one) => SqliteOutbox.enqueue(db, one, NOW).id))();
  assert.deepEqual(await gated.claim(NOW, 'a', CLAIM_LIMITS), []);
  durable = first!;
  assert.deepEqual(
    (await gated.claim(NOW, 'a', CLAIM_LIMITS)).map((one) => one.id),
    [first],
  );
  durable = second!;
  assert.deepEqual(
    (await gated.claim(NOW, 'a', CLAIM_LIMITS)).map((one) => one.id),
    [second],
  );
  db.close();
});
