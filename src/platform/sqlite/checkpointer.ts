/**
 * Keeps checkpoints out of the writer's commits.
 *
 * A checkpoint copies the WAL's pages into the database file and syncs it.
 * SQLite runs one inside the COMMIT that takes the WAL past
 * WAL_CHECKPOINT_PAGES, and every request of that batch, which is every
 * request in flight, waits for the whole copy: 5 to 10 ms on a fresh
 * ledger, 10 to 30 ms on a ledger of a million rounds, whose pages lie
 * further apart (docs/performance.md). Those waits set the 99th percentile.
 *
 * Here a thread of its own, on a connection of its own, runs a PASSIVE
 * checkpoint every CHECKPOINT_PASS_MS while the writer goes on committing.
 * The writer's own checkpoint still runs where it did, and is still what
 * lets SQLite reuse the WAL from its start (which needs every frame copied
 * at the moment a write transaction begins, something only the writer can
 * arrange); but it now copies only what was committed since the last pass.
 *
 * Correctness does not depend on this thread: a checkpoint from another
 * connection is an ordinary SQLite operation, as crash-safe as the
 * writer's, and while its passes fail the writer checkpoints everything
 * itself, as without it. A pass that fails (a full disk) is retried with a
 * back-off until one succeeds, so that the passes come back without a
 * restart once the cause is gone; each streak of failures is said once on
 * stderr, and its end once.
 */
import { Worker } from 'node:worker_threads';
import type { CheckpointReport, CheckpointWorkerInit } from './checkpoint-worker.js';
import type { Durability } from './open-database.js';
import { CHECKPOINT_RETRY_DELAY_MS_FIRST, CHECKPOINT_RETRY_DELAY_MS_MAX } from './checkpoint-retry.js';

/**
 * Between two background passes (ms). The writer's checkpoint copies what
 * was committed since the last pass began, so a shorter interval makes its
 * wait shorter; but each pass also syncs the database file and copies again
 * the pages every batch touches (a wallet's row, the tails of the tables),
 * which a longer interval would have copied once.
 */
export const CHECKPOINT_PASS_MS = 50;
/** Warnings go out under this code, so that a log filter (or a test) can pick them out. */
export const CHECKPOINTER_WARNING_CODE = 'WAGERLINK_SQLITE_CHECKPOINTER';

export interface CheckpointerOptions {
  /** Default CHECKPOINT_PASS_MS. */
  passMs?: number;
  /** Default CHECKPOINT_RETRY_DELAY_MS_FIRST. */
  retryDelayMsFirst?: number;
  /** Default CHECKPOINT_RETRY_DELAY_MS_MAX. */
  retryDelayMsMax?: number;
  /** Tests only: a shared switch that makes passes fail while it is on (CheckpointWorkerInit.faults). */
  faults?: Int32Array;
}

export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private failure: string | undefined;
  private dead = false;

  constructor(path: string, durability: Durability, options: CheckpointerOptions = {}) {
    const init: CheckpointWorkerInit = {
      path,
      durability,
      passMs: options.passMs ?? CHECKPOINT_PASS_MS,
      retryDelayMsFirst: options.retryDelayMsFirst ?? CHECKPOINT_RETRY_DELAY_MS_FIRST,
      retryDelayMsMax: options.retryDelayMsMax ?? CHECKPOINT_RETRY_DELAY_MS_MAX,
      faults: options.faults,
    };
    this.worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: init });
    this.worker.on('message', (message: CheckpointReport) => {
      if ('failed' in message) this.streakStarted(message.failed);
      else this.streakEnded(message.recovered);
    });
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', () => resolve());
      this.worker.once('error', (error) => this.died(String((error as Error | undefined)?.message ?? error)));
    });
  }

  /** Nothing is lost, but commits wait for whole checkpoints again until a retry succeeds: said once per streak, on stderr. */
  private streakStarted(reason: string): void {
    if (this.dead) return;
    this.failure = reason;
    process.emitWarning(`the SQLite checkpointer's passes are failing (${reason}); the writer checkpoints alone, and the passes are retried with a back-off`, {
      code: CHECKPOINTER_WARNING_CODE,
    });
  }

  private streakEnded(attempts: number): void {
    if (this.dead) return;
    this.failure = undefined;
    process.emitWarning(`the SQLite checkpointer's passes work again, after ${attempts} failed attempts`, { code: CHECKPOINTER_WARNING_CODE });
  }

  /** The thread itself failed: no retry brings it back, and the writer checkpoints alone until a restart. */
  private died(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.failure = reason;
    process.emitWarning(`the SQLite checkpointer thread stopped (${reason}); the writer checkpoints alone`, { code: CHECKPOINTER_WARNING_CODE });
  }

  /** Why the background passes are failing now, if they are (the writer then checkpoints alone); undefined while they work. */
  get failing(): string | undefined {
    return this.failure;
  }

  /** Stops after the pass in progress, if any, and closes the thread's connection. */
  async close(): Promise<void> {
    this.worker.postMessage('close');
    await this.exited;
  }
}
