/**
 * What a database migrated from plain seeds (provider migration 5,
 * sealed-seeds) still lacks, sealed on SQLite in one savepoint, each row
 * under a condition, so that a second start seals nothing.
 */
import type { Row, SeedSealing } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { num } from './rows.js';

export class PlainSeeds {
  private readonly statements;

  constructor(private readonly database: ProviderDatabase) {
    const { db } = database;
    this.statements = {
      sessionsUnsealed: db.prepare('SELECT id, session_id, nonce FROM game_sessions WHERE server_seed_sealed IS NULL ORDER BY id'),
      sealSession: db.prepare('UPDATE game_sessions SET server_seed_sealed = ?, server_seed_hash = ? WHERE id = ? AND server_seed_sealed IS NULL'),
      roundsUnsealed: db.prepare(
        "SELECT id, round_id, server_seed FROM rounds WHERE kind = 'reels' AND server_seed IS NOT NULL AND free_spins_played < free_spins ORDER BY id",
      ),
      sealRound: db.prepare('UPDATE rounds SET server_seed_sealed = ?, server_seed = NULL WHERE id = ? AND server_seed = ?'),
    };
  }

  async sealPlainSeeds(seeds: SeedSealing): Promise<{ sessions: number; rounds: number }> {
    return this.database.savepoint(() => {
      let sessions = 0;
      let rounds = 0;
      for (const row of this.statements.sessionsUnsealed.all() as Row[]) {
        const next = seeds.fresh(row.session_id as string, num(row.nonce));
        sessions += this.statements.sealSession.run(next.sealed, next.hash, row.id).changes;
      }
      for (const row of this.statements.roundsUnsealed.all() as Row[]) {
        const seed = row.server_seed as string;
        rounds += this.statements.sealRound.run(seeds.sealForRound(seed, row.round_id as string), row.id, seed).changes;
      }
      return { sessions, rounds };
    });
  }
}
