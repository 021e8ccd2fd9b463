/**
 * Interrupted reels rounds completed by the provider, as regulators expect
 * of a game the player left: a round whose free spins are not all played
 * limits.roundCompletionMs after it started has its remaining spins played
 * from the round's own draw (the outcome is the one the player would have
 * got: the draw was fixed when the round was written), and the feature's
 * wins are enqueued for the operator as if the player had played them
 * (store.playFreeSpins, recorded as completed on the round). A fun round
 * is paid its feature the same way. The round's seed, sealed while its
 * spins were hidden, is opened with the config's seed keyring and revealed
 * with the last spin, so the player can verify the round afterwards.
 *
 * Each provider node sweeps when the next round is due: after each sweep it
 * reads the oldest unfinished round and sets its timer to that round's due
 * time, and a round with free spins begun on this node (roundAdded) brings
 * the timer forward to its own, so a round is completed within a second
 * or so of its time. The timer waits at most COMPLETION_SWEEP_MS_MAX, so a
 * round begun on another node, which a live node completes itself, is
 * found within that if its node died. Several nodes on one PostgreSQL
 * database may pick the same round: the completion is one transaction
 * that plays the spins only if the round still has the count the sweep
 * read, so it is completed once and the others find it moved.
 *
 * Building it starts nothing (the app builders stay free of side effects):
 * the node's owner starts it beside the delivery (serve-provider.ts, the
 * sandbox) and stops it before the store closes. Its clock is the world's,
 * so a test moves time instead of waiting.
 */
import assert from 'node:assert/strict';
import { completionOf } from '../rounds/completion.js';
import type { RoundDelivery } from './game-service.js';
import { openRoundSeed, SeedKeyMissingError, type SeedKeyring } from './seed-keyring.js';
import type { ProviderStore } from './store/provider-store.js';

/**
 * The longest wait between two sweeps of a node (ms), and its wait after a
 * sweep that failed (the database away): a round begun on a node that died
 * is completed at most this late, and an outage costs one query per node
 * every 30 s.
 */
export const COMPLETION_SWEEP_MS_MAX = 30_000;
/**
 * The shortest wait between two sweeps (ms): a round due that a sweep left
 * unfinished (its player played a spin at the same moment, or a full batch
 * left more) is looked at again after this, not in a loop; a round due
 * sooner waits for it. A second is the setting's own unit.
 */
export const COMPLETION_SWEEP_MS_MIN = 1_000;
/** Rounds one sweep completes at most: bounds its work; the rest wait for the next sweep. */
export const COMPLETION_BATCH_MAX = 100;

export interface RoundCompletionSetup {
  store: ProviderStore;
  /** Opens the seeds of the rounds it completes (the config's seedKeys). */
  keyring: SeedKeyring;
  /** See ProviderLimits.roundCompletionMs. */
  roundCompletionMs: number;
  /** Epoch ms: the clock rounds are written with. */
  clock: () => number;
  /** Woken when a sweep enqueued calls. */
  delivery?: RoundDelivery;
  /** The waits between sweeps (ms); default COMPLETION_SWEEP_MS_MIN and COMPLETION_SWEEP_MS_MAX. */
  sweepMsMin?: number;
  sweepMsMax?: number;
  /** The timers the sweeps are set on; default the host's (a test's own sees the waits). */
  timers?: SweepTimers;
  /**
   * Told of the first sweep that failed (the database away) of an outage,
   * not of each: the next sweeps try again, one every sweepMsMax, which is
   * back-off enough for one query.
   */
  onError?: (error: unknown) => void;
  /** Told once a sweep works again after an outage, with how many sweeps failed in it. */
  onRecovered?: (failedSweeps: number) => void;
}

/** Where the next sweep is set: the host's timers, or a test's. */
export interface SweepTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const HOST_TIMERS: SweepTimers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class RoundCompletion {
  private timer: unknown;
  /** The clock's time the timer is set for; a round added due sooner sets it again. */
  private timerAt: number | undefined;
  /** The soonest due time of the rounds added while a sweep ran. */
  private addedDueAt: number | undefined;
  private running: Promise<unknown> | undefined;
  private started = false;
  private stopped = false;
  /** Sweeps that failed in a row: an outage is told once, at its start, and once at its end. */
  private failedSweeps = 0;
  private readonly timers: SweepTimers;
  private readonly sweepMsMin: number;
  private readonly sweepMsMax: number;

  constructor(private readonly setup: RoundCompletionSetup) {
    this.timers = setup.timers ?? HOST_TIMERS;
    this.sweepMsMin = setup.sweepMsMin ?? COMPLETION_SWEEP_MS_MIN;
    this.sweepMsMax = setup.sweepMsMax ?? COMPLETION_SWEEP_MS_MAX;
    assert.ok(this.sweepMsMin >= 0 && this.sweepMsMin <= this.sweepMsMax, 'the shortest wait between sweeps is not above the longest');
  }

  /**
   * Completes the rounds due at the clock's now, oldest first, up to
   * COMPLETION_BATCH_MAX; answers how many this node completed (a round
   * another node or its player got to first is not counted). A round whose
   * seed key is no longer in the ring is left as it is, the others are
   * completed, and the sweep then fails naming the key (onError).
   */
  async sweep(): Promise<number> {
    const { store, clock, roundCompletionMs, delivery, keyring } = this.setup;
    const now = clock();
    let completed = 0;
    let keyMissing: SeedKeyMissingError | undefined;
    for (const round of await store.unfinishedFeatures(now - roundCompletionMs, COMPLETION_BATCH_MAX)) {
      let serverSeed: string;
      try {
        serverSeed = openRoundSeed(keyring, round);
      } catch (error) {
        if (!(error instanceof SeedKeyMissingError)) throw error;
        keyMissing ??= error;
        continue;
      }
      const { from, to } = completionOf(round.reels!);
      const written = await store.playFreeSpins(round.pk, from, to, now, serverSeed, now);
      if (written.ok) completed += 1;
    }
    if (completed > 0) {
      // As a player's round: the feature's call is sent once its write is durable.
      await store.durable();
      delivery?.poke();
    }
    if (keyMissing) throw keyMissing;
    return completed;
  }

  /**
   * The wait before the next sweep (ms): until the oldest unfinished
   * round is due, within sweepMsMin and sweepMsMax; sweepMsMax when there
   * is none.
   */
  async nextSweepMs(): Promise<number> {
    const { store, clock, roundCompletionMs } = this.setup;
    const [oldest] = await store.unfinishedFeatures(Number.MAX_SAFE_INTEGER, 1);
    if (oldest === undefined) return this.sweepMsMax;
    return this.bounded(oldest.createdAt + roundCompletionMs - clock());
  }

  /** Sweeps at once, then whenever the next round is due (nextSweepMs), until stopped. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.arm(0);
  }

  /**
   * A round with free spins was begun on this node at `createdAt` (the
   * clock's): the next sweep is set for its due time if that comes before
   * the one set. Before start, or once stopped, nothing is set.
   */
  roundAdded(createdAt: number): void {
    if (!this.started || this.stopped) return;
    const dueAt = createdAt + this.setup.roundCompletionMs;
    // A sweep under way may have read before this round was written: its timer is set with this one in mind.
    if (this.running !== undefined) this.addedDueAt = Math.min(this.addedDueAt ?? dueAt, dueAt);
    else this.armBy(dueAt);
  }

  /** Starts no more sweeps and waits for the one running. Stopping again does the same. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    await this.running;
  }

  private bounded(ms: number): number {
    return Math.min(Math.max(ms, this.sweepMsMin), this.sweepMsMax);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.timerAt = undefined;
  }

  /** Sets the next sweep for `dueAt` (the clock's), bounded, unless one is set sooner. */
  private armBy(dueAt: number): void {
    if (this.timerAt !== undefined && this.timerAt <= dueAt) return;
    this.arm(this.bounded(dueAt - this.setup.clock()));
  }

  private arm(ms: number): void {
    this.disarm();
    this.timerAt = this.setup.clock() + ms;
    this.timer = this.timers.set(() => this.tick(), ms);
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = undefined;
    this.running = this.sweep()
      .then(async () => {
        if (this.failedSweeps > 0) this.setup.onRecovered?.(this.failedSweeps);
        this.failedSweeps = 0;
        return this.nextSweepMs();
      })
      .catch((error: unknown) => {
        if (this.failedSweeps === 0) this.setup.onError?.(error);
        this.failedSweeps += 1;
        return this.sweepMsMax;
      })
      .then((waitMs) => {
        this.running = undefined;
        const added = this.addedDueAt;
        this.addedDueAt = undefined;
        if (this.stopped) return;
        this.arm(waitMs);
        if (added !== undefined) this.armBy(added);
      });
  }
}
