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
 * writer's, and if the thread fails the writer checkpoints everything
 * itself, as without it.
 */
import { Worker } from 'node:worker_threads';
import type { CheckpointFailure, CheckpointWorkerInit } from './checkpoint-worker.js';
import type { Durability } from './open-database.js';

/**
 * Between two background passes (ms). The writer's checkpoint copies what
 * was committed since the last pass began, so a shorter interval makes its
 * wait shorter; but each pass also syncs the database file and copies again
 * the pages every batch touches (a wallet's row, the tails of the tables),
 * which a longer interval would have copied once.
 */
export const CHECKPOINT_PASS_MS = 50;

export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private failure: string | undefined;

  constructor(path: string, durability: Durability, passMs = CHECKPOINT_PASS_MS) {
    this.worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
      workerData: { path, durability, passMs } satisfies CheckpointWorkerInit,
    });
    this.worker.on('message', (message: CheckpointFailure) => this.stop(message.failed));
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', () => resolve());
      this.worker.once('error', (error) => this.stop(String((error as Error | undefined)?.message ?? error)));
    });
  }

  /** Nothing is lost, but commits wait for whole checkpoints again: said once, on stderr. */
  private stop(reason: string): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    process.emitWarning(`the SQLite checkpointer thread stopped (${reason}); the writer checkpoints alone`);
  }

  /** Why the background passes stopped, if they did; the writer then checkpoints alone. */
  get stopped(): string | undefined {
    return this.failure;
  }

  /** Stops after the pass in progress, if any, and closes the thread's connection. */
  async close(): Promise<void> {
    this.worker.postMessage('close');
    await this.exited;
  }
}
