/**
 * What a database migrated from plain seeds (provider migration 5,
 * sealed-seeds) still lacks, sealed on PostgreSQL a batch per transaction,
 * each row under a condition, so that nodes starting together each seal a
 * row once and a second start seals nothing.
 */
import type { Row, SeedSealing } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { int } from './rows.js';

/**
 * Rows one transaction of sealPlainSeeds seals: a few hundred statements,
 * well inside one call's deadline (callTimeoutMs) on a busy database.
 */
const SEAL_BATCH_MAX = 500;

export class PlainSeeds {
  constructor(private readonly database: ProviderDatabase) {}

  async sealPlainSeeds(seeds: SeedSealing): Promise<{ sessions: number; rounds: number }> {
    return { sessions: await this.sealSessions(seeds), rounds: await this.sealRounds(seeds) };
  }

  /** A batch per transaction: each call has its deadline (callTimeoutMs), and a large database has many sessions. */
  private async sealSessions(seeds: SeedSealing): Promise<number> {
    let sealed = 0;
    for (;;) {
      const batch = await this.database.transaction(async (dbTx) => {
        let sessions = 0;
        const rows = await dbTx<Row[]>`SELECT id, session_id, nonce FROM game_sessions WHERE server_seed_sealed IS NULL ORDER BY id LIMIT ${SEAL_BATCH_MAX}`;
        for (const row of rows) {
          const next = seeds.fresh(row.session_id as string, int(row.nonce));
          // Another node starting at the same time may have sealed it first: then this writes nothing.
          const written = await dbTx`UPDATE game_sessions SET server_seed_sealed = ${next.sealed}, server_seed_hash = ${next.hash}
            WHERE id = ${row.id as string} AND server_seed_sealed IS NULL`;
          sessions += written.count;
        }
        return { sessions, seen: rows.length };
      });
      sealed += batch.sessions;
      if (batch.seen < SEAL_BATCH_MAX) return sealed;
    }
  }

  private async sealRounds(seeds: SeedSealing): Promise<number> {
    let sealed = 0;
    for (;;) {
      const batch = await this.database.transaction(async (dbTx) => {
        let rounds = 0;
        const rows = await dbTx<Row[]>`SELECT id, round_id, server_seed FROM rounds
          WHERE kind = 'reels' AND server_seed IS NOT NULL AND free_spins_played < free_spins ORDER BY id LIMIT ${SEAL_BATCH_MAX}`;
        for (const row of rows) {
          const seed = row.server_seed as string;
          const written = await dbTx`UPDATE rounds SET server_seed_sealed = ${seeds.sealForRound(seed, row.round_id as string)}, server_seed = NULL
            WHERE id = ${row.id as string} AND server_seed = ${seed}`;
          rounds += written.count;
        }
        return { rounds, seen: rows.length };
      });
      sealed += batch.rounds;
      if (batch.seen < SEAL_BATCH_MAX) return sealed;
    }
  }
}
