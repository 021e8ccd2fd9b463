/**
 * The PostgreSQL hot batcher's stall watchdog, without a database: a
 * batch whose runner never settles (a connection gone silent) calls the
 * stall listener once, when batchStallMs has passed and not before; batches
 * that settle, either way, never do, however late. The watchdog's timer runs
 * on node's mocked timers, so that the test moves time rather than waits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HotBatcher } from '../../src/stores/postgres/hot-batcher.js';

const STALL_MS = 400;

interface Batch {
  calls: number[];
  answer: () => void;
  fail: () => void;
}

test('postgres hot batcher: a batch that never settles stops the store once, at batchStallMs; settled batches never do', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const started: Batch[] = [];
  const waiters: (() => void)[] = [];
  const batcher = new HotBatcher<number, number>(
    (calls) =>
      new Promise<number[]>((resolve, reject) => {
        started.push({
          calls,
          answer: () => resolve(calls.map((call) => call * 2)),
          fail: () => reject(Object.assign(new Error('connection lost'), { code: 'CONNECTION_CLOSED' })),
        });
        waiters.splice(0).forEach((wake) => wake());
      }),
    { batchesInFlightMax: 2, batchCallsMax: 10, batchStallMs: STALL_MS },
  );
  const batchStarted = async (count: number): Promise<Batch> => {
    while (started.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return started[count - 1]!;
  };
  const stalls: Error[] = [];
  batcher.onStall((error) => stalls.push(error));

  // Answered, and failed, a moment before the limit: no stall then or ever after.
  const answered = batcher.submit(1);
  const answering = await batchStarted(1);
  t.mock.timers.tick(STALL_MS - 1);
  answering.answer();
  assert.equal(await answered, 2);
  const failed = batcher.submit(3);
  const failing = await batchStarted(2);
  t.mock.timers.tick(STALL_MS - 1);
  failing.fail();
  await assert.rejects(failed, /connection lost/);
  t.mock.timers.tick(STALL_MS * 10);
  assert.equal(stalls.length, 0, 'a batch that settled in time is not a stall');

  // Two batches that never settle: one stall, when the first reaches the limit, however many batches hang.
  void batcher.submit(4);
  await batchStarted(3);
  t.mock.timers.tick(1);
  void batcher.submit(5);
  await batchStarted(4);
  t.mock.timers.tick(STALL_MS - 2);
  assert.equal(stalls.length, 0, 'not before batchStallMs');
  t.mock.timers.tick(1);
  assert.equal(stalls.length, 1);
  t.mock.timers.tick(STALL_MS * 10);
  assert.equal(stalls.length, 1, 'once');
  assert.match(stalls[0]!.message, /no answer from PostgreSQL for 400 ms/);
});
