/**
 * How the background checkpointer (checkpointer.ts) retries a pass that
 * failed: the delays, and the back-off between them. A module of its own so
 * that the checkpointer and its worker thread (checkpoint-worker.ts) both
 * read it without importing each other.
 */

/**
 * The wait after a pass that failed, before the first retry (ms); each
 * further failure in a row doubles it. A momentary failure is retried about
 * when the next pass would have run, and a lasting one (a full disk) is not
 * retried twenty times a second.
 */
export const CHECKPOINT_RETRY_DELAY_MS_FIRST = 100;
/**
 * The longest wait between two retries (ms). While the passes fail the
 * writer checkpoints alone and its commits wait for whole checkpoints
 * again, so the passes should be back within seconds of the cause going;
 * one failed attempt every 10 s costs nothing that can be measured.
 */
export const CHECKPOINT_RETRY_DELAY_MS_MAX = 10_000;

/** The wait before the next attempt after `failed` attempts in a row failed (ms): doubling from `first`, capped at `max`. */
export function checkpointRetryDelayMs(failed: number, first: number, max: number): number {
  return Math.min(max, first * 2 ** Math.min(Math.max(failed - 1, 0), 30));
}
