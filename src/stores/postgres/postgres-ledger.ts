/**
 * The PostgreSQL ledger. Every method is one database transaction under READ
 * COMMITTED; every write of a player first takes that player's wallet row
 * lock (SELECT ... FOR UPDATE), the one lock order of this store, and claims
 * ids through unique indexes (INSERT ... ON CONFLICT DO NOTHING).
 *
 * The hot path (/transaction and /payout) is ONE round trip: a PL/pgSQL
 * function (migrations.ts) locks, reads, decides, writes and returns the
 * snapshot it decided on. The alternative, reading a snapshot and writing
 * the plan of src/ledger in two round trips inside one database transaction,
 * keeps the rules in one language but costs BEGIN, the read, the write and
 * COMMIT: four round trips, with the player's row lock held across three of
 * them and the node's event loop in between. On a small database that is
 * most of the work of a bet. So the decision runs in the database, and the
 * rules stay authoritative here: every answer is re-planned from the
 * returned snapshot with planTransaction/planPayout, every refusal (code,
 * detail text, balance) is the one those functions build, and an answer on
 * which the two disagree is a bug that stops the process (assert), as a
 * broken invariant does in the SQLite writer. The contract suite proves on
 * every run that both backends answer byte for byte the same.
 *
 * The functions take amounts in minor units, which needs the player's
 * currency before the call. A player's currency never changes, so each node
 * remembers it; a node that has not seen the player yet calls once without
 * amounts (nothing is decided or locked), learns it, and calls again.
 *
 * Back-office calls are not hot: they read a snapshot under the lock, plan
 * with src/ledger and write, in a few round trips of one transaction.
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import { legsOf, type AccountRef, type TransferKind } from '../../ledger/accounts.js';
import {
  balanceText,
  canonicalUuid,
  planAdjustment,
  planAuthenticate,
  planPayout,
  planTransaction,
  type PlayerState,
  type RulesConfig,
  type SeenTransfer,
  type SessionState,
  type TransactionSnapshot,
} from '../../ledger/rules.js';
import { refuse, type ErrorCode, type Refusal } from '../../protocol/errors.js';
import { amountToMinor, decimalFromNumber, formatMinor, type Currencies } from '../../protocol/money.js';
import type { PayoutRequest, TransactionRequest } from '../../protocol/schemas.js';
import type { DecisionRow, GroupCommitter, HotCall } from './group-committer.js';
import { ClaimLostError } from './postgres-errors.js';
import type {
  AdjustCommand,
  AuthenticateCommand,
  BalanceOutcome,
  BlockCommand,
  CreatePlayerCommand,
  LaunchKeyCommand,
  LaunchKeyView,
  PageOf,
  PageRequest,
  PayoutCommand,
  PlayerView,
  RoundView,
  SessionOutcome,
  TransactionCommand,
  TransferView,
  VerifyReport,
} from '../store.js';

/**
 * Session activity is recorded at most this often per session (ms): expiry is
 * measured in minutes, and skipping the write saves a row update on most
 * bets. The same interval as the SQLite store.
 */
export const SESSION_TOUCH_INTERVAL_MS = 1_000;

/**
 * Players whose currency a node remembers. A miss costs one extra round trip
 * on that player's next call; 100,000 entries are a few MB.
 */
export const CURRENCY_CACHE_ENTRIES_MAX = 100_000;

/** Verify lists at most this many problems; the count says the rest. */
const VERIFY_PROBLEMS_MAX = 100;

/** Row keys are signed 64-bit integers: the first page starts below the largest. */
const CURSOR_START = 2n ** 63n - 1n;

/** int8 and numeric arrive as decimal text (postgres.js keeps them exact). */
type Int8 = string;

interface PlayerRow {
  player_pk: Int8;
  player_id: string;
  currency: string;
  country: string | null;
  blocked: boolean;
  account_id: Int8;
  balance: Int8;
}

const PLAYER_COLUMNS = 'p.id AS player_pk, p.player_id, p.currency, p.country, p.blocked, p.account_id, a.balance';

interface SeenRow {
  kind: TransferKind;
  player_id: string;
  round_uuid: string | null;
  campaign_uuid: string | null;
  amount: Int8;
  jp_amount: Int8;
}

/** Minor units of a request's amounts in one currency, as int8 text; undefined if any is not valid in it. */
interface Amounts {
  amounts: Int8[];
  jpAmounts: Int8[];
}

type Sql = postgres.Sql | postgres.TransactionSql;

export class PostgresLedger {
  private readonly currencyOf = new Map<string, string>();

  constructor(
    private readonly sql: postgres.Sql,
    private readonly committer: GroupCommitter,
    private readonly currencies: Currencies,
    private readonly rules: RulesConfig,
  ) {}

  // ------------------------------------------------------------ wallet calls

  async transact(command: TransactionCommand): Promise<BalanceOutcome | Refusal> {
    const { request, now } = command;
    const known = this.currencyOf.get(playerKey(request.playerId));
    const amounts = known === undefined ? undefined : this.transactionAmounts(request, known);
    let row = await this.committer.submit(transactCall(request, now, amounts === undefined ? null : known!, amounts));
    if (row.o_outcome === null && row.o_currency !== null) {
      // No decision: the amounts were not in the player's currency (or not valid in it).
      this.remember(playerKey(row.o_player_id!), row.o_currency);
      const converted = this.transactionAmounts(request, row.o_currency);
      if (converted !== undefined) row = await this.committer.submit(transactCall(request, now, row.o_currency, converted));
    }

    const snapshot = this.transactionSnapshot(request, now, row);
    const plan = planTransaction(request, snapshot, this.rules);
    if (row.o_outcome === 'OK') {
      assert.ok(plan.ok, `wl_transact applied what the rules refuse: ${plan.ok ? '' : plan.code}`);
      const player = snapshot.player!;
      assert.equal(plan.balanceAfter, BigInt(row.o_balance!), 'wl_transact and the rules must agree on the balance');
      assert.equal(plan.transfers.length, row.o_booked, 'wl_transact and the rules must agree on what is booked');
      return {
        ok: true,
        balance: formatMinor(plan.balanceAfter, player.decimals),
        currency: player.currency,
        booked: plan.transfers.map((t) => ({ kind: t.kind, amount: formatMinor(t.amount, player.decimals) })),
      };
    }
    return this.agreedRefusal('wl_transact', row.o_outcome, plan);
  }

  async payout(command: PayoutCommand): Promise<BalanceOutcome | Refusal> {
    const { request, now } = command;
    const known = this.currencyOf.get(sessionKey(request.sessionId));
    const amount = known === undefined ? undefined : this.payoutAmount(request, known);
    let row = await this.committer.submit(payoutCall(request, now, amount === undefined ? null : known!, amount));
    if (row.o_outcome === null && row.o_currency !== null) {
      this.remember(sessionKey(request.sessionId), row.o_currency);
      const converted = this.payoutAmount(request, row.o_currency);
      if (converted !== undefined) row = await this.committer.submit(payoutCall(request, now, row.o_currency, converted));
    }

    const player = this.playerOf(row);
    const seen = this.seenOf(row);
    assert.ok(seen.length <= 1, 'wl_payout reads one id');
    const plan = planPayout(request, { session: this.sessionOf(request.sessionId, row), player, seen: seen[0]?.[1] });
    if (row.o_outcome === 'OK') {
      assert.ok(plan.ok && player, `wl_payout applied what the rules refuse: ${plan.ok ? '' : plan.code}`);
      assert.equal(plan.balanceAfter, BigInt(row.o_balance!), 'wl_payout and the rules must agree on the balance');
      assert.equal(plan.apply ? 1 : 0, row.o_booked, 'wl_payout and the rules must agree on what is booked');
      return {
        ok: true,
        balance: formatMinor(plan.balanceAfter, player.decimals),
        currency: player.currency,
        booked: plan.apply ? [{ kind: 'payout', amount: formatMinor(plan.amount, player.decimals) }] : [],
      };
    }
    return this.agreedRefusal('wl_payout', row.o_outcome, plan);
  }

  async authenticate(command: AuthenticateCommand): Promise<SessionOutcome | Refusal> {
    return this.sql.begin(async (dbTx) => {
      const [owner] = await dbTx<{ account_id: Int8 }[]>`SELECT p.account_id FROM launch_keys k JOIN players p ON p.id = k.player_pk
        WHERE k.key = ${command.key}`;
      if (owner) await this.lockAccount(dbTx, owner.account_id);
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
        LEFT JOIN sessions s ON s.id = k.session_pk WHERE k.key = ${command.key}`;
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
        // A reload counts as activity (never moved back by a node whose clock is behind).
        assert.ok(row.session_pk !== null);
        await dbTx`UPDATE sessions SET last_active_at = ${command.now} WHERE id = ${row.session_pk} AND last_active_at < ${command.now}`;
        sessionId = plan.session.sessionId;
      } else {
        sessionId = canonicalUuid(command.newSessionId);
        const [session] = await dbTx<{ id: Int8 }[]>`INSERT INTO sessions (uuid, player_pk, game, created_at, last_active_at)
          VALUES (${sessionId}, ${row.player_pk}, ${command.game}, ${command.now}, ${command.now}) RETURNING id`;
        const bound = await dbTx`UPDATE launch_keys SET session_pk = ${session!.id} WHERE id = ${row.key_pk} AND session_pk IS NULL`;
        assert.equal(bound.count, 1, 'a launch key opens one session');
      }
      this.remember(playerKey(player.playerId), player.currency);
      this.remember(sessionKey(sessionId), player.currency);
      return {
        ok: true as const,
        sessionId,
        playerId: player.playerId,
        currency: player.currency,
        balance: balanceText(player),
        country: row.country ?? '',
      };
    });
  }

  // ------------------------------------------------------------- back office

  async createPlayer(command: CreatePlayerCommand): Promise<PlayerView | Refusal> {
    const decimals = this.currencies.decimals(command.currency);
    if (decimals === undefined) return refuse('INVALID_REQUEST', `currency: ${command.currency} is not a known currency`);
    const decimal = decimalFromNumber(command.balance);
    const opening = decimal === undefined ? undefined : amountToMinor(decimal, decimals);
    if (typeof opening !== 'bigint') {
      return refuse('INVALID_REQUEST', `balance: ${command.balance} is not a valid amount in ${command.currency} (${decimals} decimals)`);
    }
    const exists = refuse('PLAYER_EXISTS', `player ${command.playerId} exists`);
    try {
      return await this.sql.begin(async (dbTx) => {
        const [found] = await dbTx`SELECT 1 FROM players WHERE player_id = ${command.playerId}`;
        if (found) return exists;
        const [account] = await dbTx<{ id: Int8 }[]>`INSERT INTO accounts (kind, ref, currency, balance, created_at)
          VALUES ('player', ${command.playerId}, ${command.currency}, 0, ${command.now}) RETURNING id`;
        await dbTx`INSERT INTO players (player_id, account_id, currency, country, created_at)
          VALUES (${command.playerId}, ${account!.id}, ${command.currency}, ${command.country ?? null}, ${command.now})`;
        const row = await this.playerRow(dbTx, command.playerId);
        assert.ok(row, 'a player reads back in the transaction that created it');
        if (opening > 0n) {
          const legs = legsOf({ kind: 'deposit', playerId: command.playerId, currency: command.currency });
          await this.insertTransfer(dbTx, row, canonicalUuid(command.depositId), 'deposit', legs, opening, command.now, { note: 'opening balance' });
          await this.moveBalance(dbTx, row, opening, opening);
        }
        this.remember(playerKey(command.playerId), command.currency);
        return this.view((await this.playerRow(dbTx, command.playerId))!);
      });
    } catch (error) {
      // A concurrent creation of the same player won the unique index.
      if ((error as { code?: string }).code === '23505' && /players|accounts/.test((error as { table_name?: string }).table_name ?? '')) {
        return exists;
      }
      throw error;
    }
  }

  async getPlayer(playerId: string): Promise<PlayerView | Refusal> {
    const row = await this.playerRow(this.sql, playerId);
    return row ? this.view(row) : refuse('PLAYER_NOT_FOUND', `player ${playerId} is not known`);
  }

  async createLaunchKey(command: LaunchKeyCommand): Promise<LaunchKeyView | Refusal> {
    const expiresAt = command.now + this.rules.launchKeyTtlMs;
    const inserted = await this.sql`INSERT INTO launch_keys (key, player_pk, game, created_at, expires_at)
      SELECT ${command.key}, id, ${command.game}, ${command.now}, ${expiresAt} FROM players WHERE player_id = ${command.playerId}`;
    if (inserted.count === 0) return refuse('PLAYER_NOT_FOUND', `player ${command.playerId} is not known`);
    return { ok: true, key: command.key, expiresAt };
  }

  async adjust(command: AdjustCommand): Promise<BalanceOutcome | Refusal> {
    return this.sql.begin(async (dbTx) => {
      const row = await this.playerRow(dbTx, command.playerId, { lock: true });
      const player = row && this.playerState(row);
      const plan = planAdjustment(command, player, row && (await this.seen(dbTx, command.id)));
      if (!plan.ok) return plan;
      assert.ok(row && player);
      if (!plan.apply) return { ok: true as const, balance: formatMinor(plan.balanceAfter, player.decimals), currency: player.currency, booked: [] };
      const legs = legsOf({ kind: command.type, playerId: player.playerId, currency: player.currency });
      await this.insertTransfer(dbTx, row, canonicalUuid(command.id), command.type, legs, plan.amount, command.now, { note: command.reason ?? null });
      await this.moveBalance(dbTx, row, command.type === 'deposit' ? plan.amount : -plan.amount, plan.balanceAfter);
      return {
        ok: true as const,
        balance: formatMinor(plan.balanceAfter, player.decimals),
        currency: player.currency,
        booked: [{ kind: command.type, amount: formatMinor(plan.amount, player.decimals) }],
      };
    });
  }

  async setBlocked(command: BlockCommand): Promise<PlayerView | Refusal> {
    const [row] = await this.sql<PlayerRow[]>`UPDATE players p SET blocked = ${command.blocked},
        blocked_reason = ${command.blocked ? (command.reason ?? null) : null}
      FROM accounts a WHERE a.id = p.account_id AND p.player_id = ${command.playerId}
      RETURNING ${this.sql.unsafe(PLAYER_COLUMNS)}`;
    return row ? this.view(row) : refuse('PLAYER_NOT_FOUND', `player ${command.playerId} is not known`);
  }

  async listRounds(page: PageRequest): Promise<PageOf<RoundView> | Refusal> {
    const player = await this.playerRow(this.sql, page.playerId);
    if (!player) return refuse('PLAYER_NOT_FOUND', `player ${page.playerId} is not known`);
    const rows = await this.sql<
      { id: Int8; uuid: string; game: string; finished: boolean; created_at: Int8; finished_at: Int8 | null }[]
    >`SELECT id, uuid, game, finished, created_at, finished_at FROM rounds
      WHERE player_pk = ${player.player_pk} AND id < ${String(page.before ?? CURSOR_START)} ORDER BY id DESC LIMIT ${page.limit + 1}`;
    const items = rows.slice(0, page.limit).map((r) => ({
      roundId: r.uuid,
      game: r.game,
      finished: r.finished,
      createdAt: Number(r.created_at),
      finishedAt: r.finished_at === null ? null : Number(r.finished_at),
    }));
    return { ok: true, items, next: rows.length > page.limit ? BigInt(rows[page.limit - 1]!.id) : null };
  }

  async listTransfers(page: PageRequest): Promise<PageOf<TransferView> | Refusal> {
    const player = await this.playerRow(this.sql, page.playerId);
    if (!player) return refuse('PLAYER_NOT_FOUND', `player ${page.playerId} is not known`);
    const decimals = this.decimalsOf(player.currency);
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
    const items = rows.slice(0, page.limit).map((r) => ({
      id: r.uuid,
      kind: r.kind,
      amount: formatMinor(BigInt(r.amount), decimals),
      jpAmount: formatMinor(BigInt(r.jp_amount), decimals),
      freeBet: r.free_bet,
      roundId: r.round_uuid,
      game: r.game,
      campaignId: r.campaign_uuid,
      regulatory: r.regulatory,
      createdAt: Number(r.created_at),
    }));
    return { ok: true, items, next: rows.length > page.limit ? BigInt(rows[page.limit - 1]!.id) : null };
  }

  /**
   * Proves the books, with the checks of the SQLite store, on one snapshot
   * (REPEATABLE READ) while the wallet keeps running.
   */
  async verify(): Promise<VerifyReport> {
    return this.sql.begin('isolation level repeatable read read only', async (dbTx) => {
      // Summing a large ledger takes longer than any request may.
      await dbTx`SET LOCAL statement_timeout = 0`;
      const problems: string[] = [];
      let problemCount = 0;
      const report = (problem: string) => {
        problemCount++;
        if (problems.length < VERIFY_PROBLEMS_MAX) problems.push(problem);
      };
      const count = async (query: string) => Number((await dbTx.unsafe<{ n: Int8 }[]>(query))[0]!.n);
      const transfers = await count('SELECT COUNT(*) AS n FROM transfers');
      const malformed = await count(
        'SELECT COUNT(*) AS n FROM transfers WHERE amount < 0 OR jp_amount < 0 OR jp_amount > amount OR debit_account_id = credit_account_id',
      );
      if (malformed > 0) report(`${malformed} transfers are malformed (negative, jpAmount over amount, or one account on both sides)`);
      const crossCurrency = await count(`SELECT COUNT(*) AS n FROM transfers t
        JOIN accounts d ON d.id = t.debit_account_id JOIN accounts c ON c.id = t.credit_account_id WHERE d.currency <> c.currency`);
      if (crossCurrency > 0) report(`${crossCurrency} transfers move money between currencies`);
      const dangling = await count(`SELECT COUNT(*) AS n FROM transfers t WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.debit_account_id)
        OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.credit_account_id)`);
      if (dangling > 0) report(`${dangling} transfers name an account that does not exist`);

      const accounts = await dbTx<{ kind: string; ref: string; currency: string; balance: Int8 | null; derived: string }[]>`
        WITH flows AS (
          SELECT credit_account_id AS account_id, SUM(amount) AS amount FROM transfers GROUP BY credit_account_id
          UNION ALL
          SELECT debit_account_id, -SUM(amount) FROM transfers GROUP BY debit_account_id),
        derived AS (SELECT account_id, SUM(amount) AS amount FROM flows GROUP BY account_id)
        SELECT a.kind, a.ref, a.currency, a.balance, COALESCE(d.amount, 0)::text AS derived
        FROM accounts a LEFT JOIN derived d ON d.account_id = a.id`;
      const perCurrency = new Map<string, bigint>();
      for (const account of accounts) {
        const derived = BigInt(account.derived);
        perCurrency.set(account.currency, (perCurrency.get(account.currency) ?? 0n) + derived);
        if (account.kind === 'player') {
          if (account.balance === null) report(`player account ${account.ref} keeps no balance`);
          else if (BigInt(account.balance) !== derived) {
            report(`player ${account.ref}: balance ${account.balance} but postings sum to ${derived} (${account.currency} minor units)`);
          }
          if (derived < 0n) report(`player ${account.ref}: postings sum to a negative balance ${derived}`);
        } else if (account.balance !== null) {
          report(`${account.kind} account ${account.ref} keeps a balance; only player wallets do`);
        }
      }
      for (const [currency, sum] of perCurrency) {
        if (sum !== 0n) report(`${currency}: accounts sum to ${sum}, not 0`);
      }
      if (problemCount > problems.length) problems.push(`... and ${problemCount - problems.length} more`);
      return { ok: problemCount === 0, transfers, accounts: accounts.length, problems };
    });
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }

  // ------------------------------------------------------------- hot path

  /** A request's amounts in minor units of `currency`, or undefined if one is not valid there (the rules then say why). */
  private transactionAmounts(request: TransactionRequest, currency: string): Amounts | undefined {
    const decimals = this.decimalsOf(currency);
    const result: Amounts = { amounts: [], jpAmounts: [] };
    for (const tx of request.transactions) {
      const amount = minorIn(tx.amount, decimals);
      const jpAmount = tx.jpAmount === undefined ? 0n : minorIn(tx.jpAmount, decimals);
      if (amount === undefined || jpAmount === undefined || jpAmount > amount) return undefined;
      result.amounts.push(amount.toString());
      result.jpAmounts.push(jpAmount.toString());
    }
    return result;
  }

  /** A payout's amount in minor units, or undefined if it is not valid (or zero) there. */
  private payoutAmount(request: PayoutRequest, currency: string): Int8 | undefined {
    const amount = minorIn(request.amount, this.decimalsOf(currency));
    return amount === undefined || amount === 0n ? undefined : amount.toString();
  }

  private transactionSnapshot(request: TransactionRequest, now: number, row: DecisionRow): TransactionSnapshot {
    const seen = new Map<string, SeenTransfer>();
    for (const [index, transfer] of this.seenOf(row)) {
      const tx = request.transactions[index];
      assert.ok(tx, 'wl_transact answers for the ids of the request');
      seen.set(canonicalUuid(tx.id), transfer);
    }
    return {
      session: this.sessionOf(request.sessionId, row),
      player: this.playerOf(row),
      seen,
      round:
        row.o_round_player_id === null
          ? undefined
          : { playerId: row.o_round_player_id, game: row.o_round_game!, finished: row.o_round_finished! },
      campaignFinished: row.o_campaign_finished ?? false,
      now,
    };
  }

  /** The ids seen before, by 0-based index in the request. */
  private seenOf(row: DecisionRow): [number, SeenTransfer][] {
    return (row.o_seen ?? []).map(([index, kind, playerId, roundId, campaignId, amount, jpAmount]) => [
      index - 1,
      { kind: kind as TransferKind, playerId, roundId, campaignId, amount: BigInt(amount), jpAmount: BigInt(jpAmount) },
    ]);
  }

  private sessionOf(sessionId: string, row: DecisionRow): SessionState | undefined {
    if (row.o_player_id === null) return undefined;
    return { sessionId: canonicalUuid(sessionId), playerId: row.o_player_id, game: row.o_session_game!, lastActiveAt: Number(row.o_last_active_at) };
  }

  private playerOf(row: DecisionRow): PlayerState | undefined {
    if (row.o_player_id === null) return undefined;
    const currency = row.o_currency!;
    return { playerId: row.o_player_id, currency, decimals: this.decimalsOf(currency), balance: BigInt(row.o_balance_before!), blocked: row.o_blocked! };
  }

  /** The database refused (or could not decide): the rules must refuse too, with the same code; their refusal is the answer. */
  private agreedRefusal<T>(fn: string, outcome: string | null, plan: T | Refusal): Refusal {
    const refusal = plan as Refusal;
    assert.ok(refusal.ok === false, `${fn} refused (${outcome ?? 'no decision'}) what the rules accept`);
    if (outcome !== null) assert.equal(refusal.code, outcome as ErrorCode, `${fn} and the rules must refuse with the same code`);
    return refusal;
  }

  // ---------------------------------------------------------------- helpers

  /** Remembers an immutable fact: the currency of a player, or of a session's player. */
  private remember(key: string, currency: string): void {
    if (this.currencyOf.get(key) === currency) return;
    if (this.currencyOf.size >= CURRENCY_CACHE_ENTRIES_MAX) this.currencyOf.delete(this.currencyOf.keys().next().value!);
    this.currencyOf.set(key, currency);
  }

  private decimalsOf(currency: string): number {
    const decimals = this.currencies.decimals(currency);
    assert.ok(decimals !== undefined, `currency ${currency} of a stored player must stay configured`);
    return decimals;
  }

  private playerState(row: PlayerRow): PlayerState {
    return { playerId: row.player_id, currency: row.currency, decimals: this.decimalsOf(row.currency), balance: BigInt(row.balance), blocked: row.blocked };
  }

  private view(row: PlayerRow): PlayerView {
    return {
      ok: true,
      playerId: row.player_id,
      currency: row.currency,
      balance: formatMinor(BigInt(row.balance), this.decimalsOf(row.currency)),
      blocked: row.blocked,
      country: row.country,
    };
  }

  private async playerRow(sql: Sql, playerId: string, options: { lock?: boolean } = {}): Promise<PlayerRow | undefined> {
    const [row] = options.lock
      ? await sql<PlayerRow[]>`SELECT ${sql.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id
          WHERE p.player_id = ${playerId} FOR UPDATE OF a`
      : await sql<PlayerRow[]>`SELECT ${sql.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id
          WHERE p.player_id = ${playerId}`;
    return row;
  }

  private async lockAccount(dbTx: postgres.TransactionSql, accountId: Int8): Promise<void> {
    await dbTx`SELECT 1 FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  }

  private async seen(sql: Sql, id: string): Promise<SeenTransfer | undefined> {
    const [row] = await sql<SeenRow[]>`SELECT t.kind, p.player_id, r.uuid AS round_uuid, t.campaign_uuid, t.amount, t.jp_amount
      FROM transfers t JOIN players p ON p.id = t.player_pk LEFT JOIN rounds r ON r.id = t.round_pk WHERE t.uuid = ${id}::uuid`;
    if (!row) return undefined;
    return {
      kind: row.kind,
      playerId: row.player_id,
      roundId: row.round_uuid,
      campaignId: row.campaign_uuid,
      amount: BigInt(row.amount),
      jpAmount: BigInt(row.jp_amount),
    };
  }

  private async accountId(sql: Sql, ref: AccountRef, player: PlayerRow, now: number): Promise<Int8> {
    if (ref.kind === 'player') {
      assert.equal(ref.ref, player.player_id);
      return player.account_id;
    }
    const [row] = await sql<{ id: Int8 }[]>`SELECT wl_account_id(${ref.kind}, ${ref.ref}, ${ref.currency}, ${now}::bigint) AS id`;
    return row!.id;
  }

  private async insertTransfer(
    sql: Sql,
    player: PlayerRow,
    id: string,
    kind: TransferKind,
    legs: { debit: AccountRef; credit: AccountRef },
    amount: bigint,
    now: number,
    extra: { note?: string | null },
  ): Promise<void> {
    const debit = await this.accountId(sql, legs.debit, player, now);
    const credit = await this.accountId(sql, legs.credit, player, now);
    const inserted = await sql`INSERT INTO transfers (uuid, kind, player_pk, debit_account_id, credit_account_id, amount, note, created_at)
      VALUES (${id}::uuid, ${kind}, ${player.player_pk}, ${debit}, ${credit}, ${amount.toString()}::bigint, ${extra.note ?? null}, ${now})
      ON CONFLICT (uuid) DO NOTHING`;
    if (inserted.count === 0) throw new ClaimLostError(`${kind} ${id} was claimed by a concurrent call`);
  }

  /** Moves the wallet and reads it back: the planned balance and the stored one must agree. */
  private async moveBalance(sql: Sql, player: PlayerRow, delta: bigint, expected: bigint): Promise<void> {
    if (delta === 0n) return;
    const [after] = await sql<{ balance: Int8 }[]>`UPDATE accounts SET balance = balance + ${delta.toString()}::bigint
      WHERE id = ${player.account_id} RETURNING balance`;
    assert.equal(BigInt(after!.balance), expected, 'the stored balance must equal the planned one');
  }
}

/** A /transaction call as wl_batch takes it; without a currency it only reads (see wl_transact). */
function transactCall(request: TransactionRequest, now: number, currency: string | null, amounts: Amounts | undefined): HotCall {
  const campaign = request.campaign;
  const freeBets = campaign?.type === 'freeBets';
  return {
    k: 't',
    session: request.sessionId,
    player: request.playerId,
    game: request.game,
    round: request.round.id,
    roundFinished: request.round.finished,
    campaign: campaign?.id ?? null,
    freeBets,
    closeCampaign: freeBets && campaign?.finished === true && campaign.id !== undefined,
    regulatory: request.regulatory ?? null,
    ids: request.transactions.map((tx) => tx.id),
    kinds: request.transactions.map((tx) => tx.type),
    amounts: amounts?.amounts ?? [],
    jpAmounts: amounts?.jpAmounts ?? [],
    currency,
    now: String(now),
  };
}

/** A /payout call as wl_batch takes it. */
function payoutCall(request: PayoutRequest, now: number, currency: string | null, amount: Int8 | undefined): HotCall {
  return {
    k: 'p',
    session: request.sessionId,
    payout: request.payoutId,
    amount: amount ?? null,
    campaign: request.campaign.id,
    currency,
    now: String(now),
  };
}

/** Keys of the currency cache: /transaction names the player, /payout only the session. */
function playerKey(playerId: string): string {
  return `p:${playerId}`;
}
function sessionKey(sessionId: string): string {
  return `s:${canonicalUuid(sessionId)}`;
}

/** Minor units of a wire amount in a currency, or undefined if it cannot be booked there. */
function minorIn(value: number, decimals: number): bigint | undefined {
  const decimal = decimalFromNumber(value);
  const minor = decimal === undefined ? undefined : amountToMinor(decimal, decimals);
  return typeof minor === 'bigint' ? minor : undefined;
}
