/**
 * When an outbox item is sent again, as data and pure functions: what one
 * attempt got back (`SendAttempt`) becomes a decision (`sent`, `refused`,
 * `retry` at a time, or `parked`) under a `DispatchSchedule`.
 *
 * The back-off is the protocol's, which the clients use too (`RetryPolicy`,
 * `backoffMs` and `PROTOCOL_RETRY` of src/protocol/retry-policy.ts):
 * docs/protocol.md §9's full jitter from 0.5 s doubling to a 60 s cap, with
 * the same statuses resent (§3.3: 408, 429, 500, 502, 503, 504, network
 * errors and time-outs). Only
 * the bound differs: an in-call retry stops after an attempt limit, while
 * the outbox keeps an item until a time horizon and then parks it for a
 * person to resolve. A parked item is never dropped.
 *
 * Bets are parked like wins and payouts, never given up by the provider
 * alone: an attempt whose answer was lost may have been booked, and the
 * interface has no way to take a bet back, so giving up would let the two
 * sides disagree about money. A late bet normally ends by itself: the
 * operator refuses a bet on an expired session (403 SESSION_EXPIRED, a final
 * refusal, docs/protocol.md §5.2, §6.4), and that refusal refuses the round.
 */
import { backoffMs, PROTOCOL_RETRY, retryAfterMs, type RetryPolicy } from '../protocol/retry-policy.js';
import { isRetryableStatus } from '../protocol/errors.js';

/** What an item books: a round's bet or win (/transaction), or a prize (/payout). */
export type ItemKind = 'bet' | 'win' | 'payout';
export const ITEM_KINDS: readonly ItemKind[] = ['bet', 'win', 'payout'];

/**
 * How long an item is retried before it is parked (ms), from when it was
 * enqueued. 72 h outlasts a weekend's outage at an operator, after which a
 * person looks at it rather than a timer.
 */
export const DISPATCH_HORIZON_MS = 72 * 3600 * 1000;

/**
 * The longest `Retry-After` honoured (ms). An operator that asks for more is
 * waited for this long and then asked again: a wrong header (a date in the
 * wrong year) must not hold a win for days. 10 min is far beyond any
 * overload an operator signals with 429 or 503.
 */
export const RETRY_AFTER_MS_MAX = 10 * 60 * 1000;

export interface DispatchSchedule {
  /**
   * The back-off and the statuses resent: the client's policy. Its
   * `attemptsMax` and `elapsedMsMax` bound one in-call retry loop and are
   * not read here; `horizonMs` bounds an item instead.
   */
  retry: RetryPolicy;
  /** See RETRY_AFTER_MS_MAX. */
  retryAfterMsMax: number;
  /** Per kind: see DISPATCH_HORIZON_MS. */
  horizonMs: Readonly<Record<ItemKind, number>>;
}

export const DISPATCH_SCHEDULE: DispatchSchedule = {
  retry: PROTOCOL_RETRY,
  retryAfterMsMax: RETRY_AFTER_MS_MAX,
  horizonMs: { bet: DISPATCH_HORIZON_MS, win: DISPATCH_HORIZON_MS, payout: DISPATCH_HORIZON_MS },
};

/**
 * What one attempt got back. `answered`: an HTTP answer, with the problem's
 * registry code when it was one, the player's `balance` it carried (exact
 * decimal text, a 200's or a problem's: what the enqueuer reads its result
 * from), and its `Retry-After` as the header's text or already in ms.
 * `invalid-answer`: a 200 whose body is not the protocol (it is resent: the
 * call is idempotent, and the operator's answer to the same bytes will be
 * read again). `failed`: a network error or no answer within the wait for
 * one (docs/protocol.md §9).
 */
export type SendAttempt =
  | {
      kind: 'answered';
      status: number;
      code?: string;
      detail?: string;
      balance?: string;
      retryAfter?: string;
      retryAfterMs?: number;
    }
  | { kind: 'invalid-answer'; status: number; detail: string }
  | { kind: 'failed'; detail: string };

/**
 * `retry`: at `at`; `notBefore`, when the answer's Retry-After asked for a
 * wait, is the earliest time that allows, which nothing may bring forward
 * (not even the operator's return, Outbox.hasten).
 */
export type Decision = { kind: 'sent' } | { kind: 'refused' } | { kind: 'retry'; at: number; notBefore?: number } | { kind: 'parked' };

/** The item as the schedule needs it: `attempts` counts the attempt just made. */
export interface ScheduledItem {
  kind: ItemKind;
  attempts: number;
  /** Epoch ms. */
  createdAt: number;
}

/** Whether an answered status is resent: the policy's statuses, within docs/protocol.md §3.3's rule. */
export function isResent(schedule: DispatchSchedule, status: number): boolean {
  return schedule.retry.retryStatuses.includes(status) && isRetryableStatus(status);
}

/**
 * The wait before the next attempt (ms): full jitter over the doubling
 * back-off, and at least what `Retry-After` asked, up to retryAfterMsMax.
 */
export function retryDelayMs(schedule: DispatchSchedule, attempts: number, askedMs: number | undefined, random: () => number): number {
  const jittered = backoffMs(schedule.retry, Math.max(1, attempts), random);
  const asked = askedMs === undefined ? 0 : Math.min(askedMs, schedule.retryAfterMsMax);
  return Math.max(jittered, asked);
}

/** What to do with an item after an attempt at `now`. */
export function decide(schedule: DispatchSchedule, item: ScheduledItem, attempt: SendAttempt, now: number, random: () => number): Decision {
  let asked: number | undefined;
  if (attempt.kind === 'answered') {
    if (attempt.status === 200) return { kind: 'sent' };
    if (!isResent(schedule, attempt.status)) return { kind: 'refused' };
    asked = attempt.retryAfterMs ?? retryAfterMs(attempt.retryAfter, now);
  }
  const at = now + retryDelayMs(schedule, item.attempts, asked, random);
  // The next attempt would come after the horizon: a person decides instead.
  if (at > item.createdAt + schedule.horizonMs[item.kind]) return { kind: 'parked' };
  return asked === undefined ? { kind: 'retry', at } : { kind: 'retry', at, notBefore: now + Math.min(asked, schedule.retryAfterMsMax) };
}
