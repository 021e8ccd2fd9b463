/**
 * The PostgreSQL ledger's reads for the back office: a player's rounds and
 * transfers a page at a time, the players' list, the GGR report, and the
 * books (`verify`). They change nothing; each is a statement or two on the
 * pool, outside any transaction.
 */
import type postgres from 'postgres';
import type { TransferKind } from '../../ledger/accounts.js';
import { checkCursor } from '../../ledger/rules.js';
import { ggrReport, pageOf, playerNotFound, playersPage, storedDecimals, transferView } from '../../ledger/views.js';
import type { Refusal } from '../../protocol/errors.js';
import type { GgrReport, GgrRequest, PageOf, PageRequest, PlayersPage, PlayersRequest, RoundView, TransferView, VerifyReport } from '../store.js';
import { DAY_MS } from '../store.js';
import { PLAYER_COLUMNS, storedPlayer, type Int8, type LedgerRows } from './ledger-rows.js';
import { verifyLedger } from './verify-ledger.js';
import type { PlayerRow } from './wallet-memory.js';

/** Row keys are signed 64-bit integers: the first page starts below the largest. */
const CURSOR_START = 2n ** 63n - 1n;

/**
 * The GGR report's sums over a span of creation times [$1, $2): the range reads the transfers_by_time
 * index (migration 4); exported so that a test can ask PostgreSQL for its plan.
 */
export const GGR = `SELECT t.created_at / ${DAY_MS}::bigint AS day, r.integration_id, r.game, p.currency,
    sum(CASE WHEN t.kind = 'bet' AND NOT t.free_bet THEN t.amount ELSE 0 END) AS bets,
    sum(CASE WHEN t.kind = 'bet' AND t.free_bet THEN t.amount ELSE 0 END) AS free_bets,
    sum(CASE WHEN t.kind = 'win' THEN t.amount ELSE 0 END) AS wins,
    count(DISTINCT t.round_pk) AS rounds
  FROM transfers t JOIN rounds r ON r.id = t.round_pk JOIN players p ON p.id = t.player_pk
  WHERE t.kind IN ('bet', 'win') AND t.created_at >= $1 AND t.created_at < $2 AND ($3::text IS NULL OR r.integration_id = $3)
  GROUP BY 1, r.integration_id, r.game, p.currency`;

export class LedgerReads {
  constructor(private readonly rows: LedgerRows) {}

  async listRounds(page: PageRequest): Promise<PageOf<RoundView> | Refusal> {
    const player = await this.rows.playerRow(this.rows.sql, page.playerId);
    if (!player) return playerNotFound(page.playerId);
    const refused = await this.checkCursor('rounds', player, page);
    if (refused) return refused;
    const rows = await this.rows.sql<
      { id: Int8; uuid: string; integration_id: string; game: string; finished: boolean; created_at: Int8; finished_at: Int8 | null }[]
    >`SELECT id, uuid, integration_id, game, finished, created_at, finished_at FROM rounds
      WHERE player_pk = ${player.player_pk} AND id < ${String(page.before ?? CURSOR_START)} ORDER BY id DESC LIMIT ${page.limit + 1}`;
    return pageOf(rows, page.limit, (r) => ({
      roundId: r.uuid,
      integration: r.integration_id,
      game: r.game,
      finished: r.finished,
      createdAt: Number(r.created_at),
      finishedAt: r.finished_at === null ? null : Number(r.finished_at),
    }));
  }

  async listPlayers(page: PlayersRequest): Promise<PlayersPage> {
    // Ids compare by code point ("C"), as SQLite's BINARY does, so that every backend pages in one order.
    // Each filter is off when its parameter is null; the prefix also bounds the range from below.
    const prefix = page.prefix ?? null;
    const blocked = page.blocked ?? null;
    const rows = await this.rows.sql<PlayerRow[]>`SELECT ${this.rows.sql.unsafe(PLAYER_COLUMNS)} FROM players p JOIN accounts a ON a.id = p.account_id
      WHERE p.player_id COLLATE "C" > ${page.after ?? ''}
        AND (${prefix}::text IS NULL OR (p.player_id COLLATE "C" >= ${prefix} AND left(p.player_id, length(${prefix})) = ${prefix}))
        AND (${page.currency ?? null}::text IS NULL OR p.currency = ${page.currency ?? null})
        AND (${blocked}::boolean IS NULL OR p.blocked = ${blocked})
      ORDER BY p.player_id COLLATE "C" LIMIT ${page.limit + 1}`;
    return playersPage(rows.map(storedPlayer), page.limit, this.rows.currencies);
  }

  async ggr(span: GgrRequest): Promise<GgrReport> {
    const rows = await this.rows.sql.unsafe<
      { day: Int8; integration_id: string; game: string; currency: string; bets: string; free_bets: string; wins: string; rounds: Int8 }[]
    >(GGR, [span.from, span.to, span.integration ?? null]);
    return ggrReport(
      rows.map((r) => ({
        day: Number(r.day),
        integration: r.integration_id,
        game: r.game,
        currency: r.currency,
        bets: BigInt(r.bets),
        freeBets: BigInt(r.free_bets),
        wins: BigInt(r.wins),
        rounds: Number(r.rounds),
      })),
      this.rows.currencies,
    );
  }

  /** The facts of a page's cursor, judged by the rule (rules.ts, checkCursor). */
  private async checkCursor(table: 'rounds' | 'transfers', player: PlayerRow, page: PageRequest): Promise<Refusal | undefined> {
    if (page.before === undefined) return undefined;
    const before = String(page.before);
    const [facts] = await this.rows.sql<{ names: boolean; newest: Int8 | null }[]>`SELECT
        EXISTS (SELECT 1 FROM ${this.rows.sql(table)} WHERE id = ${before} AND player_pk = ${player.player_pk}) AS names,
        (SELECT max(id) FROM ${this.rows.sql(table)} WHERE player_pk = ${player.player_pk}) AS newest`;
    return checkCursor(player.player_id, page.before, { namesPlayersRow: facts!.names, newest: facts!.newest === null ? null : BigInt(facts!.newest) });
  }

  async listTransfers(page: PageRequest): Promise<PageOf<TransferView> | Refusal> {
    const player = await this.rows.playerRow(this.rows.sql, page.playerId);
    if (!player) return playerNotFound(page.playerId);
    const refused = await this.checkCursor('transfers', player, page);
    if (refused) return refused;
    const decimals = storedDecimals(this.rows.currencies, player.currency);
    const rows = await this.rows.sql<
      {
        id: Int8;
        uuid: string;
        kind: TransferKind;
        amount: Int8;
        jp_amount: Int8;
        free_bet: boolean;
        round_uuid: string | null;
        game: string | null;
        integration_id: string | null;
        tournament_ref: string | null;
        campaign_uuid: string | null;
        regulatory: string | null;
        created_at: Int8;
      }[]
    >`SELECT t.id, t.uuid, t.kind, t.amount, t.jp_amount, t.free_bet, r.uuid AS round_uuid, r.game, r.integration_id,
        CASE WHEN t.kind = 'payout' THEN (SELECT ref FROM accounts WHERE id = t.debit_account_id) END AS tournament_ref,
        t.campaign_uuid, t.regulatory, t.created_at FROM transfers t LEFT JOIN rounds r ON r.id = t.round_pk
      WHERE t.player_pk = ${player.player_pk} AND t.id < ${String(page.before ?? CURSOR_START)} ORDER BY t.id DESC LIMIT ${page.limit + 1}`;
    return pageOf(rows, page.limit, (r) =>
      transferView(
        {
          id: r.uuid,
          kind: r.kind,
          amount: BigInt(r.amount),
          jpAmount: BigInt(r.jp_amount),
          freeBet: r.free_bet,
          roundId: r.round_uuid,
          roundIntegration: r.integration_id,
          tournamentRef: r.tournament_ref,
          game: r.game,
          campaignId: r.campaign_uuid,
          regulatory: r.regulatory,
          createdAt: Number(r.created_at),
        },
        decimals,
      ),
    );
  }

  /**
   * Proves the books on one snapshot while the wallet keeps running
   * (verify-ledger.ts). `sql`: the client to read through; the store gives a
   * verify a connection of its own.
   */
  async verify(sql: postgres.Sql = this.rows.sql): Promise<VerifyReport> {
    return verifyLedger(sql);
  }

  async ping(): Promise<void> {
    await this.rows.sql`SELECT 1`;
  }
}
