/**
 * The provider store (provider-store.ts) in SQLite: game sessions, the
 * round log, free-bet campaigns and payouts. It survives restarts; the
 * operator's wallet stays the truth for real money, the round log is the
 * provider's record of what it sent and what the operator answered.
 *
 * Its methods answer promises, as the contract asks, but do their work
 * synchronously inside: a write runs whole, statements and checks, within
 * the call, and the promise it answers is already settled. Nothing awaits
 * inside a turn, so the contract's atomicity costs nothing here.
 *
 * A real round is written `pending` and its /transaction body enqueued in
 * the durable outbox (src/dispatch, its table in migrations.ts) in the same
 * database transaction, before any attempt (the client creates the ids,
 * persists, then sends). The dispatcher delivers it through `outbox`, this
 * connection's view of the outbox; the database transaction that records
 * the operator's final answer on the item also settles or refuses the round
 * (round-finishing.ts). Fun money moves in one database transaction with a
 * conditional update, never read-then-write across an await.
 *
 * The operations live in one file per family, with the same names as
 * PostgreSQL's (../postgres/); this class opens the database, puts the
 * families together on it (provider-database.ts: the group-commit turn
 * every write joins, and its sync) and hands each operation to its family.
 *
 * The SQLite plumbing is the wallet store's (src/platform/sqlite): the same
 * pragmas, the same migration runner, and the background checkpointer. The
 * provider's writer is its HTTP thread, which writes on every round; without
 * the checkpointer, the commit that takes the WAL past WAL_CHECKPOINT_PAGES
 * would copy the whole WAL into the database file on that thread, while
 * every player's request waits.
 */
import type Database from 'better-sqlite3';
import type { AuditEntry } from '../../../access/staff.js';
import { SqliteOutbox } from '../../../dispatch/sqlite/outbox.js';
import { BackgroundCheckpointer } from '../../../platform/sqlite/checkpointer.js';
import { migrate } from '../../../platform/sqlite/migrate.js';
import { openDatabase } from '../../../platform/sqlite/open-database.js';
import { WalFlusher } from '../../../platform/sqlite/wal-flusher.js';
import { CURRENCIES, type Currencies } from '../../../protocol/money.js';
import type { ProviderOutbox, ProviderStore } from '../provider-store.js';
import { Campaigns } from './campaigns.js';
import { FunRounds } from './fun-rounds.js';
import { adoptUserVersion, PROVIDER_MIGRATIONS } from './migrations.js';
import { Payouts } from './payouts.js';
import { PlainSeeds } from './plain-seeds.js';
import { ProviderDatabase } from './provider-database.js';
import { RealRounds } from './real-rounds.js';
import { ReelsRounds } from './reels-rounds.js';
import { RoundFinishing } from './round-finishing.js';
import { RoundReads } from './round-reads.js';
import { Sessions } from './sessions.js';
import { StaffAudit } from './staff-audit.js';
import { VerifyRounds } from './verify-rounds.js';

export { PROVIDER_MIGRATIONS } from './migrations.js';

/** A failed WAL sync: whether anything committed since the last one is durable can no longer be known. */
export type OnFatal = (error: Error) => void;

const crash: OnFatal = (error) => {
  throw error;
};

export interface ProviderStoreOptions {
  /** Called if the WAL cannot be synced; nothing more may be answered. By default the process crashes. */
  onFatal?: OnFatal;
  /** The currencies whose decimals read an operator's balances (the config's); default ISO 4217 and the default crypto codes. */
  currencies?: Currencies;
}

export class SqliteProviderStore implements ProviderStore {
  /**
   * The outbox on this connection, for the dispatcher. A claim takes only
   * durable items, and runs between turns (it takes the write lock on its
   * own); an outcome joins the open turn, as every write does, and commits
   * with the round it settles.
   */
  readonly outbox: ProviderOutbox;
  private readonly database: ProviderDatabase;
  private readonly sessions: Sessions;
  private readonly campaigns: Campaigns;
  private readonly real: RealRounds;
  private readonly fun: FunRounds;
  private readonly reels: ReelsRounds;
  private readonly reads: RoundReads;
  private readonly payouts: Payouts;
  private readonly finishing: RoundFinishing;
  private readonly staff: StaffAudit;
  private readonly seeds: PlainSeeds;
  private readonly verifying: VerifyRounds;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly db: Database.Database,
    path: string,
    currencies: Currencies,
    private readonly flusher: WalFlusher | undefined,
    private readonly checkpointer: BackgroundCheckpointer | undefined,
  ) {
    const database = new ProviderDatabase(db, currencies, flusher);
    this.database = database;
    this.sessions = new Sessions(database);
    this.campaigns = new Campaigns(database);
    this.real = new RealRounds(database, this.campaigns);
    this.fun = new FunRounds(database);
    this.reels = new ReelsRounds(database, this.real, this.fun);
    this.reads = new RoundReads(database);
    this.payouts = new Payouts(database);
    this.finishing = new RoundFinishing(database, this.payouts);
    this.staff = new StaffAudit(database);
    this.seeds = new PlainSeeds(database);
    this.verifying = new VerifyRounds(database, path);
    this.outbox = outboxView(database, new SqliteOutbox(db, { onFinal: this.finishing.finishFromOutbox, claimableIdMax: database.claimableIdMax }));
  }

  static open(path: string, options: ProviderStoreOptions = {}): SqliteProviderStore {
    const currencies = options.currencies ?? CURRENCIES;
    // A pending round is written before its first attempt: it must survive
    // power loss. COMMIT does not sync; durable() waits for the flusher's.
    const db = openDatabase(path, 'flusher');
    // The provider's tables keep their references checked (the wallet's verify checks its own instead).
    db.pragma('foreign_keys = ON');
    adoptUserVersion(db);
    migrate(db, PROVIDER_MIGRATIONS);
    if (path === ':memory:') return new SqliteProviderStore(db, path, currencies, undefined, undefined);
    // After the migrations: the checkpointer's connection needs the database in WAL mode.
    const flusher = new WalFlusher(`${path}-wal`, options.onFatal ?? crash);
    return new SqliteProviderStore(db, path, currencies, flusher, new BackgroundCheckpointer(path, 'flusher'));
  }

  durable(): Promise<void> {
    return this.database.durable();
  }

  /**
   * Commits the open turn and closes the database; a sync in progress
   * completes first. The checkpointer's connection closes before the
   * writer's, so that the writer's is the last and SQLite checkpoints and
   * removes the WAL; a verify's reader, in its thread, closes first. Closing
   * again waits for the first close.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.verifying.close();
      await this.checkpointer?.close();
      this.database.commitTurn();
      this.db.close();
      this.flusher?.close();
    })();
    return this.closing;
  }

  readonly onRoundFinished: ProviderStore['onRoundFinished'] = (listener) => this.finishing.onRoundFinished(listener);

  readonly sessionByLaunch: ProviderStore['sessionByLaunch'] = (launchId) => this.sessions.sessionByLaunch(launchId);
  readonly session: ProviderStore['session'] = (pk) => this.sessions.session(pk);
  readonly createSession: ProviderStore['createSession'] = (input) => this.sessions.createSession(input);
  readonly reopenSession: ProviderStore['reopenSession'] = (...args) => this.sessions.reopenSession(...args);
  readonly touchSession: ProviderStore['touchSession'] = (pk, now) => this.sessions.touchSession(pk, now);

  readonly beginRealRound: ProviderStore['beginRealRound'] = (round, nextSeed) => this.real.beginRealRound(round, nextSeed);
  readonly playFunRound: ProviderStore['playFunRound'] = (round, nextSeed) => this.fun.playFunRound(round, nextSeed);
  readonly beginReelsRound: ProviderStore['beginReelsRound'] = (round, nextSeed) => this.reels.beginReelsRound(round, nextSeed);
  readonly playFreeSpins: ProviderStore['playFreeSpins'] = (...args) => this.reels.playFreeSpins(...args);
  readonly sealPlainSeeds: ProviderStore['sealPlainSeeds'] = (seeds) => this.seeds.sealPlainSeeds(seeds);

  readonly round: ProviderStore['round'] = (pk) => this.reads.round(pk);
  readonly pendingRounds: ProviderStore['pendingRounds'] = (sessionPk) => this.reads.pendingRounds(sessionPk);
  readonly recentRounds: ProviderStore['recentRounds'] = (sessionPk, limit) => this.reads.recentRounds(sessionPk, limit);
  readonly sessionRound: ProviderStore['sessionRound'] = (sessionPk, roundId) => this.reads.sessionRound(sessionPk, roundId);
  readonly listRounds: ProviderStore['listRounds'] = (limit, before, operators) => this.reads.listRounds(limit, before, operators);
  readonly unfinishedFeatures: ProviderStore['unfinishedFeatures'] = (startedBefore, limit) => this.reads.unfinishedFeatures(startedBefore, limit);
  readonly roundCalls: ProviderStore['roundCalls'] = (roundPk) => this.reads.roundCalls(roundPk);
  readonly jackpotPool: ProviderStore['jackpotPool'] = (...args) => this.reads.jackpotPool(...args);

  readonly createPayout: ProviderStore['createPayout'] = (asked, audit) => this.payouts.createPayout(asked, audit);
  readonly payout: ProviderStore['payout'] = (payoutId) => this.payouts.payout(payoutId);
  readonly listPayouts: ProviderStore['listPayouts'] = (limit, options) => this.payouts.listPayouts(limit, options);

  readonly putCampaign: ProviderStore['putCampaign'] = (campaign, players, audit) => this.campaigns.putCampaign(campaign, players, audit);
  readonly campaign: ProviderStore['campaign'] = (campaignId) => this.campaigns.campaign(campaignId);
  readonly campaignsOf: ProviderStore['campaignsOf'] = (...args) => this.campaigns.campaignsOf(...args);
  readonly campaignRoundsUsed: ProviderStore['campaignRoundsUsed'] = (...args) => this.campaigns.campaignRoundsUsed(...args);

  readonly verify: ProviderStore['verify'] = () => this.verifying.verify();

  readonly findStaffToken: ProviderStore['findStaffToken'] = (tokenHash) => this.staff.findStaffToken(tokenHash);
  readonly addStaff: ProviderStore['addStaff'] = (command) => this.staff.addStaff(command);
  readonly revokeStaff: ProviderStore['revokeStaff'] = (command) => this.staff.revokeStaff(command);
  readonly listStaff: ProviderStore['listStaff'] = () => this.staff.listStaff();
  readonly appendAudit: ProviderStore['appendAudit'] = (entry) => this.staff.appendAudit(entry);
  readonly listAudit: ProviderStore['listAudit'] = (page, operators) => this.staff.listAudit(page, operators);
}

/**
 * The outbox as the store offers it on this connection: an outcome joins
 * the open turn (or opens one), as every write of the store does; a read
 * answers what is committed, as another node would see it; a claim waits
 * for the sync of what is committed and runs between turns.
 */
function outboxView(database: ProviderDatabase, items: SqliteOutbox): ProviderOutbox {
  const inTurn =
    <A extends unknown[], R>(apply: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      database.write();
      return apply(...args);
    };
  const betweenTurns =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      database.betweenTurns(() => read(...args));
  // By hand: the call's audit row in the change's savepoint.
  const alongside = (audit: AuditEntry | undefined) => audit && (() => void database.staff.appendAudit(audit));
  return {
    claim: async (now, node, limits) => {
      // A claim takes the write lock with a transaction of its own (BEGIN IMMEDIATE): between turns.
      const unsynced = await database.betweenTurns(() => database.unsynced());
      // Items committed but not yet synced: one sync, no more (under load another commit is always on its way),
      // then the claim takes the items that sync made durable.
      if (unsynced) await database.durable();
      return database.betweenTurns(() => items.claim(now, node, limits));
    },
    sent: inTurn(items.sent.bind(items)),
    refused: inTurn(items.refused.bind(items)),
    retryLater: inTurn(items.retryLater.bind(items)),
    renew: inTurn(items.renew.bind(items)),
    releaseEarlierRuns: inTurn(items.releaseEarlierRuns.bind(items)),
    park: inTurn(items.park.bind(items)),
    retryNow: inTurn(async (id: number, now: number, audit?: AuditEntry) => items.retryNow(id, now, alongside(audit))),
    resolve: inTurn(async (id: number, reference: string, now: number, audit?: AuditEntry) => items.resolve(id, reference, now, alongside(audit))),
    hasten: inTurn(items.hasten.bind(items)),
    backlog: betweenTurns(items.backlog.bind(items)),
    item: betweenTurns(items.item.bind(items)),
    list: betweenTurns(items.list.bind(items)),
  };
}
