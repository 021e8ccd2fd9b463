/**
 * The end-to-end rows' note on where a round's time went: the means of the
 * provider's answer and delivery histograms, over every operator and kind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { deliveryTimes } from '../../bench/delivery-times.js';
import { DispatchMetrics } from '../../src/dispatch/metrics.js';
import type { Delivery } from '../../src/dispatch/dispatcher.js';
import type { OutboxItem } from '../../src/dispatch/outbox.js';

function delivery(operatorId: string, answerMs: number, deliveredMs: number): Delivery {
  const item = { id: 1, operatorId, kind: 'bet', createdAt: 1_000 } as OutboxItem;
  return { item, attempt: { kind: 'answered', status: 200 }, decision: { kind: 'sent' }, applied: true, answerMs, at: 1_000 + deliveredMs };
}

test("the means are taken over every operator's series, from the provider's own text", async () => {
  const registry = new Registry();
  const metrics = new DispatchMetrics(registry, { backlog: async () => [] }, () => 0);
  metrics.observe(delivery('op-1', 10, 30));
  metrics.observe(delivery('op-1', 20, 50));
  metrics.observe(delivery('op-2', 60, 100));
  assert.deepEqual(deliveryTimes(await registry.metrics()), { answers: 3, answerMeanMs: 30, deliveries: 3, deliveryMeanMs: 60 });
});

test('nothing delivered is no figure', async () => {
  const registry = new Registry();
  new DispatchMetrics(registry, { backlog: async () => [] }, () => 0);
  assert.equal(deliveryTimes(await registry.metrics()), undefined);
  assert.equal(deliveryTimes(''), undefined);
});
