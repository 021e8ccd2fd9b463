/**
 * What the host charges for what the wallet does and the ceiling does not,
 * measured once per bench: waking a thread, and syncing a write to disk.
 *
 * Waking: the wallet hands every batch from its HTTP thread to its writer
 * and the answers back, and a PostgreSQL node waits for its database three
 * times a batch; each time, a sleeping thread must be woken on another core. On
 * bare metal that takes a few microseconds; on a virtual machine whose idle
 * core has been handed back to its host, tens. The ceiling's one thread is
 * never idle under load and never pays it. So the figure says how much of a
 * gap between the wallet and the ceiling belongs to the host.
 *
 * Syncing: see syncLatency below.
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** Round trips timed, in groups; the figure is the median group's mean, so that one descheduled moment does not set it. */
const WAKE_ROUND_TRIPS = 20_000;
const WAKE_GROUP = 1_000;

/**
 * Two threads take turns on one shared cell: each sleeps in Atomics.wait
 * until the other flips it and calls Atomics.notify. Returns the time of one
 * round trip (two wake-ups), in µs.
 */
export async function wakeRoundTripUs(roundTrips = WAKE_ROUND_TRIPS, group = WAKE_GROUP): Promise<number> {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData: { cell, roundTrips } } = require('node:worker_threads');
    parentPort.postMessage('ready');
    for (let i = 0; i < roundTrips; i++) {
      // A wake-up may come from the other side's previous turn: only the cell's value says it is this side's turn.
      while (Atomics.load(cell, 0) === 0) Atomics.wait(cell, 0, 0);
      Atomics.store(cell, 0, 0);
      Atomics.notify(cell, 0);
    }`,
    { eval: true, workerData: { cell, roundTrips } },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    const means: number[] = [];
    for (let done = 0; done < roundTrips; done += group) {
      const count = Math.min(group, roundTrips - done);
      const started = process.hrtime.bigint();
      for (let i = 0; i < count; i++) {
        Atomics.store(cell, 0, 1);
        Atomics.notify(cell, 0);
        // Returns at once ('not-equal') if the worker already answered. A notify the worker sent for the turn
        // before can also end a wait early (when this thread was slow to see it): each side waits until the cell
        // itself has turned, or a side would count a turn twice, run ahead, and leave the other waiting forever.
        while (Atomics.load(cell, 0) === 1) Atomics.wait(cell, 0, 1);
      }
      means.push(Number(process.hrtime.bigint() - started) / 1_000 / count);
    }
    means.sort((a, b) => a - b);
    return means[Math.floor(means.length / 2)]!;
  } finally {
    await worker.terminate();
  }
}

/** What one sync probe writes each time: about what a group commit of a few dozen bets appends to the WAL. */
export const SYNC_WRITE_BYTES = 64 * 1024;
/** The probe's file is started anew at this size, so that the probe's disk use stays bounded. */
const SYNC_FILE_BYTES = 256 * 1024 * 1024;
/** How long the sync probe writes and syncs. */
const SYNC_PROBE_MS = 3_000;

export interface SyncLatency {
  syncs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Disk: a SYNC_WRITE_BYTES append and its fdatasync, back to back for
 * `durationMs`, in a file of `dir` (put it on the wallet's disk). Every
 * answer of the wallet waits for such a sync (SQLite's COMMIT with
 * synchronous=FULL), and while one is slow every request in flight waits
 * with it; the ceiling never syncs. A virtual machine's disk may answer in a
 * fraction of a millisecond most of the time and take a hundred
 * milliseconds or more now and then, and those moments set the wallet's 99th
 * percentile. The file grows, as the ledger's database does.
 */
export function syncLatency(dir: string, durationMs = SYNC_PROBE_MS): SyncLatency {
  const path = join(dir, 'sync-probe.bin');
  const block = Buffer.alloc(SYNC_WRITE_BYTES, 0x5a);
  const times: number[] = [];
  let fd = openSync(path, 'w');
  try {
    const end = performance.now() + durationMs;
    for (let written = 0; performance.now() < end; written += block.length) {
      if (written >= SYNC_FILE_BYTES) {
        closeSync(fd);
        fd = openSync(path, 'w');
        written = 0;
      }
      writeSync(fd, block);
      const started = performance.now();
      fdatasyncSync(fd);
      times.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { syncs: times.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: times[times.length - 1]! };
}
