/**
 * The waits of the game service: one launch's requests run one at a time
 * (a per-launch queue in this process), a launch's next round waits for the
 * rounds before it, and a player waits for a round's final answer up to
 * limits.roundSettleMsMax, woken by whichever delivery in this process
 * records it (store.onRoundFinished), or reading the round again when the
 * wait runs out, since another process may have answered it.
 */
import { featureDone, roundFinished } from '../rounds/completion.js';
import type { PlayerTimer } from './game-context.js';
import type { ProviderStore, RoundRow } from './store/provider-store.js';

export class RoundWaits {
  /** Each launch's last work queued, by launchId: the next waits for it. */
  private readonly queues = new Map<string, Promise<void>>();
  /** Players waiting for a pending round's final answer, by the round's pk. */
  private readonly finishWaiters = new Map<number, Set<(round?: RoundRow) => void>>();
  private readonly stopWatching: () => void;

  /** `roundSettleMsMax`: see ProviderLimits.roundSettleMsMax; `timer`: the time players wait in. */
  constructor(
    private readonly store: ProviderStore,
    private readonly roundSettleMsMax: number,
    private readonly timer: PlayerTimer,
  ) {
    // Whichever delivery in this process finishes a round, its player's wait ends then.
    this.stopWatching = store.onRoundFinished((round) => {
      for (const wake of [...(this.finishWaiters.get(round.pk) ?? [])]) wake(round);
    });
  }

  /** Ends the players' waits at once (their rounds stay in the outbox) and stops watching the store. */
  close(): void {
    this.stopWatching();
    for (const waiters of [...this.finishWaiters.values()]) for (const wake of [...waiters]) wake();
  }

  /** Runs `work` after every earlier work of the same launch has finished, and answers once what it wrote is durable. */
  async exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = before.then(() => mine);
    this.queues.set(key, tail);
    await before;
    try {
      const result = await work();
      // Nothing is answered that a crash could still take back: a fun round's revealed seed, a balance, a session.
      await this.store.durable();
      return result;
    } finally {
      release();
      if (this.queues.get(key) === tail) this.queues.delete(key);
    }
  }

  /**
   * Waits for the session's pending rounds to get a final answer, in order,
   * up to limits.roundSettleMsMax in all; answers how many are still
   * pending, or `unfinished` at once when one is a reels round with free
   * spins left: only its player (or the completion) can end that wait.
   */
  async pendingAfterWait(sessionPk: number): Promise<number | 'unfinished'> {
    const pending = await this.store.pendingRounds(sessionPk);
    if (pending.some((round) => round.reels !== null && !featureDone(round.reels))) return 'unfinished';
    // A person waits: the player's time, whatever the world's clock says.
    const deadline = this.timer.now() + this.roundSettleMsMax;
    for (const [index, round] of pending.entries()) {
      if ((await this.waitFor(round.pk, deadline - this.timer.now(), roundFinished)).status === 'pending') return pending.length - index;
    }
    return 0;
  }

  /**
   * The round once `done` holds of it, or as it is after `msMax` (the
   * player's time: a player is waiting). Read once first; then each wake brings the
   * round as the answer recorded in this process left it, with no read, and
   * a wait that timed out reads it again, since another process (or a
   * person resolving it) may have answered it meanwhile. Each `done` here,
   * once true of a round, stays true, so a wake's row serves as a read.
   */
  async waitFor(pk: number, msMax: number, done: (round: RoundRow) => boolean): Promise<RoundRow> {
    const deadline = this.timer.now() + msMax;
    let current = await this.store.round(pk);
    for (;;) {
      const left = deadline - this.timer.now();
      if (done(current) || left <= 0) return current;
      current = (await this.wake(pk, left)) ?? (await this.store.round(pk));
    }
  }

  /** Resolves with the round when the store reports an answer of it, or with nothing after `msMax`. */
  private wake(pk: number, msMax: number): Promise<RoundRow | undefined> {
    return new Promise<RoundRow | undefined>((resolve) => {
      let waiters = this.finishWaiters.get(pk);
      if (waiters === undefined) this.finishWaiters.set(pk, (waiters = new Set()));
      const own = waiters;
      const done = (round?: RoundRow) => {
        cancel();
        own.delete(done);
        if (own.size === 0 && this.finishWaiters.get(pk) === own) this.finishWaiters.delete(pk);
        resolve(round);
      };
      const cancel = this.timer.after(msMax, done);
      own.add(done);
    });
  }
}
