/**
 * The wallet's commits over a row, read from its `/metrics`
 * (`wagerlink_store_commit_seconds`): how many batches committed, and how
 * many took over SLOW_COMMIT_S from COMMIT until durable. Every request of
 * a batch waits for its commit, and with 64 connections each holding one
 * request, one stalled sync holds up every one of them: a handful of slow
 * commits in a run set the row's 99th percentile, which the ceiling, with no
 * disk, never pays. Pure: parses the text it is given.
 */
import { COMMIT_METRIC as METRIC } from '../src/operator/metrics.js';

export const SLOW_COMMIT_S = 0.1;

export interface CommitTimes {
  commits: number;
  /** Commits that took over SLOW_COMMIT_S. */
  slow: number;
}

/** Undefined when the text has no commit histogram (a store that does not time its commits). */
export function commitTimes(metricsText: string): CommitTimes | undefined {
  const count = new RegExp(`^${METRIC}_count (\\d+)$`, 'm').exec(metricsText);
  if (!count) return undefined;
  const commits = Number(count[1]);
  // Buckets are cumulative: the bucket of SLOW_COMMIT_S (a bound of the histogram) holds every commit not over it.
  for (const [, bound, value] of metricsText.matchAll(new RegExp(`^${METRIC}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm'))) {
    if (Number(bound) === SLOW_COMMIT_S) return { commits, slow: commits - Number(value) };
  }
  throw new Error(`${METRIC} has no bucket at ${SLOW_COMMIT_S} s`);
}
