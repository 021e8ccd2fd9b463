/**
 * Makes committed transactions durable without blocking the committing
 * thread: after COMMIT (synchronous=NORMAL writes the WAL frames but does not
 * sync them), the WAL file is fdatasync'ed on libuv's thread pool, and the
 * replies of every batch committed before that sync started are released
 * when it completes. Meanwhile the thread goes on planning and committing
 * the next batches. One sync serves every batch that committed while the
 * previous one was running: this is group commit in the log-writer sense.
 *
 * Why this is as durable as synchronous=FULL: in WAL mode FULL differs from
 * NORMAL only in syncing the WAL after each commit; NORMAL still syncs the
 * WAL before every checkpoint, the database after it, and the WAL header
 * when the file is reused (SQLite's documentation of PRAGMA synchronous).
 * Frames are appended in commit order, so a sync that starts after commit N
 * returns with every frame up to N on stable storage. No reply is released
 * before that, so an answered request survives power loss.
 *
 * A failed sync is fatal: the kernel may have dropped the dirty pages, so
 * whether a commit is durable can no longer be known. The process stops
 * without answering those requests; callers resend, and idempotency makes
 * the resend safe (PostgreSQL treats a failed fsync the same way).
 */
import { closeSync, fdatasync, openSync } from 'node:fs';

export class WalFlusher {
  private fd: number | undefined;
  private syncing = false;
  private closing = false;
  /** Released by the sync in progress. */
  private current: (() => void)[] = [];
  /** Committed after the sync in progress started: wait for the next one. */
  private next: (() => void)[] = [];

  constructor(
    private readonly walPath: string,
    private readonly onFatal: (error: Error) => void,
  ) {}

  /** Calls `release` once everything committed so far is on stable storage. */
  afterSync(release: () => void): void {
    this.next.push(release);
    if (!this.syncing) this.start();
  }

  /** True while replies wait for a sync. */
  get busy(): boolean {
    return this.syncing || this.next.length > 0;
  }

  /** Closes the WAL's descriptor, after the sync in progress if there is one. */
  close(): void {
    this.closing = true;
    if (!this.syncing) this.closeFd();
  }

  private closeFd(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private start(): void {
    this.syncing = true;
    this.current = this.next;
    this.next = [];
    // The WAL exists from the first write on; it is opened once and kept.
    this.fd ??= openSync(this.walPath, 'r');
    fdatasync(this.fd, (error) => {
      if (error) {
        this.onFatal(error);
        return;
      }
      const released = this.current;
      this.current = [];
      this.syncing = false;
      for (const release of released) release();
      if (this.next.length > 0) this.start();
      else if (this.closing) this.closeFd();
    });
  }
}
