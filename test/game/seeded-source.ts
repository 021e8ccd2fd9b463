/**
 * Seeded sources of uniform integers for the simulation tests: reproducible
 * runs of a million rounds in a second or two. The HMAC draws of
 * src/game/fairness.ts are what play uses; their uniformity is proved in
 * fairness.test.ts.
 */

/** sfc32: a small, fast, seedable generator with good statistics, for simulation only. */
export function sfc32(a: number, b: number, c: number, d: number): () => number {
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
}

/** Tries per number before the generator is called broken: a word is rejected with probability below 1/2. */
const TRIES_MAX = 64;

/** One uniform integer in [0, n) from 32-bit words, by rejection (no modulo bias). */
export function uniformIn(next32: () => number, n: number): number {
  const limit = Math.floor(2 ** 32 / n) * n;
  for (let tries = 0; tries < TRIES_MAX; tries++) {
    const word = next32();
    if (word < limit) return word % n;
  }
  throw new Error('the generator is broken');
}

/** A source of uniform integers in [0, n), n fixed. */
export function uniform(next32: () => number, n: number): () => number {
  return () => uniformIn(next32, n);
}
