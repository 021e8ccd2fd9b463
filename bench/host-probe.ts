/**
 * What this host charges for one thread to wake another, measured once per
 * bench. The wallet hands every batch from its HTTP thread to its writer and
 * the answers back, and a PostgreSQL node waits for its database three times
 * a batch; each time, a sleeping thread must be woken on another core. On
 * bare metal that takes a few microseconds; on a virtual machine whose idle
 * core has been handed back to its host, tens. The ceiling's one thread is
 * never idle under load and never pays it. So the figure says how much of a
 * gap between the wallet and the ceiling belongs to the host.
 */
import { Worker } from 'node:worker_threads';

/** Round trips timed, in groups; the figure is the median group's mean, so that one descheduled moment does not set it. */
export const WAKE_ROUND_TRIPS = 20_000;
export const WAKE_GROUP = 1_000;

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
      Atomics.wait(cell, 0, 0);
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
        // Returns at once ('not-equal') if the worker already answered: no wake-up is lost.
        Atomics.wait(cell, 0, 1);
      }
      means.push(Number(process.hrtime.bigint() - started) / 1_000 / count);
    }
    means.sort((a, b) => a - b);
    return means[Math.floor(means.length / 2)]!;
  } finally {
    await worker.terminate();
  }
}
