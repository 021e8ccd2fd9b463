/**
 * The provider's SQLite database as every family of the store's operations
 * uses it: the connection, the group-commit turn each write joins, and the
 * outbox items that turn's commit and sync make claimable.
 *
 * Group commit: every write of one event-loop turn joins one database
 * transaction, opened by the turn's first write and committed when the turn
 * ends (setImmediate); a write that spans several statements runs behind a
 * savepoint of its own (better-sqlite3 nests transactions that way), so a
 * failed one rolls back alone. Commits do not wait for the disk on this
 * thread: they run with synchronous=NORMAL, and `durable()` resolves once
 * the turn's commit is done and a WalFlusher has fdatasync'ed the WAL on
 * libuv's thread pool (as durable as FULL, argued in wal-flusher.ts). The
 * game service waits for it before anything is answered, and the outbox's
 * claims take only items whose commit has been synced, so one commit and
 * one sync serve every round written meanwhile, and the thread goes on
 * playing rounds while the disk works. Reads on this connection see the
 * open turn's writes; nothing acts on them outside the process before they
 * are durable. A claim takes the write lock with a transaction of its own,
 * so it runs between turns, never inside one.
 */
import type Database from 'better-sqlite3';
import type { NewItem } from '../../../dispatch/outbox.js';
import { SqliteOutbox } from '../../../dispatch/sqlite/outbox.js';
import type { WalFlusher } from '../../../platform/sqlite/wal-flusher.js';
import type { Currencies } from '../../../protocol/money.js';
import { SqliteStaff } from '../../../staff/sqlite-staff.js';

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class ProviderDatabase {
  readonly staff: SqliteStaff;
  /** Waiting for the open turn's commit (and the sync after it). */
  private waiters: Waiter[] = [];
  /** Waiting for the open turn to end, committed or not. */
  private turnEnds: (() => void)[] = [];
  private readonly turn;
  /** The largest outbox item id enqueued in the open turn, 0 for none. */
  private turnItemMax = 0;
  /** The largest outbox item id committed, and the largest whose commit has been synced: claims take no item above it. */
  private committedItemMax: number;
  private durableItemMax = 0;

  constructor(
    readonly db: Database.Database,
    readonly currencies: Currencies,
    private readonly flusher: WalFlusher | undefined,
  ) {
    this.turn = { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
    this.staff = new SqliteStaff(db);
    // What the file already holds was committed by an earlier process; the first claim waits for one sync of it.
    this.committedItemMax = db.prepare('SELECT COALESCE(MAX(id), 0) FROM dispatch_items').pluck().safeIntegers(false).get() as number;
  }

  /** Opens the turn's transaction, if none is open, for a write to join. */
  write(): void {
    if (this.db.inTransaction) return;
    this.turn.begin.run();
    setImmediate(this.commitTurn);
  }

  /**
   * Runs `work` in the turn, behind a savepoint of its own: a write of
   * several statements that throws rolls back alone, and the items it
   * enqueued are forgotten with it.
   */
  savepoint<T>(work: () => T): T {
    this.write();
    const itemsBefore = this.turnItemMax;
    try {
      return this.db.transaction(work)();
    } catch (error) {
      this.turnItemMax = itemsBefore;
      throw error;
    }
  }

  /** Enqueues an outbox item in the open turn; a claim takes it once the turn's commit is synced. */
  enqueue(item: NewItem, now: number): number {
    const { id } = SqliteOutbox.enqueue(this.db, item, now);
    this.turnItemMax = Math.max(this.turnItemMax, id);
    return id;
  }

  /** The largest item id a claim may take: the outbox's `claimableIdMax`. */
  readonly claimableIdMax = (): number => this.durableItemMax;

  /** Whether items are committed that no sync has made durable yet. */
  unsynced(): boolean {
    return this.durableItemMax < this.committedItemMax;
  }

  /**
   * Resolves once everything written so far is committed and on stable
   * storage; rejects if the turn that held it could not commit (nothing of
   * that turn was kept).
   */
  durable(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.db.inTransaction) this.waiters.push({ resolve, reject });
      else this.afterSync([{ resolve, reject }], this.committedItemMax);
    });
  }

  /** Commits the open turn, if any; its waiters are released after the sync. */
  readonly commitTurn = (): void => {
    const ended = this.turnEnds;
    this.turnEnds = [];
    try {
      this.endTurn();
    } finally {
      for (const resume of ended) resume();
    }
  };

  private endTurn(): void {
    if (!this.db.open || !this.db.inTransaction) return;
    const waiters = this.waiters;
    this.waiters = [];
    const items = this.turnItemMax;
    this.turnItemMax = 0;
    try {
      this.turn.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.turn.rollback.run();
      for (const waiter of waiters) waiter.reject(error as Error);
      return;
    }
    this.committedItemMax = Math.max(this.committedItemMax, items);
    this.afterSync(waiters, this.committedItemMax);
  }

  /** Releases `waiters` after the next sync; by then the items up to `items` are durable. */
  private afterSync(waiters: Waiter[], items: number): void {
    const release = () => {
      this.durableItemMax = Math.max(this.durableItemMax, items);
      for (const waiter of waiters) waiter.resolve();
    };
    if (this.flusher) this.flusher.afterSync(release);
    else release();
  }

  /**
   * Runs `then` with no turn open: at once if none is, else once the open
   * one has committed or rolled back. The last check and the call are one
   * synchronous step: after any await (even one that found no turn open) a
   * write may have opened a turn before this code resumes.
   */
  async betweenTurns<R>(then: () => R): Promise<Awaited<R>> {
    while (this.db.inTransaction) await new Promise<void>((resolve) => this.turnEnds.push(resolve));
    return await then();
  }
}
