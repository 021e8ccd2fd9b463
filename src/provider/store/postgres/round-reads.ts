/**
 * The round log's reads on PostgreSQL: a round, a session's pending,
 * recent and named rounds, the back office's listing within a staff
 * account's scope, the features left unfinished, a reels round's calls and
 * a jackpot pool. They see what is committed, on any node.
 */
import type { Row, RoundCallRow, RoundRow } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { callsSelect, readRound, roundsSelect } from './rounds.js';
import { callOf, inScope, money, roundOf } from './rows.js';

export class RoundReads {
  constructor(private readonly database: ProviderDatabase) {}

  async round(pk: number): Promise<RoundRow> {
    return this.database.read(readRound(this.database.sql, pk));
  }

  async pendingRounds(sessionPk: number): Promise<RoundRow[]> {
    const { sql } = this.database;
    const rows = await this.database.read(sql<Row[]>`${roundsSelect(sql)} WHERE r.session_pk = ${sessionPk} AND r.status = 'pending' ORDER BY r.id`);
    return rows.map(roundOf);
  }

  async recentRounds(sessionPk: number, limit: number): Promise<RoundRow[]> {
    const { sql } = this.database;
    const rows = await this.database.read(
      sql<Row[]>`${roundsSelect(sql)} WHERE r.session_pk = ${sessionPk} AND r.status <> 'refused' ORDER BY r.id DESC LIMIT ${limit}`,
    );
    return rows.map(roundOf);
  }

  async sessionRound(sessionPk: number, roundId: string): Promise<RoundRow | undefined> {
    const { sql } = this.database;
    const [row] = await this.database.read(
      sql<Row[]>`${roundsSelect(sql)} WHERE r.session_pk = ${sessionPk} AND r.round_id = ${roundId} AND r.status <> 'refused'`,
    );
    return row === undefined ? undefined : roundOf(row);
  }

  async listRounds(limit: number, before?: number, operators: readonly string[] | null = null): Promise<RoundRow[]> {
    const { sql } = this.database;
    const rows = await this.database.read(
      sql<Row[]>`${roundsSelect(sql)} WHERE r.id < ${before ?? Number.MAX_SAFE_INTEGER} AND ${inScope(sql, 'r', operators)} ORDER BY r.id DESC LIMIT ${limit}`,
    );
    return rows.map(roundOf);
  }

  async unfinishedFeatures(startedBefore: number, limit: number): Promise<RoundRow[]> {
    const { sql } = this.database;
    const rows = await this.database.read(sql<Row[]>`${roundsSelect(sql)}
      WHERE r.kind = 'reels' AND r.status = 'pending' AND r.free_spins_played < r.free_spins AND r.created_at <= ${startedBefore}
      ORDER BY r.created_at, r.id LIMIT ${limit}`);
    return rows.map(roundOf);
  }

  async roundCalls(roundPk: number): Promise<RoundCallRow[]> {
    const { sql } = this.database;
    const rows = await this.database.read(sql<Row[]>`${callsSelect(sql)} WHERE c.round_pk = ${roundPk} ORDER BY c.call_index`);
    return rows.map(callOf);
  }

  async jackpotPool(operatorId: string, game: string, currency: string, seedMinor: bigint): Promise<bigint> {
    const [row] = await this.database.read(
      this.database.sql<Row[]>`SELECT amount FROM jackpot_pools WHERE operator_id = ${operatorId} AND game = ${game} AND currency = ${currency}`,
    );
    return row === undefined ? seedMinor : money(row.amount);
  }
}
