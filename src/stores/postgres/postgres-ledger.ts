/**
 * The PostgreSQL ledger. Every method is one database transaction under READ
 * COMMITTED. Every write of a player first takes that player's wallet row
 * lock (SELECT ... FOR UPDATE; several players: in ascending row id, in one
 * statement), the one lock order of this store; ids are claimed through
 * their unique index (a plain INSERT, which waits for a concurrent claim of
 * the same id and fails if it is taken); balances move by a conditional
 * update that must find the balance the plan was made from. The wallet rules
 * are those of src/ledger, and only those: each call reads a snapshot under
 * the lock, plans it with planTransaction, planPayout, ... and writes the plan.
 *
 * The hot path (/transaction and /payout) is group-committed
 * (hot-batcher.ts): a batch of calls is one database transaction in
 * three round trips whatever its size: BEGIN; the locks and every read of
 * the batch, pipelined; every write of the batch as one set-based
 * statement, pipelined with COMMIT. One WAL flush and a handful of
 * statements serve the whole batch. A batch whose players the node
 * remembers (wallet-memory.ts) skips the first two: its write goes
 * alone, in one round trip, and writes only for wallet rows still at the
 * version remembered; the rest is read and planned again.
 *
 * Why not one round trip per call, with a PL/pgSQL function that locks,
 * decides and writes? A first version did that. It needs the rules written
 * twice, in SQL and in TypeScript, kept identical only by tests; and it runs
 * about ten statements per call, each paying executor start-up and
 * constraint set-up, which a profile showed as most of its database time. A
 * batch pays that once for all its calls and the rules exist once. The price
 * is latency when the node is idle (three round trips instead of one: well
 * under a millisecond next to the commit's flush) and row locks held while
 * the node plans (microseconds per call). docs/scaling.md has the numbers.
 *
 * Back-office calls are not hot: each reads under the lock, plans and writes
 * in a few round trips of its own transaction.
 */
import assert, { AssertionError } from 'node:assert/strict';
import type postgres from 'postgres';
import { accountKey, legsOf, type AccountRef, type TransferKind } from '../../ledger/accounts.js';
import {
  canonicalUuid,
  planAdjustment,
  planAuthenticate,
  planPayout,
  planTransaction,
  checkCursor,
  launchKeyDigest,
  launchKeyExpiresAt,
  planOpeningBalance,
  withoutRemember,
  type PlayerState,
  type RulesConfig,
  type SeenTransfer,
  type SessionState,
} from '../../ledger/rules.js';
import {
  balanceOutcome,
  bookedOf,
  ggrReport,
  pageOf,
  playersPage,
  sessionOutcome,
  playerExists,
  playerNotFound,
  playerStateOf,
  playerView,
  storedDecimals,
  transferView,
  type StoredPlayer,
} from '../../ledger/views.js';
import type { ErrorCode, Refusal } from '../../protocol/errors.js';
import type { Currencies } from '../../protocol/money.js';
import type {
  AdjustCommand,
  AuthenticateCommand,
  BalanceOutcome,
  BlockCommand,
  Booked,
  CreatePlayerCommand,
  GgrReport,
  GgrRequest,
  LaunchKeyCommand,
  LaunchKeyView,
  PageOf,
  PageRequest,
  PayoutCommand,
  PlayersPage,
  PlayersRequest,
  PlayerView,
  RoundView,
  SessionOutcome,
  TransactionCommand,
  TransferView,
  VerifyReport,
} from '../store.js';
import { DAY_MS } from '../store.js';
import type { HotOperationName, OperationArgs } from '../operations.js';
import { ABANDONED, DEFER } from './hot-batcher.js';
import { ClaimLostError } from '../../platform/postgres/errors.js';
import { verifyLedger } from './verify-ledger.js';
import { audited } from '../../staff/postgres-staff.js';
import { WalletMemory, type PlayerChange, type PlayerRow, type RoundRow, type SessionRow } from './wallet-memory.js';

/**
 * Operator accounts (game, campaign, tournament, cash) a node remembers to
 * exist, so that a batch need not ask to create them. Accounts are never
 * deleted, so the fact never goes stale; 100,000 entries are a few MB.
 * (SQLite's ledger has a limit of the same name for its account ids.)
 */
export const REMEMBERED_OPERATOR_ACCOUNTS_MAX = 100_000;

/** Row keys are signed 64-bit integers: the first page starts below the largest. */
const CURSOR_START = 2n ** 63n - 1n;

/** int8 and numeric arrive as decimal text (postgres.js keeps them exact). */
type Int8 = string;

type Sql = postgres.Sql | postgres.TransactionSql;

const PLAYER_COLUMNS = 'p.id AS player_pk, p.player_id, p.currency, p.country, p.blocked, p.account_id, a.balance, a.version';

/**
 * The GGR report's sums over a span of creation times [$1, $2): the range reads the transfers_by_time
 * index (migration 4); exported so that a test can ask PostgreSQL for its plan.
 */
export const GGR = `SELECT t.created_at / ${DAY_MS}::bigint AS day, r.game, p.currency,
    sum(CASE WHEN t.kind = 'bet' AND NOT t.free_bet THEN t.amount ELSE 0 END) AS bets,
    sum(CASE WHEN t.kind = 'bet' AND t.free_bet THEN t.amount ELSE 0 END) AS free_bets,
    sum(CASE WHEN t.kind = 'win' THEN t.amount ELSE 0 END) AS wins,
    count(DISTINCT t.round_pk) AS rounds
  FROM transfers t JOIN rounds r ON r.id = t.round_pk JOIN players p ON p.id = t.player_pk
  WHERE t.kind IN ('bet', 'win') AND t.created_at >= $1 AND t.created_at < $2
  GROUP BY 1, r.game, p.currency`;

interface SeenRow {
  uuid: string;
  kind: TransferKind;
  player_id: string;
  round_uuid: string | null;
  campaign_uuid: string | null;
  amount: Int8;
  jp_amount: Int8;
}

/** A refused transaction as read (§6.4). */
interface RefusedRow {
  uuid: string;
  kind: 'bet' | 'win';
  player_id: string;
  round_uuid: string;
  amount: Int8;
  jp_amount: Int8;
  code: ErrorCode;
  detail: string;
}

/** A call of a hot operation (operations.ts: hot), as the hot batcher queues it. */
export type HotCall = { [K in HotOperationName]: { kind: K; command: OperationArgs[K] } }[HotOperationName];
export type HotResult = BalanceOutcome | Refusal;

/** A transfer to insert; its accounts are named by their natural key and resolved by the insert. */
interface TransferWrite {
  uuid: string;
  kind: TransferKind;
  playerPk: Int8;
  /** The player's wallet account: the leg of kind 'player' needs no look-up. */
  playerAccountId: Int8;
  debit: AccountRef;
  credit: AccountRef;
  amount: bigint;
  jpAmount: bigint;
  freeBet: boolean;
  round: string | null;
  /** The round's row id when the round is already stored; a round created by the same batch is found by its uuid. */
  roundPk: Int8 | null;
  campaign: string | null;
  regulatory: string | null;
  note: string | null;
  now: number;
}

/** Everything one batch writes, gathered while its calls are planned, then written set by set. */
class BatchWrites {
  readonly newRounds: { uuid: string; playerPk: Int8; playerId: string; accountId: Int8; game: string; finished: boolean; now: number }[] = [];
  readonly closedRounds: { id: Int8; uuid: string; accountId: Int8; now: number }[] = [];
  readonly transfers: TransferWrite[] = [];
  /**
   * One per player written, even when its balance stays: the write adds one
   * to the wallet row's version, and is made only if the row still holds
   * `version` (wallet-memory.ts).
   */
  readonly balances: { accountId: Int8; playerPk: Int8; version: Int8; before: bigint; after: bigint }[] = [];
  readonly closures: { campaign: string; playerPk: Int8; accountId: Int8; now: number }[] = [];
  /** Transactions of final refusals (§6.4), kept so that their ids answer the same refusal again. */
  readonly refusals: { uuid: string; playerPk: Int8; accountId: Int8; kind: 'bet' | 'win'; playerId: string; round: string;
    amount: bigint; jpAmount: bigint; code: ErrorCode; detail: string; now: number }[] = [];
  readonly touches: { sessionPk: Int8; session: string; accountId: Int8; now: number }[] = [];
}

/** What a batch's write statement answers besides success. */
interface WriteOutcome {
  /** Wallet rows not at the version their plan read: nothing of their players was written. */
  stale: Set<Int8>;
  /** Ids of the rounds the batch created and left open, by uuid. */
  opened: Map<string, Int8>;
}

/** What the calls planned so far in a batch will write: a later call that reads any of it waits for the next batch. */
class BatchClaims {
  private readonly players = new Set<string>();
  private readonly ids = new Set<string>();
  private readonly rounds = new Set<string>();

  overlaps(playerPk: Int8 | undefined, ids: string[], round: string | undefined): boolean {
    return (
      (playerPk !== undefined && this.players.has(playerPk)) ||
      ids.some((id) => this.ids.has(id)) ||
      (round !== undefined && this.rounds.has(round))
    );
  }

  claim(playerPk: Int8, ids: string[], round: string | undefined): void {
    this.players.add(playerPk);
    for (const id of ids) this.ids.add(id);
    if (round !== undefined) this.rounds.add(round);
  }
}

type BatchResult = HotResult | typeof DEFER | typeof ABANDONED;

export interface BatchCounts {
  /** Batches planned from memory and written in one statement. */
  fromMemory: number;
  /** Batches (or parts of one) that read under the locks. */
  read: number;
  /** Calls planned from memory that found their player changed elsewhere and were read and planned again. */
  staleCalls: number;
}

export class PostgresLedger {
  private readonly knownAccounts = new Set<string>();
  private readonly memory = new WalletMemory();
  /** Hot-path batches by how they were planned, and the calls found stale: for tests, and to see how often memory serves. */
  readonly counts: BatchCounts = { fromMemory: 0, read: 0, staleCalls: 0 };

  constructor(
    private readonly sql: postgres.Sql,
    private readonly currencies: Currencies,
    private readonly rules: RulesConfig,
  ) {}

  // --------------------------------------------------------------- hot path

  /**
   * Runs one batch of /transaction and /payout calls and answers each, in
   * order; DEFER for a call that reads what an earlier call of the batch
   * writes (it runs in the next batch); ABANDONED for one whose caller gave
   * up before its writes were made (see HotBatcher): it is not written.
   * A batch planned from memory is one statement; one that must read, or
   * the part of one whose players memory had wrong, is one transaction that
   * reads under the locks (readAndApply).
   */
  async applyBatch(calls: HotCall[], abandoned: (index: number) => boolean = () => false): Promise<BatchResult[]> {
    const planned = this.planFromMemory(calls, abandoned);
    if (!planned) return this.readAndApply(calls, abandoned);
    const { results, writes, snapshot } = planned;
    this.counts.fromMemory++;
    const players = writes.balances.map((wallet) => wallet.playerPk);
    this.memory.hold(players);
    let outcome: WriteOutcome;
    try {
      // Outside a transaction: the statement is its own, committed when it answers.
      outcome = await this.write(this.sql, writes, true);
    } catch (error) {
      // An id or round id memory took for new was not: the batch reads it, and answers it as a replay, a conflict or a mismatch.
      if (error instanceof ClaimLostError) return this.readAndApply(calls, abandoned);
      throw error;
    } finally {
      this.memory.release(players);
    }
    this.remember(writes, outcome);
    if (outcome.stale.size === 0) return results;
    // Calls of players written elsewhere since they were remembered wrote nothing: they run again, reading.
    const again = calls.flatMap((call, index) => {
      const row = snapshot.sessions.get(canonicalUuid(call.command.request.sessionId))!;
      return outcome.stale.has(row.account_id) && results[index] !== DEFER ? [index] : [];
    });
    for (const wallet of writes.balances) if (outcome.stale.has(wallet.accountId)) this.memory.contended(wallet.playerPk, calls[0]!.command.now);
    this.counts.staleCalls += again.length;
    const rerun = await this.readAndApply(
      again.map((index) => calls[index]!),
      (index) => abandoned(again[index]!),
    );
    again.forEach((index, i) => (results[index] = rerun[i]!));
    return results;
  }

  /**
   * Plans a batch from memory (wallet-memory.ts) when every call's
   * player is remembered and free, and every call would be booked: a
   * refusal is given only from what the database says under the lock, and a
   * free bet's campaign or an operator account not yet known is read too.
   * Undefined when the batch must read.
   */
  private planFromMemory(
    calls: HotCall[],
    abandoned: (index: number) => boolean,
  ): { results: BatchResult[]; writes: BatchWrites; snapshot: BatchSnapshot } | undefined {
    const now = calls[0]!.command.now;
    const snapshot: BatchSnapshot = { sessions: new Map(), seen: new Map(), rounds: new Map(), closures: new Set() };
    for (const call of calls) {
      if (call.kind === 'transact' && call.command.request.campaign !== undefined) return undefined;
      const session = canonicalUuid(call.command.request.sessionId);
      const recalled = this.memory.recall(session, now);
      if (!recalled) return undefined;
      snapshot.sessions.set(session, recalled.row);
      if (call.kind === 'transact') {
        const round = recalled.openRounds.get(canonicalUuid(call.command.request.round.id));
        if (round) snapshot.rounds.set(round.uuid, round);
      }
    }
    const planned = this.planBatch(calls, abandoned, snapshot);
    if (planned.results.some((result) => typeof result === 'object' && !result.ok)) return undefined;
    if (this.unknownAccounts(planned.writes.transfers).length > 0) return undefined;
    return { ...planned, snapshot };
  }

  /** Plans each call against the snapshot, in order; DEFER for a call that reads what an earlier one writes. */
  private planBatch(calls: HotCall[], abandoned: (index: number) => boolean, snapshot: BatchSnapshot): { results: BatchResult[]; writes: BatchWrites } {
    const writes = new BatchWrites();
    const claims = new BatchClaims();
    const results = calls.map((call, index): BatchResult => {
      if (abandoned(index)) return ABANDONED;
      const row = snapshot.sessions.get(canonicalUuid(call.command.request.sessionId));
      const callIds = idsOf(call);
      const round = call.kind === 'transact' ? canonicalUuid(call.command.request.round.id) : undefined;
      if (claims.overlaps(row?.player_pk, callIds, round)) return DEFER;
      // Every write of a call comes with a transfer or a kept refusal: a call with neither changed nothing.
      const booked = writes.transfers.length + writes.refusals.length;
      const result = call.kind === 'transact' ? this.planTransact(call.command, row, snapshot, writes) : this.planPayout(call.command, row, snapshot, writes);
      if (row && writes.transfers.length + writes.refusals.length > booked) claims.claim(row.player_pk, callIds, round);
      return result;
    });
    return { results, writes };
  }

  /** What a committed batch wrote, remembered per player; the operator accounts it named now exist. */
  private remember(writes: BatchWrites, outcome: WriteOutcome): void {
    // By wallet row: every part of a batch's writes names the player's row.
    const changes = new Map<Int8, { playerPk: Int8; change: PlayerChange }>();
    for (const wallet of writes.balances) {
      if (outcome.stale.has(wallet.accountId)) continue;
      const change = { version: wallet.version, balance: wallet.after.toString(), touched: [], opened: [], closed: [] };
      changes.set(wallet.accountId, { playerPk: wallet.playerPk, change });
    }
    for (const touch of writes.touches) changes.get(touch.accountId)?.change.touched.push({ session: touch.session, at: touch.now });
    for (const round of writes.closedRounds) changes.get(round.accountId)?.change.closed.push(round.uuid);
    for (const round of writes.newRounds) {
      const id = outcome.opened.get(round.uuid);
      if (id === undefined) continue;
      changes.get(round.accountId)?.change.opened.push({ uuid: round.uuid, id, player_id: round.playerId, game: round.game, finished: false });
    }
    for (const { playerPk, change } of changes.values()) this.memory.changed(playerPk, change);
    for (const transfer of writes.transfers) {
      if (outcome.stale.has(transfer.playerAccountId)) continue;
      this.rememberAccount(transfer.debit);
      this.rememberAccount(transfer.credit);
    }
  }

  /**
   * The batch in one database transaction that locks its players' wallet
   * rows and reads everything it needs under those locks, in three round
   * trips; what it read is remembered for the next batches.
   */
  private async readAndApply(calls: HotCall[], abandoned: (index: number) => boolean): Promise<BatchResult[]> {
    this.counts.read++;
    const sessionIds = new Set<string>();
    const ids = new Set<string>();
    const roundIds = new Set<string>();
    const campaignIds = new Set<string>();
    for (const call of calls) {
      sessionIds.add(canonicalUuid(call.command.request.sessionId));
      for (const id of idsOf(call)) ids.add(id);
      if (call.kind === 'transact') {
        roundIds.add(canonicalUuid(call.command.request.round.id));
        const campaign = call.command.request.campaign?.id;
        if (campaign !== undefined) campaignIds.add(canonicalUuid(campaign));
      }
    }
    const sessions = [...sessionIds];

    let written: Promise<WriteOutcome> | undefined;
    const held: Int8[] = [];
    try {
      const { results, writes } = await this.sql.begin(async (dbTx) => {
        // One round trip: the locks first, in ascending row id (so that batches
        // never wait on each other in a cycle), then the reads, which the server
        // runs after the locks are held and so see what their holders committed.
        //
        // These statements are prepared once and then run with generic plans,
        // which cannot know how few ids a batch holds. So each is written to
        // reach every row through its unique index whatever the planner
        // guesses: keys in = ANY(array), related rows in scalar or fenced
        // (OFFSET 0) subqueries, never a join it could turn into a scan.
        const [, sessionRows, seenRows, refusedRows, roundRows, closureRows] = await Promise.all([
          dbTx`SELECT id FROM accounts WHERE id = ANY(ARRAY(
              SELECT account_id FROM players WHERE id = ANY(ARRAY(SELECT player_pk FROM sessions WHERE uuid = ANY(${pgArray(sessions)}::uuid[])))))
            ORDER BY id FOR UPDATE`.execute(),
          dbTx<SessionRow[]>`SELECT s.uuid, s.id AS session_pk, s.game, s.last_active_at, p.*
            FROM sessions s CROSS JOIN LATERAL (
              SELECT ${dbTx.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = s.player_pk OFFSET 0) p
            WHERE s.uuid = ANY(${pgArray(sessions)}::uuid[])`.execute(),
          dbTx<SeenRow[]>`SELECT t.uuid, t.kind, (SELECT player_id FROM players WHERE id = t.player_pk) AS player_id,
              (SELECT uuid FROM rounds WHERE id = t.round_pk) AS round_uuid, t.campaign_uuid, t.amount, t.jp_amount
            FROM transfers t WHERE t.uuid = ANY(${pgArray([...ids])}::uuid[])`.execute(),
          dbTx<RefusedRow[]>`SELECT uuid, kind, player_id, round_uuid, amount, jp_amount, code, detail
            FROM refused_transactions WHERE uuid = ANY(${pgArray([...ids])}::uuid[])`.execute(),
          roundIds.size === 0
            ? []
            : dbTx<RoundRow[]>`SELECT r.uuid, r.id, (SELECT player_id FROM players WHERE id = r.player_pk) AS player_id, r.game, r.finished
                FROM rounds r WHERE r.uuid = ANY(${pgArray([...roundIds])}::uuid[])`.execute(),
          campaignIds.size === 0
            ? []
            : dbTx<{ campaign_uuid: string; player_pk: Int8 }[]>`SELECT campaign_uuid, player_pk FROM campaign_closures
                WHERE campaign_uuid = ANY(${pgArray([...campaignIds])}::uuid[])`.execute(),
        ]);
        const snapshot: BatchSnapshot = {
          sessions: new Map(sessionRows.map((row) => [row.uuid, row])),
          // A booked transfer wins over a refusal of the same id (only a conflicting reuse of an id could make both).
          seen: new Map([...refusedRows.map((row): [string, SeenTransfer] => [row.uuid, refusedTransaction(row)]),
            ...seenRows.map((row): [string, SeenTransfer] => [row.uuid, seenTransfer(row)])]),
          rounds: new Map(roundRows.map((row) => [row.uuid, row])),
          closures: new Set(closureRows.map((row) => `${row.campaign_uuid}/${row.player_pk}`)),
        };

        // Read under the locks: true now, and true at each row's version for as long as no one writes it.
        for (const row of sessionRows) {
          this.memory.learn(row, roundRows.filter((round) => round.player_id === row.player_id));
          held.push(row.player_pk);
        }
        this.memory.hold(held);
        const { results, writes } = this.planBatch(calls, abandoned, snapshot);
        // The writes go out without waiting for their answers: postgres.js sends
        // COMMIT when this function returns, right behind them, so writes and
        // commit share one round trip. PostgreSQL turns the COMMIT of a
        // transaction in which a statement failed into a ROLLBACK, and answers
        // in order, so by the time COMMIT has answered every write has too:
        // `written` then says whether the batch is in.
        written = this.writeLocked(dbTx, writes);
        written.catch(() => {});
        return { results, writes };
      });
      this.remember(writes, await written!);
      return results;
    } finally {
      this.memory.release(held);
    }
  }

  private planTransact(command: TransactionCommand, row: SessionRow | undefined, snapshot: BatchSnapshot, writes: BatchWrites): HotResult {
    const { request, now } = command;
    const player = row && this.playerState(row);
    const seen = new Map<string, SeenTransfer>();
    for (const tx of request.transactions) {
      const found = snapshot.seen.get(canonicalUuid(tx.id));
      if (found) seen.set(canonicalUuid(tx.id), found);
    }
    const roundId = canonicalUuid(request.round.id);
    const roundRow = snapshot.rounds.get(roundId);
    const campaignId = request.campaign?.id === undefined ? undefined : canonicalUuid(request.campaign.id);
    const plan = planTransaction(
      request,
      {
        session: row && this.sessionState(row),
        player,
        seen,
        round: roundRow && { playerId: roundRow.player_id, game: roundRow.game, finished: roundRow.finished },
        campaignFinished: row !== undefined && campaignId !== undefined && snapshot.closures.has(`${campaignId}/${row.player_pk}`),
        now,
      },
      this.rules,
    );
    if (!plan.ok) {
      if (plan.remember.length > 0) {
        assert.ok(row && player);
        // Kept under the wallet row's lock, which the write takes with a new version: a node that planned
        // one of these ids from memory meanwhile finds its version gone and reads them as refused.
        for (const refused of plan.remember) {
          writes.refusals.push({ ...refused, uuid: refused.id, round: refused.roundId, playerPk: row.player_pk, accountId: row.account_id, now });
        }
        writes.balances.push({ accountId: row.account_id, playerPk: row.player_pk, version: row.version, before: player.balance, after: player.balance });
      }
      return withoutRemember(plan);
    }
    assert.ok(row && player);
    const booked: Booked[] = [];
    if (plan.transfers.length > 0) {
      if (plan.createRound) {
        writes.newRounds.push({
          uuid: roundId,
          playerPk: row.player_pk,
          playerId: row.player_id,
          accountId: row.account_id,
          game: request.game,
          finished: plan.closeRound,
          now,
        });
      } else if (plan.closeRound) {
        assert.ok(roundRow);
        writes.closedRounds.push({ id: roundRow.id, uuid: roundId, accountId: row.account_id, now });
      }
      for (const transfer of plan.transfers) {
        writes.transfers.push({
          uuid: transfer.id,
          kind: transfer.kind,
          playerPk: row.player_pk,
          playerAccountId: row.account_id,
          ...transfer.legs,
          amount: transfer.amount,
          jpAmount: transfer.jpAmount,
          freeBet: transfer.freeBet,
          round: roundId,
          roundPk: roundRow?.id ?? null,
          campaign: campaignId ?? null,
          regulatory: request.regulatory ?? null,
          note: null,
          now,
        });
        booked.push(bookedOf(transfer.kind, transfer.amount, player));
      }
      writes.balances.push({ accountId: row.account_id, playerPk: row.player_pk, version: row.version, before: plan.balanceBefore, after: plan.balanceAfter });
      if (plan.closeCampaign) writes.closures.push({ campaign: plan.closeCampaign, playerPk: row.player_pk, accountId: row.account_id, now });
      if (plan.touchSession) {
        writes.touches.push({ sessionPk: row.session_pk, session: row.uuid, accountId: row.account_id, now });
      }
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  private planPayout(command: PayoutCommand, row: SessionRow | undefined, snapshot: BatchSnapshot, writes: BatchWrites): HotResult {
    const { request, now } = command;
    const player = row && this.playerState(row);
    const plan = planPayout(request, {
      session: row && this.sessionState(row),
      player,
      seen: row && snapshot.seen.get(canonicalUuid(request.payoutId)),
    });
    if (!plan.ok) return plan;
    assert.ok(row && player);
    const booked: Booked[] = [];
    if (plan.apply) {
      const campaignId = canonicalUuid(request.campaign.id);
      const legs = legsOf({ kind: 'payout', playerId: player.playerId, currency: player.currency, campaignId });
      writes.transfers.push({
        uuid: canonicalUuid(request.payoutId),
        kind: 'payout',
        playerPk: row.player_pk,
        playerAccountId: row.account_id,
        ...legs,
        amount: plan.amount,
        jpAmount: 0n,
        freeBet: false,
        round: null,
        roundPk: null,
        campaign: campaignId,
        regulatory: null,
        note: null,
        now,
      });
      writes.balances.push({ accountId: row.account_id, playerPk: row.player_pk, version: row.version, before: player.balance, after: plan.balanceAfter });
      booked.push(bookedOf('payout', plan.amount, player));
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  /**
   * Writes a batch's plans as one statement (accounts first, in a statement
   * of their own, when the batch names operator accounts this node has not
   * seen). Each part is a data-modifying CTE; all of them see the same
   * snapshot, so a transfer finds a round created by the same batch through
   * the CTE's RETURNING, not the table. One statement instead of one per
   * table: a batch's fixed cost (statements, round-trip writes, executor
   * start-up) was a measurable share of both the node's and the database's
   * CPU. Parts with nothing to write get empty arrays and cost next to nothing.
   * A data-modifying CTE runs whether or not anything reads it, so only the
   * parts whose rows are used or counted return any.
   *
   * The wallet rows come first: `moved` updates, and so locks, each player's
   * row only if it still holds the version the plan read, and every other
   * part writes only for the players it updated. A batch planned from memory
   * (one statement, no lock held before it) thus writes nothing for a player
   * changed meanwhile, and answers which ones: `stale`. A batch that read
   * under the locks finds every version as it read it.
   */
  private async write(dbTx: Sql, writes: BatchWrites, fromMemory: boolean): Promise<WriteOutcome> {
    const newAccounts = this.unknownAccounts(writes.transfers);
    const accounts = newAccounts.length > 0 ? this.createAccounts(dbTx, newAccounts) : undefined;
    const { newRounds: rounds, closedRounds: closed, transfers, balances, closures, touches, refusals } = writes;
    const column = <T>(pick: (t: TransferWrite) => T) => transfers.map(pick);
    // Arrays a statement names more than once are built once.
    const closedIds = pgArray(closed.map((r) => r.id));
    const balanceIds = pgArray(balances.map((m) => m.accountId));
    const touchedIds = pgArray(touches.map((t) => t.sessionPk));
    const touchedAt = pgArray(touches.map((t) => String(t.now)));
    // A batch planned from memory took its ids for new without reading them; one that a refusal holds
    // (§6.4) makes the whole batch stale, so it is read under the locks and answered that refusal.
    const unrefused = fromMemory
      ? dbTx`AND NOT EXISTS (SELECT 1 FROM refused_transactions WHERE uuid = ANY(${pgArray(transfers.map((t) => t.uuid))}::uuid[]))`
      : dbTx``;
    const written = dbTx<{ booked: number; stale: string | null; opened: string | null }[]>`WITH
      moved AS (
        -- A balance that is not the one the plan read, at the version it read, becomes -1, which the CHECK refuses: the transaction aborts.
        UPDATE accounts SET balance = CASE
            WHEN balance = (${pgArray(balances.map((m) => m.before.toString()))}::bigint[])[array_position(${balanceIds}::bigint[], id)]
            THEN (${pgArray(balances.map((m) => m.after.toString()))}::bigint[])[array_position(${balanceIds}::bigint[], id)]
            ELSE -1 END,
          version = version + 1
        WHERE id = ANY(${balanceIds}::bigint[])
          AND version = (${pgArray(balances.map((m) => m.version))}::bigint[])[array_position(${balanceIds}::bigint[], id)]
          ${unrefused}
        RETURNING id),
      refused AS (
        INSERT INTO refused_transactions (uuid, player_pk, kind, player_id, round_uuid, amount, jp_amount, code, detail, created_at)
        SELECT x.uuid, x.player_pk, x.kind, x.player_id, x.round, x.amount, x.jp_amount, x.code, x.detail, x.now
        FROM unnest(${pgArray(refusals.map((r) => r.uuid))}::uuid[], ${pgArray(refusals.map((r) => r.playerPk))}::bigint[],
          ${pgArray(refusals.map((r) => r.kind))}::text[], ${pgArray(refusals.map((r) => r.playerId))}::text[],
          ${pgArray(refusals.map((r) => r.round))}::uuid[], ${pgArray(refusals.map((r) => r.amount.toString()))}::bigint[],
          ${pgArray(refusals.map((r) => r.jpAmount.toString()))}::bigint[], ${pgArray(refusals.map((r) => r.code))}::text[],
          ${pgArray(refusals.map((r) => r.detail))}::text[], ${pgArray(refusals.map((r) => String(r.now)))}::bigint[],
          ${pgArray(refusals.map((r) => r.accountId))}::bigint[])
          AS x(uuid, player_pk, kind, player_id, round, amount, jp_amount, code, detail, now, account)
        WHERE x.account IN (SELECT id FROM moved)),
      new_rounds AS (
        INSERT INTO rounds (uuid, player_pk, game, finished, created_at, finished_at)
        SELECT x.uuid, x.player_pk, x.game, x.finished, x.now, CASE WHEN x.finished THEN x.now END
        FROM unnest(${pgArray(rounds.map((r) => r.uuid))}::uuid[], ${pgArray(rounds.map((r) => r.playerPk))}::bigint[],
          ${pgArray(rounds.map((r) => r.game))}::text[], ${pgArray(rounds.map((r) => String(r.finished)))}::boolean[],
          ${pgArray(rounds.map((r) => String(r.now)))}::bigint[], ${pgArray(rounds.map((r) => r.accountId))}::bigint[])
          AS x(uuid, player_pk, game, finished, now, account)
        WHERE x.account IN (SELECT id FROM moved)
        RETURNING id, uuid, finished),
      closed_rounds AS (
        UPDATE rounds SET finished = true,
          finished_at = (${pgArray(closed.map((r) => String(r.now)))}::bigint[])[array_position(${closedIds}::bigint[], id)]
        WHERE id = ANY(${closedIds}::bigint[]) AND NOT finished
          AND (${pgArray(closed.map((r) => r.accountId))}::bigint[])[array_position(${closedIds}::bigint[], id)] IN (SELECT id FROM moved)),
      booked AS (
        INSERT INTO transfers (uuid, kind, player_pk, debit_account_id, credit_account_id, amount, jp_amount, free_bet,
          round_pk, campaign_uuid, regulatory, note, created_at)
        SELECT x.uuid, x.kind, x.player_pk,
          CASE WHEN x.debit_kind = 'player' THEN x.player_account
            ELSE (SELECT id FROM accounts WHERE kind = x.debit_kind AND ref = x.debit_ref AND currency = x.currency) END,
          CASE WHEN x.credit_kind = 'player' THEN x.player_account
            ELSE (SELECT id FROM accounts WHERE kind = x.credit_kind AND ref = x.credit_ref AND currency = x.currency) END,
          x.amount, x.jp_amount, x.free_bet, COALESCE(x.round_pk, r.id), x.campaign, x.regulatory, x.note, x.now
        FROM unnest(${pgArray(column((t) => t.uuid))}::uuid[], ${pgArray(column((t) => t.kind))}::text[], ${pgArray(column((t) => t.playerPk))}::bigint[],
            ${pgArray(column((t) => t.playerAccountId))}::bigint[],
            ${pgArray(column((t) => t.debit.kind))}::text[], ${pgArray(column((t) => t.debit.ref))}::text[],
            ${pgArray(column((t) => t.credit.kind))}::text[], ${pgArray(column((t) => t.credit.ref))}::text[], ${pgArray(column((t) => t.debit.currency))}::text[],
            ${pgArray(column((t) => t.amount.toString()))}::bigint[], ${pgArray(column((t) => t.jpAmount.toString()))}::bigint[],
            ${pgArray(column((t) => String(t.freeBet)))}::boolean[], ${pgArray(column((t) => t.round))}::uuid[], ${pgArray(column((t) => t.roundPk))}::bigint[],
            ${pgArray(column((t) => t.campaign))}::uuid[], ${pgArray(column((t) => t.regulatory))}::text[], ${pgArray(column((t) => t.note))}::text[],
            ${pgArray(column((t) => String(t.now)))}::bigint[])
          WITH ORDINALITY AS x(uuid, kind, player_pk, player_account, debit_kind, debit_ref, credit_kind, credit_ref, currency, amount, jp_amount,
            free_bet, round, round_pk, campaign, regulatory, note, now, ord)
          LEFT JOIN new_rounds r ON x.round_pk IS NULL AND r.uuid = x.round
        WHERE x.player_account IN (SELECT id FROM moved)
        ORDER BY x.ord
        RETURNING 1),
      closures AS (
        INSERT INTO campaign_closures (campaign_uuid, player_pk, closed_at)
        SELECT x.campaign, x.player_pk, x.now FROM unnest(${pgArray(closures.map((c) => c.campaign))}::uuid[],
          ${pgArray(closures.map((c) => c.playerPk))}::bigint[], ${pgArray(closures.map((c) => String(c.now)))}::bigint[],
          ${pgArray(closures.map((c) => c.accountId))}::bigint[]) AS x(campaign, player_pk, now, account)
        WHERE x.account IN (SELECT id FROM moved)
        ON CONFLICT DO NOTHING),
      touched AS (
        -- Never moved back by a node whose clock is behind.
        UPDATE sessions SET last_active_at = (${touchedAt}::bigint[])[array_position(${touchedIds}::bigint[], id)]
        WHERE id = ANY(${touchedIds}::bigint[])
          AND last_active_at < (${touchedAt}::bigint[])[array_position(${touchedIds}::bigint[], id)]
          AND (${pgArray(touches.map((t) => t.accountId))}::bigint[])[array_position(${touchedIds}::bigint[], id)] IN (SELECT id FROM moved))
      SELECT (SELECT count(*) FROM booked)::int AS booked,
        (SELECT string_agg(x::text, ',') FROM unnest(${balanceIds}::bigint[]) AS x WHERE x NOT IN (SELECT id FROM moved)) AS stale,
        (SELECT string_agg(uuid::text || '=' || id::text, ',') FROM new_rounds WHERE NOT finished) AS opened`
      .execute()
      .then(([answer]): WriteOutcome => {
        const stale = new Set(answer!.stale === null ? [] : answer!.stale.split(','));
        const opened = new Map<string, Int8>();
        if (answer!.opened !== null) {
          for (const pair of answer!.opened.split(',')) {
            const [uuid, id] = pair.split('=') as [string, Int8];
            opened.set(uuid, id);
          }
        }
        const expected = stale.size === 0 ? transfers.length : transfers.filter((t) => !stale.has(t.playerAccountId)).length;
        assert.equal(answer!.booked, expected, 'every planned transfer of a current wallet is booked');
        return { stale, opened };
      }, writeFailed);
    const [, outcome] = await Promise.all([accounts, written]);
    return outcome;
  }

  /** The write of a transaction that holds its players' wallet row locks: every version is as it read it. */
  private async writeLocked(dbTx: postgres.TransactionSql, writes: BatchWrites): Promise<WriteOutcome> {
    const outcome = await this.write(dbTx, writes, false);
    assert.equal(outcome.stale.size, 0, 'a locked wallet row keeps its version');
    return outcome;
  }

  // ------------------------------------------------------------ back office

  async authenticate(command: AuthenticateCommand): Promise<SessionOutcome | Refusal> {
    // Keys are kept as digests (launchKeyDigest): the key is found by its own.
    const keyHash = launchKeyDigest(command.key);
    return this.sql.begin(async (dbTx) => {
      const [owner] = await dbTx<{ account_id: Int8 }[]>`SELECT p.account_id FROM launch_keys k JOIN players p ON p.id = k.player_pk
        WHERE k.key_hash = ${keyHash}`;
      if (owner) await dbTx`SELECT 1 FROM accounts WHERE id = ${owner.account_id} FOR UPDATE`;
      // Read after the lock: a concurrent first use of the same key has committed its session by now.
      const [row] = await dbTx<
        (PlayerRow & {
          key_pk: Int8;
          key_game: string;
          expires_at: Int8;
          session_uuid: string | null;
          session_pk: Int8 | null;
          session_game: string | null;
          last_active_at: Int8 | null;
        })[]
      >`SELECT k.id AS key_pk, k.game AS key_game, k.expires_at, s.uuid AS session_uuid, s.id AS session_pk,
          s.game AS session_game, s.last_active_at, ${dbTx.unsafe(PLAYER_COLUMNS)}
        FROM launch_keys k JOIN players p ON p.id = k.player_pk JOIN accounts a ON a.id = p.account_id
        LEFT JOIN sessions s ON s.id = k.session_pk WHERE k.key_hash = ${keyHash}`;
      const player = row && this.playerState(row);
      const existing: SessionState | undefined =
        row && row.session_uuid !== null && row.session_game !== null && row.last_active_at !== null
          ? { sessionId: row.session_uuid, playerId: row.player_id, game: row.session_game, lastActiveAt: Number(row.last_active_at) }
          : undefined;
      const plan = planAuthenticate(
        command.game,
        row && { playerId: row.player_id, game: row.key_game, expiresAt: Number(row.expires_at), session: existing },
        player,
        command.now,
        this.rules,
      );
      if (!plan.ok) return plan;
      assert.ok(row && player);
      let sessionId: string;
      if (plan.kind === 'existing') {
        // A reload counts as activity; the condition keeps the rule (never back in time) against a concurrent touch.
        assert.ok(row.session_pk !== null);
        if (plan.touch) await dbTx`UPDATE sessions SET last_active_at = ${command.now} WHERE id = ${row.session_pk} AND last_active_at < ${command.now}`;
        // The session's activity is part of what a node remembers of the player (wallet-memory.ts).
        await dbTx`UPDATE accounts SET version = version + 1 WHERE id = ${row.account_id}`;
        this.memory.forget(row.player_pk);
        sessionId = plan.session.sessionId;
      } else {
        sessionId = canonicalUuid(command.newSessionId);
        const [session] = await dbTx<{ id: Int8 }[]>`INSERT INTO sessions (uuid, player_pk, game, created_at, last_active_at)
          VALUES (${sessionId}, ${row.player_pk}, ${command.game}, ${command.now}, ${command.now}) RETURNING id`;
        const bound = await dbTx`UPDATE launch_keys SET session_pk = ${session!.id} WHERE id = ${row.key_pk} AND session_pk IS NULL`;
        assert.equal(bound.count, 1, 'a launch key opens one session');
      }
      return sessionOutcome(sessionId, player, row.country);
    });
  }

  async createPlayer(command: CreatePlayerCommand): Promise<PlayerView | Refusal> {
    const opening = planOpeningBalance(command.currency, command.balance, this.currencies);
    if (typeof opening !== 'bigint') return opening;
    const exists = playerExists(command.playerId);
    try {
      return await this.sql.begin(async (dbTx) => {
        const [found] = await dbTx`SELECT 1 FROM players WHERE player_id = ${command.playerId}`;
        if (found) return exists;
        const [account] = await dbTx<{ id: Int8 }[]>`INSERT INTO accounts (kind, ref, currency, balance, created_at)
          VALUES ('player', ${command.playerId}, ${command.currency}, 0, ${command.now}) RETURNING id`;
        const [player] = await dbTx<{ id: Int8 }[]>`INSERT INTO players (player_id, account_id, currency, country, created_at)
          VALUES (${command.playerId}, ${account!.id}, ${command.currency}, ${command.country ?? null}, ${command.now}) RETURNING id`;
        if (opening > 0n) {
          const legs = legsOf({ kind: 'deposit', playerId: command.playerId, currency: command.currency });
          await this.writeSingle(dbTx, { player_pk: player!.id, account_id: account!.id, version: '0' }, canonicalUuid(command.depositId), 'deposit', legs, opening, 0n, opening, command.now, 'opening balance');
        }
        const row = await this.playerRow(dbTx, command.playerId);
        assert.ok(row, 'a player reads back in the transaction that created it');
        return audited(dbTx, command.audit, this.view(row));
      });
    } catch (error) {
      // A concurrent creation of the same player won the unique index.
      if ((error as { code?: string }).code === '23505' && /^(players|accounts)$/.test((error as { table_name?: string }).table_name ?? '')) {
        return exists;
      }
      throw error;
    }
  }

  async getPlayer(playerId: string): Promise<PlayerView | Refusal> {
    const row = await this.playerRow(this.sql, playerId);
    return row ? this.view(row) : playerNotFound(playerId);
  }

  async createLaunchKey(command: LaunchKeyCommand): Promise<LaunchKeyView | Refusal> {
    const expiresAt = launchKeyExpiresAt(command.now, this.rules);
    return this.sql.begin(async (dbTx) => {
      // Only the digest is written: the key is answered this once, to the caller that asked for it, and never read back.
      const inserted = await dbTx`INSERT INTO launch_keys (key_hash, player_pk, game, created_at, expires_at)
        SELECT ${launchKeyDigest(command.key)}, id, ${command.game}, ${command.now}, ${expiresAt} FROM players WHERE player_id = ${command.playerId}`;
      if (inserted.count === 0) return playerNotFound(command.playerId);
      return audited(dbTx, command.audit, { ok: true as const, key: command.key, expiresAt });
    });
  }

  async adjust(command: AdjustCommand): Promise<BalanceOutcome | Refusal> {
    return this.sql.begin(async (dbTx) => {
      const row = await this.playerRow(dbTx, command.playerId, { lock: true });
      const player = row && this.playerState(row);
      const [seenRow] = row
        ? await dbTx<SeenRow[]>`SELECT t.uuid, t.kind, p.player_id, r.uuid AS round_uuid, t.campaign_uuid, t.amount, t.jp_amount
            FROM transfers t JOIN players p ON p.id = t.player_pk LEFT JOIN rounds r ON r.id = t.round_pk WHERE t.uuid = ${command.id}::uuid`
        : [];
      const plan = planAdjustment(command, player, seenRow && seenTransfer(seenRow));
      if (!plan.ok) return plan;
      assert.ok(row && player);
      const booked: Booked[] = [];
      if (plan.apply) {
        const legs = legsOf({ kind: command.type, playerId: player.playerId, currency: player.currency });
        await this.writeSingle(dbTx, row, canonicalUuid(command.id), command.type, legs, plan.amount, player.balance,
          plan.balanceAfter, command.now, command.reason ?? null);
        booked.push(bookedOf(command.type, plan.amount, player));
      }
      return audited(dbTx, command.audit, balanceOutcome(player, plan.balanceAfter, booked));
    });
  }

  async setBlocked(command: BlockCommand): Promise<PlayerView | Refusal> {
    // The wallet row's version moves with the block: a node that remembers the player must read it again.
    return this.sql.begin(async (dbTx) => {
      const [row] = await dbTx<PlayerRow[]>`WITH p AS (
          UPDATE players SET blocked = ${command.blocked}, blocked_reason = ${command.blocked ? (command.reason ?? null) : null}
          WHERE player_id = ${command.playerId} RETURNING *),
        a AS (UPDATE accounts SET version = version + 1 WHERE id = (SELECT account_id FROM p) RETURNING balance, version)
        SELECT ${this.sql.unsafe(PLAYER_COLUMNS)} FROM p, a`;
      if (!row) return playerNotFound(command.playerId);
      this.memory.forget(row.player_pk);
      return audited(dbTx, command.audit, this.view(row));
    });
  }

  async listRounds(page: PageRequest): Promise<PageOf<RoundView> | Refusal> {
    const player = await this.playerRow(this.sql, page.playerId);
    if (!player) return playerNotFound(page.playerId);
    const refused = await this.checkCursor('rounds', player, page);
    if (refused) return refused;
    const rows = await this.sql<
      { id: Int8; uuid: string; game: string; finished: boolean; created_at: Int8; finished_at: Int8 | null }[]
    >`SELECT id, uuid, game, finished, created_at, finished_at FROM rounds
      WHERE player_pk = ${player.player_pk} AND id < ${String(page.before ?? CURSOR_START)} ORDER BY id DESC LIMIT ${page.limit + 1}`;
    return pageOf(rows, page.limit, (r) => ({
      roundId: r.uuid,
      game: r.game,
      finished: r.finished,
      createdAt: Number(r.created_at),
      finishedAt: r.finished_at === null ? null : Number(r.finished_at),
    }));
  }

  async listPlayers(page: PlayersRequest): Promise<PlayersPage> {
    // Ids compare by code point ("C"), as SQLite's BINARY does, so that every backend pages in one order.
    // Each filter is off when its parameter is null; the prefix also bounds the range from below.
    const prefix = page.prefix ?? null;
    const blocked = page.blocked ?? null;
    const rows = await this.sql<PlayerRow[]>`SELECT ${this.sql.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id
      WHERE p.player_id COLLATE "C" > ${page.after ?? ''}
        AND (${prefix}::text IS NULL OR (p.player_id COLLATE "C" >= ${prefix} AND left(p.player_id, length(${prefix})) = ${prefix}))
        AND (${page.currency ?? null}::text IS NULL OR p.currency = ${page.currency ?? null})
        AND (${blocked}::boolean IS NULL OR p.blocked = ${blocked})
      ORDER BY p.player_id COLLATE "C" LIMIT ${page.limit + 1}`;
    return playersPage(rows.map(storedPlayer), page.limit, this.currencies);
  }

  async ggr(span: GgrRequest): Promise<GgrReport> {
    const rows = await this.sql.unsafe<{ day: Int8; game: string; currency: string; bets: string; free_bets: string; wins: string; rounds: Int8 }[]>(
      GGR,
      [span.from, span.to],
    );
    return ggrReport(
      rows.map((r) => ({
        day: Number(r.day),
        game: r.game,
        currency: r.currency,
        bets: BigInt(r.bets),
        freeBets: BigInt(r.free_bets),
        wins: BigInt(r.wins),
        rounds: Number(r.rounds),
      })),
      this.currencies,
    );
  }

  /** The facts of a page's cursor, judged by the rule (rules.ts, checkCursor). */
  private async checkCursor(table: 'rounds' | 'transfers', player: PlayerRow, page: PageRequest): Promise<Refusal | undefined> {
    if (page.before === undefined) return undefined;
    const before = String(page.before);
    const [facts] = await this.sql<{ names: boolean; newest: Int8 | null }[]>`SELECT
        EXISTS (SELECT 1 FROM ${this.sql(table)} WHERE id = ${before} AND player_pk = ${player.player_pk}) AS names,
        (SELECT max(id) FROM ${this.sql(table)} WHERE player_pk = ${player.player_pk}) AS newest`;
    return checkCursor(player.player_id, page.before, { namesPlayersRow: facts!.names, newest: facts!.newest === null ? null : BigInt(facts!.newest) });
  }

  async listTransfers(page: PageRequest): Promise<PageOf<TransferView> | Refusal> {
    const player = await this.playerRow(this.sql, page.playerId);
    if (!player) return playerNotFound(page.playerId);
    const refused = await this.checkCursor('transfers', player, page);
    if (refused) return refused;
    const decimals = storedDecimals(this.currencies, player.currency);
    const rows = await this.sql<
      {
        id: Int8;
        uuid: string;
        kind: TransferKind;
        amount: Int8;
        jp_amount: Int8;
        free_bet: boolean;
        round_uuid: string | null;
        game: string | null;
        campaign_uuid: string | null;
        regulatory: string | null;
        created_at: Int8;
      }[]
    >`SELECT t.id, t.uuid, t.kind, t.amount, t.jp_amount, t.free_bet, r.uuid AS round_uuid, r.game,
        t.campaign_uuid, t.regulatory, t.created_at FROM transfers t LEFT JOIN rounds r ON r.id = t.round_pk
      WHERE t.player_pk = ${player.player_pk} AND t.id < ${String(page.before ?? CURSOR_START)} ORDER BY t.id DESC LIMIT ${page.limit + 1}`;
    return pageOf(rows, page.limit, (r) =>
      transferView(
        {
          id: r.uuid,
          kind: r.kind,
          amount: BigInt(r.amount),
          jpAmount: BigInt(r.jp_amount),
          freeBet: r.free_bet,
          roundId: r.round_uuid,
          game: r.game,
          campaignId: r.campaign_uuid,
          regulatory: r.regulatory,
          createdAt: Number(r.created_at),
        },
        decimals,
      ),
    );
  }

  /**
   * Proves the books on one snapshot while the wallet keeps running
   * (verify-ledger.ts). `sql`: the client to read through; the store gives a
   * verify a connection of its own.
   */
  async verify(sql: postgres.Sql = this.sql): Promise<VerifyReport> {
    return verifyLedger(sql);
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }
  // ---------------------------------------------------------------- helpers

  /** One transfer and its balance move, as the back office books them, on a wallet row locked by `dbTx`. */
  private async writeSingle(
    dbTx: postgres.TransactionSql,
    wallet: Pick<PlayerRow, 'player_pk' | 'account_id' | 'version'>,
    id: string,
    kind: TransferKind,
    legs: { debit: AccountRef; credit: AccountRef },
    amount: bigint,
    before: bigint,
    after: bigint,
    now: number,
    note: string | null,
  ): Promise<void> {
    const { player_pk: playerPk, account_id: accountId } = wallet;
    const writes = new BatchWrites();
    writes.transfers.push({
      uuid: id,
      kind,
      playerPk,
      playerAccountId: accountId,
      ...legs,
      amount,
      jpAmount: 0n,
      freeBet: false,
      round: null,
      roundPk: null,
      campaign: null,
      regulatory: null,
      note,
      now,
    });
    writes.balances.push({ accountId, playerPk, version: wallet.version, before, after });
    await this.writeLocked(dbTx, writes);
    // The next bet reads the player again rather than find memory one version behind.
    this.memory.forget(playerPk);
    this.rememberAccount(legs.debit);
    this.rememberAccount(legs.credit);
  }

  /** The operator accounts named by these transfers that this node has not yet seen exist. */
  private unknownAccounts(transfers: TransferWrite[]): { ref: AccountRef; now: number }[] {
    const found = new Map<string, { ref: AccountRef; now: number }>();
    for (const transfer of transfers) {
      for (const ref of [transfer.debit, transfer.credit]) {
        const key = accountKey(ref);
        if (ref.kind !== 'player' && !this.knownAccounts.has(key) && !found.has(key)) found.set(key, { ref, now: transfer.now });
      }
    }
    return [...found.values()];
  }

  /** Creates operator accounts on first use; one that exists, or that a concurrent call creates, is left as it is. */
  private createAccounts(dbTx: Sql, accounts: { ref: AccountRef; now: number }[]): Promise<unknown> {
    return dbTx`INSERT INTO accounts (kind, ref, currency, balance, created_at)
      SELECT x.kind, x.ref, x.currency, NULL, x.now
      FROM unnest(${pgArray(accounts.map((a) => a.ref.kind))}::text[], ${pgArray(accounts.map((a) => a.ref.ref))}::text[],
        ${pgArray(accounts.map((a) => a.ref.currency))}::text[], ${pgArray(accounts.map((a) => String(a.now)))}::bigint[]) AS x(kind, ref, currency, now)
      WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.kind = x.kind AND a.ref = x.ref AND a.currency = x.currency)
      ON CONFLICT (kind, ref, currency) DO NOTHING`.execute();
  }

  private rememberAccount(ref: AccountRef): void {
    if (ref.kind === 'player' || this.knownAccounts.size >= REMEMBERED_OPERATOR_ACCOUNTS_MAX) return;
    this.knownAccounts.add(accountKey(ref));
  }

  private playerState(row: PlayerRow): PlayerState {
    return playerStateOf(storedPlayer(row), this.currencies);
  }

  private sessionState(row: SessionRow): SessionState {
    return { sessionId: row.uuid, playerId: row.player_id, game: row.game, lastActiveAt: Number(row.last_active_at) };
  }

  private view(row: PlayerRow): PlayerView {
    return playerView(storedPlayer(row), this.currencies);
  }

  private async playerRow(sql: Sql, playerId: string, options: { lock?: boolean } = {}): Promise<PlayerRow | undefined> {
    const [row] = options.lock
      ? await sql<PlayerRow[]>`SELECT ${sql.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id
          WHERE p.player_id = ${playerId} FOR UPDATE OF a`
      : await sql<PlayerRow[]>`SELECT ${sql.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id
          WHERE p.player_id = ${playerId}`;
    return row;
  }
}

interface BatchSnapshot {
  sessions: Map<string, SessionRow>;
  seen: Map<string, SeenTransfer>;
  rounds: Map<string, RoundRow>;
  /** `${campaign uuid}/${player pk}` of campaigns finished for a player. */
  closures: Set<string>;
}

/**
 * A PostgreSQL array literal of text elements, quoted and escaped; NULL for
 * null. Arrays travel as their literal text, cast by the statement
 * (`${pgArray(ids)}::uuid[]`), so the client needs no array type of the
 * server's (open-database.ts turns that look-up off).
 */
export function pgArray(values: readonly (string | null)[]): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (i > 0) literal += ',';
    // Ids, numbers and most text need no escape: testing first spares a replace per element on the hot path.
    literal += value === null ? 'NULL' : NEEDS_ESCAPE.test(value) ? `"${value.replace(ESCAPED, '\\$&')}"` : `"${value}"`;
  }
  return literal + '}';
}
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/**
 * What a failed batch write means. A unique violation on a round or
 * transaction id: a concurrent call claimed it since it was read (or is
 * claiming it now: the insert waited for it), so the calls run again and
 * read it as seen. The balance CHECK: a wallet moved while its row was
 * locked, a broken invariant. Anything else is a bug and stays as it is.
 */
function writeFailed(error: unknown): never {
  const { code, constraint_name: constraint } = error as { code?: string; constraint_name?: string };
  if (code === '23505' && (constraint === 'rounds_uuid_key' || constraint === 'transfers_uuid_key' || constraint === 'refused_transactions_pkey')) {
    const what = constraint === 'rounds_uuid_key' ? 'a round id' : 'a transaction id';
    throw new ClaimLostError(`${what} was claimed by a concurrent call`, { cause: error });
  }
  if (code === '23514' && constraint === 'accounts_balance_check') {
    throw new AssertionError({ message: 'a wallet balance moved while its row was locked' });
  }
  throw error;
}

/** The idempotency ids a call claims: its transaction ids, or its payout id. */
function idsOf(call: HotCall): string[] {
  return call.kind === 'transact'
    ? call.command.request.transactions.map((tx) => canonicalUuid(tx.id))
    : [canonicalUuid(call.command.request.payoutId)];
}

function seenTransfer(row: SeenRow): SeenTransfer {
  return {
    kind: row.kind,
    playerId: row.player_id,
    roundId: row.round_uuid,
    campaignId: row.campaign_uuid,
    amount: BigInt(row.amount),
    jpAmount: BigInt(row.jp_amount),
  };
}

function refusedTransaction(row: RefusedRow): SeenTransfer {
  return {
    kind: row.kind,
    playerId: row.player_id,
    roundId: row.round_uuid,
    campaignId: null,
    amount: BigInt(row.amount),
    jpAmount: BigInt(row.jp_amount),
    refused: { code: row.code, detail: row.detail },
  };
}

function storedPlayer(row: PlayerRow): StoredPlayer {
  return { playerId: row.player_id, currency: row.currency, balance: BigInt(row.balance), blocked: row.blocked, country: row.country };
}

