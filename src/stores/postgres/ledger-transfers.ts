/**
 * The PostgreSQL ledger's hot operations, /transaction and /payout,
 * group-committed (hot-batcher.ts): a batch of calls is one database
 * transaction in three round trips whatever its size: BEGIN; the locks and
 * every read of the batch, pipelined; every write of the batch as one
 * set-based statement (ledger-rows.ts, `write`), pipelined with COMMIT. One
 * WAL flush and a handful of statements serve the whole batch. A batch whose
 * players the node remembers (wallet-memory.ts) skips the first two: its
 * write goes alone, in one round trip, and writes only for wallet rows
 * still at the version remembered; the rest is read and planned again.
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
 */
import assert from 'node:assert/strict';
import { ENV_INTEGRATION_ID } from '../../protocol/integration-id.js';
import { planPayout, planTransaction, withoutRemember, type SeenTransfer, type SessionState } from '../../ledger/rules.js';
import { balanceOutcome, bookedOf } from '../../ledger/views.js';
import type { ErrorCode, Refusal } from '../../protocol/errors.js';
import type { BalanceOutcome, Booked, PayoutCommand, TransactionCommand } from '../store.js';
import type { HotOperationName, OperationArgs } from '../operations.js';
import { ABANDONED, DEFER } from './hot-batcher.js';
import { ClaimLostError } from '../../platform/postgres/errors.js';
import { BatchWrites, pgArray, PLAYER_COLUMNS, seenTransfer, type Int8, type LedgerRows, type SeenRow, type WriteOutcome } from './ledger-rows.js';
import type { PlayerChange, RoundRow, SessionRow } from './wallet-memory.js';

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

/** What the calls planned so far in a batch will write: a later call that reads any of it waits for the next batch. */
class BatchClaims {
  private readonly players = new Set<string>();
  private readonly ids = new Set<string>();
  private readonly rounds = new Set<string>();

  overlaps(playerPk: Int8 | undefined, ids: string[], round: string | undefined): boolean {
    return (playerPk !== undefined && this.players.has(playerPk)) || ids.some((id) => this.ids.has(id)) || (round !== undefined && this.rounds.has(round));
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

export class LedgerTransfers {
  /** Hot-path batches by how they were planned, and the calls found stale: for tests, and to see how often memory serves. */
  readonly counts: BatchCounts = { fromMemory: 0, read: 0, staleCalls: 0 };

  constructor(private readonly rows: LedgerRows) {}

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
    let outcome: WriteOutcome;
    try {
      // Outside a transaction: the statement is its own, committed when it answers.
      outcome = await this.rows.memory.whileWriting(players, () => this.rows.write(this.rows.sql, writes, true));
    } catch (error) {
      // An id or round id memory took for new was not: the batch reads it, and answers it as a replay, a conflict or a mismatch.
      if (error instanceof ClaimLostError) return this.readAndApply(calls, abandoned);
      throw error;
    }
    this.remember(writes, outcome);
    if (outcome.stale.size === 0) return results;
    // Calls of players written elsewhere since they were remembered wrote nothing: they run again, reading.
    const again = calls.flatMap((call, index) => {
      const row = snapshot.sessions.get(call.command.request.sessionId)!;
      return outcome.stale.has(row.account_id) && results[index] !== DEFER ? [index] : [];
    });
    for (const wallet of writes.balances) if (outcome.stale.has(wallet.accountId)) this.rows.memory.contended(wallet.playerPk, calls[0]!.command.now);
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
      const session = call.command.request.sessionId;
      const recalled = this.rows.memory.recall(session, now);
      if (!recalled) return undefined;
      snapshot.sessions.set(session, recalled.row);
      if (call.kind === 'transact') {
        const round = recalled.openRounds.get(call.command.request.round.id);
        if (round) snapshot.rounds.set(round.uuid, round);
      }
    }
    const planned = this.planBatch(calls, abandoned, snapshot);
    if (planned.results.some((result) => typeof result === 'object' && !result.ok)) return undefined;
    if (this.rows.unknownAccounts(planned.writes.transfers).length > 0) return undefined;
    return { ...planned, snapshot };
  }

  /** Plans each call against the snapshot, in order; DEFER for a call that reads what an earlier one writes. */
  private planBatch(calls: HotCall[], abandoned: (index: number) => boolean, snapshot: BatchSnapshot): { results: BatchResult[]; writes: BatchWrites } {
    const writes = new BatchWrites();
    const claims = new BatchClaims();
    const results = calls.map((call, index): BatchResult => {
      if (abandoned(index)) return ABANDONED;
      const row = snapshot.sessions.get(call.command.request.sessionId);
      const callIds = idsOf(call);
      const round = call.kind === 'transact' ? call.command.request.round.id : undefined;
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
      changes.get(round.accountId)?.change.opened.push({
        uuid: round.uuid,
        id,
        player_id: round.playerId,
        game: round.game,
        finished: false,
        integration_id: round.integrationId,
      });
    }
    for (const { playerPk, change } of changes.values()) this.rows.memory.changed(playerPk, change);
    for (const transfer of writes.transfers) {
      if (outcome.stale.has(transfer.playerAccountId)) continue;
      this.rows.rememberAccount(transfer.debit);
      this.rows.rememberAccount(transfer.credit);
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
      sessionIds.add(call.command.request.sessionId);
      for (const id of idsOf(call)) ids.add(id);
      if (call.kind === 'transact') {
        roundIds.add(call.command.request.round.id);
        const campaign = call.command.request.campaign?.id;
        if (campaign !== undefined) campaignIds.add(campaign);
      }
    }
    const sessions = [...sessionIds];

    let written: Promise<WriteOutcome> | undefined;
    const held: Int8[] = [];
    try {
      const { results, writes } = await this.rows.sql.begin(async (dbTx) => {
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
          dbTx<SessionRow[]>`SELECT s.uuid, s.id AS session_pk, s.game, s.last_active_at, s.integration_id, p.*
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
            : dbTx<RoundRow[]>`SELECT r.uuid, r.id, (SELECT player_id FROM players WHERE id = r.player_pk) AS player_id, r.game, r.finished,
                r.integration_id FROM rounds r WHERE r.uuid = ANY(${pgArray([...roundIds])}::uuid[])`.execute(),
          campaignIds.size === 0
            ? []
            : dbTx<{ campaign_uuid: string; player_pk: Int8; integration_id: string }[]>`SELECT campaign_uuid, player_pk, integration_id FROM campaign_closures
                WHERE campaign_uuid = ANY(${pgArray([...campaignIds])}::uuid[])`.execute(),
        ]);
        const snapshot: BatchSnapshot = {
          sessions: new Map(sessionRows.map((row) => [row.uuid, row])),
          // A booked transfer wins over a refusal of the same id (only a conflicting reuse of an id could make both).
          seen: new Map([
            ...refusedRows.map((row): [string, SeenTransfer] => [row.uuid, refusedTransaction(row)]),
            ...seenRows.map((row): [string, SeenTransfer] => [row.uuid, seenTransfer(row)]),
          ]),
          rounds: new Map(roundRows.map((row) => [row.uuid, row])),
          closures: new Set(closureRows.map((row) => closureKey(row.campaign_uuid, row.player_pk, row.integration_id))),
        };

        // Read under the locks: true now, and true at each row's version for as long as no one writes it.
        for (const row of sessionRows) {
          this.rows.memory.learn(
            row,
            roundRows.filter((round) => round.player_id === row.player_id),
          );
          held.push(row.player_pk);
        }
        this.rows.memory.hold(held);
        const { results, writes } = this.planBatch(calls, abandoned, snapshot);
        // The writes go out without waiting for their answers: postgres.js sends
        // COMMIT when this function returns, right behind them, so writes and
        // commit share one round trip. PostgreSQL turns the COMMIT of a
        // transaction in which a statement failed into a ROLLBACK, and answers
        // in order, so by the time COMMIT has answered every write has too:
        // `written` then says whether the batch is in.
        written = this.rows.writeLocked(dbTx, writes);
        written.catch(() => {});
        return { results, writes };
      });
      this.remember(writes, await written!);
      return results;
    } finally {
      this.rows.memory.release(held);
    }
  }

  // eslint-disable-next-line max-lines-per-function -- one /transaction planned in one step against the batch's snapshot
  private planTransact(command: TransactionCommand, row: SessionRow | undefined, snapshot: BatchSnapshot, writes: BatchWrites): HotResult {
    const { request, now } = command;
    const integrationId = command.integrationId ?? ENV_INTEGRATION_ID;
    const player = row && this.rows.playerState(row);
    const seen = new Map<string, SeenTransfer>();
    for (const tx of request.transactions) {
      const found = snapshot.seen.get(tx.id);
      if (found) seen.set(tx.id, found);
    }
    const roundId = request.round.id;
    const roundRow = snapshot.rounds.get(roundId);
    const campaignId = request.campaign?.id;
    const plan = planTransaction(
      request,
      {
        session: row && this.sessionState(row),
        player,
        seen,
        round: roundRow && { playerId: roundRow.player_id, game: roundRow.game, finished: roundRow.finished, integrationId: roundRow.integration_id },
        campaignFinished: row !== undefined && campaignId !== undefined && snapshot.closures.has(closureKey(campaignId, row.player_pk, integrationId)),
        now,
        betsPaused: command.betsPaused === true,
        integrationId,
      },
      this.rows.rules,
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
          integrationId,
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
      if (plan.closeCampaign) {
        writes.closures.push({ campaign: plan.closeCampaign, playerPk: row.player_pk, integrationId, accountId: row.account_id, now });
      }
      if (plan.touchSession) {
        writes.touches.push({ sessionPk: row.session_pk, session: row.uuid, accountId: row.account_id, now });
      }
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  private planPayout(command: PayoutCommand, row: SessionRow | undefined, snapshot: BatchSnapshot, writes: BatchWrites): HotResult {
    const { request, now } = command;
    const player = row && this.rows.playerState(row);
    const plan = planPayout(request, {
      session: row && this.sessionState(row),
      player,
      seen: row && snapshot.seen.get(request.payoutId),
      integrationId: command.integrationId ?? ENV_INTEGRATION_ID,
    });
    if (!plan.ok) return plan;
    assert.ok(row && player);
    const booked: Booked[] = [];
    if (plan.apply) {
      writes.transfers.push({
        uuid: request.payoutId,
        kind: 'payout',
        playerPk: row.player_pk,
        playerAccountId: row.account_id,
        ...plan.legs,
        amount: plan.amount,
        jpAmount: 0n,
        freeBet: false,
        round: null,
        roundPk: null,
        campaign: request.campaign.id,
        regulatory: null,
        note: null,
        now,
      });
      writes.balances.push({ accountId: row.account_id, playerPk: row.player_pk, version: row.version, before: player.balance, after: plan.balanceAfter });
      booked.push(bookedOf('payout', plan.amount, player));
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  private sessionState(row: SessionRow): SessionState {
    return { sessionId: row.uuid, playerId: row.player_id, game: row.game, lastActiveAt: Number(row.last_active_at), integrationId: row.integration_id };
  }
}

interface BatchSnapshot {
  sessions: Map<string, SessionRow>;
  seen: Map<string, SeenTransfer>;
  rounds: Map<string, RoundRow>;
  /** closureKey of each campaign finished for a player. */
  closures: Set<string>;
}

/** A campaign finished for a player, by the integration whose campaign it is: the same id at two studios is two campaigns. */
function closureKey(campaign: string, playerPk: Int8, integrationId: string): string {
  return `${campaign}/${playerPk}/${integrationId}`;
}

/** The idempotency ids a call claims: its transaction ids, or its payout id. */
function idsOf(call: HotCall): string[] {
  return call.kind === 'transact' ? call.command.request.transactions.map((tx) => tx.id) : [call.command.request.payoutId];
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
