/**
 * Proves the outbox's Prometheus series (src/dispatch/metrics.ts): the
 * backlog per operator and status and the age of the oldest pending item
 * are read from the outbox at each scrape, and each attempt is counted by
 * operator, kind, status, code and decision; the dispatcher writes one log
 * line per item parked or refused. On every outbox backend
 * (outbox-backends.ts): the backlog is the whole outbox's, whichever holds it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { Dispatcher, type Send } from '../../src/dispatch/dispatcher.js';
import { DispatchMetrics } from '../../src/dispatch/metrics.js';
import type { NewItem, Outbox } from '../../src/dispatch/outbox.js';
import { DISPATCH_SCHEDULE, type DispatchSchedule } from '../../src/dispatch/retry-schedule.js';
import { OUTBOX_BACKENDS } from './outbox-backends.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function item(operatorId: string, orderingKey: string): NewItem {
  return { operatorId, orderingKey, kind: 'bet', path: '/transaction', body: '{}' };
}

/** Starts `dispatcher`, waits (10 s at most) until `outbox` holds nothing pending, and stops it. */
async function deliverAll(outbox: Pick<Outbox, 'list'>, dispatcher: Dispatcher): Promise<void> {
  dispatcher.start();
  const deadline = Date.now() + 10_000;
  while ((await outbox.list({ status: 'pending' })).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await dispatcher.stop();
}

function series(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

for (const backend of OUTBOX_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`outbox metrics: ${backend.name}`, { skip: backend.unavailable }, () => {
    test('the backlog and the oldest pending age are the outbox’s at each scrape', async () => {
      const db = await backend.open('metrics');
      const outbox = db.node();
      await db.enqueue([item('op-1', 'r-1')], NOW);
      await db.enqueue([item('op-1', 'r-2')], NOW + 5_000);
      await db.enqueue([item('op-2', 'r-3')], NOW + 1_000);
      const registry = new Registry();
      let now = NOW + 65_000;
      let reads = 0;
      const counted = { backlog: () => ((reads += 1), outbox.backlog()) };
      new DispatchMetrics(registry, counted, () => now);
      let text = await registry.metrics();
      assert.equal(reads, 1, 'one read of the backlog serves both gauges of a scrape');
      assert.deepEqual(series(text, 'wagerlink_outbox_items').sort(), [
        'wagerlink_outbox_items{operator="op-1",status="pending"} 2',
        'wagerlink_outbox_items{operator="op-2",status="pending"} 1',
      ]);
      assert.deepEqual(series(text, 'wagerlink_outbox_oldest_pending_seconds').sort(), [
        'wagerlink_outbox_oldest_pending_seconds{operator="op-1"} 65',
        'wagerlink_outbox_oldest_pending_seconds{operator="op-2"} 64',
      ]);
      // op-2's item is parked, op-1's first is sent: the next scrape says so, and forgets what is gone.
      const claimed = await outbox.claim(now, 'a', { batchSizeMax: 10, operatorInFlightMax: 10, leaseMs: 30_000 });
      for (const one of claimed) {
        if (one.operatorId === 'op-2') await outbox.park(one.id, 'a', { detail: 'ECONNREFUSED' }, now);
        else if (one.orderingKey === 'r-1') await outbox.sent(one.id, 'a', { status: 200, detail: 'OK' }, now);
      }
      now += 10_000;
      text = await registry.metrics();
      assert.equal(reads, 2, 'and the next scrape reads it again');
      assert.deepEqual(series(text, 'wagerlink_outbox_items').sort(), [
        'wagerlink_outbox_items{operator="op-1",status="pending"} 1',
        'wagerlink_outbox_items{operator="op-2",status="parked"} 1',
      ]);
      assert.deepEqual(series(text, 'wagerlink_outbox_oldest_pending_seconds'), ['wagerlink_outbox_oldest_pending_seconds{operator="op-1"} 70']);
      await db.close();
    });

    test('each attempt is counted by operator, kind, status, code and decision; parked and refused items are logged', async () => {
      const db = await backend.open('metrics');
      const outbox = db.node();
      await db.enqueue([item('op-1', 'ok'), item('op-1', 'poor'), item('op-2', 'down')], Date.now());
      const registry = new Registry();
      const metrics = new DispatchMetrics(registry, outbox, Date.now);
      const send: Send = async (one) => {
        if (one.orderingKey === 'ok') return { kind: 'answered', status: 200 };
        if (one.orderingKey === 'poor') return { kind: 'answered', status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'bet 5 exceeds balance 1' };
        return { kind: 'failed', detail: 'ECONNREFUSED' };
      };
      // The down operator's item passes its horizon at its first retry.
      const schedule: DispatchSchedule = { ...DISPATCH_SCHEDULE, horizonMs: { ...DISPATCH_SCHEDULE.horizonMs, bet: 0 } };
      const warnings: string[] = [];
      const log = { error: () => {}, warn: (_details: object, message: string) => warnings.push(message) };
      const dispatcher = new Dispatcher({ outbox, node: 'a', send, schedule, log, limits: { idleMs: 5 } });
      dispatcher.onDelivery((delivered) => metrics.observe(delivered));
      await deliverAll(outbox, dispatcher);
      const text = await registry.metrics();
      assert.deepEqual(series(text, 'wagerlink_dispatch_attempts_total').sort(), [
        'wagerlink_dispatch_attempts_total{operator="op-1",kind="bet",status="200",code="OK",decision="sent"} 1',
        'wagerlink_dispatch_attempts_total{operator="op-1",kind="bet",status="402",code="INSUFFICIENT_FUNDS",decision="refused"} 1',
        'wagerlink_dispatch_attempts_total{operator="op-2",kind="bet",status="none",code="none",decision="parked"} 1',
      ]);
      assert.equal(warnings.length, 2, warnings.join('\n'));
      assert.match(
        warnings.find((line) => line.includes('refused'))!,
        /\(bet poor\) refused by op-1: INSUFFICIENT_FUNDS bet 5 exceeds balance 1/,
      );
      assert.match(
        warnings.find((line) => line.includes('parked'))!,
        /\(bet down\) parked after 1 attempts without a final answer from op-2: resolve it by hand/,
      );
      await db.close();
    });
  });
}

for (const backend of OUTBOX_BACKENDS) {
  describe(`outbox timing metrics: ${backend.name}`, { skip: backend.unavailable }, () => {
    test("each attempt's wait for its answer, and each final answer's time since the enqueueing, are histograms per operator", async () => {
      const db = await backend.open('metrics');
      const outbox = db.node();
      let now = NOW;
      await db.enqueue([item('op-1', 'a'), item('op-1', 'b'), item('op-2', 'c')], NOW);
      const registry = new Registry();
      const metrics = new DispatchMetrics(registry, outbox, () => now);
      // The world's clock moves only while an operator answers: op-1 in 40 ms, op-2 in 3 s (a refusal, final too).
      const send: Send = async (one) => {
        now += one.operatorId === 'op-1' ? 40 : 3_000;
        return one.operatorId === 'op-1' ? { kind: 'answered', status: 200 } : { kind: 'answered', status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'no' };
      };
      const world = { clock: () => now, sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, 5))), random: () => 0.5 };
      // One send at a time, in the order enqueued: each attempt's clock is its own.
      const dispatcher = new Dispatcher({ outbox, node: 'a', send, world, limits: { idleMs: 5, batchSizeMax: 1, inFlightMax: 1 } });
      dispatcher.onDelivery((delivered) => metrics.observe(delivered));
      await deliverAll(outbox, dispatcher);
      const text = await registry.metrics();
      const line = (name: string) => series(text, name).join('\n');
      assert.match(line('wagerlink_dispatch_answer_seconds_count'), /\{operator="op-1"\} 2\n.*\{operator="op-2"\} 1/);
      assert.match(line('wagerlink_dispatch_answer_seconds_sum'), /\{operator="op-1"\} 0\.08\n.*\{operator="op-2"\} 3$/);
      assert.match(line('wagerlink_dispatch_answer_seconds_bucket'), /\{le="0\.05",operator="op-1"\} 2/);
      assert.match(line('wagerlink_dispatch_answer_seconds_bucket'), /\{le="2\.5",operator="op-2"\} 0\n.*\{le="5",operator="op-2"\} 1/);
      // Delivered at 40 and 80 ms after their enqueueing (the second waited for the first), op-2's refusal at 3.08 s.
      assert.match(line('wagerlink_dispatch_delivery_seconds_sum'), /\{operator="op-1",kind="bet"\} 0\.12\n.*\{operator="op-2",kind="bet"\} 3\.08$/);
      assert.match(
        line('wagerlink_dispatch_delivery_seconds_bucket'),
        /\{le="0\.05",operator="op-1",kind="bet"\} 1\n.*\{le="0\.1",operator="op-1",kind="bet"\} 2/,
      );
      await db.close();
    });
  });
}
