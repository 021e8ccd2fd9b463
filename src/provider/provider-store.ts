/**
 * The provider's own state in SQLite: game sessions, the round log and
 * free-bet campaigns. It survives restarts; the operator's wallet stays the
 * truth for real money, the round log is the provider's record of what it
 * sent and what the operator answered.
 *
 * A real round is written `pending`, with the exact /transaction body, and
 * that body is enqueued in the durable outbox (src/dispatch, its table in
 * this file) in the same database transaction, before any attempt (the
 * client creates the ids, persists, then sends). The dispatcher delivers it
 * through `outbox`, this connection's view of the outbox; the database
 * transaction that records the operator's final answer on the item also
 * settles or refuses the round (`finishFromOutbox`), so the two never
 * disagree, whatever stops the process in between. Fun money moves in one
 * database transaction with a conditional update, never read-then-write
 * across an await (better-sqlite3 is synchronous).
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
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { readBalance } from '../clients/operator-client.js';
import type { FinalEvent, Outbox } from '../dispatch/outbox.js';
import { OUTBOX_MIGRATION, SqliteOutbox } from '../dispatch/sqlite-outbox.js';
import { BackgroundCheckpointer } from '../platform/sqlite/checkpointer.js';
import { migrate, recordApplied, type Migration } from '../platform/sqlite/migrate.js';
import { openDatabase } from '../platform/sqlite/open-database.js';
import { WalFlusher } from '../platform/sqlite/wal-flusher.js';
import { refuse, type Refusal } from '../protocol/errors.js';
import { raw, stringify } from '../protocol/json.js';
import { CURRENCIES, decimalFromString, formatMinor, toMinor, type Currencies } from '../protocol/money.js';

/** The provider's own versions, numbered apart from the wallet's. */
export const PROVIDER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'round-log',
    sql: `
CREATE TABLE game_sessions (
  id                  INTEGER PRIMARY KEY,
  session_id          TEXT NOT NULL UNIQUE,
  -- One game session per launch: reopening a launch URL finds this row.
  launch_id           TEXT NOT NULL UNIQUE,
  mode                TEXT NOT NULL CHECK (mode IN ('real', 'fun')),
  operator_id         TEXT NOT NULL,
  wallet_id           TEXT,
  game                TEXT NOT NULL,
  player_id           TEXT,
  operator_session_id TEXT,
  currency            TEXT NOT NULL,
  country             TEXT,
  language            TEXT NOT NULL,
  -- Minor units: the fun balance held here, or the last balance the operator answered.
  balance             INTEGER NOT NULL CHECK (balance >= 0),
  -- The committed seed of the next round (hex) and the rounds played so far.
  server_seed         TEXT NOT NULL,
  nonce               INTEGER NOT NULL CHECK (nonce >= 0),
  created_at          INTEGER NOT NULL,
  last_active_at      INTEGER NOT NULL
);

CREATE TABLE rounds (
  id                INTEGER PRIMARY KEY,
  round_id          TEXT NOT NULL UNIQUE,
  session_pk        INTEGER NOT NULL REFERENCES game_sessions (id),
  mode              TEXT NOT NULL CHECK (mode IN ('real', 'fun')),
  operator_id       TEXT NOT NULL,
  player_id         TEXT,
  game              TEXT NOT NULL,
  currency          TEXT NOT NULL,
  bet               INTEGER NOT NULL CHECK (bet > 0),
  win               INTEGER NOT NULL CHECK (win >= 0),
  bet_tx_id         TEXT UNIQUE,
  win_tx_id         TEXT UNIQUE,
  campaign_id       TEXT,
  campaign_finished INTEGER,
  chance_pct        INTEGER NOT NULL,
  threshold         INTEGER NOT NULL,
  roll              INTEGER NOT NULL,
  server_seed       TEXT NOT NULL,
  server_seed_hash  TEXT NOT NULL,
  client_seed       TEXT NOT NULL,
  nonce             INTEGER NOT NULL,
  -- Real rounds: the exact /transaction body, resent byte for byte.
  request_body      TEXT,
  status            TEXT NOT NULL CHECK (status IN ('pending', 'settled', 'refused')),
  refusal_code      TEXT,
  refusal_detail    TEXT,
  balance_after     INTEGER,
  attempts          INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER NOT NULL,
  settled_at        INTEGER
);
CREATE INDEX rounds_by_session ON rounds (session_pk, id);
CREATE INDEX rounds_pending ON rounds (session_pk) WHERE status = 'pending';
CREATE INDEX rounds_by_campaign ON rounds (campaign_id, operator_id, player_id) WHERE campaign_id IS NOT NULL;

CREATE TABLE campaigns (
  id           INTEGER PRIMARY KEY,
  campaign_id  TEXT NOT NULL UNIQUE,
  operator_id  TEXT NOT NULL,
  game         TEXT NOT NULL,
  currency     TEXT NOT NULL,
  bet          INTEGER NOT NULL CHECK (bet > 0),
  rounds       INTEGER NOT NULL CHECK (rounds > 0),
  expires_at   INTEGER,
  created_at   INTEGER NOT NULL
);

CREATE TABLE campaign_players (
  campaign_pk  INTEGER NOT NULL REFERENCES campaigns (id),
  player_id    TEXT NOT NULL,
  PRIMARY KEY (campaign_pk, player_id)
) WITHOUT ROWID;
CREATE INDEX campaign_players_by_player ON campaign_players (player_id);
`,
  },
  {
    version: 2,
    name: OUTBOX_MIGRATION.name,
    sql: `${OUTBOX_MIGRATION.sql}
-- A real round's request in the outbox: its final outcome settles or refuses the round.
ALTER TABLE rounds ADD COLUMN dispatch_item_id INTEGER REFERENCES dispatch_items (id);
CREATE UNIQUE INDEX rounds_by_dispatch_item ON rounds (dispatch_item_id) WHERE dispatch_item_id IS NOT NULL;

-- Rounds an earlier version left pending are delivered as new ones are: due now, each its own key.
INSERT INTO dispatch_items (operator_id, ordering_key, sequence, kind, path, body, after_refusal, status, next_attempt_at, created_at)
  SELECT operator_id, round_id, 1, 'bet', '/transaction', CAST(request_body AS BLOB), 'skip-rest', 'pending', created_at, created_at
  FROM rounds WHERE mode = 'real' AND status = 'pending' AND request_body IS NOT NULL ORDER BY id;
UPDATE rounds SET dispatch_item_id = (
    SELECT d.id FROM dispatch_items d WHERE d.operator_id = rounds.operator_id AND d.ordering_key = rounds.round_id AND d.sequence = 1)
  WHERE mode = 'real' AND status = 'pending' AND request_body IS NOT NULL;
`,
  },
  {
    version: 3,
    name: 'payouts',
    sql: `
-- A tournament prize: written with its /payout request in the outbox, in one transaction; the request's final outcome finishes it.
CREATE TABLE payouts (
  id                  INTEGER PRIMARY KEY,
  payout_id           TEXT NOT NULL UNIQUE,
  operator_id         TEXT NOT NULL,
  player_id           TEXT NOT NULL,
  currency            TEXT NOT NULL,
  -- Minor units of the currency.
  amount              INTEGER NOT NULL CHECK (amount > 0),
  campaign_id         TEXT NOT NULL,
  -- The operator's session of the player the request names (docs/protocol.md §7).
  operator_session_id TEXT NOT NULL,
  dispatch_item_id    INTEGER NOT NULL UNIQUE REFERENCES dispatch_items (id),
  status              TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'refused')),
  balance_after       INTEGER,
  refusal_code        TEXT,
  refusal_detail      TEXT,
  created_at          INTEGER NOT NULL,
  settled_at          INTEGER
);
CREATE INDEX payouts_by_status ON payouts (status, id);
-- A payout names the player's latest real session at the operator.
CREATE INDEX game_sessions_by_player ON game_sessions (operator_id, player_id, last_active_at) WHERE mode = 'real';
`,
  },
];

/**
 * Before it used the shared runner, this store counted its migrations in
 * PRAGMA user_version. A file written then has those versions recorded as
 * applied, under the write lock, and user_version set back to 0, so that
 * schema_migrations is the one record. Once done, it costs one read per
 * open.
 */
function adoptUserVersion(db: Database.Database): void {
  const counted = () => Number(db.pragma('user_version', { simple: true }) as bigint);
  if (counted() === 0) return;
  db.transaction(() => {
    const versions = counted();
    assert.ok(versions <= PROVIDER_MIGRATIONS.length, `the database's user_version ${versions} is a version this code knows`);
    // When they were applied is not known.
    recordApplied(db, PROVIDER_MIGRATIONS.slice(0, versions), 0);
    db.pragma('user_version = 0');
  }).immediate();
}

export type Mode = 'real' | 'fun';
export type RoundStatus = 'pending' | 'settled' | 'refused';

export interface GameSessionRow {
  pk: number;
  sessionId: string;
  launchId: string;
  mode: Mode;
  operatorId: string;
  walletId: string | null;
  game: string;
  playerId: string | null;
  operatorSessionId: string | null;
  currency: string;
  country: string | null;
  language: string;
  balanceMinor: bigint;
  serverSeed: string;
  nonce: number;
  createdAt: number;
  lastActiveAt: number;
}

export interface RoundRow {
  pk: number;
  roundId: string;
  sessionPk: number;
  mode: Mode;
  operatorId: string;
  playerId: string | null;
  game: string;
  currency: string;
  betMinor: bigint;
  winMinor: bigint;
  betTxId: string | null;
  winTxId: string | null;
  campaignId: string | null;
  campaignFinished: boolean | null;
  chancePct: number;
  threshold: number;
  roll: number;
  serverSeed: string;
  serverSeedHash: string;
  clientSeed: string;
  nonce: number;
  requestBody: string | null;
  status: RoundStatus;
  refusalCode: string | null;
  refusalDetail: string | null;
  /** Settled: the balance the operator answered. Refused: the balance its problem carried, if any. */
  balanceAfterMinor: bigint | null;
  /** Times the request was claimed for sending (its outbox item's attempts). */
  attempts: number;
  /** The round's request in the outbox (real rounds). */
  dispatchItemId: number | null;
  createdAt: number;
  settledAt: number | null;
}

export type NewRound = Omit<RoundRow, 'pk' | 'status' | 'refusalCode' | 'refusalDetail' | 'balanceAfterMinor' | 'attempts' | 'dispatchItemId' | 'settledAt'>;

/** How a real round ended, as its outbox item's final outcome says. */
export type RoundOutcome =
  | { status: 'settled'; balanceAfterMinor: bigint | null }
  | { status: 'refused'; code: string; detail: string; balanceAfterMinor: bigint | null };

export interface CampaignRow {
  campaignId: string;
  operatorId: string;
  game: string;
  currency: string;
  betMinor: bigint;
  rounds: number;
  expiresAt: number | null;
  createdAt: number;
}

export type PayoutStatus = 'pending' | 'paid' | 'refused';

/** A tournament prize, as the store keeps it. */
export interface PayoutRow {
  payoutId: string;
  operatorId: string;
  playerId: string;
  currency: string;
  amountMinor: bigint;
  campaignId: string;
  /** The operator's session of the player that the /payout request names. */
  operatorSessionId: string;
  /** Its /payout request in the outbox. */
  dispatchItemId: number;
  status: PayoutStatus;
  /** Paid: the balance of the operator's 200, null when it could not be read exactly or the payout was resolved by hand. */
  balanceAfterMinor: bigint | null;
  refusalCode: string | null;
  refusalDetail: string | null;
  createdAt: number;
  settledAt: number | null;
  /** Times its request was claimed for sending. */
  attempts: number;
}

/** A payout to create: what the back office asks for. Its content, for idempotency, is every field but `createdAt`. */
export interface NewPayout {
  payoutId: string;
  operatorId: string;
  playerId: string;
  currency: string;
  amountMinor: bigint;
  campaignId: string;
  createdAt: number;
}

/**
 * `created`: written and enqueued. `exists`: the same payout id with the
 * same content, answered as it is now (nothing written). `conflict`: the
 * payout id exists with other content (nothing written).
 */
export type PayoutWrite = { ok: true; kind: 'created' | 'exists' | 'conflict'; payout: PayoutRow } | Refusal;

/** The request of a payout, as it is enqueued; its ordering key is the payout id. */
export const PAYOUT_REQUEST = { kind: 'payout', path: '/payout' } as const;

/** A session to open: its row before the store numbers, times and counts it. */
export type NewSession = Omit<GameSessionRow, 'pk' | 'nonce' | 'createdAt' | 'lastActiveAt'> & { now: number };

type Row = Record<string, unknown>;

const num = (value: unknown): number => Number(value as bigint);
const numOrNull = (value: unknown): number | null => (value === null ? null : Number(value as bigint));

function sessionOf(row: Row): GameSessionRow {
  return {
    pk: num(row.id),
    sessionId: row.session_id as string,
    launchId: row.launch_id as string,
    mode: row.mode as Mode,
    operatorId: row.operator_id as string,
    walletId: row.wallet_id as string | null,
    game: row.game as string,
    playerId: row.player_id as string | null,
    operatorSessionId: row.operator_session_id as string | null,
    currency: row.currency as string,
    country: row.country as string | null,
    language: row.language as string,
    balanceMinor: row.balance as bigint,
    serverSeed: row.server_seed as string,
    nonce: num(row.nonce),
    createdAt: num(row.created_at),
    lastActiveAt: num(row.last_active_at),
  };
}

function roundOf(row: Row): RoundRow {
  return {
    pk: num(row.id),
    roundId: row.round_id as string,
    sessionPk: num(row.session_pk),
    mode: row.mode as Mode,
    operatorId: row.operator_id as string,
    playerId: row.player_id as string | null,
    game: row.game as string,
    currency: row.currency as string,
    betMinor: row.bet as bigint,
    winMinor: row.win as bigint,
    betTxId: row.bet_tx_id as string | null,
    winTxId: row.win_tx_id as string | null,
    campaignId: row.campaign_id as string | null,
    campaignFinished: row.campaign_finished === null ? null : num(row.campaign_finished) === 1,
    chancePct: num(row.chance_pct),
    threshold: num(row.threshold),
    roll: num(row.roll),
    serverSeed: row.server_seed as string,
    serverSeedHash: row.server_seed_hash as string,
    clientSeed: row.client_seed as string,
    nonce: num(row.nonce),
    requestBody: row.request_body as string | null,
    status: row.status as RoundStatus,
    refusalCode: row.refusal_code as string | null,
    refusalDetail: row.refusal_detail as string | null,
    balanceAfterMinor: row.balance_after as bigint | null,
    // The outbox item counts the attempts while the round is pending; a finished round keeps the count.
    attempts: num(row.item_attempts ?? row.attempts),
    dispatchItemId: numOrNull(row.dispatch_item_id),
    createdAt: num(row.created_at),
    settledAt: numOrNull(row.settled_at),
  };
}

function payoutOf(row: Row): PayoutRow {
  return {
    payoutId: row.payout_id as string,
    operatorId: row.operator_id as string,
    playerId: row.player_id as string,
    currency: row.currency as string,
    amountMinor: row.amount as bigint,
    campaignId: row.campaign_id as string,
    operatorSessionId: row.operator_session_id as string,
    dispatchItemId: num(row.dispatch_item_id),
    status: row.status as PayoutStatus,
    balanceAfterMinor: row.balance_after as bigint | null,
    refusalCode: row.refusal_code as string | null,
    refusalDetail: row.refusal_detail as string | null,
    createdAt: num(row.created_at),
    settledAt: numOrNull(row.settled_at),
    attempts: num(row.item_attempts ?? 0),
  };
}

function samePayout(seen: PayoutRow, asked: NewPayout): boolean {
  return (
    seen.operatorId === asked.operatorId &&
    seen.playerId === asked.playerId &&
    seen.currency === asked.currency &&
    seen.amountMinor === asked.amountMinor &&
    seen.campaignId === asked.campaignId
  );
}

function campaignOf(row: Row): CampaignRow {
  return {
    campaignId: row.campaign_id as string,
    operatorId: row.operator_id as string,
    game: row.game as string,
    currency: row.currency as string,
    betMinor: row.bet as bigint,
    rounds: num(row.rounds),
    expiresAt: numOrNull(row.expires_at),
    createdAt: num(row.created_at),
  };
}

export type CampaignWrite = 'created' | 'exists' | 'conflict';

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

/** The request of a real round, as it is enqueued. */
export const ROUND_REQUEST = { kind: 'bet', path: '/transaction' } as const;

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class ProviderStore {
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
  /**
   * The outbox on this connection, for the dispatcher. A claim takes only
   * durable items, and runs between turns (it takes the write lock on its
   * own); an outcome joins the open turn, as every write does, and commits
   * with the round it settles.
   */
  readonly outbox: Outbox;

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
    // A round as read: its outbox item's attempts while it is pending.
    const roundsWhere = (where: string) =>
      db.prepare(`SELECT r.*, d.attempts AS item_attempts FROM rounds r LEFT JOIN dispatch_items d ON d.id = r.dispatch_item_id ${where}`);
    // A payout as read, with its outbox item's attempts.
    const payoutsWhere = (where: string) =>
      db.prepare(`SELECT p.*, d.attempts AS item_attempts FROM payouts p JOIN dispatch_items d ON d.id = p.dispatch_item_id ${where}`);
    this.statements = {
      sessionByLaunch: db.prepare('SELECT * FROM game_sessions WHERE launch_id = ?'),
      sessionByPk: db.prepare('SELECT * FROM game_sessions WHERE id = ?'),
      insertSession: db.prepare(`INSERT INTO game_sessions
        (session_id, launch_id, mode, operator_id, wallet_id, game, player_id, operator_session_id, currency, country, language, balance, server_seed, nonce, created_at, last_active_at)
        VALUES (@sessionId, @launchId, @mode, @operatorId, @walletId, @game, @playerId, @operatorSessionId, @currency, @country, @language, @balanceMinor, @serverSeed, 0, @now, @now)
        ON CONFLICT (launch_id) DO NOTHING`),
      reopenSession: db.prepare('UPDATE game_sessions SET operator_session_id = ?, balance = ?, last_active_at = ? WHERE id = ?'),
      touchSession: db.prepare('UPDATE game_sessions SET last_active_at = ? WHERE id = ?'),
      setBalance: db.prepare('UPDATE game_sessions SET balance = ? WHERE id = ?'),
      advanceSeed: db.prepare('UPDATE game_sessions SET server_seed = ?, nonce = nonce + 1, last_active_at = ? WHERE id = ? AND nonce = ?'),
      funMove: db.prepare(
        'UPDATE game_sessions SET balance = balance - ? + ?, server_seed = ?, nonce = nonce + 1, last_active_at = ? WHERE id = ? AND nonce = ? AND balance >= ?',
      ),
      insertRound: db.prepare(`INSERT INTO rounds
        (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, bet_tx_id, win_tx_id, campaign_id, campaign_finished,
         chance_pct, threshold, roll, server_seed, server_seed_hash, client_seed, nonce, request_body, status, balance_after, dispatch_item_id, created_at, settled_at)
        VALUES (@roundId, @sessionPk, @mode, @operatorId, @playerId, @game, @currency, @betMinor, @winMinor, @betTxId, @winTxId, @campaignId, @campaignFinished,
         @chancePct, @threshold, @roll, @serverSeed, @serverSeedHash, @clientSeed, @nonce, @requestBody, @status, @balanceAfterMinor, @dispatchItemId, @createdAt, @settledAt)`),
      finishRound: db.prepare(
        "UPDATE rounds SET status = ?, refusal_code = ?, refusal_detail = ?, balance_after = ?, attempts = ?, settled_at = ? WHERE id = ? AND status = 'pending' RETURNING *",
      ),
      roundByPk: roundsWhere('WHERE r.id = ?'),
      roundOfItem: roundsWhere('WHERE r.dispatch_item_id = ?'),
      pendingOfSession: roundsWhere("WHERE r.session_pk = ? AND r.status = 'pending' ORDER BY r.id"),
      recentOfSession: roundsWhere("WHERE r.session_pk = ? AND r.status <> 'refused' ORDER BY r.id DESC LIMIT ?"),
      listRounds: roundsWhere('WHERE r.id < ? ORDER BY r.id DESC LIMIT ?'),
      lastItemId: db.prepare('SELECT COALESCE(MAX(id), 0) FROM dispatch_items').pluck().safeIntegers(false),
      insertCampaign: db.prepare(`INSERT INTO campaigns (campaign_id, operator_id, game, currency, bet, rounds, expires_at, created_at)
        VALUES (@campaignId, @operatorId, @game, @currency, @betMinor, @rounds, @expiresAt, @createdAt)`),
      campaignById: db.prepare('SELECT * FROM campaigns WHERE campaign_id = ?'),
      insertCampaignPlayer: db.prepare('INSERT INTO campaign_players (campaign_pk, player_id) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      playersOfCampaign: db.prepare('SELECT player_id FROM campaign_players WHERE campaign_pk = ? ORDER BY player_id'),
      campaignsOfPlayer: db.prepare(`SELECT c.* FROM campaigns c JOIN campaign_players p ON p.campaign_pk = c.id
        WHERE p.player_id = ? AND c.operator_id = ? AND c.game = ? AND c.currency = ? AND (c.expires_at IS NULL OR c.expires_at > ?)
        ORDER BY c.id`),
      campaignRoundsUsed: db.prepare(
        "SELECT count(*) AS used FROM rounds WHERE campaign_id = ? AND operator_id = ? AND player_id = ? AND status <> 'refused'",
      ),
      latestRealSession: db.prepare(`SELECT * FROM game_sessions
        WHERE mode = 'real' AND operator_id = ? AND player_id = ? AND operator_session_id IS NOT NULL
        ORDER BY last_active_at DESC, id DESC LIMIT 1`),
      insertPayout: db.prepare(`INSERT INTO payouts
        (payout_id, operator_id, player_id, currency, amount, campaign_id, operator_session_id, dispatch_item_id, status, created_at)
        VALUES (@payoutId, @operatorId, @playerId, @currency, @amountMinor, @campaignId, @operatorSessionId, @dispatchItemId, 'pending', @createdAt)`),
      payoutById: payoutsWhere('WHERE p.payout_id = ?'),
      payoutOfItem: payoutsWhere('WHERE p.dispatch_item_id = ?'),
      listPayouts: payoutsWhere('WHERE p.id < ? ORDER BY p.id DESC LIMIT ?'),
      listPayoutsByStatus: payoutsWhere('WHERE p.status = ? AND p.id < ? ORDER BY p.id DESC LIMIT ?'),
      finishPayout: db.prepare(
        "UPDATE payouts SET status = ?, balance_after = ?, refusal_code = ?, refusal_detail = ?, settled_at = ? WHERE id = ? AND status = 'pending'",
      ),
    };
    // What the file already holds was committed by an earlier process; the first claim waits for one sync of it.
    this.committedItemMax = this.statements.lastItemId.get() as number;
    this.dispatchItems = new SqliteOutbox(db, { onFinal: this.finishFromOutbox, claimableIdMax: () => this.durableItemMax });
    this.outbox = this.outboxView(this.dispatchItems);
  }

  static open(path: string, options: ProviderStoreOptions = {}): ProviderStore {
    const currencies = options.currencies ?? CURRENCIES;
    // A pending round is written before its first attempt: it must survive
    // power loss. COMMIT does not sync; durable() waits for the flusher's.
    const db = openDatabase(path, 'flusher');
    // The provider's tables keep their references checked (the wallet's verify checks its own instead).
    db.pragma('foreign_keys = ON');
    adoptUserVersion(db);
    migrate(db, PROVIDER_MIGRATIONS);
    if (path === ':memory:') return new ProviderStore(db, undefined, undefined, currencies);
    // After the migrations: the checkpointer's connection needs the database in WAL mode.
    const flusher = new WalFlusher(`${path}-wal`, options.onFatal ?? crash);
    return new ProviderStore(db, flusher, new BackgroundCheckpointer(path, 'flusher'), currencies);
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

  /** Resolves once no turn is open: at once if none is, else when the open one has committed or rolled back. */
  private async betweenTurns(): Promise<void> {
    while (this.db.inTransaction) await new Promise<void>((resolve) => this.turnEnds.push(resolve));
  }

  private outboxView(items: SqliteOutbox): Outbox {
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
      async (...args: A): Promise<R> => {
        await this.betweenTurns();
        return read(...args);
      };
    return {
      claim: async (now, node, limits) => {
        // A claim takes the write lock with a transaction of its own (BEGIN IMMEDIATE): between turns.
        await this.betweenTurns();
        if (this.durableItemMax < this.committedItemMax) {
          // Items committed but not yet synced: one sync, no more (under load another commit is always on its way),
          // then the claim takes the items that sync made durable.
          await this.durable();
          await this.betweenTurns();
        }
        return items.claim(now, node, limits);
      },
      sent: inTurn(items.sent.bind(items)),
      refused: inTurn(items.refused.bind(items)),
      retryLater: inTurn(items.retryLater.bind(items)),
      park: inTurn(items.park.bind(items)),
      retryNow: inTurn(items.retryNow.bind(items)),
      resolve: inTurn(items.resolve.bind(items)),
      hasten: inTurn(items.hasten.bind(items)),
      backlog: betweenTurns(items.backlog.bind(items)),
      item: betweenTurns(items.item.bind(items)),
      list: betweenTurns(items.list.bind(items)),
    };
  }

  // -------------------------------------------------------- game sessions

  sessionByLaunch(launchId: string): GameSessionRow | undefined {
    const row = this.statements.sessionByLaunch.get(launchId) as Row | undefined;
    return row && sessionOf(row);
  }

  session(pk: number): GameSessionRow {
    const row = this.statements.sessionByPk.get(pk) as Row | undefined;
    assert.ok(row, `game session ${pk} exists`);
    return sessionOf(row);
  }

  /** Creates the session of a launch, or returns the one a concurrent open created first. */
  createSession(input: NewSession): GameSessionRow {
    this.write();
    this.statements.insertSession.run({ ...input });
    const created = this.sessionByLaunch(input.launchId);
    assert.ok(created, 'the session of a launch exists after its insert');
    return created;
  }

  /** A real session opened again (a reload): the operator's answer is the truth. */
  reopenSession(pk: number, operatorSessionId: string | null, balanceMinor: bigint, now: number): GameSessionRow {
    this.write();
    this.statements.reopenSession.run(operatorSessionId, balanceMinor, now, pk);
    return this.session(pk);
  }

  touchSession(pk: number, now: number): void {
    this.write();
    this.statements.touchSession.run(now, pk);
  }

  // --------------------------------------------------------------- rounds

  /**
   * Writes a real round as pending, enqueues its request (the exact body,
   * to the round's operator, the round id its ordering key) and commits the
   * session's next seed, in one database transaction; `nonce` guards
   * against a concurrent round.
   */
  beginRealRound(round: NewRound & { requestBody: string }, nextSeed: string): RoundRow {
    this.write();
    const begun = this.db.transaction(() => {
      const moved = this.statements.advanceSeed.run(nextSeed, round.createdAt, round.sessionPk, round.nonce);
      assert.equal(moved.changes, 1, 'rounds of one session are played one at a time');
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
        status: 'pending',
        refusalCode: null,
        refusalDetail: null,
        balanceAfterMinor: null,
        attempts: 0,
        dispatchItemId: item.id,
        settledAt: null,
      };
      return row;
    })();
    // Only once its savepoint is released: a round that failed enqueued nothing.
    this.turnItemMax = Math.max(this.turnItemMax, begun.dispatchItemId!);
    return begun;
  }

  /**
   * A fun round: the balance moves (bet out, win in), the seed advances and
   * the round is logged settled, in one database transaction. Undefined when
   * the balance does not cover the bet (nothing is written).
   */
  playFunRound(round: NewRound, nextSeed: string): RoundRow | undefined {
    this.write();
    return this.db.transaction(() => {
      const moved = this.statements.funMove.run(round.betMinor, round.winMinor, nextSeed, round.createdAt, round.sessionPk, round.nonce, round.betMinor);
      if (moved.changes === 0) {
        assert.equal(this.session(round.sessionPk).nonce, round.nonce, 'rounds of one session are played one at a time');
        return undefined;
      }
      const balanceAfterMinor = this.session(round.sessionPk).balanceMinor;
      const inserted = this.statements.insertRound.run({
        ...round,
        campaignFinished: null,
        status: 'settled',
        balanceAfterMinor,
        dispatchItemId: null,
        settledAt: round.createdAt,
      });
      const logged = this.round(Number(inserted.lastInsertRowid));
      assert.equal(logged.balanceAfterMinor, balanceAfterMinor, 'the round log holds the balance it moved to');
      return logged;
    })();
  }

  /**
   * Calls `listener` with each real round the outbox finishes, inside the
   * database transaction that finishes it (before its commit: an answer
   * built from it waits for durable()). It must not throw: that would roll
   * the outcome back.
   */
  onRoundFinished(listener: (round: RoundRow) => void): () => void {
    this.roundListeners.add(listener);
    return () => this.roundListeners.delete(listener);
  }

  /**
   * The outbox's hook: a final outcome of a round's request finishes the
   * round, in the same database transaction. `sent`: settled, with the
   * balance of the operator's 200 (null if it cannot be read exactly: the
   * round was booked all the same), which the session takes. `refused`:
   * refused with the operator's code (HTTP_<status> when the answer was no
   * problem+json) and detail. `resolved` (settled by hand): settled, balance
   * unknown. `skipped`: refused, never sent (a round has one item, so this
   * comes only from an earlier item of its key).
   */
  private readonly finishFromOutbox = (event: FinalEvent): void => {
    if (event.item.kind === PAYOUT_REQUEST.kind) return this.finishPayout(event);
    const { item, outcome, answer } = event;
    const found = this.statements.roundOfItem.get(item.id) as Row | undefined;
    if (found === undefined) return;
    const round = roundOf(found);
    if (round.status !== 'pending') return;
    const minor = (text: string | undefined) => this.minorOf(text, round.currency);
    let finished: RoundOutcome;
    switch (outcome) {
      case 'sent': {
        const read = answer.body === undefined ? undefined : readBalance(answer.body);
        finished = { status: 'settled', balanceAfterMinor: read?.ok ? minor(read.value.balance) : null };
        break;
      }
      case 'resolved':
        finished = { status: 'settled', balanceAfterMinor: null };
        break;
      case 'refused':
        finished = {
          status: 'refused',
          code: answer.code ?? (answer.status === undefined ? 'REFUSED' : `HTTP_${answer.status}`),
          detail: answer.detail,
          balanceAfterMinor: minor(answer.balance),
        };
        break;
      case 'skipped':
        finished = { status: 'refused', code: 'SKIPPED', detail: answer.detail, balanceAfterMinor: null };
        break;
    }
    const row = this.finishRound(round.pk, finished, item.attempts, item.finishedAt ?? item.createdAt);
    for (const listener of this.roundListeners) listener(row);
  };

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

  /** The minor units of an amount text in `currency`; an amount the currency cannot hold exactly is not believed: null, as if none was given. */
  private minorOf(text: string | undefined, currency: string): bigint | null {
    const decimals = this.currencies.decimals(currency);
    if (text === undefined || decimals === undefined) return null;
    const decimal = decimalFromString(text);
    return decimal === undefined ? null : (toMinor(decimal, decimals) ?? null);
  }

  /**
   * The outbox's hook for a payout's request: `sent` pays it, with the
   * balance of the operator's 200; `refused` refuses it with the operator's
   * code and detail; `resolved` (settled by hand) pays it, balance unknown.
   * A payout's key holds one item, so `skipped` never comes; it would
   * refuse it.
   */
  private finishPayout({ item, outcome, answer }: FinalEvent): void {
    const found = this.statements.payoutOfItem.get(item.id) as Row | undefined;
    if (found === undefined) return;
    const payout = payoutOf(found);
    if (payout.status !== 'pending') return;
    const at = item.finishedAt ?? item.createdAt;
    const pk = found.id as bigint;
    switch (outcome) {
      case 'sent': {
        const read = answer.body === undefined ? undefined : readBalance(answer.body);
        const balance = read?.ok ? this.minorOf(read.value.balance, payout.currency) : null;
        this.statements.finishPayout.run('paid', balance, null, null, at, pk);
        return;
      }
      case 'resolved':
        this.statements.finishPayout.run('paid', null, null, null, at, pk);
        return;
      case 'refused': {
        const code = answer.code ?? (answer.status === undefined ? 'REFUSED' : `HTTP_${answer.status}`);
        this.statements.finishPayout.run('refused', this.minorOf(answer.balance, payout.currency), code, answer.detail, at, pk);
        return;
      }
      case 'skipped':
        this.statements.finishPayout.run('refused', null, 'SKIPPED', answer.detail, at, pk);
        return;
    }
  }

  round(pk: number): RoundRow {
    const row = this.statements.roundByPk.get(pk) as Row | undefined;
    assert.ok(row, `round ${pk} exists`);
    return roundOf(row);
  }

  pendingRounds(sessionPk: number): RoundRow[] {
    return (this.statements.pendingOfSession.all(sessionPk) as Row[]).map(roundOf);
  }

  /** The session's latest rounds that were not refused, newest first. */
  recentRounds(sessionPk: number, limit: number): RoundRow[] {
    return (this.statements.recentOfSession.all(sessionPk, limit) as Row[]).map(roundOf);
  }

  /** The whole round log, newest first, a page at a time. */
  listRounds(limit: number, before?: number): RoundRow[] {
    return (this.statements.listRounds.all(before ?? Number.MAX_SAFE_INTEGER, limit) as Row[]).map(roundOf);
  }

  // -------------------------------------------------------------- payouts

  /**
   * Creates a payout and enqueues its /payout request (to its operator,
   * the payout id its ordering key, the exact body) in one database
   * transaction. The request names the player's most recent real game
   * session at the operator, whose currency must be the payout's. The same
   * payout id again answers the payout as it is (`exists`, same content)
   * or `conflict` (other content), and writes nothing.
   */
  createPayout(asked: NewPayout): PayoutWrite {
    const found = this.payout(asked.payoutId);
    if (found) return { ok: true, kind: samePayout(found, asked) ? 'exists' : 'conflict', payout: found };
    const decimals = this.currencies.decimals(asked.currency);
    if (decimals === undefined) return refuse('INVALID_REQUEST', `currency: ${asked.currency} is not a currency this provider knows`);
    if (asked.amountMinor <= 0n) return refuse('INVALID_REQUEST', 'amount: must be greater than 0');
    const sessionRow = this.statements.latestRealSession.get(asked.operatorId, asked.playerId) as Row | undefined;
    if (sessionRow === undefined) {
      return refuse(
        'SESSION_NOT_FOUND',
        `player ${asked.playerId} has no real game session at operator ${asked.operatorId}: a prize is paid on a session of the player's, so the player must have played here at that operator first`,
      );
    }
    const session = sessionOf(sessionRow);
    if (session.currency !== asked.currency) {
      return refuse('INVALID_REQUEST', `currency: player ${asked.playerId} plays in ${session.currency} at operator ${asked.operatorId}, not ${asked.currency}`);
    }
    const operatorSessionId = session.operatorSessionId!;
    const body = stringify({
      sessionId: operatorSessionId,
      payoutId: asked.payoutId,
      amount: raw(formatMinor(asked.amountMinor, decimals)),
      campaign: { id: asked.campaignId, type: 'tournament' },
    });
    this.write();
    const itemId = this.db.transaction(() => {
      const item = SqliteOutbox.enqueue(this.db, { operatorId: asked.operatorId, orderingKey: asked.payoutId, ...PAYOUT_REQUEST, body }, asked.createdAt);
      this.statements.insertPayout.run({ ...asked, operatorSessionId, dispatchItemId: item.id });
      return item.id;
    })();
    // Only once its savepoint is released: a payout that failed enqueued nothing.
    this.turnItemMax = Math.max(this.turnItemMax, itemId);
    return { ok: true, kind: 'created', payout: this.payout(asked.payoutId)! };
  }

  payout(payoutId: string): PayoutRow | undefined {
    const row = this.statements.payoutById.get(payoutId) as Row | undefined;
    return row && payoutOf(row);
  }

  /** Payouts, newest first, a page at a time; `before` is the cursor (`payoutCursor` of the page's last). */
  listPayouts(limit: number, options: { status?: PayoutStatus; before?: number } = {}): { payouts: PayoutRow[]; cursors: number[] } {
    const before = options.before ?? Number.MAX_SAFE_INTEGER;
    const rows = (
      options.status === undefined ? this.statements.listPayouts.all(before, limit) : this.statements.listPayoutsByStatus.all(options.status, before, limit)
    ) as Row[];
    return { payouts: rows.map(payoutOf), cursors: rows.map((row) => num(row.id)) };
  }

  // ------------------------------------------------------------ campaigns

  /** Creates a campaign with its players; the same id again is `exists` with the same content, else `conflict`. */
  putCampaign(campaign: CampaignRow, players: readonly string[]): CampaignWrite {
    this.write();
    return this.db.transaction((): CampaignWrite => {
      const found = this.statements.campaignById.get(campaign.campaignId) as Row | undefined;
      if (found) {
        const seen = campaignOf(found);
        const same =
          seen.operatorId === campaign.operatorId &&
          seen.game === campaign.game &&
          seen.currency === campaign.currency &&
          seen.betMinor === campaign.betMinor &&
          seen.rounds === campaign.rounds &&
          seen.expiresAt === campaign.expiresAt;
        if (!same) return 'conflict';
        // Players may be added to a campaign; none is ever removed.
        for (const player of players) this.statements.insertCampaignPlayer.run(found.id, player);
        return 'exists';
      }
      const inserted = this.statements.insertCampaign.run({ ...campaign });
      for (const player of players) this.statements.insertCampaignPlayer.run(inserted.lastInsertRowid, player);
      return 'created';
    })();
  }

  campaign(campaignId: string): (CampaignRow & { players: string[] }) | undefined {
    const row = this.statements.campaignById.get(campaignId) as Row | undefined;
    if (!row) return undefined;
    const players = (this.statements.playersOfCampaign.all(row.id) as Row[]).map((p) => p.player_id as string);
    return { ...campaignOf(row), players };
  }

  /** The live campaigns a player can play on this game and currency, oldest first. */
  campaignsOf(operatorId: string, playerId: string, game: string, currency: string, now: number): CampaignRow[] {
    return (this.statements.campaignsOfPlayer.all(playerId, operatorId, game, currency, now) as Row[]).map(campaignOf);
  }

  /** Free rounds a player has used (pending or settled) on a campaign. */
  campaignRoundsUsed(campaignId: string, operatorId: string, playerId: string): number {
    const row = this.statements.campaignRoundsUsed.get(campaignId, operatorId, playerId) as Row;
    return num(row.used);
  }
}
