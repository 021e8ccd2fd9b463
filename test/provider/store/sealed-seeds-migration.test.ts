/**
 * Proves the upgrade of a provider database that held server seeds in
 * plain text (version 4) on both backends: once opened by this version
 * (migration 5, sealed-seeds, then the store's sealing at start), no column
 * of any table holds a seed that was not yet revealed: each session's
 * plain next seed is gone and the session has a fresh sealed one, with a
 * new commitment (the old one ended: every copy of the database made
 * before held it); a reels round with free spins still to play keeps its
 * seed, sealed for the round, which opens to the seed it was committed
 * to; seeds already revealed (a dice round, a reels round played to its
 * end) stay as they were, for verification. Opening it again seals nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import postgres from 'postgres';
import { commitment } from '../../../src/game/fairness.js';
import { migrate as migrateSqlite } from '../../../src/platform/sqlite/migrate.js';
import { migrate as migratePostgres } from '../../../src/platform/postgres/migrate.js';
import { openDatabase } from '../../../src/platform/sqlite/open-database.js';
import { CURRENCIES } from '../../../src/protocol/money.js';
import { openRoundSeed, openSessionSeed, SeedKeyring, seedSealing } from '../../../src/provider/seed-keyring.js';
import { openProviderStore } from '../../../src/provider/store/open-provider-store.js';
import { POSTGRES_PROVIDER_MIGRATIONS } from '../../../src/provider/store/postgres/migrations.js';
import { PROVIDER_MIGRATIONS } from '../../../src/provider/store/sqlite/migrations.js';
import type { ProviderStore } from '../../../src/provider/store/provider-store.js';
import { tempDir } from '../../helpers.js';
import { freshSchema } from '../../stores/postgres-fixtures.js';
import { PROVIDER_STORE_BACKENDS, PROVIDER_TEST_POOL } from './backends.js';
import { everyValue, holding } from './database-scan.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const seed = () => randomBytes(32).toString('hex');

/** The rows a version-4 database held: two sessions' next seeds, a reels round in its feature, and two rounds whose seeds were revealed. */
function versionFourRows() {
  const ids = { diceSession: randomUUID(), reelsSession: randomUUID(), feature: randomUUID(), dice: randomUUID(), reelsDone: randomUUID() };
  const seeds = { diceNext: seed(), reelsNext: seed(), feature: seed(), dice: seed(), reelsDone: seed() };
  // A fresh database numbers the sessions 1 and 2, as the rounds name them.
  const session = (id: string, mode: string, game: string, next: string, nonce: number) =>
    `INSERT INTO game_sessions (session_id, launch_id, mode, operator_id, game, player_id, operator_session_id, currency, language, balance,
       server_seed, nonce, created_at, last_active_at)
     VALUES ('${id}', '${randomUUID()}', '${mode}', 'op', '${game}', ${mode === 'real' ? "'p-1'" : 'NULL'}, ${mode === 'real' ? `'${randomUUID()}'` : 'NULL'},
       'EUR', 'en', 10000, '${next}', ${nonce}, ${NOW}, ${NOW})`;
  const round = (id: string, sessionPk: number, kind: string, roundSeed: string, nonce: number, status: string, spins: [number, number] | null) =>
    `INSERT INTO rounds (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, chance_pct, threshold, roll,
       server_seed, server_seed_hash, client_seed, nonce, status, attempts, created_at, kind, reels_rtp_bp, reels_jackpot_bp, base_win, feature_win,
       jackpot_contribution, jackpot_seed, free_spins, free_spins_played, calls, calls_done)
     VALUES ('${id}', ${sessionPk}, 'fun', 'op', NULL, '${kind === 'dice' ? 'dice' : 'reels'}', 'EUR', 100, 0, 50, 5000, 7000,
       '${roundSeed}', '${commitment(roundSeed)}', 'c', ${nonce}, '${status}', 0, ${NOW}, '${kind}',
       ${spins ? '9600, 100, 0, 0, 1, 0' : 'NULL, NULL, NULL, NULL, NULL, NULL'}, ${spins ? `${spins[0]}, ${spins[1]}, 0, 0` : 'NULL, NULL, NULL, NULL'})`;
  const statements = [
    session(ids.diceSession, 'real', 'dice', seeds.diceNext, 3),
    session(ids.reelsSession, 'fun', 'reels', seeds.reelsNext, 2),
    round(ids.dice, 1, 'dice', seeds.dice, 2, 'settled', null),
    round(ids.reelsDone, 2, 'reels', seeds.reelsDone, 0, 'settled', [10, 10]),
    round(ids.feature, 2, 'reels', seeds.feature, 1, 'pending', [10, 3]),
  ];
  return { ids, seeds, statements };
}

/** A database at version 4 with those rows, on the backend: its `database` setting and how to drop it. */
async function versionFourDatabase(backend: string, statements: string[]): Promise<{ database: string; cleanup: () => Promise<void> }> {
  if (backend === 'sqlite') {
    const temp = tempDir('wagerlink-sealed-seeds-');
    const path = join(temp.dir, 'provider.db');
    const db = openDatabase(path);
    migrateSqlite(db, PROVIDER_MIGRATIONS.slice(0, 4));
    for (const statement of statements) db.exec(statement);
    db.close();
    return { database: path, cleanup: async () => temp.cleanup() };
  }
  const schema = await freshSchema('sealed_seeds');
  const sql = postgres(schema.url(), { max: 1, onnotice: () => {} });
  try {
    await migratePostgres(sql, POSTGRES_PROVIDER_MIGRATIONS.slice(0, 4));
    for (const statement of statements) await sql.unsafe(statement);
  } finally {
    await sql.end({ timeout: 5 });
  }
  return { database: schema.url(), cleanup: () => schema.drop() };
}

for (const backend of PROVIDER_STORE_BACKENDS) {
  describe(`the upgrade to sealed seeds: ${backend.name}`, { skip: backend.unavailable }, () => {
    const keyring = new SeedKeyring(new Map([['k1', randomBytes(32)]]), 'k1');
    const seeds = seedSealing(keyring, randomBytes);
    const rows = versionFourRows();
    let database: { database: string; cleanup: () => Promise<void> };
    let store: ProviderStore | undefined;

    before(async () => {
      database = await versionFourDatabase(backend.name, rows.statements);
    });
    after(async () => {
      await store?.close();
      await database?.cleanup();
    });

    test('no seed not yet revealed is left in any column; revealed ones stay; the round in its feature opens to its seed', async () => {
      store = await openProviderStore(database.database, { currencies: CURRENCIES, postgres: PROVIDER_TEST_POOL, seeds });
      const values = await everyValue(database.database);
      for (const [name, plain] of [
        ['the dice session', rows.seeds.diceNext],
        ['the reels session', rows.seeds.reelsNext],
        ['the round in its feature', rows.seeds.feature],
      ]) {
        assert.deepEqual(
          holding(values, plain!).map((one) => `${one.table}.${one.column}`),
          [],
          `${name}'s seed is in no column`,
        );
      }
      for (const [name, plain] of [
        ['the dice round', rows.seeds.dice],
        ['the finished reels round', rows.seeds.reelsDone],
      ]) {
        assert.deepEqual(
          holding(values, plain!).map((one) => `${one.table}.${one.column}`),
          ['rounds.server_seed'],
          `${name}'s revealed seed stays`,
        );
      }

      for (const [pk, old] of [
        [1, rows.seeds.diceNext],
        [2, rows.seeds.reelsNext],
      ] as const) {
        const session = await store.session(pk);
        const fresh = openSessionSeed(keyring, session);
        assert.equal(commitment(fresh), session.serverSeedHash);
        assert.notEqual(session.serverSeedHash, commitment(old), 'the old commitment ended: every earlier copy of the database held its seed');
      }
      const [feature] = await store.pendingRounds(2);
      assert.equal(feature?.roundId, rows.ids.feature);
      assert.equal(feature!.serverSeed, null);
      assert.equal(openRoundSeed(keyring, feature!), rows.seeds.feature, 'the round keeps the seed its draw was fixed with');
      assert.equal(feature!.serverSeedHash, commitment(rows.seeds.feature));

      assert.deepEqual(await store.sealPlainSeeds(seeds), { sessions: 0, rounds: 0 }, 'opened again, there is nothing left to seal');
      const versions = (await everyValue(database.database))
        .filter((one) => one.table === 'schema_migrations' && one.column === 'name')
        .map((one) => one.value);
      assert.ok(versions.includes('sealed-seeds'));
    });
  });
}
