/**
 * The host probe: two threads take turns on a shared cell, and the figure is
 * the time of one round trip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wakeRoundTripUs } from '../../bench/host-probe.js';

test('a wake-up round trip between two threads is timed: positive, and far under a millisecond', async () => {
  const us = await wakeRoundTripUs(2_000, 200);
  // A lost wake-up would hang the probe; a broken turn-taking would answer 0 or NaN.
  assert.ok(Number.isFinite(us) && us > 0, String(us));
  // Even a busy shared host wakes a thread in well under 1 ms; this bounds a probe that sleeps instead of waiting.
  assert.ok(us < 1_000, `${us} µs`);
});
