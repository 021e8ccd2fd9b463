/**
 * What the tests of background checkpoints read: how many frames a
 * database's WAL holds and how many of them were copied into the database
 * file, and a wait until that changes.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';

/** How long a test waits for a background pass to have run (ms): many intervals, on a loaded machine. */
const PASS_WAIT_MS = 5_000;
/** Between two looks at the state (ms). */
const POLL_MS = 5;

export interface WalState {
  /** Frames in the WAL. */
  log: number;
  /** Frames of it copied into the database file. */
  checkpointed: number;
}

/** Reads the WAL's state without copying anything (SQLite's NOOP checkpoint). */
export function walState(db: Database.Database): WalState {
  const [row] = db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
  return { log: Number(row!.log), checkpointed: Number(row!.checkpointed) };
}

/** Resolves once `condition` holds; fails the test after PASS_WAIT_MS, naming `what` it waited for. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + PASS_WAIT_MS;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await sleep(POLL_MS);
  }
}
