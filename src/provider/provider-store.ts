/**
 * The provider's own state in SQLite: game sessions, the round log and
 * free-bet campaigns. It survives restarts; the operator's wallet stays the
 * truth for real money, the round log is the provider's record of what it
 * sent and what the operator answered.
 *
 * A real round is written `pending`, with the exact /transaction body,
 * before its first attempt (the client creates the ids, persists, then
 * sends), and only then settled or refused with the operator's answer. Fun
 * money moves in one database transaction with a conditional update, never
 * read-then-write across an await (better-sqlite3 is synchronous).
 *
 * Group commit: every write of one event-loop turn joins one database
 * transaction, opened by the turn's first write and committed when the turn
 * ends (setImmediate); a write that spans several statements runs behind a
 * savepoint of its own (better-sqlite3 nests transactions that way), so a
 * failed one rolls back alone. Commits do not wait for the disk on this
 * thread: they run with synchronous=NORMAL, and `durable()` resolves once
 * the turn's commit is done and a WalFlusher has fdatasync'ed the WAL on
 * libuv's thread pool (as durable as FULL, argued in wal-flusher.ts). The
 * game service waits for it before a pending round is sent and before
 * anything is answered, so one commit and one sync serve every round written
 * meanwhile, and the thread goes on playing rounds while the disk works.
 * Reads on this connection see the open turn's writes; nothing acts on them
 * outside the process before they are durable.
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
import { BackgroundCheckpointer } from '../platform/sqlite/checkpointer.js';
import { migrate, recordApplied, type Migration } from '../platform/sqlite/migrate.js';
import { openDatabase } from '../platform/sqlite/open-database.js';
import { WalFlusher } from '../platform/sqlite/wal-flusher.js';

/** The provider's own versions, numbered apart from the wallet's. */
const MIGRATIONS: readonly Migration[] = [
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
    assert.ok(versions <= MIGRATIONS.length, `the database's user_version ${versions} is a version this code knows`);
    // When they were applied is not known.
    recordApplied(db, MIGRATIONS.slice(0, versions), 0);
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
  balanceAfterMinor: bigint | null;
  attempts: number;
  createdAt: number;
  settledAt: number | null;
}

export type NewRound = Omit<RoundRow, 'pk' | 'status' | 'refusalCode' | 'refusalDetail' | 'balanceAfterMinor' | 'attempts' | 'settledAt'>;

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
    attempts: num(row.attempts),
    createdAt: num(row.created_at),
    settledAt: numOrNull(row.settled_at),
  };
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

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class ProviderStore {
  private readonly db: Database.Database;
  private readonly flusher: WalFlusher | undefined;
  private readonly checkpointer: BackgroundCheckpointer | undefined;
  /** Waiting for the open turn's commit (and the sync after it). */
  private waiters: Waiter[] = [];
  private closing: Promise<void> | undefined;
  private readonly turn;
  private readonly statements;

  private constructor(db: Database.Database, flusher: WalFlusher | undefined, checkpointer: BackgroundCheckpointer | undefined) {
    this.db = db;
    this.flusher = flusher;
    this.checkpointer = checkpointer;
    this.turn = { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
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
         chance_pct, threshold, roll, server_seed, server_seed_hash, client_seed, nonce, request_body, status, balance_after, created_at, settled_at)
        VALUES (@roundId, @sessionPk, @mode, @operatorId, @playerId, @game, @currency, @betMinor, @winMinor, @betTxId, @winTxId, @campaignId, @campaignFinished,
         @chancePct, @threshold, @roll, @serverSeed, @serverSeedHash, @clientSeed, @nonce, @requestBody, @status, @balanceAfterMinor, @createdAt, @settledAt)`),
      settleRound: db.prepare(
        "UPDATE rounds SET status = ?, refusal_code = ?, refusal_detail = ?, balance_after = ?, attempts = attempts + ?, settled_at = ? WHERE id = ? AND status = 'pending' RETURNING *",
      ),
      addAttempts: db.prepare("UPDATE rounds SET attempts = attempts + ? WHERE id = ? AND status = 'pending'"),
      roundByPk: db.prepare('SELECT * FROM rounds WHERE id = ?'),
      pendingOfSession: db.prepare("SELECT * FROM rounds WHERE session_pk = ? AND status = 'pending' ORDER BY id"),
      sessionsLeftPending: db.prepare(`SELECT s.* FROM game_sessions s
        WHERE s.id IN (SELECT session_pk FROM rounds WHERE status = 'pending' AND created_at <= ?) AND s.id > ?
        ORDER BY s.id LIMIT ?`),
      recentOfSession: db.prepare("SELECT * FROM rounds WHERE session_pk = ? AND status <> 'refused' ORDER BY id DESC LIMIT ?"),
      listRounds: db.prepare('SELECT * FROM rounds WHERE id < ? ORDER BY id DESC LIMIT ?'),
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
    };
  }

  /** `onFatal` is called if the WAL cannot be synced; nothing more may be answered. By default the process crashes. */
  static open(path: string, onFatal: OnFatal = crash): ProviderStore {
    // A pending round is written before its first attempt: it must survive
    // power loss. COMMIT does not sync; durable() waits for the flusher's.
    const db = openDatabase(path, 'flusher');
    // The provider's tables keep their references checked (the wallet's verify checks its own instead).
    db.pragma('foreign_keys = ON');
    adoptUserVersion(db);
    migrate(db, MIGRATIONS);
    if (path === ':memory:') return new ProviderStore(db, undefined, undefined);
    // After the migrations: the checkpointer's connection needs the database in WAL mode.
    return new ProviderStore(db, new WalFlusher(`${path}-wal`, onFatal), new BackgroundCheckpointer(path, 'flusher'));
  }

  /**
   * Resolves once everything written so far is committed and on stable
   * storage; rejects if the turn that held it could not commit (nothing of
   * that turn was kept).
   */
  durable(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.db.inTransaction) this.waiters.push({ resolve, reject });
      else this.afterSync([{ resolve, reject }]);
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
    if (!this.db.open || !this.db.inTransaction) return;
    const waiters = this.waiters;
    this.waiters = [];
    try {
      this.turn.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.turn.rollback.run();
      for (const waiter of waiters) waiter.reject(error as Error);
      return;
    }
    this.afterSync(waiters);
  };

  private afterSync(waiters: Waiter[]): void {
    const release = () => {
      for (const waiter of waiters) waiter.resolve();
    };
    if (this.flusher) this.flusher.afterSync(release);
    else release();
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
   * Writes a real round as pending and commits the session's next seed, in
   * one database transaction; `nonce` guards against a concurrent round.
   */
  beginRealRound(round: NewRound, nextSeed: string): RoundRow {
    this.write();
    return this.db.transaction(() => {
      const moved = this.statements.advanceSeed.run(nextSeed, round.createdAt, round.sessionPk, round.nonce);
      assert.equal(moved.changes, 1, 'rounds of one session are played one at a time');
      const inserted = this.statements.insertRound.run({
        ...round,
        campaignFinished: round.campaignFinished === null ? null : round.campaignFinished ? 1 : 0,
        status: 'pending',
        balanceAfterMinor: null,
        settledAt: null,
      });
      // The row as inserted, without reading it back.
      return { ...round, pk: Number(inserted.lastInsertRowid), status: 'pending' as const, refusalCode: null, refusalDetail: null, balanceAfterMinor: null, attempts: 0, settledAt: null };
    })();
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
        settledAt: round.createdAt,
      });
      const logged = this.round(Number(inserted.lastInsertRowid));
      assert.equal(logged.balanceAfterMinor, balanceAfterMinor, 'the round log holds the balance it moved to');
      return logged;
    })();
  }

  /** Records the operator's final answer on a pending round; a settled round also sets the session's balance. */
  finishRound(
    pk: number,
    outcome: { status: 'settled'; balanceAfterMinor: bigint | null } | { status: 'refused'; code: string; detail: string },
    attempts: number,
    now: number,
  ): RoundRow {
    this.write();
    return this.db.transaction(() => {
      const settled = outcome.status === 'settled';
      const row = (
        settled
          ? this.statements.settleRound.get('settled', null, null, outcome.balanceAfterMinor, attempts, now, pk)
          : this.statements.settleRound.get('refused', outcome.code, outcome.detail, null, attempts, now, pk)
      ) as Row | undefined;
      assert.ok(row, 'only a pending round is finished');
      const round = roundOf(row);
      if (settled && round.balanceAfterMinor !== null) this.statements.setBalance.run(round.balanceAfterMinor, round.sessionPk);
      return round;
    })();
  }

  /** A round left pending after its attempts: they are counted, the next try resends it. */
  countAttempts(pk: number, attempts: number): void {
    this.write();
    this.statements.addAttempts.run(attempts, pk);
  }

  round(pk: number): RoundRow {
    const row = this.statements.roundByPk.get(pk) as Row | undefined;
    assert.ok(row, `round ${pk} exists`);
    return roundOf(row);
  }

  pendingRounds(sessionPk: number): RoundRow[] {
    return (this.statements.pendingOfSession.all(sessionPk) as Row[]).map(roundOf);
  }

  /** Sessions holding a round pending since `createdBefore` or earlier, by pk after `afterPk`, a page at a time. */
  sessionsLeftPending(createdBefore: number, afterPk: number, limit: number): GameSessionRow[] {
    return (this.statements.sessionsLeftPending.all(createdBefore, afterPk, limit) as Row[]).map(sessionOf);
  }

  /** The session's latest rounds that were not refused, newest first. */
  recentRounds(sessionPk: number, limit: number): RoundRow[] {
    return (this.statements.recentOfSession.all(sessionPk, limit) as Row[]).map(roundOf);
  }

  /** The whole round log, newest first, a page at a time. */
  listRounds(limit: number, before?: number): RoundRow[] {
    return (this.statements.listRounds.all(before ?? Number.MAX_SAFE_INTEGER, limit) as Row[]).map(roundOf);
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
