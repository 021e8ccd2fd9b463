/**
 * The game sessions on SQLite: a launch's session, opened once, reopened
 * with the operator's answer, touched; and what the round families do to a
 * session inside their own savepoints (`readSession`, `setSessionBalance`).
 */
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import type { GameSessionRow, NewSession, Row } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { perConnection, sessionOf } from './rows.js';

const shared = perConnection((db) => ({
  sessionByPk: db.prepare('SELECT * FROM game_sessions WHERE id = ?'),
  setBalance: db.prepare('UPDATE game_sessions SET balance = ? WHERE id = ?'),
}));

/** The session as this connection sees it now (the open turn's writes included); it must exist. */
export function readSession(db: Database.Database, pk: number): GameSessionRow {
  const row = shared(db).sessionByPk.get(pk) as Row | undefined;
  assert.ok(row, `game session ${pk} exists`);
  return sessionOf(row);
}

/** A settled round's known balance is the session's: the operator's answer is the truth. Runs in the caller's database transaction. */
export function setSessionBalance(db: Database.Database, pk: number, balanceMinor: bigint): void {
  shared(db).setBalance.run(balanceMinor, pk);
}

export class Sessions {
  private readonly statements;

  constructor(private readonly database: ProviderDatabase) {
    const { db } = database;
    this.statements = {
      sessionByLaunch: db.prepare('SELECT * FROM game_sessions WHERE launch_id = ?'),
      insertSession: db.prepare(`INSERT INTO game_sessions
        (session_id, launch_id, mode, operator_id, wallet_id, game, player_id, operator_session_id, currency, country, language, balance,
         server_seed_sealed, server_seed_hash, nonce, created_at, last_active_at)
        VALUES (@sessionId, @launchId, @mode, @operatorId, @walletId, @game, @playerId, @operatorSessionId, @currency, @country, @language, @balanceMinor,
         @sealedSeed, @serverSeedHash, 0, @now, @now)
        ON CONFLICT (launch_id) DO NOTHING`),
      reopenSession: db.prepare('UPDATE game_sessions SET operator_session_id = ?, balance = ?, last_active_at = ? WHERE id = ?'),
      touchSession: db.prepare('UPDATE game_sessions SET last_active_at = ? WHERE id = ?'),
    };
  }

  async sessionByLaunch(launchId: string): Promise<GameSessionRow | undefined> {
    return this.ofLaunch(launchId);
  }

  async session(pk: number): Promise<GameSessionRow> {
    return readSession(this.database.db, pk);
  }

  async createSession(input: NewSession): Promise<GameSessionRow> {
    this.database.write();
    // The insert and the read are one synchronous step: a session already there for the launch is answered.
    this.statements.insertSession.run({ ...input });
    const created = this.ofLaunch(input.launchId);
    assert.ok(created, 'the session of a launch exists after its insert');
    return created;
  }

  async reopenSession(pk: number, operatorSessionId: string | null, balanceMinor: bigint, now: number): Promise<GameSessionRow> {
    this.database.write();
    this.statements.reopenSession.run(operatorSessionId, balanceMinor, now, pk);
    return readSession(this.database.db, pk);
  }

  async touchSession(pk: number, now: number): Promise<void> {
    this.database.write();
    this.statements.touchSession.run(now, pk);
  }

  private ofLaunch(launchId: string): GameSessionRow | undefined {
    const row = this.statements.sessionByLaunch.get(launchId) as Row | undefined;
    return row && sessionOf(row);
  }
}
