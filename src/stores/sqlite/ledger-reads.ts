/**
 * The SQLite ledger's reads for the back office: a player's rounds and
 * transfers a page at a time, the players' list, the GGR report, and the
 * books (`verify`) when the database is in memory. They change nothing and
 * run on the writer's connection, in the order of its calls.
 */
import type Database from 'better-sqlite3';
import type { TransferKind } from '../../ledger/accounts.js';
import { checkCursor } from '../../ledger/rules.js';
import { ggrReport, pageOf, playerNotFound, playersPage, storedDecimals, transferView } from '../../ledger/views.js';
import type { Refusal } from '../../protocol/errors.js';
import type { GgrReport, GgrRequest, PageOf, PageRequest, PlayersPage, PlayersRequest, RoundView, TransferView, VerifyReport } from '../store.js';
import { DAY_MS } from '../store.js';
import { bytesToUuid } from '../uuid-bytes.js';
import { PLAYER_COLUMNS, storedPlayer, type LedgerRows } from './ledger-rows.js';
import { verifyLedger } from './verify-ledger.js';
import type { PlayerRow } from './wallet-memory.js';

/**
 * The GGR report's sums over a span of creation times [from, to): the range reads the transfers_by_time
 * index (migration 5); exported so that a test can ask SQLite for its plan.
 */
export const GGR = `SELECT t.created_at / ${DAY_MS} AS day, r.integration_id, r.game, p.currency,
    sum(CASE WHEN t.kind = 'bet' AND t.free_bet = 0 THEN t.amount ELSE 0 END) AS bets,
    sum(CASE WHEN t.kind = 'bet' AND t.free_bet <> 0 THEN t.amount ELSE 0 END) AS free_bets,
    sum(CASE WHEN t.kind = 'win' THEN t.amount ELSE 0 END) AS wins,
    count(DISTINCT t.round_pk) AS rounds
  FROM transfers t JOIN rounds r ON r.id = t.round_pk JOIN players p ON p.id = t.player_pk
  WHERE t.kind IN ('bet', 'win') AND t.created_at >= ? AND t.created_at < ? AND (? IS NULL OR r.integration_id = ?)
  GROUP BY day, r.integration_id, r.game, p.currency`;

export class LedgerReads {
  private readonly statements;

  constructor(private readonly rows: LedgerRows) {
    const prepare = (sql: string) => rows.db.prepare(sql);
    this.statements = {
      // Each filter is off when its parameter is null. The prefix also bounds the range from below,
      // so that the unique index on player_id starts there instead of at the first id.
      players: prepare(`SELECT ${PLAYER_COLUMNS} FROM players p JOIN accounts a ON a.id = p.account_id
        WHERE p.player_id > @after AND (@prefix IS NULL OR (p.player_id >= @prefix AND substr(p.player_id, 1, length(@prefix)) = @prefix))
          AND (@currency IS NULL OR p.currency = @currency) AND (@blocked IS NULL OR p.blocked = @blocked)
        ORDER BY p.player_id LIMIT @limit`),
      ggr: prepare(GGR),
      roundAt: prepare(`SELECT id, uuid, integration_id, game, finished, created_at, finished_at, player_pk, prev_player_round_id AS prev
        FROM rounds WHERE id = ?`),
      // A payout's tournament account names whose tournament it is; a bet's or win's round, whose game.
      transferAt: prepare(`SELECT t.id, t.uuid, t.kind, t.amount, t.jp_amount, t.free_bet, r.uuid AS round_uuid, r.game, r.integration_id,
        CASE WHEN t.kind = 'payout' THEN (SELECT ref FROM accounts WHERE id = t.debit_account_id) END AS tournament_ref,
        t.campaign_uuid, t.regulatory, t.created_at, t.player_pk, t.prev_player_transfer_id AS prev
        FROM transfers t LEFT JOIN rounds r ON r.id = t.round_pk WHERE t.id = ?`),
    };
  }

  listRounds(page: PageRequest): PageOf<RoundView> | Refusal {
    const row = this.rows.playerRow(page.playerId);
    if (!row) return playerNotFound(page.playerId);
    const rows = this.chainPage<{
      id: bigint;
      player_pk: bigint;
      prev: bigint | null;
      uuid: Buffer;
      integration_id: string;
      game: string;
      finished: bigint;
      created_at: bigint;
      finished_at: bigint | null;
    }>(this.statements.roundAt, row, row.last_round_id, page);
    if (!Array.isArray(rows)) return rows;
    return pageOf(rows, page.limit, (r) => ({
      roundId: bytesToUuid(r.uuid),
      integration: r.integration_id,
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
    return playersPage(rows.map(storedPlayer), page.limit, this.rows.currencies);
  }

  ggr(span: GgrRequest): GgrReport {
    const rows = this.statements.ggr.all(span.from, span.to, span.integration ?? null, span.integration ?? null) as {
      day: bigint;
      integration_id: string;
      game: string;
      currency: string;
      bets: bigint;
      free_bets: bigint;
      wins: bigint;
      rounds: bigint;
    }[];
    return ggrReport(
      rows.map((r) => ({
        day: Number(r.day),
        integration: r.integration_id,
        game: r.game,
        currency: r.currency,
        bets: r.bets,
        freeBets: r.free_bets,
        wins: r.wins,
        rounds: Number(r.rounds),
      })),
      this.rows.currencies,
    );
  }

  listTransfers(page: PageRequest): PageOf<TransferView> | Refusal {
    const row = this.rows.playerRow(page.playerId);
    if (!row) return playerNotFound(page.playerId);
    const decimals = storedDecimals(this.rows.currencies, row.currency);
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
      integration_id: string | null;
      tournament_ref: string | null;
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
          roundIntegration: r.integration_id,
          tournamentRef: r.tournament_ref,
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
    return verifyLedger(this.rows.db);
  }

  ping(): void {
    this.rows.db.prepare('SELECT 1').get();
  }
}
