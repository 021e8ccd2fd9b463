/**
 * What a PostgreSQL node remembers of the wallets it has served, so that a
 * batch of bets whose players it knows is planned without reading anything
 * and written in one statement, one round trip (ledger-transfers.ts, the
 * remembered path).
 *
 * Memory is never a source of truth. Each remembered player carries the
 * `version` of its wallet row (migration 2): every write that changes what
 * is remembered here (a balance, a block, a round opened or closed, a
 * session's activity) happens under that row's lock and adds one to it. A
 * batch planned from memory writes a player only where the row still holds
 * the version remembered, checked by the UPDATE that takes the row's lock,
 * so a player changed by another node, the back office or a batch that
 * failed half-way is found stale and read again, never written from a stale
 * plan. Ids and round ids that memory does not hold are taken to be new, and
 * the unique indexes refuse them when they are not.
 *
 * What each entry holds is true at its version; what it lacks is unknown:
 * an open round or a session that is not listed must be read. Pure: no I/O.
 *
 * SQLite's store has a file of the same name for the same job
 * (sqlite/wallet-memory.ts), without versions: there the writer's
 * connection is the database's only writer, so it forgets everything when
 * another connection commits instead of checking each row as it writes.
 */

/** int8 columns arrive as decimal text (postgres.js keeps them exact). */
type Int8 = string;

/** The wallet row and player columns a bet is planned from, as the ledger reads them. */
export interface PlayerRow {
  player_pk: Int8;
  player_id: string;
  currency: string;
  country: string | null;
  blocked: boolean;
  account_id: Int8;
  balance: Int8;
  /** The wallet row's version (migration 2). */
  version: Int8;
}

/** A session row with its player's columns, as the batch read returns it. */
export interface SessionRow extends PlayerRow {
  uuid: string;
  session_pk: Int8;
  game: string;
  last_active_at: Int8;
  /** The integration that opened the session (docs/protocol.md §2.6); it never changes. */
  integration_id: string;
}

/** A round that is not finished, as the batch read returns it. */
export interface RoundRow {
  uuid: string;
  id: Int8;
  player_id: string;
  game: string;
  finished: boolean;
  /** The integration whose call opened it (migration 9). */
  integration_id: string;
}

interface RememberedPlayer {
  row: PlayerRow;
  /** Sessions of the player whose last activity is known at this version, by uuid. */
  sessions: Map<string, { session_pk: Int8; game: string; last_active_at: Int8; integration_id: string }>;
  /** Rounds of the player known to be open at this version, by uuid. */
  openRounds: Map<string, RoundRow>;
}

/** What a batch changed for one player, to be remembered once it has committed. */
export interface PlayerChange {
  /** The version the batch found (and wrote one above). */
  version: Int8;
  balance: Int8;
  touched: { session: string; at: number }[];
  opened: RoundRow[];
  closed: string[];
}

/**
 * Players (and sessions) remembered at most; past this memory starts again
 * empty: a bound on memory (about 1 KiB a player), not a tuning knob.
 */
export const REMEMBERED_PLAYERS_MAX = 100_000;
/** Open rounds remembered per player at most; past this the player's are forgotten (they are read again). */
export const OPEN_ROUNDS_PER_PLAYER_MAX = 1_000;
/**
 * A player found stale (written elsewhere since it was remembered) is read
 * for every batch during this long (ms), instead of each batch trying memory
 * and losing: with several nodes serving the same players in turn, memory is
 * stale more often than not. 10 s: a few hundred batches.
 */
export const CONTENDED_MS = 10_000;

export class WalletMemory {
  private readonly players = new Map<Int8, RememberedPlayer>();
  /** Session uuid to its player: a session never changes player. */
  private readonly sessionPlayers = new Map<string, Int8>();
  /** Players of the batches in flight, with how many batches hold each. */
  private readonly busy = new Map<Int8, number>();
  private readonly contendedUntil = new Map<Int8, number>();

  /**
   * The session row to plan a bet from, and the player's open rounds, when
   * both are known and no batch in flight holds the player; undefined otherwise.
   */
  recall(session: string, now: number): { row: SessionRow; openRounds: ReadonlyMap<string, RoundRow> } | undefined {
    const playerPk = this.sessionPlayers.get(session);
    if (playerPk === undefined || this.busy.has(playerPk)) return undefined;
    const player = this.players.get(playerPk);
    const known = player?.sessions.get(session);
    if (!player || !known) return undefined;
    const until = this.contendedUntil.get(playerPk);
    if (until !== undefined) {
      if (now < until) return undefined;
      this.contendedUntil.delete(playerPk);
    }
    return { row: { ...player.row, uuid: session, ...known }, openRounds: player.openRounds };
  }

  /**
   * A player as a batch read it under the row's lock. An entry at the same
   * version stays, with this session and these open rounds added: both are
   * true at that version; an older one is replaced.
   */
  learn(row: SessionRow, openRounds: readonly RoundRow[]): void {
    if (this.sessionPlayers.size >= REMEMBERED_PLAYERS_MAX) this.forgetAll();
    this.sessionPlayers.set(row.uuid, row.player_pk);
    let player = this.players.get(row.player_pk);
    if (player && BigInt(player.row.version) > BigInt(row.version)) return;
    if (!player || player.row.version !== row.version) {
      if (!player && this.players.size >= REMEMBERED_PLAYERS_MAX) this.forgetAll();
      const { uuid: _uuid, session_pk: _pk, game: _game, last_active_at: _at, integration_id: _integration, ...playerColumns } = row;
      player = { row: playerColumns, sessions: new Map(), openRounds: new Map() };
      this.players.set(row.player_pk, player);
    }
    player.sessions.set(row.uuid, { session_pk: row.session_pk, game: row.game, last_active_at: row.last_active_at, integration_id: row.integration_id });
    for (const round of openRounds) this.keepRound(player, round);
  }

  /**
   * What a committed batch changed: the player moves to the next version.
   * An entry that is not at the version the batch found is dropped, as it
   * can no longer be vouched for.
   */
  changed(playerPk: Int8, change: PlayerChange): void {
    const player = this.players.get(playerPk);
    if (!player) return;
    if (player.row.version !== change.version) {
      this.forget(playerPk);
      return;
    }
    player.row = { ...player.row, balance: change.balance, version: String(BigInt(change.version) + 1n) };
    for (const { session, at } of change.touched) {
      const known = player.sessions.get(session);
      if (known) known.last_active_at = String(at);
    }
    for (const round of change.closed) player.openRounds.delete(round);
    for (const round of change.opened) this.keepRound(player, round);
  }

  forget(playerPk: Int8): void {
    this.players.delete(playerPk);
  }

  /** A player written elsewhere since it was remembered: forgotten, and read for a while (CONTENDED_MS). */
  contended(playerPk: Int8, now: number): void {
    this.forget(playerPk);
    if (this.contendedUntil.size >= REMEMBERED_PLAYERS_MAX) this.contendedUntil.clear();
    this.contendedUntil.set(playerPk, now + CONTENDED_MS);
  }

  /**
   * Runs the version-checked write of a batch planned from memory of these
   * players (ledger-rows.ts, `write`) while holding them: no other batch
   * recalls them until it has settled, so none plans from a copy that the
   * write is about to move. Released however the write ends.
   */
  async whileWriting<T>(playerPks: readonly Int8[], write: () => Promise<T>): Promise<T> {
    this.hold(playerPks);
    try {
      return await write();
    } finally {
      this.release(playerPks);
    }
  }

  /** Marks players as held by a batch in flight: memory of them is not used until it settles. */
  hold(playerPks: Iterable<Int8>): void {
    for (const pk of playerPks) this.busy.set(pk, (this.busy.get(pk) ?? 0) + 1);
  }

  release(playerPks: Iterable<Int8>): void {
    for (const pk of playerPks) {
      const count = this.busy.get(pk) ?? 0;
      if (count <= 1) this.busy.delete(pk);
      else this.busy.set(pk, count - 1);
    }
  }

  forgetAll(): void {
    this.players.clear();
    this.sessionPlayers.clear();
  }

  private keepRound(player: RememberedPlayer, round: RoundRow): void {
    if (round.finished) return;
    if (player.openRounds.size >= OPEN_ROUNDS_PER_PLAYER_MAX) player.openRounds.clear();
    player.openRounds.set(round.uuid, round);
  }
}
