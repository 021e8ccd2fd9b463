/**
 * What every family of the PostgreSQL ledger's operations shares: the pool,
 * the rows a player's facts are read from, the one set-based statement that
 * writes a batch's plans (`write`), the operator accounts this node knows to
 * exist, and the wallet memory (wallet-memory.ts). The families
 * (ledger-transfers.ts, ledger-players.ts, ledger-reads.ts) each hold only
 * their own reads and plans; postgres-ledger.ts puts them together.
 */
import assert, { AssertionError } from 'node:assert/strict';
import type postgres from 'postgres';
import { accountKey, type AccountRef, type TransferKind } from '../../ledger/accounts.js';
import type { PlayerState, RulesConfig, SeenTransfer } from '../../ledger/rules.js';
import { playerStateOf, playerView, type StoredPlayer } from '../../ledger/views.js';
import type { ErrorCode } from '../../protocol/errors.js';
import type { Currencies } from '../../protocol/money.js';
import type { PlayerView } from '../store.js';
import { ClaimLostError } from '../../platform/postgres/errors.js';
import { WalletMemory, type PlayerRow } from './wallet-memory.js';

/**
 * Operator accounts (game, campaign, tournament, cash) a node remembers to
 * exist, so that a batch need not ask to create them. Accounts are never
 * deleted, so the fact never goes stale; 100,000 entries are a few MB.
 * (SQLite's ledger has a limit of the same name for its account ids.)
 */
const REMEMBERED_OPERATOR_ACCOUNTS_MAX = 100_000;

/** int8 and numeric arrive as decimal text (postgres.js keeps them exact). */
export type Int8 = string;

export type Sql = postgres.Sql | postgres.TransactionSql;

export const PLAYER_COLUMNS = 'p.id AS player_pk, p.player_id, p.currency, p.country, p.blocked, p.account_id, a.balance, a.version';

export interface SeenRow {
  uuid: string;
  kind: TransferKind;
  player_id: string;
  round_uuid: string | null;
  campaign_uuid: string | null;
  amount: Int8;
  jp_amount: Int8;
}

/** A transfer to insert; its accounts are named by their natural key and resolved by the insert. */
export interface TransferWrite {
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
export class BatchWrites {
  readonly newRounds: {
    uuid: string;
    playerPk: Int8;
    playerId: string;
    accountId: Int8;
    game: string;
    finished: boolean;
    now: number;
    integrationId: string;
  }[] = [];
  readonly closedRounds: { id: Int8; uuid: string; accountId: Int8; now: number }[] = [];
  readonly transfers: TransferWrite[] = [];
  /**
   * One per player written, even when its balance stays: the write adds one
   * to the wallet row's version, and is made only if the row still holds
   * `version` (wallet-memory.ts).
   */
  readonly balances: { accountId: Int8; playerPk: Int8; version: Int8; before: bigint; after: bigint }[] = [];
  readonly closures: { campaign: string; playerPk: Int8; integrationId: string; accountId: Int8; now: number }[] = [];
  /** Transactions of final refusals (§6.4), kept so that their ids answer the same refusal again. */
  readonly refusals: {
    uuid: string;
    playerPk: Int8;
    accountId: Int8;
    kind: 'bet' | 'win';
    playerId: string;
    round: string;
    amount: bigint;
    jpAmount: bigint;
    code: ErrorCode;
    detail: string;
    now: number;
  }[] = [];
  readonly touches: { sessionPk: Int8; session: string; accountId: Int8; now: number }[] = [];
}

/** What a batch's write statement answers besides success. */
export interface WriteOutcome {
  /** Wallet rows not at the version their plan read: nothing of their players was written. */
  stale: Set<Int8>;
  /** Ids of the rounds the batch created and left open, by uuid. */
  opened: Map<string, Int8>;
}

export class LedgerRows {
  readonly memory = new WalletMemory();
  private readonly knownAccounts = new Set<string>();

  constructor(
    readonly sql: postgres.Sql,
    readonly currencies: Currencies,
    readonly rules: RulesConfig,
  ) {}

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
  // eslint-disable-next-line max-lines-per-function -- a batch's writes, one statement per table in the order of the locks
  async write(dbTx: Sql, writes: BatchWrites, fromMemory: boolean): Promise<WriteOutcome> {
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
        INSERT INTO rounds (uuid, player_pk, game, finished, created_at, finished_at, integration_id)
        SELECT x.uuid, x.player_pk, x.game, x.finished, x.now, CASE WHEN x.finished THEN x.now END, x.integration_id
        FROM unnest(${pgArray(rounds.map((r) => r.uuid))}::uuid[], ${pgArray(rounds.map((r) => r.playerPk))}::bigint[],
          ${pgArray(rounds.map((r) => r.game))}::text[], ${pgArray(rounds.map((r) => String(r.finished)))}::boolean[],
          ${pgArray(rounds.map((r) => String(r.now)))}::bigint[], ${pgArray(rounds.map((r) => r.accountId))}::bigint[],
          ${pgArray(rounds.map((r) => r.integrationId))}::text[])
          AS x(uuid, player_pk, game, finished, now, account, integration_id)
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
        INSERT INTO campaign_closures (campaign_uuid, player_pk, integration_id, closed_at)
        SELECT x.campaign, x.player_pk, x.integration_id, x.now FROM unnest(${pgArray(closures.map((c) => c.campaign))}::uuid[],
          ${pgArray(closures.map((c) => c.playerPk))}::bigint[], ${pgArray(closures.map((c) => c.integrationId))}::text[],
          ${pgArray(closures.map((c) => String(c.now)))}::bigint[], ${pgArray(closures.map((c) => c.accountId))}::bigint[])
          AS x(campaign, player_pk, integration_id, now, account)
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
  async writeLocked(dbTx: postgres.TransactionSql, writes: BatchWrites): Promise<WriteOutcome> {
    const outcome = await this.write(dbTx, writes, false);
    assert.equal(outcome.stale.size, 0, 'a locked wallet row keeps its version');
    return outcome;
  }

  /** One transfer and its balance move, as the back office books them, on a wallet row locked by `dbTx`. */
  async writeSingle(
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
  unknownAccounts(transfers: TransferWrite[]): { ref: AccountRef; now: number }[] {
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

  rememberAccount(ref: AccountRef): void {
    if (ref.kind === 'player' || this.knownAccounts.size >= REMEMBERED_OPERATOR_ACCOUNTS_MAX) return;
    this.knownAccounts.add(accountKey(ref));
  }

  playerState(row: PlayerRow): PlayerState {
    return playerStateOf(storedPlayer(row), this.currencies);
  }

  view(row: PlayerRow): PlayerView {
    return playerView(storedPlayer(row), this.currencies);
  }

  async playerRow(sql: Sql, playerId: string, options: { lock?: boolean } = {}): Promise<PlayerRow | undefined> {
    const [row] = options.lock
      ? await sql<PlayerRow[]>`SELECT ${sql.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id
          WHERE p.player_id = ${playerId} FOR UPDATE OF a`
      : await sql<PlayerRow[]>`SELECT ${sql.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id
          WHERE p.player_id = ${playerId}`;
    return row;
  }
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

export function seenTransfer(row: SeenRow): SeenTransfer {
  return {
    kind: row.kind,
    playerId: row.player_id,
    roundId: row.round_uuid,
    campaignId: row.campaign_uuid,
    amount: BigInt(row.amount),
    jpAmount: BigInt(row.jp_amount),
  };
}

export function storedPlayer(row: PlayerRow): StoredPlayer {
  return { playerId: row.player_id, currency: row.currency, balance: BigInt(row.balance), blocked: row.blocked, country: row.country };
}
