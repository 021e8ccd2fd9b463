/**
 * Proves that `verify` sums the operator's accounts exactly at any size, on
 * every backend: a game account that has paid out more than 2^63 - 1 minor
 * units in all (ten players each winning 10^10 BTC) still verifies, where a
 * 64-bit SUM would overflow. And that a verify that cannot finish rejects
 * with an UnavailableError naming why, instead of losing the reason on the
 * way out of its thread.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { UnavailableError } from '../../src/protocol/errors.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { tempDir } from '../helpers.js';
import { BACKENDS } from './backends.js';
import { openPostgresStore, POSTGRES_UNAVAILABLE } from './postgres-fixtures.js';
import { NOW, openSession } from './store-fixtures.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

/** Players who each win WIN_BTC: together more than 2^63 - 1 satoshis leave the game account. */
const PLAYERS = 10;
/** The largest amount one transaction may carry at 8 decimals: 10^18 minor units (money.ts). */
const WIN_BTC = 1e10;
const INT64_MAX = 2n ** 63n - 1n;

/** Ten BTC players each win WIN_BTC in a round of their own; returns what the game account paid out, in satoshis. */
async function bookHugeWins(store: WalletStore): Promise<bigint> {
  let paid = 0n;
  for (let i = 0; i < PLAYERS; i++) {
    const session = await openSession(store, `whale-${i}`, 1, 'dice', 'BTC');
    const outcome = await store.transact({
      request: checkedTransaction({
        ...session,
        transactions: [{ id: randomUUID(), type: 'win', amount: WIN_BTC }],
        round: { id: randomUUID(), finished: true },
      }),
      now: NOW,
    });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.balance, '10000000001');
    paid += 10n ** 18n;
  }
  return paid;
}

for (const backend of BACKENDS) {
  describe(`verify sums without overflow: ${backend.name}`, { skip: backend.unavailable }, () => {
    test('a game account that paid out more than 2^63 - 1 minor units verifies ok', async () => {
      const { store, cleanup } = await backend.open();
      try {
        const paid = await bookHugeWins(store);
        assert.ok(paid > INT64_MAX, 'the game account is past what a 64-bit sum holds');
        const report = await store.verify();
        assert.deepEqual(report.problems, []);
        assert.equal(report.ok, true);
        // A deposit and a win per player.
        assert.equal(report.transfers, PLAYERS * 2);
      } finally {
        await cleanup();
      }
    });
  });
}

describe('verify sums without overflow: sqlite in memory (proved by the writer itself)', () => {
  test('a game account that paid out more than 2^63 - 1 minor units verifies ok', async () => {
    const store = await SqliteStore.open({ path: ':memory:' });
    try {
      await bookHugeWins(store);
      const report = await store.verify();
      assert.deepEqual(report.problems, []);
      assert.equal(report.ok, true);
    } finally {
      await store.close();
    }
  });
});

/** Asserts that `verifying` rejects with an UnavailableError whose message names `reason`. */
async function assertFailsSaying(verifying: Promise<unknown>, reason: RegExp): Promise<void> {
  await assert.rejects(verifying, (error: unknown) => {
    assert.ok(error instanceof UnavailableError, String(error));
    assert.match(error.message, /^verify could not finish: /);
    assert.match(error.message, reason);
    return true;
  });
}

describe('a verify that cannot finish says why', () => {
  test('sqlite: the reason comes back from the verify thread', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'wallet.db');
    const store = await SqliteStore.open({ path });
    try {
      await openSession(store, 'v-broken');
      // A table the proof reads is gone: the writer, which is idle, does not notice.
      const db = new Database(path);
      db.exec('DROP TABLE id_marks');
      db.close();
      await assertFailsSaying(store.verify(), /no such table: id_marks/);
    } finally {
      await store.close();
      cleanup();
    }
  });

  test('postgres: the reason comes back instead of an unexpected error', { skip: POSTGRES_UNAVAILABLE }, async () => {
    const { store, schema, cleanup } = await openPostgresStore('verify-fails');
    try {
      await openSession(store, 'v-broken');
      await schema.admin.unsafe(`DROP TABLE ${schema.name}.transfers CASCADE`);
      await assertFailsSaying(store.verify(), /relation "transfers" does not exist/);
    } finally {
      await cleanup();
    }
  });
});
