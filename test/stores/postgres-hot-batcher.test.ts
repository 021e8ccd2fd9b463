/**
 * The PostgreSQL hot batcher's stall watchdog, without a database: a
 * batch whose runner never settles (a connection gone silent) calls the
 * stall listener once; batches that settle, either way, never do.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { HotBatcher } from '../../src/stores/postgres/hot-batcher.js';

const STALL_MS = 100;

test('postgres hot batcher: a batch that never settles stops the store once; settled batches never do', async () => {
  const never = new Promise<never>(() => {});
  let mode: 'answer' | 'fail' | 'hang' = 'answer';
  const batcher = new HotBatcher<number, number>(
    async (calls) => {
      if (mode === 'hang') return never;
      await sleep(STALL_MS * 2);
      if (mode === 'fail') throw Object.assign(new Error('connection lost'), { code: 'CONNECTION_CLOSED' });
      return calls.map((call) => call * 2);
    },
    { batchesInFlightMax: 2, batchCallsMax: 10, batchStallMs: STALL_MS * 4 },
  );
  const stalls: Error[] = [];
  batcher.onStall((error) => stalls.push(error));

  // Slower than half the stall limit, and answered or failed: no stall.
  assert.deepEqual(await Promise.all([batcher.submit(1), batcher.submit(2)]), [2, 4]);
  mode = 'fail';
  await assert.rejects(batcher.submit(3), /connection lost/);
  await sleep(STALL_MS * 5);
  assert.equal(stalls.length, 0, 'a batch that settled in time is not a stall');

  // Two batches that never settle: one stall, however many batches hang.
  mode = 'hang';
  void batcher.submit(4);
  await sleep(1);
  void batcher.submit(5);
  await sleep(STALL_MS * 6);
  assert.equal(stalls.length, 1);
  assert.match(stalls[0]!.message, /no answer from PostgreSQL for 400 ms/);
});
