/**
 * Call deadlines with one timer for all of them. Every call of a store gets
 * the same time-out, so deadlines fall due in the order they were set: a
 * queue whose head holds the one timer replaces the AbortController,
 * setTimeout and Promise.race that each call otherwise pays for (a
 * measurable share of the hot path's CPU at thousands of calls a second).
 *
 * A CallDeadline has the part of AbortSignal's shape that the group
 * batcher reads (`aborted`, `reason`, an 'abort' listener), so the
 * batcher takes either.
 */

/** What a call's deadline offers its consumers; an AbortSignal has this shape too. */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
}

export class CallDeadline implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  /** Answered: it can no longer expire, and its listeners are let go. */
  settled = false;
  private listeners: (() => void)[] | undefined;

  constructor(readonly dueAtMs: number) {}

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.settled) return;
    (this.listeners ??= []).push(listener);
  }

  expire(reason: unknown): void {
    if (this.aborted || this.settled) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener();
  }

  settle(): void {
    this.settled = true;
    this.listeners = undefined;
  }
}

/** Settled deadlines kept at the queue's front before the array is compacted. */
const SETTLED_SLACK_MAX = 1_024;

export class CallDeadlines {
  /** Deadlines in the order they were set, which is the order they fall due. */
  private queue: CallDeadline[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    /** The reason a call that ran out of time is given. */
    private readonly reason: () => Error,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  /** A deadline timeoutMs from now. */
  start(): CallDeadline {
    const deadline = new CallDeadline(this.nowMs() + this.timeoutMs);
    this.queue.push(deadline);
    if (this.timer === undefined) this.arm();
    return deadline;
  }

  /** Marks a call answered. Calls mostly finish in the order they started, so the front is trimmed here and the queue stays as long as the calls in flight. */
  settle(deadline: CallDeadline): void {
    deadline.settle();
    this.trim();
  }

  /** Stops the timer; deadlines not yet due never expire. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private trim(): void {
    while (this.head < this.queue.length && this.queue[this.head]!.settled) this.head++;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > SETTLED_SLACK_MAX && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private arm(): void {
    const next = this.queue[this.head];
    if (next === undefined) return;
    this.timer = setTimeout(this.fire, Math.max(0, next.dueAtMs - this.nowMs()));
    // A deadline never keeps the process alive: the call it bounds does, if anything.
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    const now = this.nowMs();
    for (let next = this.queue[this.head]; next !== undefined && next.dueAtMs <= now; next = this.queue[this.head]) {
      this.head++;
      if (!next.settled) next.expire(this.reason());
    }
    this.trim();
    this.arm();
  };
}
