/**
 * A small deterministic generator of floats in [0, 1) for tests whose
 * workload or faults must be the same on every run of a seed. Not for
 * simulations of games (test/game/seeded-source.ts) nor for anything the
 * product draws (src/game/fairness.ts).
 */

/** mulberry32: 32 bits of state, a full period of 2^32, good enough to spread a test's choices. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
