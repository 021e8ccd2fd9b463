/**
 * The round log's reads on SQLite: a round, a session's pending, recent
 * and named rounds, the back office's listing within a staff account's
 * scope, the features left unfinished, a reels round's calls and a jackpot
 * pool. They see the open turn's writes, as the contract allows.
 */
import type { Row, RoundCallRow, RoundRow } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { callsWhere, readRound, roundsWhere } from './rounds.js';
import { callOf, IN_SCOPE, roundOf, scopeOf } from './rows.js';

export class RoundReads {
  private readonly statements;

  constructor(private readonly database: ProviderDatabase) {
    const { db } = database;
    this.statements = {
      pendingOfSession: roundsWhere(db, "WHERE r.session_pk = ? AND r.status = 'pending' ORDER BY r.id"),
      recentOfSession: roundsWhere(db, "WHERE r.session_pk = ? AND r.status <> 'refused' ORDER BY r.id DESC LIMIT ?"),
      roundOfSession: roundsWhere(db, "WHERE r.session_pk = ? AND r.round_id = ? AND r.status <> 'refused'"),
      // A scope is a JSON array of operator ids, or NULL for all (a staff account's, access/staff.ts).
      listRounds: roundsWhere(db, `WHERE r.id < ? AND ${IN_SCOPE('r')} ORDER BY r.id DESC LIMIT ?`),
      unfinishedFeatures: roundsWhere(
        db,
        "WHERE r.kind = 'reels' AND r.status = 'pending' AND r.free_spins_played < r.free_spins AND r.created_at <= ? ORDER BY r.created_at, r.id LIMIT ?",
      ),
      callsOfRound: callsWhere(db, 'WHERE c.round_pk = ? ORDER BY c.call_index'),
      poolAmount: db.prepare('SELECT amount FROM jackpot_pools WHERE operator_id = ? AND game = ? AND currency = ?').pluck(),
    };
  }

  async round(pk: number): Promise<RoundRow> {
    return readRound(this.database.db, pk);
  }

  async pendingRounds(sessionPk: number): Promise<RoundRow[]> {
    return (this.statements.pendingOfSession.all(sessionPk) as Row[]).map(roundOf);
  }

  async recentRounds(sessionPk: number, limit: number): Promise<RoundRow[]> {
    return (this.statements.recentOfSession.all(sessionPk, limit) as Row[]).map(roundOf);
  }

  async sessionRound(sessionPk: number, roundId: string): Promise<RoundRow | undefined> {
    const row = this.statements.roundOfSession.get(sessionPk, roundId) as Row | undefined;
    return row === undefined ? undefined : roundOf(row);
  }

  async listRounds(limit: number, before?: number, operators: readonly string[] | null = null): Promise<RoundRow[]> {
    const scope = scopeOf(operators);
    return (this.statements.listRounds.all(before ?? Number.MAX_SAFE_INTEGER, scope, scope, limit) as Row[]).map(roundOf);
  }

  async unfinishedFeatures(startedBefore: number, limit: number): Promise<RoundRow[]> {
    return (this.statements.unfinishedFeatures.all(startedBefore, limit) as Row[]).map(roundOf);
  }

  async roundCalls(roundPk: number): Promise<RoundCallRow[]> {
    return (this.statements.callsOfRound.all(roundPk) as Row[]).map(callOf);
  }

  async jackpotPool(operatorId: string, game: string, currency: string, seedMinor: bigint): Promise<bigint> {
    return (this.statements.poolAmount.get(operatorId, game, currency) as bigint | undefined) ?? seedMinor;
  }
}
