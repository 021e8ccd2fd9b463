/**
 * What every family of the SQLite ledger's operations shares: the writer's
 * connection, the rows it reads a player's facts from, the statements that
 * book a transfer and move a wallet, the operator accounts' ids, the id
 * indexes (id-index.ts) and the wallet memory (wallet-memory.ts). The
 * families (ledger-transfers.ts, ledger-players.ts, ledger-reads.ts) each
 * hold only their own statements and plans; sqlite-ledger.ts puts them
 * together. Every method is synchronous and runs inside a database
 * transaction opened by its caller (the batch writer).
 */
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { accountKey, type AccountRef, type TransferKind } from '../../ledger/accounts.js';
import type { PlayerState, RulesConfig, SeenTransfer } from '../../ledger/rules.js';
import { playerStateOf, playerView, type StoredPlayer } from '../../ledger/views.js';
import type { Currencies } from '../../protocol/money.js';
import type { PlayerView } from '../store.js';
import { bytesToUuid, uuidToBytes } from '../uuid-bytes.js';
import { IdIndex } from './id-index.js';
import { WalletMemory, type PlayerRow } from './wallet-memory.js';

export const PLAYER_COLUMNS = `p.id AS player_pk, p.player_id, p.currency, p.country, p.blocked, p.account_id, a.balance,
  a.last_transfer_id, a.last_round_id`;

/*
 * The statements every bet runs return their rows as arrays (better-sqlite3's
 * raw mode), named by the functions below in the order of their SELECTs:
 * a row object built by the driver looks each column name up again for every
 * row, which cost more than the query itself.
 */

export function playerOf(v: unknown[], at: number): PlayerRow {
  return {
    player_pk: v[at] as bigint,
    player_id: v[at + 1] as string,
    currency: v[at + 2] as string,
    country: v[at + 3] as string | null,
    blocked: v[at + 4] as bigint,
    account_id: v[at + 5] as bigint,
    balance: v[at + 6] as bigint,
    last_transfer_id: v[at + 7] as bigint | null,
    last_round_id: v[at + 8] as bigint | null,
  };
}

export function storedPlayer(row: PlayerRow): StoredPlayer {
  return { playerId: row.player_id, currency: row.currency, balance: row.balance, blocked: row.blocked === 1n, country: row.country };
}

const SEEN = `SELECT t.kind, p.player_id, r.uuid, t.campaign_uuid, t.amount, t.jp_amount
  FROM transfers t JOIN players p ON p.id = t.player_pk LEFT JOIN rounds r ON r.id = t.round_pk WHERE t.id = ?`;
function seenOf(v: unknown[]): SeenTransfer {
  return {
    kind: v[0] as TransferKind,
    playerId: v[1] as string,
    roundId: v[2] === null ? null : bytesToUuid(v[2] as Buffer),
    campaignId: v[3] === null ? null : bytesToUuid(v[3] as Buffer),
    amount: v[4] as bigint,
    jpAmount: v[5] as bigint,
  };
}

/**
 * Operator account ids kept in memory (game, campaign, tournament, cash
 * accounts); a bound, not a tuning knob. (PostgreSQL's ledger has a limit of
 * the same name for the operator accounts it knows to exist.)
 */
const REMEMBERED_OPERATOR_ACCOUNTS_MAX = 10_000;

export class LedgerRows {
  readonly memory = new WalletMemory();
  readonly transferIds: IdIndex;
  readonly roundIds: IdIndex;
  private readonly accountIds = new Map<string, bigint>();
  private readonly statements;
  /** `PRAGMA data_version` when this connection last began writing. */
  private dataVersion: bigint | undefined;

  constructor(
    readonly db: Database.Database,
    readonly currencies: Currencies,
    readonly rules: RulesConfig,
  ) {
    const prepare = (sql: string) => db.prepare(sql);
    this.transferIds = new IdIndex(db, 'transfers');
    this.roundIds = new IdIndex(db, 'rounds');
    this.statements = {
      dataVersion: prepare('PRAGMA data_version').pluck(true),
      playerById: prepare(`SELECT ${PLAYER_COLUMNS} FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.player_id = ?`),
      seen: prepare(SEEN).raw(true),
      accountId: prepare('SELECT id FROM accounts WHERE kind = ? AND ref = ? AND currency = ?'),
      insertAccount: prepare('INSERT INTO accounts (kind, ref, currency, balance, created_at) VALUES (?, ?, ?, ?, ?)'),
      insertTransfer: prepare(`INSERT INTO transfers (uuid, kind, player_pk, debit_account_id, credit_account_id, amount,
        jp_amount, free_bet, round_pk, campaign_uuid, regulatory, note, created_at, prev_player_transfer_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      moveWallet: prepare(`UPDATE accounts SET balance = balance + ?, last_transfer_id = ?, last_round_id = ?
        WHERE id = ? RETURNING balance`).pluck(true),
      touchSession: prepare('UPDATE sessions SET last_active_at = ? WHERE id = ?'),
    };
  }

  // ------------------------------------------------------------ reading

  playerState(row: PlayerRow): PlayerState {
    return playerStateOf(storedPlayer(row), this.currencies);
  }

  view(row: PlayerRow): PlayerView {
    return playerView(storedPlayer(row), this.currencies);
  }

  /** The player row of a player id, read (the back office's calls; a bet's comes from memory where kept). */
  playerRow(playerId: string): PlayerRow | undefined {
    return this.statements.playerById.get(playerId) as PlayerRow | undefined;
  }

  /** The transfer booked under this id (canonical), if any. */
  seen(key: string): SeenTransfer | undefined {
    const rowId = this.transferIds.find(key, uuidToBytes(key));
    return rowId === undefined ? undefined : seenOf(this.statements.seen.get(rowId) as unknown[]);
  }

  // ------------------------------------------------------------ writing

  /** Inserts an account; returns its row id. */
  insertAccount(kind: string, ref: string, currency: string, balance: number | null, now: number): bigint {
    return BigInt(this.statements.insertAccount.run(kind, ref, currency, balance, now).lastInsertRowid);
  }

  /** Records activity on a session. */
  touchSession(sessionPk: bigint, now: number): void {
    this.statements.touchSession.run(now, sessionPk);
  }

  private accountId(ref: AccountRef, player: PlayerRow, now: number): bigint {
    if (ref.kind === 'player') {
      assert.equal(ref.ref, player.player_id);
      return player.account_id;
    }
    const key = accountKey(ref);
    const cached = this.accountIds.get(key);
    if (cached !== undefined) return cached;
    const found = this.statements.accountId.get(ref.kind, ref.ref, ref.currency) as { id: bigint } | undefined;
    const id = found ? found.id : this.insertAccount(ref.kind, ref.ref, ref.currency, null, now);
    if (this.accountIds.size >= REMEMBERED_OPERATOR_ACCOUNTS_MAX) this.accountIds.clear();
    this.accountIds.set(key, id);
    return id;
  }

  /** Inserts a transfer behind `prev` in the player's chain; returns its row id. */
  insertTransfer(
    player: PlayerRow,
    prev: bigint | null,
    id: string,
    kind: TransferKind,
    legs: { debit: AccountRef; credit: AccountRef },
    amount: bigint,
    now: number,
    extra: { jpAmount?: bigint; freeBet?: boolean; roundPk?: bigint; campaign?: Buffer | null; regulatory?: string | null; note?: string | null },
  ): bigint {
    const inserted = this.statements.insertTransfer.run(
      uuidToBytes(id),
      kind,
      player.player_pk,
      this.accountId(legs.debit, player, now),
      this.accountId(legs.credit, player, now),
      amount,
      extra.jpAmount ?? 0n,
      extra.freeBet ? 1 : 0,
      extra.roundPk ?? null,
      extra.campaign ?? null,
      extra.regulatory ?? null,
      extra.note ?? null,
      now,
      prev,
    );
    const rowId = BigInt(inserted.lastInsertRowid);
    this.transferIds.added(id, rowId);
    return rowId;
  }

  /**
   * Books one transfer that belongs to no round (a payout, a deposit, a
   * withdrawal): appends it to the player's transfer chain and moves the
   * wallet by `delta`; the round chain stays as it is.
   */
  bookAlone(
    player: PlayerRow,
    id: string,
    kind: TransferKind,
    legs: { debit: AccountRef; credit: AccountRef },
    amount: bigint,
    delta: bigint,
    expected: bigint,
    now: number,
    extra: { campaign?: Buffer; note?: string | null },
  ): void {
    const transferId = this.insertTransfer(player, player.last_transfer_id, id, kind, legs, amount, now, extra);
    this.moveWallet(player, delta, expected, transferId, player.last_round_id);
  }

  /**
   * Moves the wallet and the heads of the player's chains in one row write,
   * and reads the balance back: the planned balance and the stored one must
   * agree (the pair of asserts TigerStyle asks for: the plan's before the
   * write, the row's after it). The copy in memory follows through the
   * memory's own operation (wallet-memory.ts, `wrote`).
   */
  moveWallet(player: PlayerRow, delta: bigint, expected: bigint, lastTransferId: bigint, lastRoundId: bigint | null): void {
    const balance = this.statements.moveWallet.get(delta, lastTransferId, lastRoundId, player.account_id) as bigint;
    assert.equal(balance, expected, 'the stored balance must equal the planned one');
    this.memory.wrote(player, { balance, lastTransferId, lastRoundId });
  }

  // ------------------------------------------------------------ the writer's life

  /**
   * Called when a database transaction or a call is rolled back other than
   * by a refusal (refusals write nothing): an account created in it is gone,
   * and so must be its cached id; rows kept in memory may have moved ahead.
   */
  forgetCache(): void {
    this.accountIds.clear();
    this.forgetRows();
  }

  /** The rows kept in memory, and the recent ids, may no longer match the database. */
  private forgetRows(): void {
    this.memory.forgetAll();
    this.transferIds.forget();
    this.roundIds.forget();
  }

  /**
   * Called at the start of each write transaction: when another connection
   * has committed since this one last looked, rows kept in memory may be
   * stale. (Account ids stay right: accounts are never deleted.)
   */
  startWriting(): void {
    const version = this.statements.dataVersion.get() as bigint;
    if (version !== this.dataVersion) this.forgetRows();
    this.dataVersion = version;
  }

  /** Called once before the first batch: reads the id indexes, in one snapshot, before any request waits for them. */
  warm(): void {
    this.db.exec('BEGIN');
    try {
      this.transferIds.warm();
      this.roundIds.warm();
      // What was read is current until another connection commits (startWriting).
      this.dataVersion = this.statements.dataVersion.get() as bigint;
    } finally {
      this.db.exec('COMMIT');
    }
  }

  /** Called after a batch's calls and before its COMMIT: moves recent ids into the merged indexes when due. */
  beforeCommit(): void {
    this.transferIds.mergeDue();
    this.roundIds.mergeDue();
  }
}
