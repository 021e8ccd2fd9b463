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
 * A real round is written `pending`, with the exact /transaction body, and
 * that body is enqueued in the durable outbox (src/dispatch, its table in
 * migrations.ts) in the same database transaction, before any attempt (the
 * client creates the ids, persists, then sends). The dispatcher delivers it
 * through `outbox`, this connection's view of the outbox; the database
 * transaction that records the operator's final answer on the item also
 * settles or refuses the round (`finishFromOutbox`), so the two never
 * disagree, whatever stops the process in between. Fun money moves in one
 * database transaction with a conditional update, never read-then-write
 * across an await.
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
 *
 * The SQLite plumbing is the wallet store's (src/platform/sqlite): the same
 * pragmas, the same migration runner, and the background checkpointer. The
 * provider's writer is its HTTP thread, which writes on every round; without
 * the checkpointer, the commit that takes the WAL past WAL_CHECKPOINT_PAGES
 * would copy the whole WAL into the database file on that thread, while
 * every player's request waits.
 */
import { SqliteStaff } from '../../../staff/sqlite-staff.js';
import type { AuditEntry, StaffListing, StaffTokenFound } from '../../../access/staff.js';
import type { Refusal } from '../../../protocol/errors.js';
import type { AddStaffCommand, AuditPage, AuditPageRequest, RevokeStaffCommand, StaffAdded, StaffRevoked } from '../../../staff/staff-commands.js';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import type { FinalEvent } from '../../../dispatch/outbox.js';
import { SqliteOutbox } from '../../../dispatch/sqlite/outbox.js';
import { BackgroundCheckpointer } from '../../../platform/sqlite/checkpointer.js';
import { migrate } from '../../../platform/sqlite/migrate.js';
import { openDatabase } from '../../../platform/sqlite/open-database.js';
import { WalFlusher } from '../../../platform/sqlite/wal-flusher.js';
import { CURRENCIES, type Currencies } from '../../../protocol/money.js';
import { adoptUserVersion, PROVIDER_MIGRATIONS } from './migrations.js';
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
  type RoundOutcome,
  type RoundRow,
  type RoundWrite,
  type SeedSealing,
} from '../provider-store.js';

import { campaignStatements } from './campaigns.js';
import { payoutStatements } from './payouts.js';
import { roundStatements } from './rounds.js';
import { callOf, campaignOf, num, payoutOf, roundOf, scopeOf, sessionOf } from './rows.js';
import { sessionStatements } from './sessions.js';

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

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class SqliteProviderStore implements ProviderStore {
  private readonly db: Database.Database;
  private readonly flusher: WalFlusher | undefined;
  private readonly checkpointer: BackgroundCheckpointer | undefined;
  private readonly currencies: Currencies;
  /** Waiting for the open turn's commit (and the sync after it). */
  private waiters: Waiter[] = [];
  /** Waiting for the open turn to end, committed or not. */
  private turnEnds: (() => void)[] = [];
  private closing: Promise<void> | undefined;
  private readonly turn;
  private readonly statements;
  /** The largest outbox item id enqueued in the open turn, 0 for none. */
  private turnItemMax = 0;
  /** The largest outbox item id committed, and the largest whose commit has been synced: claims take no item above it. */
  private committedItemMax: number;
  private durableItemMax = 0;
  private readonly roundListeners = new Set<(round: RoundRow) => void>();
  private readonly dispatchItems: SqliteOutbox;
  private readonly staff: SqliteStaff;
  /**
   * The outbox on this connection, for the dispatcher. A claim takes only
   * durable items, and runs between turns (it takes the write lock on its
   * own); an outcome joins the open turn, as every write does, and commits
   * with the round it settles.
   */
  readonly outbox: ProviderOutbox;

  private constructor(
    db: Database.Database,
    flusher: WalFlusher | undefined,
    checkpointer: BackgroundCheckpointer | undefined,
    currencies: Currencies,
  ) {
    this.db = db;
    this.flusher = flusher;
    this.checkpointer = checkpointer;
    this.currencies = currencies;
    this.turn = { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
    this.staff = new SqliteStaff(db);
    this.statements = {
      ...sessionStatements(db),
      ...roundStatements(db),
      ...campaignStatements(db),
      ...payoutStatements(db),
      lastItemId: db.prepare('SELECT COALESCE(MAX(id), 0) FROM dispatch_items').pluck().safeIntegers(false),
    };
    // What the file already holds was committed by an earlier process; the first claim waits for one sync of it.
    this.committedItemMax = this.statements.lastItemId.get() as number;
    this.dispatchItems = new SqliteOutbox(db, { onFinal: this.finishFromOutbox, claimableIdMax: () => this.durableItemMax });
    this.outbox = this.outboxView(this.dispatchItems);
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
    if (path === ':memory:') return new SqliteProviderStore(db, undefined, undefined, currencies);
    // After the migrations: the checkpointer's connection needs the database in WAL mode.
    const flusher = new WalFlusher(`${path}-wal`, options.onFatal ?? crash);
    return new SqliteProviderStore(db, flusher, new BackgroundCheckpointer(path, 'flusher'), currencies);
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

  /**
   * Commits the open turn and closes the database; a sync in progress
   * completes first. The checkpointer's connection closes before the
   * writer's, so that the writer's is the last and SQLite checkpoints and
   * removes the WAL. Closing again waits for the first close.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.checkpointer?.close();
      this.commitTurn();
      this.db.close();
      this.flusher?.close();
    })();
    return this.closing;
  }

  /** Opens the turn's transaction, if none is open, for a write to join. */
  private write(): void {
    if (this.db.inTransaction) return;
    this.turn.begin.run();
    setImmediate(this.commitTurn);
  }

  private readonly commitTurn = (): void => {
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
  private async betweenTurns<R>(then: () => R): Promise<Awaited<R>> {
    while (this.db.inTransaction) await new Promise<void>((resolve) => this.turnEnds.push(resolve));
    return await then();
  }

  private outboxView(items: SqliteOutbox): ProviderOutbox {
    // An outcome joins the open turn (or opens one), as every write of the store does.
    const inTurn =
      <A extends unknown[], R>(apply: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> => {
        this.write();
        return apply(...args);
      };
    // A read answers what is committed, as another node would see it.
    const betweenTurns =
      <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> =>
        this.betweenTurns(() => read(...args));
    return {
      claim: async (now, node, limits) => {
        // A claim takes the write lock with a transaction of its own (BEGIN IMMEDIATE): between turns.
        const unsynced = await this.betweenTurns(() => this.durableItemMax < this.committedItemMax);
        // Items committed but not yet synced: one sync, no more (under load another commit is always on its way),
        // then the claim takes the items that sync made durable.
        if (unsynced) await this.durable();
        return this.betweenTurns(() => items.claim(now, node, limits));
      },
      sent: inTurn(items.sent.bind(items)),
      refused: inTurn(items.refused.bind(items)),
      retryLater: inTurn(items.retryLater.bind(items)),
      renew: inTurn(items.renew.bind(items)),
      releaseEarlierRuns: inTurn(items.releaseEarlierRuns.bind(items)),
      park: inTurn(items.park.bind(items)),
      // By hand: the call's audit row in the change's savepoint.
      retryNow: inTurn(async (id: number, now: number, audit?: AuditEntry) =>
        items.retryNow(id, now, audit && (() => void this.staff.appendAudit(audit))),
      ),
      resolve: inTurn(async (id: number, reference: string, now: number, audit?: AuditEntry) =>
        items.resolve(id, reference, now, audit && (() => void this.staff.appendAudit(audit))),
      ),
      hasten: inTurn(items.hasten.bind(items)),
      backlog: betweenTurns(items.backlog.bind(items)),
      item: betweenTurns(items.item.bind(items)),
      list: betweenTurns(items.list.bind(items)),
    };
  }

  // -------------------------------------------------------- game sessions

  async sessionByLaunch(launchId: string): Promise<GameSessionRow | undefined> {
    return this.sessionOfLaunch(launchId);
  }

  async session(pk: number): Promise<GameSessionRow> {
    return this.sessionNow(pk);
  }

  async createSession(input: NewSession): Promise<GameSessionRow> {
    this.write();
    this.statements.insertSession.run({ ...input });
    const created = this.sessionOfLaunch(input.launchId);
    assert.ok(created, 'the session of a launch exists after its insert');
    return created;
  }

  async reopenSession(pk: number, operatorSessionId: string | null, balanceMinor: bigint, now: number): Promise<GameSessionRow> {
    this.write();
    this.statements.reopenSession.run(operatorSessionId, balanceMinor, now, pk);
    return this.sessionNow(pk);
  }

  async touchSession(pk: number, now: number): Promise<void> {
    this.write();
    this.statements.touchSession.run(now, pk);
  }

  private sessionOfLaunch(launchId: string): GameSessionRow | undefined {
    const row = this.statements.sessionByLaunch.get(launchId) as Row | undefined;
    return row && sessionOf(row);
  }

  private sessionNow(pk: number): GameSessionRow {
    const row = this.statements.sessionByPk.get(pk) as Row | undefined;
    assert.ok(row, `game session ${pk} exists`);
    return sessionOf(row);
  }

  // --------------------------------------------------------------- rounds

  async beginRealRound(round: NewRound & { requestBody: string }, nextSeed: NextSeed): Promise<RoundWrite> {
    this.write();
    const begun = this.db.transaction((): RoundWrite => {
      if (round.campaignId !== null && !this.freeRoundFits(round)) return { ok: false, conflict: 'campaign-used', session: this.sessionNow(round.sessionPk) };
      const moved = this.statements.advanceSeed.run(nextSeed.sealed, nextSeed.hash, round.createdAt, round.sessionPk, round.nonce);
      if (moved.changes === 0) return { ok: false, conflict: 'nonce-moved', session: this.sessionNow(round.sessionPk) };
      const item = SqliteOutbox.enqueue(
        this.db,
        { operatorId: round.operatorId, orderingKey: round.roundId, ...ROUND_REQUEST, body: round.requestBody },
        round.createdAt,
      );
      const inserted = this.statements.insertRound.run({
        ...round,
        campaignFinished: round.campaignFinished === null ? null : round.campaignFinished ? 1 : 0,
        status: 'pending',
        balanceAfterMinor: null,
        dispatchItemId: item.id,
        settledAt: null,
      });
      // The row as inserted, without reading it back.
      const row: RoundRow = {
        ...round,
        pk: Number(inserted.lastInsertRowid),
        kind: 'dice',
        reels: null,
        status: 'pending',
        refusalCode: null,
        refusalDetail: null,
        balanceAfterMinor: null,
        attempts: 0,
        dispatchItemId: item.id,
        settledAt: null,
      };
      return { ok: true, round: row };
    })();
    // Only once its savepoint is released: a round that failed enqueued nothing.
    if (begun.ok) this.turnItemMax = Math.max(this.turnItemMax, begun.round.dispatchItemId!);
    return begun;
  }

  /** A free round's campaign, as the round's transaction sees it: a round left, and the round the last exactly when it says so. */
  private freeRoundFits(round: NewRound): boolean {
    const campaign = this.statements.campaignById.get(round.campaignId) as Row | undefined;
    if (campaign === undefined || round.playerId === null) return false;
    const used = this.roundsUsed(round.campaignId!, round.operatorId, round.playerId);
    return freeRoundFits(round, used, num(campaign.rounds));
  }

  async playFunRound(round: NewRound, nextSeed: NextSeed): Promise<RoundWrite> {
    this.write();
    return this.db.transaction((): RoundWrite => {
      const moved = this.statements.funMove.run(
        round.betMinor,
        round.winMinor,
        nextSeed.sealed,
        nextSeed.hash,
        round.createdAt,
        round.sessionPk,
        round.nonce,
        round.betMinor,
      );
      if (moved.changes === 0) {
        const session = this.sessionNow(round.sessionPk);
        return { ok: false, conflict: session.nonce === round.nonce ? 'insufficient-funds' : 'nonce-moved', session };
      }
      const balanceAfterMinor = this.sessionNow(round.sessionPk).balanceMinor;
      const inserted = this.statements.insertRound.run({
        ...round,
        campaignFinished: null,
        status: 'settled',
        balanceAfterMinor,
        dispatchItemId: null,
        settledAt: round.createdAt,
      });
      const logged = this.roundNow(Number(inserted.lastInsertRowid));
      assert.equal(logged.balanceAfterMinor, balanceAfterMinor, 'the round log holds the balance it moved to');
      return { ok: true, round: logged };
    })();
  }

  onRoundFinished(listener: (round: RoundRow) => void): () => void {
    this.roundListeners.add(listener);
    return () => this.roundListeners.delete(listener);
  }

  /**
   * The outbox's hook: a final outcome of a round's or a payout's request
   * finishes it (roundOutcomeOf, payoutOutcomeOf), in the same database
   * transaction.
   */
  private readonly finishFromOutbox = (event: FinalEvent): void => {
    if (event.item.kind === PAYOUT_REQUEST.kind) return this.finishPayout(event);
    const { item } = event;
    const call = this.statements.callOfItem.get(item.id) as Row | undefined;
    if (call !== undefined) return this.finishCall(callOf(call), num(call.round_pk), event);
    const found = this.statements.roundOfItem.get(item.id) as Row | undefined;
    if (found === undefined || found.status !== 'pending') return;
    const outcome = roundOutcomeOf(event, found.currency as string, this.currencies);
    const row = this.finishRound(num(found.id), outcome, item.attempts, item.finishedAt ?? item.createdAt);
    for (const listener of this.roundListeners) listener(row);
  };

  /**
   * A reels call's final outcome, in its transaction: the call and the
   * round record it, and the round goes on as reelsCallStep says.
   */
  private finishCall(call: RoundCallRow, roundPk: number, event: FinalEvent): void {
    if (call.status !== 'pending') return;
    const { item } = event;
    const at = item.finishedAt ?? item.createdAt;
    const before = this.roundNow(roundPk);
    const outcome = roundOutcomeOf(event, before.currency, this.currencies);
    const accepted = outcome.status === 'settled';
    const [code, detail] = accepted ? [null, null] : [outcome.code, outcome.detail];
    this.statements.finishCall.run(accepted ? 'accepted' : 'refused', code, detail, outcome.balanceAfterMinor, at, roundPk, call.index);
    this.statements.callDone.run(accepted ? outcome.balanceAfterMinor : null, item.attempts, roundPk);
    if (accepted && outcome.balanceAfterMinor !== null) this.statements.setBalance.run(outcome.balanceAfterMinor, before.sessionPk);
    const round = this.roundNow(roundPk);
    const step = reelsCallStep(round.reels!, call.index, accepted);
    if (step.finish === 'refused') {
      this.statements.refuseReels.run(code, detail, outcome.balanceAfterMinor, at, roundPk);
      this.returnToPool(round);
    } else {
      if (!accepted) this.statements.noteRefusal.run(code, `call ${call.index}: ${detail}`, roundPk);
      if (step.finish === 'settled') this.statements.endReels.run('settled', at, roundPk);
      if (step.next !== null) this.enqueueCall(round, step.next, at);
    }
    const row = this.roundNow(roundPk);
    for (const listener of this.roundListeners) listener(row);
  }

  /** A refused bet's round took from the pool what it must give back: its contribution, or the pool it won less the seed it left. */
  private returnToPool(round: RoundRow): void {
    const reels = round.reels!;
    const back = reels.jackpotWinMinor === null ? -reels.jackpotContributionMinor : reels.jackpotWinMinor - reels.jackpotContributionMinor - reels.jackpotSeedMinor;
    this.statements.addPool.run(back, round.operatorId, round.game, round.currency);
  }

  /** Enqueues a waiting call of a round (once: a call already enqueued is left as it is). Runs in the caller's database transaction. */
  private enqueueCall(round: RoundRow, index: number, now: number): void {
    const body = this.statements.waitingCall.pluck().get(round.pk, index) as string | undefined;
    if (body === undefined) return;
    const item = SqliteOutbox.enqueue(this.db, { operatorId: round.operatorId, orderingKey: round.roundId, kind: 'win', path: ROUND_REQUEST.path, body }, now);
    this.statements.callEnqueued.run(item.id, round.pk, index);
    this.turnItemMax = Math.max(this.turnItemMax, item.id);
  }

  async beginReelsRound(round: NewReelsRound, nextSeed: NextSeed): Promise<RoundWrite> {
    this.write();
    const { plan } = round;
    const itemsBefore = this.turnItemMax;
    const begun = this.db.transaction((): RoundWrite => {
      let jackpotWinMinor: bigint | null = null;
      let balanceAfterMinor: bigint | null = null;
      const immediateWin = (jackpot: bigint | null) => plan.baseWinMinor + (jackpot ?? 0n);
      if (round.mode === 'fun') {
        // A fun jackpot pays the seed: play money has no pool.
        jackpotWinMinor = plan.jackpotHit ? plan.jackpotSeedMinor : null;
        const moved = this.statements.funMove.run(
          round.betMinor,
          immediateWin(jackpotWinMinor),
          nextSeed.sealed,
          nextSeed.hash,
          round.createdAt,
          round.sessionPk,
          round.nonce,
          round.betMinor,
        );
        if (moved.changes === 0) {
          const session = this.sessionNow(round.sessionPk);
          return { ok: false, conflict: session.nonce === round.nonce ? 'insufficient-funds' : 'nonce-moved', session };
        }
        balanceAfterMinor = this.sessionNow(round.sessionPk).balanceMinor;
      } else {
        if (round.campaignId !== null && !this.freeRoundFits(round)) return { ok: false, conflict: 'campaign-used', session: this.sessionNow(round.sessionPk) };
        const moved = this.statements.advanceSeed.run(nextSeed.sealed, nextSeed.hash, round.createdAt, round.sessionPk, round.nonce);
        if (moved.changes === 0) return { ok: false, conflict: 'nonce-moved', session: this.sessionNow(round.sessionPk) };
        const pool = [round.operatorId, round.game, round.currency] as const;
        this.statements.insertPool.run(...pool, plan.jackpotSeedMinor);
        if (plan.jackpotHit) {
          jackpotWinMinor = (this.statements.poolAmount.get(...pool) as bigint) + plan.jackpotContributionMinor;
          this.statements.setPool.run(plan.jackpotSeedMinor, ...pool);
        } else {
          this.statements.addPool.run(plan.jackpotContributionMinor, ...pool);
        }
      }
      const bodies = round.mode === 'real' ? round.callBodies!(jackpotWinMinor ?? undefined) : [];
      const settledNow = round.mode === 'fun' && plan.freeSpins === 0;
      const inserted = this.statements.insertReelsRound.run({
        ...round,
        winMinor: round.winMinor + (jackpotWinMinor ?? 0n),
        campaignFinished: round.campaignFinished === null ? null : round.campaignFinished ? 1 : 0,
        status: settledNow ? 'settled' : 'pending',
        balanceAfterMinor,
        settledAt: settledNow ? round.createdAt : null,
        ...plan,
        jackpotWinMinor,
        calls: bodies.length,
      });
      const pk = Number(inserted.lastInsertRowid);
      bodies.forEach((body, index) => this.statements.insertCall.run(pk, index + 1, body));
      if (bodies.length > 0) {
        const body = bodies[0]!;
        const item = SqliteOutbox.enqueue(this.db, { operatorId: round.operatorId, orderingKey: round.roundId, ...ROUND_REQUEST, body }, round.createdAt);
        this.statements.callEnqueued.run(item.id, pk, 1);
        this.statements.setRoundItem.run(item.id, pk);
        this.turnItemMax = Math.max(this.turnItemMax, item.id);
      }
      return { ok: true, round: this.roundNow(pk) };
    })();
    // A round that failed enqueued nothing: its savepoint rolled back.
    if (!begun.ok) this.turnItemMax = itemsBefore;
    return begun;
  }

  async playFreeSpins(roundPk: number, played: number, upTo: number, now: number, serverSeed: string, completedAt?: number): Promise<FreeSpinWrite> {
    if (upTo <= played) return { ok: false, conflict: 'moved', round: this.roundNow(roundPk) };
    this.write();
    return this.db.transaction((): FreeSpinWrite => {
      const moved = this.statements.revealSpins.run(upTo, completedAt ?? null, roundPk, played, upTo);
      if (moved.changes === 0) return { ok: false, conflict: 'moved', round: this.roundNow(roundPk) };
      const round = this.roundNow(roundPk);
      const reels = round.reels!;
      if (featureDone(reels)) {
        assertRevealable(round, serverSeed);
        this.statements.revealSeed.run(serverSeed, roundPk);
        if (round.mode === 'fun') {
          this.statements.funFeaturePaid.run(reels.featureWinMinor, now, round.sessionPk);
          this.statements.funFeatureSettled.run(now, this.sessionNow(round.sessionPk).balanceMinor, roundPk);
        } else if (reels.callsDone >= 2) {
          this.enqueueCall(round, 3, now);
        }
      }
      return { ok: true, round: this.roundNow(roundPk) };
    })();
  }

  async sealPlainSeeds(seeds: SeedSealing): Promise<{ sessions: number; rounds: number }> {
    this.write();
    return this.db.transaction(() => {
      let sessions = 0;
      let rounds = 0;
      for (const row of this.statements.sessionsUnsealed.all() as Row[]) {
        const next = seeds.fresh(row.session_id as string, num(row.nonce));
        sessions += this.statements.sealSession.run(next.sealed, next.hash, row.id).changes;
      }
      for (const row of this.statements.roundsUnsealed.all() as Row[]) {
        const seed = row.server_seed as string;
        rounds += this.statements.sealRound.run(seeds.sealForRound(seed, row.round_id as string), row.id, seed).changes;
      }
      return { sessions, rounds };
    })();
  }

  async unfinishedFeatures(startedBefore: number, limit: number): Promise<RoundRow[]> {
    return (this.statements.unfinishedFeatures.all(startedBefore, limit) as Row[]).map(roundOf);
  }

  async roundCalls(roundPk: number): Promise<RoundCallRow[]> {
    return (this.statements.callsOfRound.all(roundPk) as Row[]).map(callOf);
  }

  async jackpotPool(operatorId: string, game: string, currency: string, seedMinor: bigint): Promise<bigint> {
    return (this.statements.poolAmount.get(operatorId, game, currency) as bigint | undefined) ?? seedMinor;
  }

  /** Records how a pending round ended; a settled round with a known balance sets the session's. Runs in the caller's database transaction. */
  private finishRound(pk: number, outcome: RoundOutcome, attempts: number, now: number): RoundRow {
    const settled = outcome.status === 'settled';
    const row = (
      settled
        ? this.statements.finishRound.get('settled', null, null, outcome.balanceAfterMinor, attempts, now, pk)
        : this.statements.finishRound.get('refused', outcome.code, outcome.detail, outcome.balanceAfterMinor, attempts, now, pk)
    ) as Row | undefined;
    assert.ok(row, 'only a pending round is finished');
    const round = roundOf(row);
    if (settled && round.balanceAfterMinor !== null) this.statements.setBalance.run(round.balanceAfterMinor, round.sessionPk);
    return round;
  }

  /** The outbox's hook for a payout's request: its outcome pays or refuses it. */
  private finishPayout(event: FinalEvent): void {
    const { item } = event;
    const found = this.statements.payoutOfItem.get(item.id) as Row | undefined;
    if (found === undefined) return;
    const payout = payoutOf(found);
    if (payout.status !== 'pending') return;
    const at = item.finishedAt ?? item.createdAt;
    const finished = payoutOutcomeOf(event, payout.currency, this.currencies);
    if (finished.status === 'paid') this.statements.finishPayout.run('paid', finished.balanceAfterMinor, null, null, at, found.id);
    else this.statements.finishPayout.run('refused', finished.balanceAfterMinor, finished.code, finished.detail, at, found.id);
  }

  async round(pk: number): Promise<RoundRow> {
    return this.roundNow(pk);
  }

  private roundNow(pk: number): RoundRow {
    const row = this.statements.roundByPk.get(pk) as Row | undefined;
    assert.ok(row, `round ${pk} exists`);
    return roundOf(row);
  }

  async pendingRounds(sessionPk: number): Promise<RoundRow[]> {
    return (this.statements.pendingOfSession.all(sessionPk) as Row[]).map(roundOf);
  }

  async recentRounds(sessionPk: number, limit: number): Promise<RoundRow[]> {
    return (this.statements.recentOfSession.all(sessionPk, limit) as Row[]).map(roundOf);
  }

  async sessionRound(sessionPk: number, roundId: string): Promise<RoundRow | undefined> {
    const row = this.statements.roundOfSession.get(sessionPk, roundId) as Row | undefined;
    return row === undefined ? undefined : roundOf(row);
  }

  async listRounds(limit: number, before?: number, operators: readonly string[] | null = null): Promise<RoundRow[]> {
    return (this.statements.listRounds.all(before ?? Number.MAX_SAFE_INTEGER, scopeOf(operators), scopeOf(operators), limit) as Row[]).map(roundOf);
  }

  // -------------------------------------------------------------- payouts

  async createPayout(asked: NewPayout, audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<PayoutWrite> {
    // Every read and the write in one synchronous call: nothing else writes in between.
    const found = this.payoutNow(asked.payoutId);
    if (found) {
      const same = samePayout(found, asked);
      if (same && audit) {
        this.write();
        this.staff.appendAudit(audit('exists'));
      }
      return { ok: true, kind: same ? 'exists' : 'conflict', payout: found };
    }
    const sessionRow = this.statements.latestRealSession.get(asked.operatorId, asked.playerId) as Row | undefined;
    const request = payoutRequest(asked, sessionRow && sessionOf(sessionRow), this.currencies);
    if (!request.ok) return request;
    this.write();
    const itemId = this.db.transaction(() => {
      const item = SqliteOutbox.enqueue(this.db, { operatorId: asked.operatorId, orderingKey: asked.payoutId, ...PAYOUT_REQUEST, body: request.body }, asked.createdAt);
      this.statements.insertPayout.run({ ...asked, operatorSessionId: request.operatorSessionId, dispatchItemId: item.id });
      // In the payout's savepoint: the payout and its audit row commit together.
      if (audit) this.staff.appendAudit(audit('created'));
      return item.id;
    })();
    // Only once its savepoint is released: a payout that failed enqueued nothing.
    this.turnItemMax = Math.max(this.turnItemMax, itemId);
    return { ok: true, kind: 'created', payout: this.payoutNow(asked.payoutId)! };
  }

  async payout(payoutId: string): Promise<PayoutRow | undefined> {
    return this.payoutNow(payoutId);
  }

  private payoutNow(payoutId: string): PayoutRow | undefined {
    const row = this.statements.payoutById.get(payoutId) as Row | undefined;
    return row && payoutOf(row);
  }

  async listPayouts(
    limit: number,
    options: { status?: PayoutStatus; before?: number; operators?: readonly string[] | null } = {},
  ): Promise<{ payouts: PayoutRow[]; cursors: number[] }> {
    const before = options.before ?? Number.MAX_SAFE_INTEGER;
    const scope = scopeOf(options.operators ?? null);
    const rows = (
      options.status === undefined
        ? this.statements.listPayouts.all(before, scope, scope, limit)
        : this.statements.listPayoutsByStatus.all(options.status, before, scope, scope, limit)
    ) as Row[];
    return { payouts: rows.map(payoutOf), cursors: rows.map((row) => num(row.id)) };
  }

  // ------------------------------------------------------ staff and audit

  async findStaffToken(tokenHash: string): Promise<StaffTokenFound | undefined> {
    return this.staff.findStaffToken(tokenHash) ?? undefined;
  }

  async addStaff(command: AddStaffCommand): Promise<StaffAdded | Refusal> {
    this.write();
    return this.db.transaction(() => this.staff.addStaff(command))();
  }

  async revokeStaff(command: RevokeStaffCommand): Promise<StaffRevoked | Refusal> {
    this.write();
    return this.db.transaction(() => this.staff.revokeStaff(command))();
  }

  async listStaff(): Promise<StaffListing[]> {
    return this.staff.listStaff();
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    this.write();
    this.staff.appendAudit(entry);
  }

  async listAudit(page: AuditPageRequest, operators: readonly string[] | null): Promise<AuditPage> {
    return this.staff.listAudit(page, operators);
  }

  // ------------------------------------------------------------ campaigns

  async putCampaign(campaign: CampaignRow, players: readonly string[], audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<CampaignWrite> {
    this.write();
    return this.db.transaction((): CampaignWrite => {
      const found = this.statements.campaignById.get(campaign.campaignId) as Row | undefined;
      if (found) {
        if (!sameCampaign(campaignOf(found), campaign)) return 'conflict';
        // Players may be added to a campaign; none is ever removed.
        for (const player of players) this.statements.insertCampaignPlayer.run(found.id, player);
        if (audit) this.staff.appendAudit(audit('exists'));
        return 'exists';
      }
      const inserted = this.statements.insertCampaign.run({ ...campaign });
      for (const player of players) this.statements.insertCampaignPlayer.run(inserted.lastInsertRowid, player);
      // In the campaign's savepoint: the campaign and its audit row commit together.
      if (audit) this.staff.appendAudit(audit('created'));
      return 'created';
    })();
  }

  async campaign(campaignId: string): Promise<(CampaignRow & { players: string[] }) | undefined> {
    const row = this.statements.campaignById.get(campaignId) as Row | undefined;
    if (!row) return undefined;
    const players = (this.statements.playersOfCampaign.all(row.id) as Row[]).map((p) => p.player_id as string);
    return { ...campaignOf(row), players };
  }

  async campaignsOf(operatorId: string, playerId: string, game: string, currency: string, now: number): Promise<CampaignRow[]> {
    return (this.statements.campaignsOfPlayer.all(playerId, operatorId, game, currency, now) as Row[]).map(campaignOf);
  }

  async campaignRoundsUsed(campaignId: string, operatorId: string, playerId: string): Promise<number> {
    return this.roundsUsed(campaignId, operatorId, playerId);
  }

  private roundsUsed(campaignId: string, operatorId: string, playerId: string): number {
    const row = this.statements.campaignRoundsUsed.get(campaignId, operatorId, playerId) as Row;
    return num(row.used);
  }
}
