/**
 * The host probes: two threads take turns on a shared cell, and the figure is
 * the time of one round trip; writes synced to disk, and the figures are
 * their times.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncLatency, wakeRoundTripUs } from '../../bench/host-probe.js';

test('a wake-up round trip between two threads is timed: positive, and far under a millisecond', async () => {
  const us = await wakeRoundTripUs(2_000, 200);
  // A lost wake-up would hang the probe; a broken turn-taking would answer 0 or NaN.
  assert.ok(Number.isFinite(us) && us > 0, String(us));
  // Even a busy shared host wakes a thread in well under 1 ms; this bounds a probe that sleeps instead of waiting.
  assert.ok(us < 1_000, `${us} µs`);
});

test('writes synced to disk are timed: ordered percentiles, and the probe leaves nothing behind', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wagerlink-sync-probe-'));
  try {
    const sync = syncLatency(dir, 200);
    assert.ok(sync.syncs > 0, `${sync.syncs} syncs`);
    assert.ok(sync.p50Ms > 0 && sync.p50Ms <= sync.p99Ms && sync.p99Ms <= sync.maxMs, JSON.stringify(sync));
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
