/**
 * The game sessions' statements on SQLite: a launch's session, its balance,
 * and its seed advanced once per round under a condition on its nonce.
 * Prepared once, when the store opens; provider-store.ts runs them in its
 * turns.
 */
import type Database from 'better-sqlite3';
import { prepared } from './rows.js';

export function sessionStatements(db: Database.Database) {
  return prepared({
    sessionByLaunch: db.prepare('SELECT * FROM game_sessions WHERE launch_id = ?'),
    sessionByPk: db.prepare('SELECT * FROM game_sessions WHERE id = ?'),
    insertSession: db.prepare(`INSERT INTO game_sessions
      (session_id, launch_id, mode, operator_id, wallet_id, game, player_id, operator_session_id, currency, country, language, balance,
       server_seed_sealed, server_seed_hash, nonce, created_at, last_active_at)
      VALUES (@sessionId, @launchId, @mode, @operatorId, @walletId, @game, @playerId, @operatorSessionId, @currency, @country, @language, @balanceMinor,
       @sealedSeed, @serverSeedHash, 0, @now, @now)
      ON CONFLICT (launch_id) DO NOTHING`),
    reopenSession: db.prepare('UPDATE game_sessions SET operator_session_id = ?, balance = ?, last_active_at = ? WHERE id = ?'),
    touchSession: db.prepare('UPDATE game_sessions SET last_active_at = ? WHERE id = ?'),
    setBalance: db.prepare('UPDATE game_sessions SET balance = ? WHERE id = ?'),
    advanceSeed: db.prepare(
      'UPDATE game_sessions SET server_seed_sealed = ?, server_seed_hash = ?, nonce = nonce + 1, last_active_at = ? WHERE id = ? AND nonce = ?',
    ),
    funMove: db.prepare(`UPDATE game_sessions SET balance = balance - ? + ?, server_seed_sealed = ?, server_seed_hash = ?, nonce = nonce + 1, last_active_at = ?
      WHERE id = ? AND nonce = ? AND balance >= ?`),
    sessionsUnsealed: db.prepare('SELECT id, session_id, nonce FROM game_sessions WHERE server_seed_sealed IS NULL ORDER BY id'),
    sealSession: db.prepare('UPDATE game_sessions SET server_seed_sealed = ?, server_seed_hash = ? WHERE id = ? AND server_seed_sealed IS NULL'),
    funFeaturePaid: db.prepare('UPDATE game_sessions SET balance = balance + ?, last_active_at = ? WHERE id = ?'),
  });
}
