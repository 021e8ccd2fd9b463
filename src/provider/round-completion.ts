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
 * Each provider node runs a sweep every COMPLETION_SWEEP_MS. Several nodes
 * on one PostgreSQL database may pick the same round: the completion is one
 * transaction that plays the spins only if the round still has the count
 * the sweep read, so it is completed once and the others find it moved.
 *
 * Building it starts nothing (the app builders stay free of side effects):
 * the node's owner starts it beside the delivery (serve-provider.ts, the
 * sandbox) and stops it before the store closes. Its clock is the world's,
 * so a test moves time instead of waiting.
 */
import { completionOf } from '../rounds/completion.js';
import type { RoundDelivery } from './game-service.js';
import { openRoundSeed, SeedKeyMissingError, type SeedKeyring } from './seed-keyring.js';
import type { ProviderStore } from './store/provider-store.js';

/**
 * How often a node looks for rounds to complete (ms). The completion time
 * is minutes; a round completed up to 30 s late changes nothing for the
 * player, and one query per node every 30 s costs nothing.
 */
export const COMPLETION_SWEEP_MS = 30_000;
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
  /** Default COMPLETION_SWEEP_MS. */
  sweepMs?: number;
  /**
   * Told of the first sweep that failed (the database away) of an outage,
   * not of each: the next sweeps try again, one every sweepMs, which is
   * back-off enough for one query.
   */
  onError?: (error: unknown) => void;
  /** Told once a sweep works again after an outage, with how many sweeps failed in it. */
  onRecovered?: (failedSweeps: number) => void;
}

export class RoundCompletion {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  /** Sweeps that failed in a row: an outage is told once, at its start, and once at its end. */
  private failedSweeps = 0;

  constructor(private readonly setup: RoundCompletionSetup) {}

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

  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    const sweepMs = this.setup.sweepMs ?? COMPLETION_SWEEP_MS;
    const tick = () => {
      this.running = this.sweep()
        .then(
          () => {
            if (this.failedSweeps > 0) this.setup.onRecovered?.(this.failedSweeps);
            this.failedSweeps = 0;
          },
          (error: unknown) => {
            if (this.failedSweeps === 0) this.setup.onError?.(error);
            this.failedSweeps += 1;
          },
        )
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(tick, sweepMs);
        });
    };
    this.timer = setTimeout(tick, sweepMs);
  }

  /** Starts no more sweeps and waits for the one running. Stopping again does the same. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
