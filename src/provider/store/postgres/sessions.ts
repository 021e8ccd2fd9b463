/**
 * The game sessions on PostgreSQL: a launch's session, opened once, reopened
 * with the operator's answer, touched; and what the round families do to a
 * session inside their own transactions (`readSession`, `setSessionBalance`).
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import type { GameSessionRow, NewSession, Row } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { sessionOf, type Querier } from './rows.js';

/** The session as the caller's transaction (or the pool) sees it now; it must exist. */
export async function readSession(db: Querier, pk: number): Promise<GameSessionRow> {
  const [row] = await db<Row[]>`SELECT * FROM game_sessions WHERE id = ${pk}`;
  assert.ok(row, `game session ${pk} exists`);
  return sessionOf(row);
}

/** A settled round's known balance is the session's: the operator's answer is the truth. Runs in the caller's database transaction. */
export async function setSessionBalance(dbTx: postgres.TransactionSql, pk: number, balanceMinor: bigint): Promise<void> {
  await dbTx`UPDATE game_sessions SET balance = ${balanceMinor.toString()} WHERE id = ${pk}`;
}

export class Sessions {
  constructor(private readonly database: ProviderDatabase) {}

  async sessionByLaunch(launchId: string): Promise<GameSessionRow | undefined> {
    const [row] = await this.database.read(this.database.sql<Row[]>`SELECT * FROM game_sessions WHERE launch_id = ${launchId}`);
    return row && sessionOf(row);
  }

  async session(pk: number): Promise<GameSessionRow> {
    return this.database.read(readSession(this.database.sql, pk));
  }

  async createSession(input: NewSession): Promise<GameSessionRow> {
    // The insert waits for a concurrent insert of the same launch and then does nothing; the read after it sees the row that won.
    const [created] = await this.database.write(this.database.sql<Row[]>`
      INSERT INTO game_sessions
        (session_id, launch_id, mode, operator_id, wallet_id, game, player_id, operator_session_id, currency, country, language, balance,
         server_seed_sealed, server_seed_hash, nonce, created_at, last_active_at)
      VALUES (${input.sessionId}, ${input.launchId}, ${input.mode}, ${input.operatorId}, ${input.walletId}, ${input.game}, ${input.playerId},
        ${input.operatorSessionId}, ${input.currency}, ${input.country}, ${input.language}, ${input.balanceMinor.toString()}, ${input.sealedSeed},
        ${input.serverSeedHash}, 0, ${input.now}, ${input.now})
      ON CONFLICT (launch_id) DO NOTHING
      RETURNING *`);
    if (created) return sessionOf(created);
    const found = await this.sessionByLaunch(input.launchId);
    assert.ok(found, 'the session of a launch exists after its insert');
    return found;
  }

  async reopenSession(pk: number, operatorSessionId: string | null, balanceMinor: bigint, now: number): Promise<GameSessionRow> {
    const [row] = await this.database.write(this.database.sql<Row[]>`
      UPDATE game_sessions SET operator_session_id = ${operatorSessionId}, balance = ${balanceMinor.toString()}, last_active_at = ${now}
      WHERE id = ${pk} RETURNING *`);
    assert.ok(row, `game session ${pk} exists`);
    return sessionOf(row);
  }

  async touchSession(pk: number, now: number): Promise<void> {
    await this.database.write(this.database.sql`UPDATE game_sessions SET last_active_at = ${now} WHERE id = ${pk}`);
  }
}
