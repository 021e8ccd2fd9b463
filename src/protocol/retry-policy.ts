/**
 * docs/protocol.md §3 and §9's retry rule as data and pure functions: which
 * answers are resent, the full-jitter back-off, and how long a `Retry-After`
 * asks to wait. The clients' in-call retries (src/clients/http-call.ts) and
 * the outbox's schedule (src/dispatch/retry-schedule.ts) both read it here,
 * so that neither the outbox's pure schedule depends on an HTTP client nor
 * the two drift apart. No I/O; the randomness and the time come in as
 * arguments.
 */

export interface RetryPolicy {
  /**
   * Answers with these statuses are resent with the same body; network errors
   * and time-outs always are. Only statuses of docs/protocol.md §3's retry rule take
   * effect: any other answer is final, whatever a policy lists.
   */
  retryStatuses: readonly number[];
  /** Back-off before the first retry, doubling with each retry (ms), then jittered: uniform in [0, delay]. */
  retryDelayMsMin: number;
  /** The back-off stops doubling here (ms). */
  retryDelayMsMax: number;
  /** Attempts in all, the first included. */
  attemptsMax: number;
  /** No retry is started later than this after the first attempt (ms). */
  elapsedMsMax: number;
}

/** The statuses docs/protocol.md §3 resends, with 408: a request that did not arrive in time (§9) applied nothing. */
export const RETRY_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504];

/**
 * docs/protocol.md §9: 0.5 s doubling to 60 s with full jitter, until a final
 * answer. "Until" is bounded all the same: 1000 attempts at up to a minute
 * apart is more than half a day, after which a durable outbox takes over.
 */
export const PROTOCOL_RETRY: RetryPolicy = {
  retryStatuses: RETRY_STATUSES,
  retryDelayMsMin: 500,
  retryDelayMsMax: 60_000,
  attemptsMax: 1_000,
  elapsedMsMax: 24 * 3600 * 1000,
};

/** One attempt, no retry: for callers that retry on their own terms (a CLI, a test). */
export const NO_RETRY: RetryPolicy = { ...PROTOCOL_RETRY, attemptsMax: 1 };

/** Full jitter: uniform in [0, min(max, min × 2^(retry-1))]. `retry` counts from 1. */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number): number {
  const exponent = Math.min(retry - 1, 30); // 2^30 × any minimum is past any maximum
  const ceiling = Math.min(policy.retryDelayMsMax, policy.retryDelayMsMin * 2 ** exponent);
  return Math.floor(random() * ceiling);
}

/**
 * A `Retry-After` value (RFC 9110 §10.2.3) as a wait from `now` (ms):
 * delay-seconds, or an HTTP date (an IMF-fixdate, or one of the obsolete
 * forms recipients still read; a date already past is no wait). Undefined
 * when the header is absent or is neither. How long a wait is honoured is
 * the caller's bound (a policy's retryDelayMsMax, the outbox's
 * RETRY_AFTER_MS_MAX).
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday or month in letters; a bare number of another shape is not one.
  if (!/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
