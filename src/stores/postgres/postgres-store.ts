/**
 * The PostgreSQL WalletStore: a pool of connections (src/platform/postgres/
 * open-database.ts, under WALLET_APPLICATION_NAME) and
 * the ledger (postgres-ledger.ts), with what sits between them and the HTTP
 * layer: a bound on calls in flight, the few retries PostgreSQL asks for,
 * and the mapping of database failures to UnavailableError (503).
 *
 * Several processes and several machines may share one database: every
 * call is one database transaction under READ COMMITTED that serialises on
 * the player's wallet row only, so nodes need no coordination of their own.
 */
import { AssertionError } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import type postgres from 'postgres';
import { UnavailableError } from '../../protocol/errors.js';
import { createCurrencies, DEFAULT_CRYPTO_DECIMALS } from '../../protocol/money.js';
import { DEFAULT_RULES } from '../../ledger/rules.js';
import type { ForwardOperationName, OperationArgs, OperationOutcome, WalletStore } from '../operations.js';
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
import { migrate } from './migrations.js';
import { openDatabase } from '../../platform/postgres/open-database.js';
import { callTimeoutMs, DEFAULT_POSTGRES_SETTINGS, redactUrl, type PostgresSettings } from '../../platform/postgres/settings.js';
import type { StoreOptions } from '../settings.js';
import { isRetryable, isUnavailable } from '../../platform/postgres/errors.js';
import { BATCH_CALLS_MAX, HotBatcher } from './hot-batcher.js';
import { CallDeadlines, type CallSignal } from '../../platform/postgres/call-deadlines.js';
import { PostgresLedger, type BatchCounts, type HotCall, type HotResult } from './postgres-ledger.js';
import { POSTGRES_OPERATIONS, type PostgresHandlerContext } from './postgres-operations.js';
import { PostgresStaff } from '../../staff/postgres-staff.js';
import { PostgresIntegrations } from './integrations.js';
import { probeWrite, refusesWrites, writeFailureOf } from './write-probe.js';

export interface PostgresStoreOptions extends StoreOptions {
  url: string;
  settings?: Partial<PostgresSettings>;
  /** A batch unsettled this long stops the store (ms). Default BATCH_STALL_CALL_DEADLINES call deadlines. */
  batchStallMs?: number;
}

/** inflightCallsMax's default (calls): about a second of work for a small database, well inside the provider's wait. */
export const INFLIGHT_CALLS_MAX = 2_000;

/** What the database sees as the wallet's client: pg_stat_activity shows it, and operators can find a node's connections. */
export const WALLET_APPLICATION_NAME = 'wagerlink-operator';

/**
 * A call whose transaction was aborted so that another could go on is run
 * again at most this many times, then answers 503: an id it was about to
 * claim was claimed first by a concurrent call (ClaimLostError: a unique
 * violation), a serializable database refused it (40001), or it was a
 * deadlock victim (40P01). Under READ COMMITTED, with the wallet locks of a
 * batch taken in one order, that takes two players' requests sharing an id.
 */
export const CONFLICT_RETRIES_MAX = 3;
/** Each retry waits a random time up to this (ms), so that two losers do not collide again in step. */
export const CONFLICT_RETRY_DELAY_MS_MAX = 20;

/**
 * A group-committed batch that has settled neither way after this many call
 * deadlines has a connection that will not answer, and the store stops
 * (hot-batcher.ts): 8 x 4 s = 32 s with the defaults. A batch's wait for
 * a free connection and each of its statements are bounded by time-outs far
 * inside that. (A verify holds one connection for as long as it reads, but
 * the pool's other connections keep turning.)
 */
export const BATCH_STALL_CALL_DEADLINES = 8;

/** close() waits this long for queries in flight, then drops the connections (s). */
export const CLOSE_TIMEOUT_S = 5;

/** The signal of a call that has no deadline (verify): it never aborts. */
const NO_DEADLINE: CallSignal = { aborted: false, reason: undefined, addEventListener: () => {} };

export class PostgresStore implements WalletStore {
  readonly backend = 'postgres';
  private inflight = 0;
  private closed = false;
  private failure: Error | undefined;
  /**
   * Why the last call that failed for a reason that stops writes failed (a
   * full disk, a standby: write-probe.ts), until a write probe commits:
   * /health answers 503 meanwhile (ping).
   */
  private writeFailure: string | undefined;
  private readonly fatalListeners: ((error: Error) => void)[] = [];
  private onIdle: (() => void) | undefined;
  /**
   * The verifies' one-connection client: opened by the first verify, kept
   * for the next ones (each waits for the one before it on that connection),
   * dropped when a verify fails, ended by close(). Opening a connection per
   * verify cost more than proving a small ledger, and a server's checks ask
   * for verify again and again.
   */
  private verifier: postgres.Sql | undefined;
  /** What the operations' handlers run on (postgres-operations.ts). */
  private readonly handlerContext: PostgresHandlerContext;

  private constructor(
    private readonly sql: postgres.Sql,
    private readonly ledger: PostgresLedger,
    batcher: HotBatcher<HotCall, HotResult>,
    private readonly inflightCallsMax: number,
    private readonly deadlines: CallDeadlines,
    /** What a verify opens its own connection with. */
    private readonly connection: { url: string; settings: PostgresSettings },
  ) {
    this.handlerContext = { ledger, batcher, staff: new PostgresStaff(sql), integrations: new PostgresIntegrations(sql) };
    batcher.onStall((error) => this.fail(error));
  }

  /** Connects, applies pending migrations (safe with several nodes starting at once) and returns the store. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const settings = { ...DEFAULT_POSTGRES_SETTINGS, ...options.settings };
    const sql = openDatabase(options.url, settings, WALLET_APPLICATION_NAME);
    try {
      await migrate(sql);
    } catch (error) {
      await sql.end({ timeout: 1 });
      if (isUnavailable(error)) {
        throw new UnavailableError(`PostgreSQL at ${redactUrl(options.url)} is unavailable: ${(error as Error).message}`, { cause: error });
      }
      throw error;
    }
    const ledger = new PostgresLedger(sql, createCurrencies(options.cryptoDecimals ?? { ...DEFAULT_CRYPTO_DECIMALS }), options.rules ?? DEFAULT_RULES);
    const timeoutMs = callTimeoutMs(settings);
    const batcher = new HotBatcher<HotCall, HotResult>((calls, abandoned) => ledger.transfers.applyBatch(calls, abandoned), {
      batchesInFlightMax: settings.poolSize,
      batchCallsMax: options.batchCallsMax ?? BATCH_CALLS_MAX,
      batchStallMs: options.batchStallMs ?? BATCH_STALL_CALL_DEADLINES * timeoutMs,
    });
    const deadlines = new CallDeadlines(timeoutMs, () => new UnavailableError(`no answer from the database within ${timeoutMs} ms; resend the same request`));
    return new PostgresStore(sql, ledger, batcher, options.inflightCallsMax ?? INFLIGHT_CALLS_MAX, deadlines, { url: options.url, settings });
  }

  /**
   * Called once if the store stops: on a broken invariant (the rules and the
   * database disagreed), or on a batch that stalled on a silent connection.
   */
  onFatal(listener: (error: Error) => void): void {
    this.fatalListeners.push(listener);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const listener of this.fatalListeners) listener(error);
  }

  /**
   * Runs one call: refused at once when the store is closed, failed or full;
   * run again on a retryable abort; a database failure becomes
   * UnavailableError. A call that has no answer within the call deadline
   * answers UnavailableError too, and its signal is aborted: a hot-path call
   * still queued or not yet written is then dropped, so that what was
   * answered 503 is not applied later. (A call whose COMMIT was already sent
   * may still land; so may a back-office call. Callers resend the same
   * request, and every call is idempotent.) `withDeadline` false: the call
   * takes as long as it needs (verify, which reads the whole ledger).
   */
  private async run<T>(work: (signal: CallSignal) => Promise<T>, withDeadline = true): Promise<T> {
    if (this.failure || this.closed) throw new UnavailableError('the store is closed');
    if (this.inflight >= this.inflightCallsMax) throw new UnavailableError(`over ${this.inflightCallsMax} calls in flight`);
    this.inflight++;
    const deadline = withDeadline ? this.deadlines.start() : undefined;
    try {
      return await new Promise<T>((resolve, reject) => {
        deadline?.addEventListener('abort', () => reject(deadline.reason));
        this.attempts(work, deadline ?? NO_DEADLINE).then(resolve, reject);
      });
    } finally {
      if (deadline) this.deadlines.settle(deadline);
      this.inflight--;
      if (this.inflight === 0) this.onIdle?.();
    }
  }

  private async attempts<T>(work: (signal: CallSignal) => Promise<T>, signal: CallSignal): Promise<T> {
    for (let retries = 0; ; retries++) {
      try {
        return await work(signal);
      } catch (error) {
        if (error instanceof AssertionError) {
          // A broken invariant is a bug: stop rather than answer from a state nobody can vouch for.
          this.fail(error);
          throw error;
        }
        if (isRetryable(error) && retries < CONFLICT_RETRIES_MAX && !signal.aborted) {
          await sleep(Math.random() * CONFLICT_RETRY_DELAY_MS_MAX);
          continue;
        }
        if (refusesWrites(error)) this.writeFailure = writeFailureOf(error);
        if (isUnavailable(error)) {
          const spent = isRetryable(error) ? ` (after ${retries} retries)` : '';
          throw new UnavailableError(`storage unavailable${spent}: ${(error as Error).message}; resend the same request`, { cause: error });
        }
        throw error;
      }
    }
  }

  // The operations the table (operations.ts) marks 'forward', each one statement: the call runs as it is
  // through its handler (postgres-operations.ts): the hot ones queue for the group batcher, the others
  // call the function of their name on the ledger or the staff tables. `implements WalletStore` holds
  // each to its entry's argument and outcome.
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

  /** Runs one call of a 'forward' operation (the methods above) through its handler (postgres-operations.ts). */
  private call<K extends ForwardOperationName>(op: K, args: OperationArgs[K]): Promise<OperationOutcome[K]> {
    const operation = POSTGRES_OPERATIONS[op];
    return this.run((signal) => operation.run(this.handlerContext, args, signal));
  }
  /**
   * Reads the whole ledger, which on a grown one takes longer than any call
   * may: so it has no call deadline, and it runs on a connection of its own,
   * opened for it, so that the pool goes on serving and no batch waits
   * behind it (nor looks stalled for it). A proof that cannot be finished
   * rejects with an UnavailableError that names why (503, ask again).
   */
  verify(): Promise<VerifyReport> {
    return this.run(async () => {
      const client = (this.verifier ??= openDatabase(this.connection.url, { ...this.connection.settings, poolSize: 1 }, WALLET_APPLICATION_NAME));
      try {
        return await this.ledger.reads.verify(client);
      } catch (error) {
        // The next verify starts on a connection of its own again, whatever broke this one.
        if (this.verifier === client) this.verifier = undefined;
        await client.end({ timeout: CLOSE_TIMEOUT_S });
        // Whatever stopped the proof (the connection, a query), its reason reaches the caller, as on SQLite.
        throw new UnavailableError(`verify could not finish: ${(error as Error).message}`, { cause: error });
      }
    }, false);
  }
  /**
   * While the last write failed for a reason that stops writes, a write
   * probe of its own (write-probe.ts) says whether writing works again;
   * otherwise a read, which costs /health, polled every few seconds, next
   * to nothing.
   */
  ping(): Promise<void> {
    if (this.writeFailure === undefined) return this.run(() => this.ledger.reads.ping());
    return this.run(async () => {
      try {
        await probeWrite(this.sql);
      } catch (error) {
        if (refusesWrites(error)) this.writeFailure = writeFailureOf(error);
        throw new UnavailableError(`writes are failing: ${writeFailureOf(error)}`, { cause: error });
      }
      this.writeFailure = undefined;
    });
  }

  /** How this node's hot-path batches were planned so far (ledger-transfers.ts, BatchCounts). */
  batchCounts(): BatchCounts {
    return { ...this.ledger.transfers.counts };
  }

  /** Lets calls in flight finish (a verify is stopped: it changes nothing), then closes the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A verify in progress is stopped (its caller gets an UnavailableError); an idle connection is just closed.
    const verifier = this.verifier;
    this.verifier = undefined;
    const verifierEnded = verifier?.end({ timeout: 0 });
    if (this.inflight > 0 && !this.failure) {
      await new Promise<void>((resolve) => {
        this.onIdle = resolve;
      });
    }
    await this.sql.end({ timeout: CLOSE_TIMEOUT_S });
    await verifierEnded;
    this.deadlines.stop();
  }
}
