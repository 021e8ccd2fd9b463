/**
 * Proves the rules of each backend's wallet memory on its own, without a
 * database (wallet-memory.ts in sqlite/ and postgres/): what is kept is
 * handed back only as it was kept or as the wrapper's own operations moved
 * it, and what is forgotten (a player, a session, everything) is never
 * handed back again; PostgreSQL's is held while its version-checked write
 * is in flight, however that write ends. The memory's use by the ledgers
 * through two connections or nodes is proved by sqlite-wallet-memory and
 * postgres-wallet-memory.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  OPEN_ROUNDS_MAX,
  REMEMBERED_SESSIONS_MAX,
  WalletMemory as SqliteMemory,
  type PlayerRow,
  type SessionAt,
} from '../../src/stores/sqlite/wallet-memory.js';
import { WalletMemory as PostgresMemory, type SessionRow } from '../../src/stores/postgres/wallet-memory.js';

const NOW = 1_780_000_000_000;

function player(pk: bigint, overrides: Partial<PlayerRow> = {}): PlayerRow {
  return {
    player_pk: pk,
    player_id: `p-${pk}`,
    currency: 'EUR',
    country: null,
    blocked: 0n,
    account_id: pk * 10n,
    balance: 1_000n,
    last_transfer_id: null,
    last_round_id: null,
    ...overrides,
  };
}

function sessionAt(pk: bigint, row: PlayerRow = player(pk)): SessionAt {
  return { session: { session_pk: pk * 100n, game: 'dice', last_active_at: BigInt(NOW), integration_id: 'default' }, player: row };
}

describe('sqlite wallet memory', () => {
  test('a kept session is handed back with its player; an unknown one is not', () => {
    const memory = new SqliteMemory();
    assert.equal(memory.session('s-1'), undefined);
    const kept = memory.keepSession('s-1', sessionAt(7n));
    assert.equal(memory.session('s-1')?.player, kept.player);
    assert.equal(memory.session('s-2'), undefined);
  });

  test("a wallet write and a session's activity move the kept rows, and every session of the player sees the write", () => {
    const memory = new SqliteMemory();
    const row = player(7n);
    memory.keepSession('s-1', sessionAt(7n, row));
    memory.keepSession('s-2', { session: { session_pk: 701n, game: 'dice', last_active_at: BigInt(NOW), integration_id: 'default' }, player: row });
    memory.wrote(memory.session('s-1')!.player, { balance: 900n, lastTransferId: 41n, lastRoundId: 5n });
    memory.touched(memory.session('s-1')!.session, NOW + 2_000);
    const other = memory.session('s-2')!;
    assert.deepEqual([other.player.balance, other.player.last_transfer_id, other.player.last_round_id], [900n, 41n, 5n]);
    assert.equal(memory.session('s-1')!.session.last_active_at, BigInt(NOW + 2_000));
    assert.equal(other.session.last_active_at, BigInt(NOW), "another session's activity is its own");
  });

  test('a forgotten player is not handed back through any of its sessions; a forgotten session only itself', () => {
    const memory = new SqliteMemory();
    memory.keepSession('s-1', sessionAt(7n));
    memory.keepSession('s-2', sessionAt(8n));
    memory.forgetPlayer(7n);
    assert.equal(memory.session('s-1'), undefined);
    assert.ok(memory.session('s-2'));
    memory.forgetSession('s-2');
    assert.equal(memory.session('s-2'), undefined);
  });

  test('open rounds are kept until closed; forgetAll forgets sessions, players and rounds', () => {
    const memory = new SqliteMemory();
    memory.keepSession('s-1', sessionAt(7n));
    memory.keepOpenRound('r-1', { id: 3n, player_id: 'p-7', game: 'dice', finished: false, integration_id: 'default' });
    assert.equal(memory.openRound('r-1')?.id, 3n);
    memory.forgetRound('r-1');
    assert.equal(memory.openRound('r-1'), undefined);
    memory.keepOpenRound('r-2', { id: 4n, player_id: 'p-7', game: 'dice', finished: false, integration_id: 'default' });
    memory.forgetAll();
    assert.equal(memory.session('s-1'), undefined);
    assert.equal(memory.openRound('r-2'), undefined);
  });

  test('past its bounds memory starts again empty, never larger', () => {
    const memory = new SqliteMemory();
    for (let i = 0; i < REMEMBERED_SESSIONS_MAX; i++) memory.keepSession(`s-${i}`, sessionAt(BigInt(i)));
    assert.ok(memory.session('s-0'));
    memory.keepSession('s-last', sessionAt(-1n));
    assert.equal(memory.session('s-0'), undefined, 'the first one kept is gone');
    assert.ok(memory.session('s-last'));
    for (let i = 0; i < OPEN_ROUNDS_MAX; i++)
      memory.keepOpenRound(`r-${i}`, { id: BigInt(i), player_id: 'p', game: 'dice', finished: false, integration_id: 'default' });
    memory.keepOpenRound('r-last', { id: -1n, player_id: 'p', game: 'dice', finished: false, integration_id: 'default' });
    assert.equal(memory.openRound('r-0'), undefined);
    assert.ok(memory.openRound('r-last'));
  });
});

function sessionRow(overrides: Partial<SessionRow> = {}): SessionRow {
  return {
    uuid: 's-1',
    session_pk: '11',
    game: 'dice',
    last_active_at: String(NOW),
    integration_id: 'default',
    player_pk: '7',
    player_id: 'p-7',
    currency: 'EUR',
    country: null,
    blocked: false,
    account_id: '70',
    balance: '1000',
    version: '3',
    ...overrides,
  };
}

describe('postgres wallet memory: the version-checked write', () => {
  test('a player is not recalled while a write planned from it is in flight, and is once it has answered', async () => {
    const memory = new PostgresMemory();
    memory.learn(sessionRow(), []);
    let recalledDuring: unknown = 'not run';
    const answer = await memory.whileWriting(['7'], async () => {
      recalledDuring = memory.recall('s-1', NOW);
      return 'written';
    });
    assert.equal(answer, 'written');
    assert.equal(recalledDuring, undefined);
    assert.ok(memory.recall('s-1', NOW));
  });

  test('a write that fails releases its players too', async () => {
    const memory = new PostgresMemory();
    memory.learn(sessionRow(), []);
    await assert.rejects(
      memory.whileWriting(['7'], async () => {
        throw new Error('the database went away');
      }),
      /went away/,
    );
    assert.ok(memory.recall('s-1', NOW));
  });

  test('a player forgotten (a back-office change) or found stale (another node) is read again', () => {
    const memory = new PostgresMemory();
    memory.learn(sessionRow(), []);
    memory.forget('7');
    assert.equal(memory.recall('s-1', NOW), undefined);
    memory.learn(sessionRow(), []);
    memory.contended('7', NOW);
    assert.equal(memory.recall('s-1', NOW), undefined);
    memory.learn(sessionRow({ version: '4' }), []);
    memory.forgetAll();
    assert.equal(memory.recall('s-1', NOW + 60_000), undefined);
  });
});
