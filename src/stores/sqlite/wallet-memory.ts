/**
 * What the SQLite writer keeps in memory between bets, so that a bet reads
 * no row before it writes: each session's player row (balance, chain heads,
 * blocked), and the rounds it saw left open. (Its ids it looks up in the id
 * indexes, id-index.ts.)
 *
 * It is a copy of committed rows, never a source of truth, and it is right
 * only while this connection is the database's only writer. The ledger
 * reaches it only through this class's operations, and the rows it hands
 * out are read-only to the ledger, so its rules hold here:
 * - a kept row changes only through `wrote` and `touched`, which the ledger
 *   calls after the write they copy went in (the wallet's after reading its
 *   balance back), and the batch writer forgets everything when a call or a
 *   commit fails (ledger-rows.ts, forgetCache);
 * - the ledger forgets a player or a session when a back-office call changes
 *   it by another path (an adjustment, a block, a reload);
 * - the batch writer forgets everything when `PRAGMA data_version` shows that
 *   another connection committed (another process, or the CLI beside the server).
 *
 * PostgreSQL's store has a file of the same name for the same job
 * (postgres/wallet-memory.ts), built differently because there this
 * connection is not the only writer: each player it keeps carries its
 * wallet row's version, and a write from memory goes through only where the
 * row still holds it. Here nothing is versioned: one writer needs no check.
 */

/** The player row a bet needs, as the ledger reads it (ledger-rows.ts). */
export interface PlayerRow {
  readonly player_pk: bigint;
  readonly player_id: string;
  readonly currency: string;
  readonly country: string | null;
  readonly blocked: bigint;
  readonly account_id: bigint;
  readonly balance: bigint;
  /** Heads of the player's transfer and round chains (migration 2). */
  readonly last_transfer_id: bigint | null;
  readonly last_round_id: bigint | null;
}

export interface SessionRow {
  readonly session_pk: bigint;
  readonly game: string;
  readonly last_active_at: bigint;
  /** The integration that opened the session (docs/protocol.md §2.6); it never changes. */
  readonly integration_id: string;
}

/**
 * The rows are read-only to everyone but this class: a kept row changes
 * only through `wrote` and `touched`, after the write it copies went in.
 */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** A session with its player: the player object is shared by all of the player's sessions. */
export interface SessionAt {
  session: SessionRow;
  player: PlayerRow;
}

/** A round as the ledger reads it; memory keeps only open ones (finished false), the only rounds that take more transactions. */
export interface RoundRow {
  id: bigint;
  player_id: string;
  game: string;
  finished: boolean;
  /** The integration whose call opened it (migration 10). */
  integration_id: string;
}

/** Sessions (and players) remembered at most; past this memory starts again empty. A bound on memory (under 1 KiB each), not a tuning knob. */
export const REMEMBERED_SESSIONS_MAX = 100_000;
/** Open rounds kept; past this the cache starts again empty. Rounds not kept are read from the database. */
export const OPEN_ROUNDS_MAX = 100_000;

export class WalletMemory {
  private readonly sessions = new Map<string, { session: SessionRow; playerPk: bigint }>();
  private readonly players = new Map<bigint, PlayerRow>();
  private readonly rounds = new Map<string, RoundRow>();

  /** `sessionKey`, `roundKey`: canonical UUID text. */
  session(sessionKey: string): SessionAt | undefined {
    const kept = this.sessions.get(sessionKey);
    const player = kept && this.players.get(kept.playerPk);
    return player && { session: kept.session, player };
  }

  keepSession(sessionKey: string, at: SessionAt): SessionAt {
    if (this.sessions.size >= REMEMBERED_SESSIONS_MAX || this.players.size >= REMEMBERED_SESSIONS_MAX) this.forgetAll();
    this.sessions.set(sessionKey, { session: at.session, playerPk: at.player.player_pk });
    this.players.set(at.player.player_pk, at.player);
    return at;
  }

  /**
   * A wallet write went in (ledger-rows.ts, moveWallet, after reading the
   * balance back): the player row the ledger planned from follows it. The
   * only place a kept player row changes; a row read outside memory (the
   * back office's) changes alike and is forgotten by its caller.
   */
  wrote(player: PlayerRow, written: { balance: bigint; lastTransferId: bigint; lastRoundId: bigint | null }): void {
    const row = player as Writable<PlayerRow>;
    row.balance = written.balance;
    row.last_transfer_id = written.lastTransferId;
    row.last_round_id = written.lastRoundId;
  }

  /** A session's activity was written (at epoch ms): the kept session follows it. */
  touched(session: SessionRow, at: number): void {
    (session as Writable<SessionRow>).last_active_at = BigInt(at);
  }

  forgetSession(sessionKey: string): void {
    this.sessions.delete(sessionKey);
  }

  forgetPlayer(playerPk: bigint): void {
    this.players.delete(playerPk);
  }

  openRound(roundKey: string): RoundRow | undefined {
    return this.rounds.get(roundKey);
  }

  keepOpenRound(roundKey: string, round: RoundRow): void {
    if (this.rounds.size >= OPEN_ROUNDS_MAX) this.rounds.clear();
    this.rounds.set(roundKey, round);
  }

  forgetRound(roundKey: string): void {
    this.rounds.delete(roundKey);
  }

  forgetAll(): void {
    this.sessions.clear();
    this.players.clear();
    this.rounds.clear();
  }
}
