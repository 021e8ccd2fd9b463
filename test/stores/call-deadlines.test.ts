/**
 * The PostgreSQL store's call deadlines: each expires once, at its due time,
 * with the store's reason and in the order the calls started; an answered
 * call never expires and lets its listeners go; stop() leaves no timer
 * behind.
 */
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { CallDeadlines } from '../../src/platform/postgres/call-deadlines.js';

const TIMEOUT_MS = 1_000;

function setUp() {
  mock.timers.enable({ apis: ['setTimeout'] });
  let now = 0;
  const deadlines = new CallDeadlines(
    TIMEOUT_MS,
    () => new Error(`late at ${now}`),
    () => now,
  );
  const advance = (ms: number) => {
    now += ms;
    mock.timers.tick(ms);
  };
  return { deadlines, advance };
}

test('deadlines expire at their due time, in the order the calls started, with the reason', (t) => {
  t.after(() => mock.timers.reset());
  const { deadlines, advance } = setUp();
  const expired: string[] = [];
  const first = deadlines.start();
  first.addEventListener('abort', () => expired.push(`first: ${(first.reason as Error).message}`));
  advance(400);
  const second = deadlines.start();
  second.addEventListener('abort', () => expired.push(`second: ${(second.reason as Error).message}`));
  advance(599);
  assert.deepEqual(expired, [], 'nothing is due before its time');
  assert.equal(first.aborted, false);
  advance(1);
  assert.deepEqual(expired, ['first: late at 1000']);
  assert.ok(first.aborted && !second.aborted);
  advance(400);
  assert.deepEqual(expired, ['first: late at 1000', 'second: late at 1400']);
  // Expiring again changes nothing.
  first.expire(new Error('again'));
  assert.equal((first.reason as Error).message, 'late at 1000');
  assert.equal(expired.length, 2);
});

test('an answered call never expires, whatever its place in the queue', (t) => {
  t.after(() => mock.timers.reset());
  const { deadlines, advance } = setUp();
  const calls = Array.from({ length: 5 }, () => deadlines.start());
  const fired: number[] = [];
  calls.forEach((call, index) => call.addEventListener('abort', () => fired.push(index)));
  // Answered out of order: the first, the middle, the last.
  for (const index of [0, 2, 4]) deadlines.settle(calls[index]!);
  advance(TIMEOUT_MS);
  assert.deepEqual(fired, [1, 3]);
  assert.ok(!calls[0]!.aborted && calls[1]!.aborted && !calls[2]!.aborted && calls[3]!.aborted && !calls[4]!.aborted);
  // A listener added after the answer is never kept.
  let late = false;
  calls[0]!.addEventListener('abort', () => (late = true));
  calls[0]!.expire(new Error('after the answer'));
  assert.equal(late, false);
  assert.equal(calls[0]!.aborted, false);
});

test('of many calls in flight, those left unanswered expire; a call after a quiet spell is still timed', (t) => {
  t.after(() => mock.timers.reset());
  const { deadlines, advance } = setUp();
  const batch = Array.from({ length: 3_000 }, () => deadlines.start());
  // Most answered in order, a few left to expire.
  batch.forEach((call, index) => {
    if (index % 1_000 !== 999) deadlines.settle(call);
  });
  advance(TIMEOUT_MS);
  assert.deepEqual(
    batch.flatMap((call, index) => (call.aborted ? [index] : [])),
    [999, 1_999, 2_999],
  );
  advance(10 * TIMEOUT_MS);
  const later = deadlines.start();
  advance(TIMEOUT_MS);
  assert.ok(later.aborted, 'a call after the queue ran empty is still timed');
});

test('stop() leaves no timer behind and nothing expires after it', (t) => {
  t.after(() => mock.timers.reset());
  const { deadlines, advance } = setUp();
  const call = deadlines.start();
  deadlines.stop();
  advance(2 * TIMEOUT_MS);
  assert.equal(call.aborted, false);
});
