/**
 * The SQLite WalletStore as seen from the HTTP thread: every call is queued,
 * the queue is handed to the writer thread at the end of each event-loop
 * turn or every HANDOFF_CALLS calls, whichever comes first, and the writer
 * answers after its group commit (batch-writer-worker.ts).
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import { UnavailableError } from '../../protocol/errors.js';
import { DEFAULT_CRYPTO_DECIMALS } from '../../protocol/money.js';
import { DEFAULT_RULES } from '../../ledger/rules.js';
import type { StoreOptions } from '../settings.js';
import { OPERATIONS, type OperationArgs, type OperationName, type OperationOutcome, type WalletStore } from '../operations.js';
import type {
  AddIntegrationCommand,
  AddStaffCommand,
  RemoveIntegrationCommand,
  UpdateIntegrationCommand,
  AdjustCommand,
  AuditPageRequest,
  AuthenticateCommand,
  BlockCommand,
  CreatePlayerCommand,
  GgrRequest,
  LaunchKeyCommand,
  PageRequest,
  PayoutCommand,
  PlayersRequest,
  RevokeStaffCommand,
  TransactionCommand,
  VerifyReport,
} from '../store.js';
import type { AuditEntry } from '../../access/staff.js';
import type { WorkerInit } from './batch-writer-worker.js';
import type { VerifyWorkerAnswer, VerifyWorkerInit, VerifyWorkerRequest } from './verify-worker.js';
import { decodeReplies, encodeCalls, type Answered } from './handoff.js';
import type { Call, Reply } from './sqlite-operations.js';
import { sqliteDriver } from '../../platform/sqlite/open-database.js';

export interface SqliteStoreOptions extends StoreOptions {
  path: string;
  /**
   * The database file holds at most this many pages (SQLite's
   * max_page_count, 4 KiB each): a write that needs more fails as on a full
   * disk (503, nothing applied) until rows are deleted. Unset by default:
   * the disk is the limit. It gives tests a full disk without mounting one,
   * and an operator a way to keep room for other files on a shared disk.
   */
  databasePagesMax?: number;
}

/** inflightCallsMax's default (calls): a few seconds of work. */
export const INFLIGHT_CALLS_MAX = 20_000;
/**
 * Calls handed to the writer thread together at most, even within one
 * event-loop turn: the writer starts on the first ones while this thread
 * still parses the rest, instead of the two threads taking turns. Calls that
 * queue up while the writer is busy still share its next commit.
 */
export const HANDOFF_CALLS = 16;
/** batchCallsMax's default: a bound on what one batch does, and so on how long its first reply waits for the commit. */
export const BATCH_CALLS_MAX = 1_000;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * A call the writer could not carry out for want of storage (a full disk,
 * an I/O error, a lock it could not get): nothing of it was applied, and
 * the caller may resend it. `reason` is the storage's own words.
 */
class StorageFailedError extends UnavailableError {
  constructor(readonly reason: string) {
    super(`storage failed, nothing was applied: ${reason}`);
  }
}

/**
 * The batch writer runs on a writer thread of its own, so the HTTP thread
 * never waits for SQLite or its fsync.
 */
interface Writer {
  send(calls: Call[]): void;
  close(): Promise<void>;
}

interface VerifyWaiting {
  resolve: (report: VerifyReport) => void;
  reject: (error: Error) => void;
}

/** The verify thread and the one verify waiting for its answer, if any (verifies run one at a time). */
interface VerifyThread {
  worker: Worker;
  waiting: VerifyWaiting | undefined;
}

/**
 * A verify that could not finish reading (the file could not be read, a
 * query failed) is an error, not a report, and its reason reaches the
 * caller: /admin/verify answers it in a 503's detail and the CLI prints it.
 * Nothing was changed, and asking again is safe.
 */
function verifyFailed(reason: string, cause?: unknown): UnavailableError {
  return new UnavailableError(`verify could not finish: ${reason}`, cause === undefined ? undefined : { cause });
}

export class SqliteStore implements WalletStore {
  readonly backend = 'sqlite';
  private readonly pending = new Map<number, Pending>();
  private queue: Call[] = [];
  private flushScheduled = false;
  private nextId = 1;
  private failure: Error | undefined;
  /**
   * Why the last call the writer answered failed for want of storage (a
   * full disk, an I/O error, a lock it could not get), until a write
   * commits again: /health answers 503 meanwhile (ping).
   */
  private writeFailure: string | undefined;
  private closed = false;
  private readonly fatalListeners: ((error: Error) => void)[] = [];
  private readonly commitListeners: ((seconds: number) => void)[] = [];
  private onIdle: (() => void) | undefined;
  private writer!: Writer;
  /** Verifies run one after another, on the verify thread, each on a connection of its own. */
  private verifying: Promise<unknown> = Promise.resolve();
  /** Started by the first verify of a file and kept until the store closes (verify-worker.ts says why). */
  private verifyThread: VerifyThread | undefined;

  private constructor(
    private readonly path: string,
    private readonly inflightCallsMax: number,
  ) {}

  static async open(options: SqliteStoreOptions): Promise<SqliteStore> {
    // The writer thread opens the database; a driver that is not installed is told here, by name, not as the thread's error.
    sqliteDriver();
    const store = new SqliteStore(options.path, options.inflightCallsMax ?? INFLIGHT_CALLS_MAX);
    store.writer = await store.threadWriter({
      path: options.path,
      rules: options.rules ?? DEFAULT_RULES,
      cryptoDecimals: options.cryptoDecimals ?? { ...DEFAULT_CRYPTO_DECIMALS },
      databasePagesMax: options.databasePagesMax,
      batchCallsMax: options.batchCallsMax ?? BATCH_CALLS_MAX,
    });
    return store;
  }

  private async threadWriter(init: Omit<WorkerInit, 'port'>): Promise<Writer> {
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(new URL('./batch-writer-worker.js', import.meta.url), {
      workerData: { ...init, port: port2 } satisfies WorkerInit,
      transferList: [port2],
    });
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      worker.once('error', onError);
      port1.once('message', (message) => {
        worker.off('error', onError);
        if (message === 'ready') resolve();
        else reject(new Error(`unexpected first message from the SQLite writer: ${String(message)}`));
      });
    });
    port1.on('message', (message: Answered | 'ready') => {
      if (message !== 'ready') this.answered(decodeReplies(message.replies), message.commitSeconds);
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (!this.closed) this.fail(new Error(`the SQLite writer thread exited with code ${code}`));
    });
    return {
      send: (calls) => port1.postMessage(encodeCalls(calls)),
      close: async () => {
        if (this.failure) {
          await worker.terminate();
          return;
        }
        const exited = new Promise((resolve) => worker.once('exit', resolve));
        port1.postMessage('close');
        await exited;
        port1.close();
      },
    };
  }

  private answered(replies: readonly Reply[], commitSeconds: number | undefined): void {
    this.settle(replies);
    if (commitSeconds !== undefined) for (const listener of this.commitListeners) listener(commitSeconds);
  }

  onCommit(listener: (seconds: number) => void): void {
    this.commitListeners.push(listener);
  }

  /**
   * Settles each call in the order the writer answered, and keeps
   * writeFailure: a call that storage failed rejects, and names why until
   * a write, or a write probe, commits again (access 'write', operations.ts).
   */
  private settle(replies: readonly Reply[]): void {
    for (const reply of replies) {
      const waiting = this.pending.get(reply.id);
      if (!waiting) continue;
      this.pending.delete(reply.id);
      if ('failed' in reply) {
        this.writeFailure = reply.failed;
        waiting.reject(new StorageFailedError(reply.failed));
        continue;
      }
      if (this.writeFailure !== undefined && OPERATIONS[reply.op].access === 'write') this.writeFailure = undefined;
      waiting.resolve(reply.result);
    }
    if (this.pending.size === 0) this.onIdle?.();
  }

  /** Called once if the writer dies (a broken invariant or a crash). */
  onFatal(listener: (error: Error) => void): void {
    this.fatalListeners.push(listener);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    const unavailable = new UnavailableError('the SQLite writer stopped', { cause: error });
    for (const waiting of this.pending.values()) waiting.reject(unavailable);
    this.pending.clear();
    this.onIdle?.();
    for (const listener of this.fatalListeners) listener(error);
  }

  // The operations the table (operations.ts) marks 'forward', each one statement: the call crosses to the
  // writer as it is, where its handler (sqlite-operations.ts) runs the function of its name on the
  // ledger or the staff tables.
  // `implements WalletStore` holds each to its entry's argument and outcome.
  transact(command: TransactionCommand) {
    return this.call('transact', command);
  }
  payout(command: PayoutCommand) {
    return this.call('payout', command);
  }
  authenticate(command: AuthenticateCommand) {
    return this.call('authenticate', command);
  }
  createPlayer(command: CreatePlayerCommand) {
    return this.call('createPlayer', command);
  }
  getPlayer(playerId: string) {
    return this.call('getPlayer', playerId);
  }
  createLaunchKey(command: LaunchKeyCommand) {
    return this.call('createLaunchKey', command);
  }
  adjust(command: AdjustCommand) {
    return this.call('adjust', command);
  }
  setBlocked(command: BlockCommand) {
    return this.call('setBlocked', command);
  }
  listRounds(page: PageRequest) {
    return this.call('listRounds', page);
  }
  listTransfers(page: PageRequest) {
    return this.call('listTransfers', page);
  }
  listPlayers(page: PlayersRequest) {
    return this.call('listPlayers', page);
  }
  ggr(span: GgrRequest) {
    return this.call('ggr', span);
  }
  addStaff(command: AddStaffCommand) {
    return this.call('addStaff', command);
  }
  revokeStaff(command: RevokeStaffCommand) {
    return this.call('revokeStaff', command);
  }
  listStaff() {
    return this.call('listStaff', undefined);
  }
  listIntegrations() {
    return this.call('listIntegrations', undefined);
  }
  integrationsVersion() {
    return this.call('integrationsVersion', undefined);
  }
  addIntegration(command: AddIntegrationCommand) {
    return this.call('addIntegration', command);
  }
  updateIntegration(command: UpdateIntegrationCommand) {
    return this.call('updateIntegration', command);
  }
  removeIntegration(command: RemoveIntegrationCommand) {
    return this.call('removeIntegration', command);
  }
  findStaffToken(tokenHash: string) {
    return this.call('findStaffToken', tokenHash);
  }
  appendAudit(entry: AuditEntry) {
    return this.call('appendAudit', entry);
  }
  listAudit(page: AuditPageRequest) {
    return this.call('listAudit', page);
  }

  /** Queues one call for the writer: every operation's one path (the methods above, verify, ping). */
  private call<K extends OperationName>(op: K, args: OperationArgs[K]): Promise<OperationOutcome[K]> {
    if (this.failure || this.closed) return Promise.reject(new UnavailableError('the store is closed'));
    if (this.pending.size >= this.inflightCallsMax) {
      return Promise.reject(new UnavailableError(`over ${this.inflightCallsMax} calls in flight`));
    }
    const id = this.nextId++;
    const promise = new Promise<OperationOutcome[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
    this.queue.push({ id, op, args } as Call);
    if (this.queue.length >= HANDOFF_CALLS) {
      this.flush();
    } else if (!this.flushScheduled) {
      this.flushScheduled = true;
      // After this turn's I/O callbacks: the rest of the requests parsed in it go together.
      setImmediate(this.flushAtTurnEnd);
    }
    return promise;
  }

  private readonly flushAtTurnEnd = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  private flush(): void {
    const calls = this.queue;
    this.queue = [];
    if (calls.length > 0) this.writer.send(calls);
  }

  /**
   * A file's books are proved by a reader of their own (verify-worker.ts),
   * so that bets keep being booked meanwhile; an in-memory database has no
   * other connection, so its writer proves them between two batches. Either
   * way the proof sees everything answered before it was asked for.
   */
  verify(): Promise<VerifyReport> {
    if (this.path === ':memory:') {
      return this.call('verify', undefined).catch((error: unknown) => {
        throw error instanceof StorageFailedError ? verifyFailed(error.reason, error) : error;
      });
    }
    // One at a time: each reads every row, and two at once would only slow both.
    const next = this.verifying.then(() => this.verifyBeside());
    this.verifying = next.catch(() => undefined);
    return next;
  }

  private verifyBeside(): Promise<VerifyReport> {
    if (this.failure || this.closed) return Promise.reject(new UnavailableError('the store is closed'));
    const thread = this.verifyThread ?? this.startVerifyThread();
    return new Promise((resolve, reject) => {
      thread.waiting = { resolve, reject };
      // While it proves, the thread keeps the process alive, as the verify's caller waits for it.
      thread.worker.ref();
      thread.worker.postMessage('verify' satisfies VerifyWorkerRequest);
    });
  }

  private startVerifyThread(): VerifyThread {
    const worker = new Worker(new URL('./verify-worker.js', import.meta.url), {
      workerData: { path: this.path } satisfies VerifyWorkerInit,
    });
    // Idle, it must not keep a process alive that has nothing else to do (the writer thread says when the store is open).
    worker.unref();
    const thread: VerifyThread = { worker, waiting: undefined };
    const settle = (settleWith: (waiting: VerifyWaiting) => void) => {
      const waiting = thread.waiting;
      thread.waiting = undefined;
      worker.unref();
      if (waiting !== undefined) settleWith(waiting);
    };
    worker.on('message', (answer: VerifyWorkerAnswer) =>
      settle(({ resolve, reject }) => {
        if ('result' in answer) resolve(answer.result);
        else reject(verifyFailed(answer.code === undefined ? answer.failed : `${answer.failed} (${answer.code})`));
      }),
    );
    // The thread itself failed (it could not start, or it broke): its error may come without a message, but with a code.
    // It exits after an error; the next verify starts another.
    worker.once('error', (error: Error & { code?: unknown }) =>
      settle(({ reject }) => reject(verifyFailed(error.message || String(error.code ?? error), error))),
    );
    worker.once('exit', (code) => {
      if (this.verifyThread === thread) this.verifyThread = undefined;
      settle(({ reject }) =>
        reject(this.closed ? new UnavailableError('verify was stopped: the store closed') : verifyFailed(`the verify thread exited with code ${code}`)),
      );
    });
    this.verifyThread = thread;
    return thread;
  }

  /**
   * While the last write failed for want of storage, a write probe of its
   * own (write-probe.ts) says whether writing works again; otherwise a
   * read, which costs /health, polled every few seconds, next to nothing.
   */
  async ping(): Promise<void> {
    if (this.writeFailure === undefined) return this.call('ping', undefined);
    try {
      await this.call('probeWrite', undefined);
    } catch (error) {
      throw error instanceof StorageFailedError ? new UnavailableError(`writes are failing: ${error.reason}`, { cause: error }) : error;
    }
  }

  /** Lets calls in flight finish, then closes the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    if (this.pending.size > 0 && !this.failure) {
      await new Promise<void>((resolve) => {
        this.onIdle = resolve;
      });
    }
    this.closed = true;
    // A verify only reads: stopping it loses nothing, and its caller may ask again.
    await this.verifyThread?.worker.terminate();
    await this.writer.close();
  }
}
