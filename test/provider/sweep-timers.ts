/**
 * Timers for the completion's sweeps (round-completion.ts) that the test
 * fires itself: each wait set is recorded, and `fire` runs the sweep set
 * and waits until that sweep has set the next, so that a test reads when
 * the next sweep would come without waiting for it.
 */
import assert from 'node:assert/strict';
import type { SweepTimers } from '../../src/provider/round-completion.js';

export interface TestTimers extends SweepTimers {
  /** Every wait set, in order (ms). */
  readonly waits: number[];
  /** Whether a sweep is set now. */
  readonly armed: boolean;
  /** Runs the sweep set and answers the wait the sweep then set (ms). */
  fire(): Promise<number>;
}

/** How long `fire` waits for a sweep to set the next (ms), on a loaded machine. */
const SWEEP_WAIT_MS_MAX = 20_000;

export function testTimers(): TestTimers {
  let next: { run: () => void; handle: object } | undefined;
  const waits: number[] = [];
  return {
    waits,
    get armed() {
      return next !== undefined;
    },
    set: (run, ms) => {
      waits.push(ms);
      next = { run, handle: {} };
      return next.handle;
    },
    clear: (handle) => {
      if (handle === next?.handle) next = undefined;
    },
    fire: async () => {
      const set = next;
      assert.ok(set, 'a sweep is set');
      next = undefined;
      const before = waits.length;
      set.run();
      const deadline = Date.now() + SWEEP_WAIT_MS_MAX;
      while (waits.length === before) {
        assert.ok(Date.now() < deadline, 'timed out waiting for the sweep to set the next');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return waits[before]!;
    },
  };
}
