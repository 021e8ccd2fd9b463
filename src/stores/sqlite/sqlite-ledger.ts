/**
 * The SQLite ledger: each operation reads a snapshot, asks the pure rules in
 * src/ledger for a plan, and writes it. Every method is synchronous and runs
 * inside a database transaction opened by its caller (the batch writer),
 * so no other request can interleave between the read and the write. A
 * bet's snapshot comes from the writer's memory where it can (wallet-memory.ts),
 * and its ids are looked up in the id indexes (id-index.ts), which mostly
 * answer from memory too.
 */
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
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
import { bytesToUuid, uuidToBytes } from '../uuid-bytes.js';
import { WalletMemory, type PlayerRow, type RoundRow, type SessionAt } from './wallet-memory.js';
import { IdIndex } from './id-index.js';
import { verifyLedger } from './verify-ledger.js';

const PLAYER_COLUMNS = `p.id AS player_pk, p.player_id, p.currency, p.country, p.blocked, p.account_id, a.balance,
  a.last_transfer_id, a.last_round_id`;

/*
 * The statements every bet runs return their rows as arrays (better-sqlite3's
 * raw mode), named by the functions below in the order of their SELECTs:
 * a row object built by the driver looks each column name up again for every
 * row, which cost more than the query itself.
 */

function playerOf(v: unknown[], at: number): PlayerRow {
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

function storedPlayer(row: PlayerRow): StoredPlayer {
  return { playerId: row.player_id, currency: row.currency, balance: row.balance, blocked: row.blocked === 1n, country: row.country };
}

const SESSION_WITH_PLAYER = `SELECT s.id, s.game, s.last_active_at, ${PLAYER_COLUMNS}
  FROM sessions s JOIN players p ON p.id = s.player_pk JOIN accounts a ON a.id = p.account_id WHERE s.uuid = ?`;
function sessionOf(v: unknown[]): SessionAt {
  return { session: { session_pk: v[0] as bigint, game: v[1] as string, last_active_at: v[2] as bigint }, player: playerOf(v, 3) };
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

const REFUSED = `SELECT kind, player_id, round_uuid, amount, jp_amount, code, detail FROM refused_transactions WHERE uuid = ?`;
function refusedOf(v: unknown[]): SeenTransfer {
  return {
    kind: v[0] as TransferKind,
    playerId: v[1] as string,
    roundId: bytesToUuid(v[2] as Buffer),
    campaignId: null,
    amount: v[3] as bigint,
    jpAmount: v[4] as bigint,
    refused: { code: v[5] as ErrorCode, detail: v[6] as string },
  };
}

/**
 * The GGR report's sums over a span of creation times [from, to): the range reads the transfers_by_time
 * index (migration 5); exported so that a test can ask SQLite for its plan.
 */
export const GGR = `SELECT t.created_at / ${DAY_MS} AS day, r.game, p.currency,
    sum(CASE WHEN t.kind = 'bet' AND t.free_bet = 0 THEN t.amount ELSE 0 END) AS bets,
    sum(CASE WHEN t.kind = 'bet' AND t.free_bet <> 0 THEN t.amount ELSE 0 END) AS free_bets,
    sum(CASE WHEN t.kind = 'win' THEN t.amount ELSE 0 END) AS wins,
    count(DISTINCT t.round_pk) AS rounds
  FROM transfers t JOIN rounds r ON r.id = t.round_pk JOIN players p ON p.id = t.player_pk
  WHERE t.kind IN ('bet', 'win') AND t.created_at >= ? AND t.created_at < ?
  GROUP BY day, r.game, p.currency`;

const ROUND = `SELECT r.id, p.player_id, r.game, r.finished FROM rounds r JOIN players p ON p.id = r.player_pk WHERE r.id = ?`;
function roundOf(v: unknown[]): RoundRow {
  return { id: v[0] as bigint, player_id: v[1] as string, game: v[2] as string, finished: v[3] === 1n };
}

/**
 * Operator account ids kept in memory (game, campaign, tournament, cash
 * accounts); a bound, not a tuning knob. (PostgreSQL's ledger has a limit of
 * the same name for the operator accounts it knows to exist.)
 */
export const REMEMBERED_OPERATOR_ACCOUNTS_MAX = 10_000;

export class SqliteLedger {
  private readonly statements;
  private readonly accountIds = new Map<string, bigint>();
  private readonly memory = new WalletMemory();
  private readonly transferIds: IdIndex;
  private readonly roundIds: IdIndex;
  /** `PRAGMA data_version` when this connection last began writing. */
  private dataVersion: bigint | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly currencies: Currencies,
    private readonly rules: RulesConfig,
  ) {
    const prepare = (sql: string) => db.prepare(sql);
    this.transferIds = new IdIndex(db, 'transfers');
    this.roundIds = new IdIndex(db, 'rounds');
    this.statements = {
      dataVersion: prepare('PRAGMA data_version').pluck(true),
      sessionWithPlayer: prepare(SESSION_WITH_PLAYER).raw(true),
      playerById: prepare(`SELECT ${PLAYER_COLUMNS} FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.player_id = ?`),
      // Each filter is off when its parameter is null. The prefix also bounds the range from below,
      // so that the unique index on player_id starts there instead of at the first id.
      players: prepare(`SELECT ${PLAYER_COLUMNS} FROM players p JOIN accounts a ON a.id = p.account_id
        WHERE p.player_id > @after AND (@prefix IS NULL OR (p.player_id >= @prefix AND substr(p.player_id, 1, length(@prefix)) = @prefix))
          AND (@currency IS NULL OR p.currency = @currency) AND (@blocked IS NULL OR p.blocked = @blocked)
        ORDER BY p.player_id LIMIT @limit`),
      ggr: prepare(GGR),
      seen: prepare(SEEN).raw(true),
      refused: prepare(REFUSED).raw(true),
      insertRefused: prepare(`INSERT INTO refused_transactions (uuid, player_pk, kind, player_id, round_uuid, amount, jp_amount, code,
        detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      round: prepare(ROUND).raw(true),
      campaignClosed: prepare('SELECT 1 FROM campaign_closures WHERE campaign_uuid = ? AND player_pk = ?').pluck(true),
      closeCampaign: prepare('INSERT OR IGNORE INTO campaign_closures (campaign_uuid, player_pk, closed_at) VALUES (?, ?, ?)'),
      accountId: prepare('SELECT id FROM accounts WHERE kind = ? AND ref = ? AND currency = ?'),
      insertAccount: prepare('INSERT INTO accounts (kind, ref, currency, balance, created_at) VALUES (?, ?, ?, ?, ?)'),
      insertPlayer: prepare('INSERT INTO players (player_id, account_id, currency, country, created_at) VALUES (?, ?, ?, ?, ?)'),
      insertRound: prepare(`INSERT INTO rounds (uuid, player_pk, game, finished, created_at, finished_at, prev_player_round_id)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      closeRound: prepare('UPDATE rounds SET finished = 1, finished_at = ? WHERE id = ? AND finished = 0'),
      insertTransfer: prepare(`INSERT INTO transfers (uuid, kind, player_pk, debit_account_id, credit_account_id, amount,
        jp_amount, free_bet, round_pk, campaign_uuid, regulatory, note, created_at, prev_player_transfer_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      moveWallet: prepare(`UPDATE accounts SET balance = balance + ?, last_transfer_id = ?, last_round_id = ?
        WHERE id = ? RETURNING balance`).pluck(true),
      touchSession: prepare('UPDATE sessions SET last_active_at = ? WHERE id = ?'),
      launchKey: prepare(`SELECT k.id AS key_pk, k.game AS key_game, k.expires_at, s.uuid AS session_uuid, s.id AS session_pk,
        s.game AS session_game, s.last_active_at, ${PLAYER_COLUMNS}
        FROM launch_keys k JOIN players p ON p.id = k.player_pk JOIN accounts a ON a.id = p.account_id
        LEFT JOIN sessions s ON s.id = k.session_pk WHERE k.key_hash = ?`),
      insertLaunchKey: prepare('INSERT INTO launch_keys (key_hash, player_pk, game, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
      insertSession: prepare('INSERT INTO sessions (uuid, player_pk, game, created_at, last_active_at) VALUES (?, ?, ?, ?, ?)'),
      bindKey: prepare('UPDATE launch_keys SET session_pk = ? WHERE id = ? AND session_pk IS NULL'),
      setBlocked: prepare('UPDATE players SET blocked = ?, blocked_reason = ? WHERE player_id = ? RETURNING id').pluck(true),
      roundAt: prepare(`SELECT id, uuid, game, finished, created_at, finished_at, player_pk, prev_player_round_id AS prev
        FROM rounds WHERE id = ?`),
      transferAt: prepare(`SELECT t.id, t.uuid, t.kind, t.amount, t.jp_amount, t.free_bet, r.uuid AS round_uuid, r.game,
        t.campaign_uuid, t.regulatory, t.created_at, t.player_pk, t.prev_player_transfer_id AS prev
        FROM transfers t LEFT JOIN rounds r ON r.id = t.round_pk WHERE t.id = ?`),
    };
  }

  // ------------------------------------------------------------ wallet calls

  /**
   * A bet or win: the session and its player come from memory where kept,
   * the round too while it is open, and the transaction ids from the id
   * indexes (which hold recent ids in memory); only what they name is read.
   */
  transact(command: TransactionCommand): BalanceOutcome | Refusal {
    const { request } = command;
    const at = this.sessionAt(request.sessionId);
    const roundKey = canonicalUuid(request.round.id);
    const roundBytes = uuidToBytes(roundKey);
    const seen = new Map<string, SeenTransfer>();
    let round: RoundRow | undefined;
    if (at) {
      for (const tx of request.transactions) {
        const key = canonicalUuid(tx.id);
        const found = this.seen(key) ?? this.refused(key);
        if (found) seen.set(key, found);
      }
      round = this.memory.openRound(roundKey) ?? this.roundRow(roundKey, roundBytes);
    }
    return this.bookTransaction(command, at, seen, round, roundKey, roundBytes);
  }

  private bookTransaction(
    command: TransactionCommand,
    at: SessionAt | undefined,
    seen: ReadonlyMap<string, SeenTransfer>,
    round: RoundRow | undefined,
    roundKey: string,
    roundBytes: Buffer,
  ): BalanceOutcome | Refusal {
    const { request, now } = command;
    const row = at?.player;
    const player = row && this.playerState(row);
    const campaignId = request.campaign?.id;
    const campaignFinished =
      row !== undefined && campaignId !== undefined && this.statements.campaignClosed.get(uuidToBytes(campaignId), row.player_pk) !== undefined;

    const plan = planTransaction(
      request,
      {
        session: at && this.sessionState(at, request.sessionId),
        player,
        seen,
        round: round && { playerId: round.player_id, game: round.game, finished: round.finished },
        campaignFinished,
        now,
      },
      this.rules,
    );
    if (!plan.ok) {
      // A final refusal is kept, in this call's savepoint, so that its ids are answered it again (§6.4).
      assert.ok(plan.remember.length === 0 || row);
      for (const refused of plan.remember) {
        this.statements.insertRefused.run(
          uuidToBytes(refused.id),
          row!.player_pk,
          refused.kind,
          refused.playerId,
          uuidToBytes(refused.roundId),
          refused.amount,
          refused.jpAmount,
          refused.code,
          refused.detail,
          now,
        );
      }
      return withoutRemember(plan);
    }
    assert.ok(at && row && player);
    const booked: Booked[] = [];
    if (plan.transfers.length > 0) {
      let roundPk: bigint;
      let lastRoundId = row.last_round_id;
      if (plan.createRound) {
        const finished = plan.closeRound ? 1 : 0;
        roundPk = BigInt(
          this.statements.insertRound.run(
            roundBytes,
            row.player_pk,
            request.game,
            finished,
            now,
            plan.closeRound ? now : null,
            row.last_round_id,
          ).lastInsertRowid,
        );
        this.roundIds.added(roundKey, roundPk);
        lastRoundId = roundPk;
      } else {
        assert.ok(round);
        roundPk = round.id;
        if (plan.closeRound) this.statements.closeRound.run(now, roundPk);
      }
      const campaignBytes = campaignId === undefined ? null : uuidToBytes(campaignId);
      let lastTransferId = row.last_transfer_id;
      for (const transfer of plan.transfers) {
        lastTransferId = this.insertTransfer(row, lastTransferId, transfer.id, transfer.kind, transfer.legs, transfer.amount, now, {
          jpAmount: transfer.jpAmount,
          freeBet: transfer.freeBet,
          roundPk,
          campaign: campaignBytes,
          regulatory: request.regulatory ?? null,
        });
        booked.push(bookedOf(transfer.kind, transfer.amount, player));
      }
      assert.ok(lastTransferId !== null);
      this.moveWallet(row, plan.balanceAfter - plan.balanceBefore, plan.balanceAfter, lastTransferId, lastRoundId);
      if (plan.closeCampaign) this.statements.closeCampaign.run(uuidToBytes(plan.closeCampaign), row.player_pk, now);
      if (plan.touchSession) {
        this.statements.touchSession.run(now, at.session.session_pk);
        at.session.last_active_at = BigInt(now);
      }
      if (plan.closeRound) this.memory.forgetRound(roundKey);
      else this.memory.keepOpenRound(roundKey, { id: roundPk, player_id: row.player_id, game: request.game, finished: false });
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  payout(command: PayoutCommand): BalanceOutcome | Refusal {
    const { request, now } = command;
    const at = this.sessionAt(request.sessionId);
    const player = at && this.playerState(at.player);
    const plan = planPayout(request, {
      session: at && this.sessionState(at, request.sessionId),
      player,
      seen: at && this.seen(canonicalUuid(request.payoutId)),
    });
    if (!plan.ok) return plan;
    assert.ok(at && player);
    const booked: Booked[] = [];
    if (plan.apply) {
      const campaignId = canonicalUuid(request.campaign.id);
      const legs = legsOf({ kind: 'payout', playerId: player.playerId, currency: player.currency, campaignId });
      this.bookAlone(at.player, canonicalUuid(request.payoutId), 'payout', legs, plan.amount, plan.amount, plan.balanceAfter, now, {
        campaign: uuidToBytes(campaignId),
      });
      booked.push(bookedOf('payout', plan.amount, player));
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  authenticate(command: AuthenticateCommand): SessionOutcome | Refusal {
    // Keys are kept as digests (launchKeyDigest): the key is found by its own.
    const row = this.statements.launchKey.get(launchKeyDigest(command.key)) as
      | (PlayerRow & {
          key_pk: bigint;
          key_game: string;
          expires_at: bigint;
          session_uuid: Buffer | null;
          session_pk: bigint | null;
          session_game: string | null;
          last_active_at: bigint | null;
        })
      | undefined;
    const player = row && this.playerState(row);
    const existing: SessionState | undefined =
      row && row.session_uuid && row.session_game !== null && row.last_active_at !== null
        ? { sessionId: bytesToUuid(row.session_uuid), playerId: row.player_id, game: row.session_game, lastActiveAt: Number(row.last_active_at) }
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
      // A reload counts as activity.
      assert.ok(row.session_pk !== null);
      if (plan.touch) this.statements.touchSession.run(command.now, row.session_pk);
      sessionId = plan.session.sessionId;
      this.memory.forgetSession(sessionId);
    } else {
      sessionId = canonicalUuid(command.newSessionId);
      const sessionPk = this.statements.insertSession.run(uuidToBytes(sessionId), row.player_pk, command.game, command.now, command.now)
        .lastInsertRowid;
      const bound = this.statements.bindKey.run(sessionPk, row.key_pk);
      assert.equal(bound.changes, 1, 'a launch key opens one session');
    }
    return sessionOutcome(sessionId, player, row.country);
  }

  // ------------------------------------------------------------- back office

  createPlayer(command: CreatePlayerCommand): PlayerView | Refusal {
    const opening = planOpeningBalance(command.currency, command.balance, this.currencies);
    if (typeof opening !== 'bigint') return opening;
    if (this.statements.playerById.get(command.playerId)) return playerExists(command.playerId);
    const accountId = BigInt(
      this.statements.insertAccount.run('player', command.playerId, command.currency, 0, command.now).lastInsertRowid,
    );
    this.statements.insertPlayer.run(command.playerId, accountId, command.currency, command.country ?? null, command.now);
    const row = this.statements.playerById.get(command.playerId) as PlayerRow;
    if (opening > 0n) {
      const depositId = canonicalUuid(command.depositId);
      // Not a refusal: the id is the server's own, and a taken one is a fault (answered 500, nothing applied).
      if (this.transferIds.find(depositId, uuidToBytes(depositId)) !== undefined) throw new Error(`deposit id ${depositId} is taken`);
      const legs = legsOf({ kind: 'deposit', playerId: command.playerId, currency: command.currency });
      this.bookAlone(row, depositId, 'deposit', legs, opening, opening, opening, command.now, { note: 'opening balance' });
    }
    return this.view(this.statements.playerById.get(command.playerId) as PlayerRow);
  }

  getPlayer(playerId: string): PlayerView | Refusal {
    const row = this.statements.playerById.get(playerId) as PlayerRow | undefined;
    return row ? this.view(row) : playerNotFound(playerId);
  }

  createLaunchKey(command: LaunchKeyCommand): LaunchKeyView | Refusal {
    const row = this.statements.playerById.get(command.playerId) as PlayerRow | undefined;
    if (!row) return playerNotFound(command.playerId);
    const expiresAt = launchKeyExpiresAt(command.now, this.rules);
    // Only the digest is written: the key is answered this once, to the caller that asked for it, and never read back.
    this.statements.insertLaunchKey.run(launchKeyDigest(command.key), row.player_pk, command.game, command.now, expiresAt);
    return { ok: true, key: command.key, expiresAt };
  }

  adjust(command: AdjustCommand): BalanceOutcome | Refusal {
    const row = this.statements.playerById.get(command.playerId) as PlayerRow | undefined;
    const player = row && this.playerState(row);
    const plan = planAdjustment(command, player, row && this.seen(canonicalUuid(command.id)));
    if (!plan.ok) return plan;
    assert.ok(row && player);
    const booked: Booked[] = [];
    if (plan.apply) {
      const legs = legsOf({ kind: command.type, playerId: player.playerId, currency: player.currency });
      const delta = command.type === 'deposit' ? plan.amount : -plan.amount;
      this.bookAlone(row, canonicalUuid(command.id), command.type, legs, plan.amount, delta, plan.balanceAfter, command.now, {
        note: command.reason ?? null,
      });
      this.memory.forgetPlayer(row.player_pk);
      booked.push(bookedOf(command.type, plan.amount, player));
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  setBlocked(command: BlockCommand): PlayerView | Refusal {
    const playerPk = this.statements.setBlocked.get(command.blocked ? 1 : 0, command.blocked ? (command.reason ?? null) : null, command.playerId) as
      | bigint
      | undefined;
    if (playerPk === undefined) return playerNotFound(command.playerId);
    this.memory.forgetPlayer(playerPk);
    return this.getPlayer(command.playerId);
  }

  listRounds(page: PageRequest): PageOf<RoundView> | Refusal {
    const row = this.statements.playerById.get(page.playerId) as PlayerRow | undefined;
    if (!row) return playerNotFound(page.playerId);
    const rows = this.chainPage<{
      id: bigint;
      player_pk: bigint;
      prev: bigint | null;
      uuid: Buffer;
      game: string;
      finished: bigint;
      created_at: bigint;
      finished_at: bigint | null;
    }>(this.statements.roundAt, row, row.last_round_id, page);
    if (!Array.isArray(rows)) return rows;
    return pageOf(rows, page.limit, (r) => ({
      roundId: bytesToUuid(r.uuid),
      game: r.game,
      finished: r.finished === 1n,
      createdAt: Number(r.created_at),
      finishedAt: r.finished_at === null ? null : Number(r.finished_at),
    }));
  }

  listPlayers(page: PlayersRequest): PlayersPage {
    const rows = this.statements.players.all({
      after: page.after ?? '',
      prefix: page.prefix ?? null,
      currency: page.currency ?? null,
      blocked: page.blocked === undefined ? null : page.blocked ? 1 : 0,
      limit: page.limit + 1,
    }) as PlayerRow[];
    return playersPage(rows.map(storedPlayer), page.limit, this.currencies);
  }

  ggr(span: GgrRequest): GgrReport {
    const rows = this.statements.ggr.all(span.from, span.to) as {
      day: bigint;
      game: string;
      currency: string;
      bets: bigint;
      free_bets: bigint;
      wins: bigint;
      rounds: bigint;
    }[];
    return ggrReport(
      rows.map((r) => ({ day: Number(r.day), game: r.game, currency: r.currency, bets: r.bets, freeBets: r.free_bets, wins: r.wins, rounds: Number(r.rounds) })),
      this.currencies,
    );
  }

  listTransfers(page: PageRequest): PageOf<TransferView> | Refusal {
    const row = this.statements.playerById.get(page.playerId) as PlayerRow | undefined;
    if (!row) return playerNotFound(page.playerId);
    const decimals = storedDecimals(this.currencies, row.currency);
    const rows = this.chainPage<{
      id: bigint;
      player_pk: bigint;
      prev: bigint | null;
      uuid: Buffer;
      kind: TransferKind;
      amount: bigint;
      jp_amount: bigint;
      free_bet: bigint;
      round_uuid: Buffer | null;
      game: string | null;
      campaign_uuid: Buffer | null;
      regulatory: string | null;
      created_at: bigint;
    }>(this.statements.transferAt, row, row.last_transfer_id, page);
    if (!Array.isArray(rows)) return rows;
    return pageOf(rows, page.limit, (r) =>
      transferView(
        {
          id: bytesToUuid(r.uuid),
          kind: r.kind,
          amount: r.amount,
          jpAmount: r.jp_amount,
          freeBet: r.free_bet === 1n,
          roundId: r.round_uuid && bytesToUuid(r.round_uuid),
          game: r.game,
          campaignId: r.campaign_uuid && bytesToUuid(r.campaign_uuid),
          regulatory: r.regulatory,
          createdAt: Number(r.created_at),
        },
        decimals,
      ),
    );
  }

  /**
   * Up to limit + 1 rows of a player's chain, newest first (the extra row
   * tells whether there is a next page): from the head, or from the row
   * before the cursor. A cursor is the `next` of an earlier page, so it names
   * one of this player's rows; one past the head starts at the head.
   */
  private chainPage<R extends { player_pk: bigint; prev: bigint | null }>(
    at: Database.Statement,
    player: PlayerRow,
    head: bigint | null,
    page: PageRequest,
  ): R[] | Refusal {
    let id = head;
    if (page.before !== undefined) {
      // Only a cursor at or under the head can name a row of this player's chain.
      const from = head !== null && page.before <= head ? (at.get(page.before) as R | undefined) : undefined;
      const namesPlayersRow = from !== undefined && from.player_pk === player.player_pk;
      const refused = checkCursor(player.player_id, page.before, { namesPlayersRow, newest: head });
      if (refused) return refused;
      if (namesPlayersRow) id = from.prev;
    }
    const rows: R[] = [];
    while (id !== null && rows.length <= page.limit) {
      const next = at.get(id) as R;
      rows.push(next);
      id = next.prev;
    }
    return rows;
  }

  /** The books as this connection sees them (verify-ledger.ts); the caller holds the snapshot. */
  verify(): VerifyReport {
    return verifyLedger(this.db);
  }

  ping(): void {
    this.db.prepare('SELECT 1').get();
  }

  // ---------------------------------------------------------------- helpers

  private playerState(row: PlayerRow): PlayerState {
    return playerStateOf(storedPlayer(row), this.currencies);
  }

  private sessionState(at: SessionAt, sessionId: string): SessionState {
    return { sessionId: canonicalUuid(sessionId), playerId: at.player.player_id, game: at.session.game, lastActiveAt: Number(at.session.last_active_at) };
  }

  private view(row: PlayerRow): PlayerView {
    return playerView(storedPlayer(row), this.currencies);
  }

  /** The session and its player, from memory when kept there (wallet-memory.ts). */
  private sessionAt(sessionId: string): SessionAt | undefined {
    const key = canonicalUuid(sessionId);
    const kept = this.memory.session(key);
    if (kept) return kept;
    const values = this.statements.sessionWithPlayer.get(uuidToBytes(key)) as unknown[] | undefined;
    return values && this.memory.keepSession(key, sessionOf(values));
  }

  private roundRow(roundKey: string, roundBytes: Buffer): RoundRow | undefined {
    const id = this.roundIds.find(roundKey, roundBytes);
    return id === undefined ? undefined : roundOf(this.statements.round.get(id) as unknown[]);
  }

  /** The refused transaction kept under this id (canonical), if any (§6.4). */
  private refused(key: string): SeenTransfer | undefined {
    const values = this.statements.refused.get(uuidToBytes(key)) as unknown[] | undefined;
    return values && refusedOf(values);
  }

  /** The transfer booked under this id (canonical), if any. */
  private seen(key: string): SeenTransfer | undefined {
    const rowId = this.transferIds.find(key, uuidToBytes(key));
    return rowId === undefined ? undefined : seenOf(this.statements.seen.get(rowId) as unknown[]);
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
    let id: bigint;
    if (found) {
      id = found.id;
    } else {
      id = BigInt(this.statements.insertAccount.run(ref.kind, ref.ref, ref.currency, null, now).lastInsertRowid);
    }
    if (this.accountIds.size >= REMEMBERED_OPERATOR_ACCOUNTS_MAX) this.accountIds.clear();
    this.accountIds.set(key, id);
    return id;
  }

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

  /** Inserts a transfer behind `prev` in the player's chain; returns its row id. */
  private insertTransfer(
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
  private bookAlone(
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
   * agree. The row in memory follows.
   */
  private moveWallet(player: PlayerRow, delta: bigint, expected: bigint, lastTransferId: bigint, lastRoundId: bigint | null): void {
    const balance = this.statements.moveWallet.get(delta, lastTransferId, lastRoundId, player.account_id) as bigint;
    assert.equal(balance, expected, 'the stored balance must equal the planned one');
    player.balance = balance;
    player.last_transfer_id = lastTransferId;
    player.last_round_id = lastRoundId;
  }
}
