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
 * Commits on PostgreSQL are durable when they return (synchronous_commit),
 * so a write's promise resolves once it is durable, and `durable()` waits
 * only for the writes still on their way. The outbox's final hook settles
 * or refuses a round (or pays or refuses a payout) in the transaction that
 * records the item's outcome; that transaction may run more than once, so
 * `onRoundFinished` listeners are called after its commit. The same
 * transaction sends a notification (pg_notify, delivered on commit only),
 * by which every other node on the database calls its listeners too: a
 * player waiting on one node for a round another node delivered wakes at
 * once, not at the end of the wait.
 *
 * Every call, the outbox's included, has a deadline (callTimeoutMs: one
 * statement time-out plus one connection attempt, 4 s with the defaults)
 * and a failure of the database itself becomes an UnavailableError, which
 * the HTTP layer answers 503 with Retry-After: a database that is down,
 * stuck or out of connections turns into a prompt 503, never a hung
 * request. A transaction whose deadline passed is rolled back instead of
 * committed, so that what was answered 503 is not applied later (unless
 * its COMMIT was already on its way: every request is safe to resend).
 */
import type { Refusal } from '../../../protocol/errors.js';
import { insertAudit, PostgresStaff } from '../../../staff/postgres-staff.js';
import type { AuditEntry, StaffListing, StaffTokenFound } from '../../../access/staff.js';
import type { AddStaffCommand, AuditPage, AuditPageRequest, RevokeStaffCommand, StaffAdded, StaffRevoked } from '../../../staff/staff-commands.js';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import type { FinalEvent } from '../../../dispatch/outbox.js';
import { CONFLICT_RETRIES_MAX, PostgresOutbox } from '../../../dispatch/postgres/outbox.js';
import { migrate } from '../../../platform/postgres/migrate.js';
import { createSchema, openDatabase, urlInSchema } from '../../../platform/postgres/open-database.js';
import { isConflict, isUnavailable } from '../../../platform/postgres/errors.js';
import { UnavailableError } from '../../../protocol/errors.js';
import { callTimeoutMs, type PostgresSettings } from '../../../platform/postgres/settings.js';
import { CallDeadlines, type CallDeadline } from '../../../platform/postgres/call-deadlines.js';
import { CURRENCIES, type Currencies } from '../../../protocol/money.js';
import { roundsUsedIn } from './campaigns.js';
import { POSTGRES_PROVIDER_MIGRATIONS } from './migrations.js';
import { payoutIn, payoutsSelect } from './payouts.js';
import { enqueueCall, insertRound, returnToPool, roundsSelect } from './rounds.js';
import { callOf, campaignOf, inScope, int, money, payoutOf, roundOf, sessionOf } from './rows.js';
import { sessionIn } from './sessions.js';
import { PAYOUT_REQUEST, payoutRequest, ROUND_REQUEST } from '../../../rounds/bodies.js';
import { assertRevealable, featureDone, reelsCallStep } from '../../../rounds/completion.js';
import { payoutOutcomeOf, roundOutcomeOf } from '../../../rounds/outcomes.js';
import { freeRoundFits, sameCampaign, samePayout } from '../../../rounds/sameness.js';
import {
  type CampaignRow,
  type CampaignWrite,
  type GameSessionRow,
  type FreeSpinWrite,
  type NewPayout,
  type NewReelsRound,
  type NewRound,
  type NewSession,
  type NextSeed,
  type PayoutRow,
  type PayoutStatus,
  type PayoutWrite,
  type ProviderOutbox,
  type ProviderStore,
  type Row,
  type RoundCallRow,
  type RoundRow,
  type RoundWrite,
  type SeedSealing,
} from '../provider-store.js';

/**
 * Rows one transaction of sealPlainSeeds seals: a few hundred statements,
 * well inside one call's deadline (callTimeoutMs) on a busy database.
 */
const SEAL_BATCH_MAX = 500;

/** What pg_stat_activity shows for a provider node's pool. */
export const PROVIDER_APPLICATION_NAME = 'wagerlink-provider';

/**
 * The channel of finished rounds. Notifications are the whole database's:
 * the payload names the schema, so that deployments (or test runs) in
 * other schemas of one database ignore each other's.
 */
const ROUND_FINISHED_CHANNEL = 'wagerlink_provider_round_finished';

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

/** The rounds a call into the outbox finished, in the transaction run that committed. */
interface Finishing {
  dbTx: postgres.TransactionSql | undefined;
  rounds: RoundRow[];
}

export class PostgresProviderStore implements ProviderStore {
  private readonly roundListeners = new Set<(round: RoundRow) => void>();
  /** Writes called and not yet settled: durable() waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly finishing = new AsyncLocalStorage<Finishing>();
  private closing: Promise<void> | undefined;
  /** This store's name in its notifications, and its schema's: it ignores its own, and other schemas'. */
  private readonly nodeId = randomUUID();
  private schema = '';
  readonly outbox: ProviderOutbox;
  private readonly staff: PostgresStaff;

  private constructor(
    private readonly sql: postgres.Sql,
    private readonly currencies: Currencies,
    private readonly deadlines: CallDeadlines,
  ) {
    this.outbox = this.outboxView(new PostgresOutbox(sql, { onFinal: this.finishFromOutbox }));
    this.staff = new PostgresStaff(sql);
  }

  /**
   * Listens for the rounds other nodes finish (a connection of its own,
   * remade by postgres.js after a loss; a notification missed meanwhile
   * only leaves a waiting player to the end of the wait, when the round is
   * read again).
   */
  private async listen(): Promise<void> {
    const [row] = await this.read(this.sql<{ schema: string }[]>`SELECT current_schema() AS schema`);
    this.schema = row!.schema;
    await this.sql.listen(ROUND_FINISHED_CHANNEL, (payload) => {
      const [schema, nodeId, pk] = payload.split('/');
      if (schema !== this.schema || nodeId === this.nodeId || this.roundListeners.size === 0 || this.closing) return;
      this.round(int(pk)).then(
        (round) => {
          for (const listener of this.roundListeners) listener(round);
        },
        () => {
          // Closing, or the database away: the waiting player reads the round again at the end of the wait.
        },
      );
    });
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
      await store.listen();
    } catch (error) {
      await sql.end({ timeout: 5 });
      throw error;
    }
    return store;
  }

  /** Every write of this store has committed (durably) when its promise resolves: this waits for the ones on their way. */
  async durable(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** Waits for the writes on their way, then ends the pool. Closing again waits for the first close. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.durable();
      await this.sql.end({ timeout: 5 });
      this.deadlines.stop();
    })();
    return this.closing;
  }

  onRoundFinished(listener: (round: RoundRow) => void): () => void {
    this.roundListeners.add(listener);
    return () => this.roundListeners.delete(listener);
  }

  /** Counts a write in flight until it settles, for durable(). */
  private track<T>(write: Promise<T>): Promise<T> {
    this.inFlight.add(write);
    const done = () => this.inFlight.delete(write);
    write.then(done, done);
    return write;
  }

  /**
   * Runs `work` in one database transaction, again up to
   * CONFLICT_RETRIES_MAX times if PostgreSQL aborts it for a deadlock or a
   * serialization failure; nothing of an aborted run was kept.
   */
  private transaction<T>(work: (dbTx: postgres.TransactionSql) => Promise<T>): Promise<T> {
    return this.track(
      this.bounded(async (deadline) => {
        // Past the deadline the caller has its 503: roll back rather than apply what it was told was not.
        const inTime = async (dbTx: postgres.TransactionSql): Promise<T> => {
          const result = await work(dbTx);
          if (deadline.aborted) throw deadline.reason;
          return result;
        };
        for (let retries = 0; ; retries += 1) {
          try {
            return (await this.sql.begin(inTime)) as T;
          } catch (error) {
            if (!isConflict(error) || retries >= CONFLICT_RETRIES_MAX || deadline.aborted) throw error;
          }
        }
      }),
    );
  }

  /**
   * Runs one call under the call deadline: it answers by then, or rejects
   * with the deadline's UnavailableError; a failure of the database itself
   * becomes an UnavailableError too (unavailableOr).
   */
  private async bounded<T>(call: (deadline: CallDeadline) => Promise<T>): Promise<T> {
    const deadline = this.deadlines.start();
    try {
      return await new Promise<T>((resolve, reject) => {
        deadline.addEventListener('abort', () => reject(deadline.reason));
        call(deadline).then(resolve, (error: unknown) => reject(unavailableOr(error)));
      });
    } finally {
      this.deadlines.settle(deadline);
    }
  }

  /** A single statement: atomic by itself. */
  private write<T>(statement: Promise<T>): Promise<T> {
    return this.track(this.read(statement));
  }

  /** A failure of the database itself (unreachable, too slow, restarting) is the caller's 503: nothing was applied, resend. */
  private read<T>(query: Promise<T>): Promise<T> {
    return this.bounded(() => query);
  }

  /**
   * The outbox, for the dispatcher and the back office. An outcome that
   * finishes rounds calls the listeners with them once it has committed.
   */
  private outboxView(items: PostgresOutbox): ProviderOutbox {
    // Each call has the store's deadline and its 503 (bounded). A claim, or an outcome, answered late is not
    // lost: its items' lease runs out and they are claimed and sent again (every request is idempotent).
    const thenNotify = async <R>(applied: (result: R) => boolean, call: () => Promise<R>): Promise<R> => {
      const finishing: Finishing = { dbTx: undefined, rounds: [] };
      const result = await this.track(this.bounded(() => this.finishing.run(finishing, call)));
      if (applied(result)) for (const round of finishing.rounds) for (const listener of this.roundListeners) listener(round);
      return result;
    };
    return {
      claim: (...args) => this.read(items.claim(...args)),
      sent: (id, node, answer, now) => thenNotify((done) => done, () => items.sent(id, node, answer, now)),
      refused: (id, node, answer, now) => thenNotify((done) => done.applied, () => items.refused(id, node, answer, now)),
      // By hand: the call's audit row on the change's transaction.
      resolve: (id, reference, now, audit) =>
        thenNotify((done) => done, () => items.resolve(id, reference, now, audit && ((dbTx) => insertAudit(dbTx, audit)))),
      retryLater: (...args) => this.track(this.read(items.retryLater(...args))),
      renew: (...args) => this.track(this.read(items.renew(...args))),
      releaseEarlierRuns: (...args) => this.track(this.read(items.releaseEarlierRuns(...args))),
      park: (...args) => this.track(this.read(items.park(...args))),
      retryNow: (id, now, audit) => this.track(this.read(items.retryNow(id, now, audit && ((dbTx) => insertAudit(dbTx, audit))))),
      hasten: (...args) => this.track(this.read(items.hasten(...args))),
      backlog: (...args) => this.read(items.backlog(...args)),
      item: (...args) => this.read(items.item(...args)),
      list: (...args) => this.read(items.list(...args)),
    };
  }

  /**
   * The outbox's hook: a final outcome of a round's or a payout's request
   * finishes it (roundOutcomeOf, payoutOutcomeOf), in the same database
   * transaction. The rounds finished are noted for the listeners; a run
   * that is rolled back and run again starts the note afresh, so only the
   * committed run's rounds are announced.
   */
  private readonly finishFromOutbox = async (dbTx: postgres.TransactionSql, event: FinalEvent): Promise<void> => {
    const finishing = this.finishing.getStore();
    if (finishing && finishing.dbTx !== dbTx) {
      finishing.dbTx = dbTx;
      finishing.rounds = [];
    }
    const { item } = event;
    const at = item.finishedAt ?? item.createdAt;
    if (item.kind === PAYOUT_REQUEST.kind) {
      // Only the outbox's hook finishes a payout, and this transaction holds its item's row: no one else writes it meanwhile.
      const [found] = await dbTx<Row[]>`SELECT id, currency, status FROM payouts WHERE dispatch_item_id = ${item.id}`;
      if (found === undefined || found.status !== 'pending') return;
      const outcome = payoutOutcomeOf(event, found.currency as string, this.currencies);
      const [code, detail] = outcome.status === 'paid' ? [null, null] : [outcome.code, outcome.detail];
      await dbTx`UPDATE payouts SET status = ${outcome.status}, balance_after = ${outcome.balanceAfterMinor?.toString() ?? null},
        refusal_code = ${code}, refusal_detail = ${detail}, settled_at = ${at} WHERE id = ${found.id as string} AND status = 'pending'`;
      return;
    }
    const [call] = await dbTx<Row[]>`SELECT * FROM round_calls WHERE dispatch_item_id = ${item.id}`;
    if (call !== undefined) {
      const round = await this.finishCall(dbTx, callOf(call), int(call.round_pk), event);
      if (round === undefined) return;
      await dbTx`SELECT pg_notify(${ROUND_FINISHED_CHANNEL}, ${`${this.schema}/${this.nodeId}/${round.pk}`})`;
      finishing?.rounds.push(round);
      return;
    }
    const [found] = await dbTx<Row[]>`SELECT id, currency, status FROM rounds WHERE dispatch_item_id = ${item.id}`;
    if (found === undefined || found.status !== 'pending') return;
    const outcome = roundOutcomeOf(event, found.currency as string, this.currencies);
    const [code, detail] = outcome.status === 'settled' ? [null, null] : [outcome.code, outcome.detail];
    const [row] = await dbTx<Row[]>`
      UPDATE rounds SET status = ${outcome.status}, refusal_code = ${code}, refusal_detail = ${detail},
        balance_after = ${outcome.balanceAfterMinor?.toString() ?? null}, attempts = ${item.attempts}, settled_at = ${at}
      WHERE id = ${found.id as string} AND status = 'pending'
      RETURNING *`;
    assert.ok(row, 'only a pending round is finished');
    const round = roundOf(row);
    // A settled round's known balance is the session's: the operator's answer is the truth.
    if (round.status === 'settled' && round.balanceAfterMinor !== null) {
      await dbTx`UPDATE game_sessions SET balance = ${round.balanceAfterMinor.toString()} WHERE id = ${round.sessionPk}`;
    }
    // Delivered to the other nodes when (and only if) this transaction commits.
    await dbTx`SELECT pg_notify(${ROUND_FINISHED_CHANNEL}, ${`${this.schema}/${this.nodeId}/${round.pk}`})`;
    finishing?.rounds.push(round);
  };

  /**
   * A reels call's final outcome, in its transaction: the call and the
   * round record it, and the round goes on as reelsCallStep says. The
   * round's row is updated first, so its lock orders this against
   * playFreeSpins on any node: whichever commits second sees the other's
   * write and enqueues the feature's call, once (the call's `waiting`
   * status is claimed by a conditional update).
   */
  private async finishCall(dbTx: postgres.TransactionSql, call: RoundCallRow, roundPk: number, event: FinalEvent): Promise<RoundRow | undefined> {
    if (call.status !== 'pending') return undefined;
    const { item } = event;
    const at = item.finishedAt ?? item.createdAt;
    const [currencyRow] = await dbTx<Row[]>`SELECT currency FROM rounds WHERE id = ${roundPk}`;
    const outcome = roundOutcomeOf(event, currencyRow!.currency as string, this.currencies);
    const accepted = outcome.status === 'settled';
    const [code, detail] = accepted ? [null, null] : [outcome.code, outcome.detail];
    const balance = outcome.balanceAfterMinor?.toString() ?? null;
    const [updated] = await dbTx<Row[]>`
      UPDATE rounds SET calls_done = calls_done + 1, balance_after = COALESCE(${accepted ? balance : null}::bigint, balance_after), attempts = attempts + ${item.attempts}
      WHERE id = ${roundPk} RETURNING *`;
    await dbTx`UPDATE round_calls SET status = ${accepted ? 'accepted' : 'refused'}, refusal_code = ${code}, refusal_detail = ${detail},
      balance_after = ${balance}, finished_at = ${at} WHERE round_pk = ${roundPk} AND call_index = ${call.index} AND status = 'pending'`;
    const round = roundOf(updated!);
    if (accepted && outcome.balanceAfterMinor !== null) await dbTx`UPDATE game_sessions SET balance = ${balance} WHERE id = ${round.sessionPk}`;
    const step = reelsCallStep(round.reels!, call.index, accepted);
    if (step.finish === 'refused') {
      await dbTx`UPDATE rounds SET status = 'refused', refusal_code = ${code}, refusal_detail = ${detail}, balance_after = ${balance}, settled_at = ${at}
        WHERE id = ${roundPk} AND status = 'pending'`;
      await returnToPool(dbTx, round);
    } else {
      if (!accepted) await dbTx`UPDATE rounds SET refusal_code = ${code}, refusal_detail = ${`call ${call.index}: ${detail}`} WHERE id = ${roundPk}`;
      if (step.finish === 'settled') await dbTx`UPDATE rounds SET status = 'settled', settled_at = ${at} WHERE id = ${roundPk} AND status = 'pending'`;
      if (step.next !== null) await enqueueCall(dbTx, round, step.next, at);
    }
    return roundOf((await dbTx<Row[]>`${roundsSelect(dbTx)} WHERE r.id = ${roundPk}`)[0]!);
  }

  // -------------------------------------------------------- game sessions

  async sessionByLaunch(launchId: string): Promise<GameSessionRow | undefined> {
    const [row] = await this.read(this.sql<Row[]>`SELECT * FROM game_sessions WHERE launch_id = ${launchId}`);
    return row && sessionOf(row);
  }

  async session(pk: number): Promise<GameSessionRow> {
    return this.read(sessionIn(this.sql, pk));
  }

  async createSession(input: NewSession): Promise<GameSessionRow> {
    // The insert waits for a concurrent insert of the same launch and then does nothing; the read after it sees the row that won.
    const [created] = await this.write(this.sql<Row[]>`
      INSERT INTO game_sessions
        (session_id, launch_id, mode, operator_id, wallet_id, game, player_id, operator_session_id, currency, country, language, balance,
         server_seed_sealed, server_seed_hash, nonce, created_at, last_active_at)
      VALUES (${input.sessionId}, ${input.launchId}, ${input.mode}, ${input.operatorId}, ${input.walletId}, ${input.game}, ${input.playerId},
        ${input.operatorSessionId}, ${input.currency}, ${input.country}, ${input.language}, ${input.balanceMinor.toString()}, ${input.sealedSeed},
        ${input.serverSeedHash}, 0, ${input.now}, ${input.now})
      ON CONFLICT (launch_id) DO NOTHING
      RETURNING *`);
    if (created) return sessionOf(created);
    const found = await this.sessionByLaunch(input.launchId);
    assert.ok(found, 'the session of a launch exists after its insert');
    return found;
  }

  async reopenSession(pk: number, operatorSessionId: string | null, balanceMinor: bigint, now: number): Promise<GameSessionRow> {
    const [row] = await this.write(this.sql<Row[]>`
      UPDATE game_sessions SET operator_session_id = ${operatorSessionId}, balance = ${balanceMinor.toString()}, last_active_at = ${now}
      WHERE id = ${pk} RETURNING *`);
    assert.ok(row, `game session ${pk} exists`);
    return sessionOf(row);
  }

  async touchSession(pk: number, now: number): Promise<void> {
    await this.write(this.sql`UPDATE game_sessions SET last_active_at = ${now} WHERE id = ${pk}`);
  }

  // --------------------------------------------------------------- rounds

  beginRealRound(round: NewRound & { requestBody: string }, nextSeed: NextSeed): Promise<RoundWrite> {
    return this.transaction(async (dbTx): Promise<RoundWrite> => {
      const conflict = await this.advanceRealSession(dbTx, round, nextSeed);
      if (conflict) return conflict;
      const item = await PostgresOutbox.enqueue(
        dbTx,
        { operatorId: round.operatorId, orderingKey: round.roundId, ...ROUND_REQUEST, body: round.requestBody },
        round.createdAt,
      );
      const [row] = await insertRound(dbTx, round, { status: 'pending', balanceAfterMinor: null, dispatchItemId: item.id, settledAt: null });
      return { ok: true, round: roundOf({ ...row!, item_attempts: 0 }) };
    });
  }

  /**
   * A free round's campaign, as the round's transaction sees it: a round
   * left, and the round the last exactly when it says so. The count is
   * made under a lock on (campaign, operator, player) held to the commit,
   * and READ COMMITTED reads it on a snapshot taken after the lock: it
   * counts every free round of the player committed before.
   */
  /**
   * A fun round's move of its session, in the round's transaction: one
   * conditional update, the balance covering the bet and the nonce the
   * round's, or nothing moves. Answers the balance after, or the conflict.
   */
  private async advanceFunSession(
    dbTx: postgres.TransactionSql,
    round: NewRound,
    creditMinor: bigint,
    nextSeed: NextSeed,
  ): Promise<{ ok: true; balanceAfterMinor: bigint } | { ok: false; conflict: 'nonce-moved' | 'insufficient-funds'; session: GameSessionRow }> {
    const [moved] = await dbTx<Row[]>`
      UPDATE game_sessions SET balance = balance - ${round.betMinor.toString()} + ${creditMinor.toString()}, server_seed_sealed = ${nextSeed.sealed},
        server_seed_hash = ${nextSeed.hash}, nonce = nonce + 1, last_active_at = ${round.createdAt}
      WHERE id = ${round.sessionPk} AND nonce = ${round.nonce} AND balance >= ${round.betMinor.toString()}
      RETURNING balance`;
    if (moved === undefined) {
      const session = await sessionIn(dbTx, round.sessionPk);
      return { ok: false, conflict: session.nonce === round.nonce ? 'insufficient-funds' : 'nonce-moved', session };
    }
    return { ok: true, balanceAfterMinor: money(moved.balance) };
  }

  /**
   * A real round's move of its session, in the round's transaction: a free
   * round must still fit its campaign, and the session must be at the nonce
   * the round was drawn at (a concurrent round's row lock is waited for, and
   * then its nonce has moved: nothing is written). Answers the conflict, or
   * nothing once the session has its next seed.
   */
  private async advanceRealSession(
    dbTx: postgres.TransactionSql,
    round: NewRound,
    nextSeed: NextSeed,
  ): Promise<{ ok: false; conflict: 'nonce-moved' | 'campaign-used'; session: GameSessionRow } | undefined> {
    if (round.campaignId !== null && !(await this.freeRoundFits(dbTx, round))) {
      return { ok: false, conflict: 'campaign-used', session: await sessionIn(dbTx, round.sessionPk) };
    }
    const moved = await dbTx`
      UPDATE game_sessions SET server_seed_sealed = ${nextSeed.sealed}, server_seed_hash = ${nextSeed.hash}, nonce = nonce + 1, last_active_at = ${round.createdAt}
      WHERE id = ${round.sessionPk} AND nonce = ${round.nonce}`;
    if (moved.count === 0) return { ok: false, conflict: 'nonce-moved', session: await sessionIn(dbTx, round.sessionPk) };
    return undefined;
  }

  private async freeRoundFits(dbTx: postgres.TransactionSql, round: NewRound): Promise<boolean> {
    if (round.playerId === null) return false;
    await dbTx`SELECT pg_advisory_xact_lock(hashtext(current_schema()),
      hashtext('campaign:' || ${round.campaignId}::text || ':' || ${round.operatorId}::text || ':' || ${round.playerId}::text))`;
    const [campaign] = await dbTx<Row[]>`SELECT rounds FROM campaigns WHERE campaign_id = ${round.campaignId}`;
    if (campaign === undefined) return false;
    return freeRoundFits(round, await roundsUsedIn(dbTx, round.campaignId!, round.operatorId, round.playerId), int(campaign.rounds));
  }

  playFunRound(round: NewRound, nextSeed: NextSeed): Promise<RoundWrite> {
    return this.transaction(async (dbTx): Promise<RoundWrite> => {
      const moved = await this.advanceFunSession(dbTx, round, round.winMinor, nextSeed);
      if (!moved.ok) return moved;
      const { balanceAfterMinor } = moved;
      const [row] = await insertRound(dbTx, { ...round, campaignFinished: null }, { status: 'settled', balanceAfterMinor, dispatchItemId: null, settledAt: round.createdAt });
      return { ok: true, round: roundOf(row!) };
    });
  }

  beginReelsRound(round: NewReelsRound, nextSeed: NextSeed): Promise<RoundWrite> {
    const { plan } = round;
    return this.transaction(async (dbTx): Promise<RoundWrite> => {
      let jackpotWinMinor: bigint | null = null;
      let balanceAfterMinor: bigint | null = null;
      if (round.mode === 'fun') {
        // A fun jackpot pays the seed: play money has no pool.
        jackpotWinMinor = plan.jackpotHit ? plan.jackpotSeedMinor : null;
        const credit = plan.baseWinMinor + (jackpotWinMinor ?? 0n);
        const moved = await this.advanceFunSession(dbTx, round, credit, nextSeed);
        if (!moved.ok) return moved;
        balanceAfterMinor = moved.balanceAfterMinor;
      } else {
        const conflict = await this.advanceRealSession(dbTx, round, nextSeed);
        if (conflict) return conflict;
        await dbTx`INSERT INTO jackpot_pools (operator_id, game, currency, amount)
          VALUES (${round.operatorId}, ${round.game}, ${round.currency}, ${plan.jackpotSeedMinor.toString()}) ON CONFLICT DO NOTHING`;
        // The pool's row lock, to the commit: of two nodes' jackpot rounds, the later reads the pool the earlier left.
        const [pool] = await dbTx<Row[]>`SELECT amount FROM jackpot_pools
          WHERE operator_id = ${round.operatorId} AND game = ${round.game} AND currency = ${round.currency} FOR UPDATE`;
        const amount = money(pool!.amount);
        if (plan.jackpotHit) jackpotWinMinor = amount + plan.jackpotContributionMinor;
        const after = plan.jackpotHit ? plan.jackpotSeedMinor : amount + plan.jackpotContributionMinor;
        await dbTx`UPDATE jackpot_pools SET amount = ${after.toString()}
          WHERE operator_id = ${round.operatorId} AND game = ${round.game} AND currency = ${round.currency}`;
      }
      const bodies = round.mode === 'real' ? round.callBodies!(jackpotWinMinor ?? undefined) : [];
      const settledNow = round.mode === 'fun' && plan.freeSpins === 0;
      const win = round.winMinor + (jackpotWinMinor ?? 0n);
      const [row] = await dbTx<Row[]>`
        INSERT INTO rounds
          (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id, campaign_id, campaign_finished,
           chance_pct, threshold, roll, server_seed, server_seed_sealed, server_seed_hash, client_seed, nonce, request_body, status, balance_after,
           dispatch_item_id, created_at, settled_at, kind, reels_rtp_bp, reels_jackpot_bp, base_win, feature_win, jackpot_contribution, jackpot_win, jackpot_seed,
           free_spins, free_spins_played, calls, calls_done)
        VALUES (${round.roundId}, ${round.sessionPk}, ${round.mode}, ${round.operatorId}, ${round.playerId}, ${round.game}, ${round.currency},
          ${round.betMinor.toString()}, ${win.toString()}, ${round.betTxId}, ${round.winTxId}, ${round.campaignId}, ${round.campaignFinished},
          0, 0, 0, ${round.serverSeed}, ${round.sealedSeed}, ${round.serverSeedHash}, ${round.clientSeed}, ${round.nonce}, NULL, ${settledNow ? 'settled' : 'pending'},
          ${balanceAfterMinor?.toString() ?? null}, NULL, ${round.createdAt}, ${settledNow ? round.createdAt : null}, 'reels', ${plan.rtpBp},
          ${plan.jackpotBp}, ${plan.baseWinMinor.toString()}, ${plan.featureWinMinor.toString()}, ${plan.jackpotContributionMinor.toString()},
          ${jackpotWinMinor?.toString() ?? null}, ${plan.jackpotSeedMinor.toString()}, ${plan.freeSpins}, 0, ${bodies.length}, 0)
        RETURNING id`;
      const pk = int(row!.id);
      for (const [index, body] of bodies.entries()) {
        await dbTx`INSERT INTO round_calls (round_pk, call_index, request_body, status) VALUES (${pk}, ${index + 1}, ${body}, 'waiting')`;
      }
      if (bodies.length > 0) {
        const item = await PostgresOutbox.enqueue(
          dbTx,
          { operatorId: round.operatorId, orderingKey: round.roundId, ...ROUND_REQUEST, body: bodies[0]! },
          round.createdAt,
        );
        await dbTx`UPDATE round_calls SET status = 'pending', dispatch_item_id = ${item.id} WHERE round_pk = ${pk} AND call_index = 1`;
        await dbTx`UPDATE rounds SET dispatch_item_id = ${item.id} WHERE id = ${pk}`;
      }
      const [written] = await dbTx<Row[]>`${roundsSelect(dbTx)} WHERE r.id = ${pk}`;
      return { ok: true, round: roundOf(written!) };
    });
  }

  playFreeSpins(roundPk: number, played: number, upTo: number, now: number, serverSeed: string, completedAt?: number): Promise<FreeSpinWrite> {
    return this.transaction(async (dbTx): Promise<FreeSpinWrite> => {
      const moved = async (): Promise<FreeSpinWrite> => ({ ok: false, conflict: 'moved', round: roundOf((await dbTx<Row[]>`${roundsSelect(dbTx)} WHERE r.id = ${roundPk}`)[0]!) });
      if (upTo <= played) return moved();
      // The row lock orders this against the hook of the base spin's call (finishCall).
      const [updated] = await dbTx<Row[]>`
        UPDATE rounds SET free_spins_played = ${upTo}, completed_at = COALESCE(${completedAt ?? null}::bigint, completed_at)
        WHERE id = ${roundPk} AND kind = 'reels' AND status = 'pending' AND free_spins_played = ${played} AND ${upTo} <= free_spins
        RETURNING *`;
      if (updated === undefined) return moved();
      const round = roundOf(updated);
      const reels = round.reels!;
      if (featureDone(reels)) {
        assertRevealable(round, serverSeed);
        await dbTx`UPDATE rounds SET server_seed = ${serverSeed}, server_seed_sealed = NULL WHERE id = ${roundPk}`;
        if (round.mode === 'fun') {
          const [session] = await dbTx<Row[]>`UPDATE game_sessions SET balance = balance + ${reels.featureWinMinor.toString()}, last_active_at = ${now}
            WHERE id = ${round.sessionPk} RETURNING balance`;
          await dbTx`UPDATE rounds SET status = 'settled', settled_at = ${now}, balance_after = ${session!.balance as string} WHERE id = ${roundPk} AND status = 'pending'`;
        } else if (reels.callsDone >= 2) {
          await enqueueCall(dbTx, round, 3, now);
        }
      }
      const [written] = await dbTx<Row[]>`${roundsSelect(dbTx)} WHERE r.id = ${roundPk}`;
      return { ok: true, round: roundOf(written!) };
    });
  }

  async sealPlainSeeds(seeds: SeedSealing): Promise<{ sessions: number; rounds: number }> {
    const sealed = { sessions: 0, rounds: 0 };
    // A batch per transaction: each call has its deadline (callTimeoutMs), and a large database has many sessions.
    for (;;) {
      const batch = await this.transaction(async (dbTx) => {
        let sessions = 0;
        const rows = await dbTx<Row[]>`SELECT id, session_id, nonce FROM game_sessions WHERE server_seed_sealed IS NULL ORDER BY id LIMIT ${SEAL_BATCH_MAX}`;
        for (const row of rows) {
          const next = seeds.fresh(row.session_id as string, int(row.nonce));
          // Another node starting at the same time may have sealed it first: then this writes nothing.
          const written = await dbTx`UPDATE game_sessions SET server_seed_sealed = ${next.sealed}, server_seed_hash = ${next.hash}
            WHERE id = ${row.id as string} AND server_seed_sealed IS NULL`;
          sessions += written.count;
        }
        return { sessions, seen: rows.length };
      });
      sealed.sessions += batch.sessions;
      if (batch.seen < SEAL_BATCH_MAX) break;
    }
    for (;;) {
      const batch = await this.transaction(async (dbTx) => {
        let rounds = 0;
        const rows = await dbTx<Row[]>`SELECT id, round_id, server_seed FROM rounds
          WHERE kind = 'reels' AND server_seed IS NOT NULL AND free_spins_played < free_spins ORDER BY id LIMIT ${SEAL_BATCH_MAX}`;
        for (const row of rows) {
          const seed = row.server_seed as string;
          const written = await dbTx`UPDATE rounds SET server_seed_sealed = ${seeds.sealForRound(seed, row.round_id as string)}, server_seed = NULL
            WHERE id = ${row.id as string} AND server_seed = ${seed}`;
          rounds += written.count;
        }
        return { rounds, seen: rows.length };
      });
      sealed.rounds += batch.rounds;
      if (batch.seen < SEAL_BATCH_MAX) break;
    }
    return sealed;
  }

  async unfinishedFeatures(startedBefore: number, limit: number): Promise<RoundRow[]> {
    const rows = await this.read(this.sql<Row[]>`${roundsSelect(this.sql)}
      WHERE r.kind = 'reels' AND r.status = 'pending' AND r.free_spins_played < r.free_spins AND r.created_at <= ${startedBefore}
      ORDER BY r.created_at, r.id LIMIT ${limit}`);
    return rows.map(roundOf);
  }

  async roundCalls(roundPk: number): Promise<RoundCallRow[]> {
    const rows = await this.read(this.sql<Row[]>`SELECT * FROM round_calls WHERE round_pk = ${roundPk} ORDER BY call_index`);
    return rows.map(callOf);
  }

  async jackpotPool(operatorId: string, game: string, currency: string, seedMinor: bigint): Promise<bigint> {
    const [row] = await this.read(this.sql<Row[]>`SELECT amount FROM jackpot_pools WHERE operator_id = ${operatorId} AND game = ${game} AND currency = ${currency}`);
    return row === undefined ? seedMinor : money(row.amount);
  }

  async round(pk: number): Promise<RoundRow> {
    const [row] = await this.read(this.sql<Row[]>`${roundsSelect(this.sql)} WHERE r.id = ${pk}`);
    assert.ok(row, `round ${pk} exists`);
    return roundOf(row);
  }

  async pendingRounds(sessionPk: number): Promise<RoundRow[]> {
    const rows = await this.read(this.sql<Row[]>`${roundsSelect(this.sql)} WHERE r.session_pk = ${sessionPk} AND r.status = 'pending' ORDER BY r.id`);
    return rows.map(roundOf);
  }

  async recentRounds(sessionPk: number, limit: number): Promise<RoundRow[]> {
    const rows = await this.read(this.sql<Row[]>`${roundsSelect(this.sql)} WHERE r.session_pk = ${sessionPk} AND r.status <> 'refused' ORDER BY r.id DESC LIMIT ${limit}`);
    return rows.map(roundOf);
  }

  async sessionRound(sessionPk: number, roundId: string): Promise<RoundRow | undefined> {
    const [row] = await this.read(this.sql<Row[]>`${roundsSelect(this.sql)} WHERE r.session_pk = ${sessionPk} AND r.round_id = ${roundId} AND r.status <> 'refused'`);
    return row === undefined ? undefined : roundOf(row);
  }

  async listRounds(limit: number, before?: number, operators: readonly string[] | null = null): Promise<RoundRow[]> {
    const rows = await this.read(
      this.sql<Row[]>`${roundsSelect(this.sql)} WHERE r.id < ${before ?? Number.MAX_SAFE_INTEGER} AND ${inScope(this.sql, 'r', operators)}
        ORDER BY r.id DESC LIMIT ${limit}`,
    );
    return rows.map(roundOf);
  }

  // -------------------------------------------------------------- payouts

  createPayout(asked: NewPayout, audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<PayoutWrite> {
    return this.transaction(async (dbTx): Promise<PayoutWrite> => {
      // Creates of one payout id, on any node, one at a time: the later reads the earlier's committed row after the lock.
      await dbTx`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('payout:' || ${asked.payoutId}::text))`;
      const found = await payoutIn(dbTx, asked.payoutId);
      if (found) {
        const same = samePayout(found, asked);
        if (same && audit) await insertAudit(dbTx, audit('exists'));
        return { ok: true, kind: same ? 'exists' : 'conflict', payout: found };
      }
      const [sessionRow] = await dbTx<Row[]>`
        SELECT * FROM game_sessions
        WHERE mode = 'real' AND operator_id = ${asked.operatorId} AND player_id = ${asked.playerId} AND operator_session_id IS NOT NULL
        ORDER BY last_active_at DESC, id DESC LIMIT 1`;
      const request = payoutRequest(asked, sessionRow && sessionOf(sessionRow), this.currencies);
      if (!request.ok) return request;
      const item = await PostgresOutbox.enqueue(
        dbTx,
        { operatorId: asked.operatorId, orderingKey: asked.payoutId, ...PAYOUT_REQUEST, body: request.body },
        asked.createdAt,
      );
      await dbTx`
        INSERT INTO payouts (payout_id, operator_id, player_id, currency, amount, campaign_id, operator_session_id, dispatch_item_id, status, created_at)
        VALUES (${asked.payoutId}, ${asked.operatorId}, ${asked.playerId}, ${asked.currency}, ${asked.amountMinor.toString()}, ${asked.campaignId},
          ${request.operatorSessionId}, ${item.id}, 'pending', ${asked.createdAt})`;
      const payout = await payoutIn(dbTx, asked.payoutId);
      assert.ok(payout, 'the payout exists after its insert');
      // On the payout's transaction: the payout and its audit row commit together.
      if (audit) await insertAudit(dbTx, audit('created'));
      return { ok: true, kind: 'created', payout };
    });
  }

  async payout(payoutId: string): Promise<PayoutRow | undefined> {
    return this.read(payoutIn(this.sql, payoutId));
  }

  async listPayouts(
    limit: number,
    options: { status?: PayoutStatus; before?: number; operators?: readonly string[] | null } = {},
  ): Promise<{ payouts: PayoutRow[]; cursors: number[] }> {
    const before = options.before ?? Number.MAX_SAFE_INTEGER;
    const scope = inScope(this.sql, 'p', options.operators ?? null);
    const rows = await this.read(
      options.status === undefined
        ? this.sql<Row[]>`${payoutsSelect(this.sql)} WHERE p.id < ${before} AND ${scope} ORDER BY p.id DESC LIMIT ${limit}`
        : this.sql<Row[]>`${payoutsSelect(this.sql)} WHERE p.status = ${options.status} AND p.id < ${before} AND ${scope} ORDER BY p.id DESC LIMIT ${limit}`,
    );
    return { payouts: rows.map(payoutOf), cursors: rows.map((row) => int(row.id)) };
  }

  // ------------------------------------------------------ staff and audit

  async findStaffToken(tokenHash: string): Promise<StaffTokenFound | undefined> {
    return (await this.read(this.staff.findStaffToken(tokenHash))) ?? undefined;
  }

  addStaff(command: AddStaffCommand): Promise<StaffAdded | Refusal> {
    return this.track(this.read(this.staff.addStaff(command)));
  }

  revokeStaff(command: RevokeStaffCommand): Promise<StaffRevoked | Refusal> {
    return this.track(this.read(this.staff.revokeStaff(command)));
  }

  listStaff(): Promise<StaffListing[]> {
    return this.read(this.staff.listStaff());
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.write(this.staff.appendAudit(entry));
  }

  listAudit(page: AuditPageRequest, operators: readonly string[] | null): Promise<AuditPage> {
    return this.read(this.staff.listAudit(page, operators));
  }

  // ------------------------------------------------------------ campaigns

  putCampaign(campaign: CampaignRow, players: readonly string[], audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<CampaignWrite> {
    return this.transaction(async (dbTx): Promise<CampaignWrite> => {
      const [inserted] = await dbTx<Row[]>`
        INSERT INTO campaigns (campaign_id, operator_id, game, currency, bet, rounds, expires_at, created_at)
        VALUES (${campaign.campaignId}, ${campaign.operatorId}, ${campaign.game}, ${campaign.currency}, ${campaign.betMinor.toString()},
          ${campaign.rounds}, ${campaign.expiresAt}, ${campaign.createdAt})
        ON CONFLICT (campaign_id) DO NOTHING
        RETURNING id`;
      let pk: string;
      if (inserted) pk = inserted.id as string;
      else {
        // Another put got there first (its insert committed before this one's did nothing): compare with it.
        const [found] = await dbTx<Row[]>`SELECT * FROM campaigns WHERE campaign_id = ${campaign.campaignId}`;
        assert.ok(found, 'the campaign exists after its insert');
        if (!sameCampaign(campaignOf(found), campaign)) return 'conflict';
        pk = found.id as string;
      }
      // Players may be added to a campaign; none is ever removed.
      for (const player of players) await dbTx`INSERT INTO campaign_players (campaign_pk, player_id) VALUES (${pk}, ${player}) ON CONFLICT DO NOTHING`;
      // On the campaign's transaction: the campaign and its audit row commit together.
      if (audit) await insertAudit(dbTx, audit(inserted ? 'created' : 'exists'));
      return inserted ? 'created' : 'exists';
    });
  }

  async campaign(campaignId: string): Promise<(CampaignRow & { players: string[] }) | undefined> {
    const [row] = await this.read(this.sql<Row[]>`SELECT * FROM campaigns WHERE campaign_id = ${campaignId}`);
    if (!row) return undefined;
    const players = await this.read(this.sql<{ player_id: string }[]>`SELECT player_id FROM campaign_players WHERE campaign_pk = ${row.id as string} ORDER BY player_id`);
    return { ...campaignOf(row), players: players.map((p) => p.player_id) };
  }

  async campaignsOf(operatorId: string, playerId: string, game: string, currency: string, now: number): Promise<CampaignRow[]> {
    const rows = await this.read(this.sql<Row[]>`
      SELECT c.* FROM campaigns c JOIN campaign_players p ON p.campaign_pk = c.id
      WHERE p.player_id = ${playerId} AND c.operator_id = ${operatorId} AND c.game = ${game} AND c.currency = ${currency}
        AND (c.expires_at IS NULL OR c.expires_at > ${now})
      ORDER BY c.id`);
    return rows.map(campaignOf);
  }

  async campaignRoundsUsed(campaignId: string, operatorId: string, playerId: string): Promise<number> {
    return this.read(roundsUsedIn(this.sql, campaignId, operatorId, playerId));
  }
}

/** The error as a 503 when the database, not the call, is the problem (src/platform/postgres/errors.ts); else as it is. */
function unavailableOr(error: unknown): unknown {
  if (!isUnavailable(error)) return error;
  return new UnavailableError(`the provider's database is unavailable: ${(error as Error).message}; nothing was applied`, { cause: error });
}

