/**
 * The provider store (provider-store.ts) on PostgreSQL, for any number of
 * provider nodes sharing one database: game sessions, the round log,
 * free-bet campaigns and payouts, with the outbox (src/dispatch/
 * postgres/outbox.ts) in the same schema.
 *
 * Every write method is one database transaction, its conditions checked
 * inside it by conditional updates, unique constraints and locks, never a
 * read first and a write after across an await outside it:
 * - a round advances its session's seed with `UPDATE ... WHERE nonce = $`:
 *   of two nodes playing one session, the later waits for the earlier's row
 *   lock, finds the nonce moved (READ COMMITTED re-reads the row) and writes
 *   nothing;
 * - a free round counts its campaign's rounds used under a transaction-
 *   scoped advisory lock on (campaign, operator, player), so that two
 *   launches of one player on two nodes cannot both take the last round;
 * - a payout is created under an advisory lock on its id, so that a
 *   concurrent create of the same id answers as if it came after;
 * - sessions and campaigns insert with ON CONFLICT DO NOTHING and then
 *   read the row that won.
 * A transaction PostgreSQL aborts for a deadlock or a serialization
 * failure is run again, at most CONFLICT_RETRIES_MAX times.
 *
 * The outbox's final hook settles or refuses a round (or pays or refuses a
 * payout) in the transaction that records the item's outcome
 * (round-finishing.ts), and tells the other nodes.
 *
 * The operations live in one file per family, with the same names as
 * SQLite's (../sqlite/); this class opens the pool, puts the families
 * together on it (provider-database.ts: deadlines, transactions run again
 * after a conflict, the writes in flight) and hands each operation to its
 * family.
 */
import type postgres from 'postgres';
import type { AuditEntry } from '../../../access/staff.js';
import { PostgresOutbox } from '../../../dispatch/postgres/outbox.js';
import { CallDeadlines } from '../../../platform/postgres/call-deadlines.js';
import { migrate } from '../../../platform/postgres/migrate.js';
import { createSchema, openDatabase, urlInSchema } from '../../../platform/postgres/open-database.js';
import { callTimeoutMs, type PostgresSettings } from '../../../platform/postgres/settings.js';
import { UnavailableError } from '../../../protocol/errors.js';
import { CURRENCIES, type Currencies } from '../../../protocol/money.js';
import { insertAudit } from '../../../staff/postgres-staff.js';
import type { ProviderOutbox, ProviderStore } from '../provider-store.js';
import { Campaigns } from './campaigns.js';
import { FunRounds } from './fun-rounds.js';
import { POSTGRES_PROVIDER_MIGRATIONS } from './migrations.js';
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

/** What pg_stat_activity shows for a provider node's pool. */
export const PROVIDER_APPLICATION_NAME = 'wagerlink-provider';

export interface PostgresProviderStoreOptions {
  /** postgres://... ; its search_path, if any, names the schema, unless `schema` does. */
  url: string;
  /**
   * The schema that holds the provider's tables, made if missing: the URL's
   * search_path is replaced by it. Lets the provider share a database with
   * the operator's wallet, whose tables have the same names (`rounds`,
   * `schema_migrations`) in their own schema.
   */
  schema?: string | undefined;
  settings: PostgresSettings;
  /** The currencies whose decimals read an operator's balances (the config's); default ISO 4217 and the default crypto codes. */
  currencies?: Currencies;
}

export class PostgresProviderStore implements ProviderStore {
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

  private constructor(sql: postgres.Sql, currencies: Currencies, deadlines: CallDeadlines) {
    const database = new ProviderDatabase(sql, currencies, deadlines);
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
    this.verifying = new VerifyRounds(database);
    this.outbox = outboxView(database, this.finishing, new PostgresOutbox(sql, { onFinal: this.finishing.finishFromOutbox }));
  }

  /** Opens the pool and applies the pending migrations (once, whichever node starts first). */
  static async open(options: PostgresProviderStoreOptions): Promise<PostgresProviderStore> {
    if (options.schema !== undefined) await createSchema(options.url, options.schema, options.settings);
    const url = options.schema === undefined ? options.url : urlInSchema(options.url, options.schema);
    const sql = openDatabase(url, options.settings, PROVIDER_APPLICATION_NAME);
    try {
      await migrate(sql, POSTGRES_PROVIDER_MIGRATIONS);
    } catch (error) {
      await sql.end({ timeout: 5 });
      throw error;
    }
    const timeoutMs = callTimeoutMs(options.settings);
    const deadlines = new CallDeadlines(
      timeoutMs,
      () => new UnavailableError(`the provider's database did not answer within ${timeoutMs} ms; nothing was applied, try again`),
    );
    const store = new PostgresProviderStore(sql, options.currencies ?? CURRENCIES, deadlines);
    try {
      await store.finishing.listen();
    } catch (error) {
      await sql.end({ timeout: 5 });
      throw error;
    }
    return store;
  }

  durable(): Promise<void> {
    return this.database.durable();
  }

  /** Waits for the writes on their way, then ends the pool. Closing again waits for the first close. */
  close(): Promise<void> {
    this.finishing.stop();
    this.closing ??= this.database.end();
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
 * The outbox, for the dispatcher and the back office. Each call has the
 * store's deadline and its 503 (bounded). A claim, or an outcome, answered
 * late is not lost: its items' lease runs out and they are claimed and sent
 * again (every request is idempotent). An outcome that finishes rounds
 * calls the listeners with them once it has committed.
 */
function outboxView(database: ProviderDatabase, finishing: RoundFinishing, items: PostgresOutbox): ProviderOutbox {
  // By hand: the call's audit row on the change's transaction.
  const alongside = (audit: AuditEntry | undefined) => audit && ((dbTx: postgres.TransactionSql) => insertAudit(dbTx, audit));
  return {
    claim: (...args) => database.read(items.claim(...args)),
    sent: (id, node, answer, now) =>
      finishing.collect(
        (done) => done,
        () => items.sent(id, node, answer, now),
      ),
    refused: (id, node, answer, now) =>
      finishing.collect(
        (done) => done.applied,
        () => items.refused(id, node, answer, now),
      ),
    resolve: (id, reference, now, audit) =>
      finishing.collect(
        (done) => done,
        () => items.resolve(id, reference, now, alongside(audit)),
      ),
    retryLater: (...args) => database.write(items.retryLater(...args)),
    renew: (...args) => database.write(items.renew(...args)),
    releaseEarlierRuns: (...args) => database.write(items.releaseEarlierRuns(...args)),
    park: (...args) => database.write(items.park(...args)),
    retryNow: (id, now, audit) => database.write(items.retryNow(id, now, alongside(audit))),
    hasten: (...args) => database.write(items.hasten(...args)),
    backlog: (...args) => database.read(items.backlog(...args)),
    item: (...args) => database.read(items.item(...args)),
    list: (...args) => database.read(items.list(...args)),
  };
}
