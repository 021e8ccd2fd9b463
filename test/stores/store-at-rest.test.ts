/**
 * Launch keys at rest (docs/protocol.md §5): a key is a bearer credential,
 * so every backend keeps only its SHA-256 digest. After keys are made, used,
 * reloaded and refused, no value of any column of any table holds a key
 * (nor its bytes), and on SQLite neither do the database's and its WAL's
 * bytes; yet each key still opens its session, reopens it, and is refused
 * for another game, as before. The key is answered once, by the call that
 * made it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { WalletStore } from '../../src/stores/operations.js';
import { BACKENDS, holding, type AtRest } from './backends.js';
import { NOW } from './store-fixtures.js';

/** Keys made per player: enough that one found in clear is not luck. */
const KEYS_PER_PLAYER = 3;

for (const backend of BACKENDS) {
  describe(`launch keys at rest: ${backend.name}`, { skip: backend.unavailable }, () => {
    let store: WalletStore;
    let atRest: AtRest;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, atRest, cleanup } = await backend.open());
    });
    after(async () => cleanup());

    test('no column and no file holds a key in clear, and every key still opens its session', async () => {
      const keys: string[] = [];
      for (const playerId of ['r-ann', 'r-bob']) {
        assert.ok((await store.createPlayer({ playerId, currency: 'EUR', balance: 10, depositId: randomUUID(), now: NOW })).ok);
        for (let i = 0; i < KEYS_PER_PLAYER; i++) {
          // As the operator makes them (operator-service.ts): 32 random bytes, base64url.
          const key = randomBytes(32).toString('base64url');
          const made = await store.createLaunchKey({ playerId, game: 'dice', key, now: NOW });
          assert.ok(made.ok);
          assert.equal(made.key, key, 'the call that makes a key answers it');
          keys.push(key);
        }
      }
      // The first key of each player opens a session, and a reload answers the same one; a key of another game is refused.
      for (const key of [keys[0]!, keys[KEYS_PER_PLAYER]!]) {
        const opened = await store.authenticate({ key, game: 'dice', now: NOW + 1, newSessionId: randomUUID() });
        assert.ok(opened.ok, JSON.stringify(opened));
        const reloaded = await store.authenticate({ key, game: 'dice', now: NOW + 2, newSessionId: randomUUID() });
        assert.ok(reloaded.ok && reloaded.sessionId === opened.sessionId, JSON.stringify(reloaded));
        const elsewhere = await store.authenticate({ key, game: 'reels', now: NOW + 2, newSessionId: randomUUID() });
        assert.equal(!elsewhere.ok && elsewhere.code, 'SESSION_MISMATCH');
      }
      const unknown = await store.authenticate({ key: randomBytes(32).toString('base64url'), game: 'dice', now: NOW + 1, newSessionId: randomUUID() });
      assert.equal(!unknown.ok && unknown.code, 'INVALID_LAUNCH_KEY');

      const values = await atRest.everyValue();
      // A control: the reader sees the tables the keys went into (the players' ids are stored in clear).
      assert.ok(holding(values, 'r-bob').length > 0, 'the reader finds the stored players');
      for (const key of keys) {
        assert.deepEqual(holding(values, key), [], `launch key ${key} is stored in clear`);
        for (const file of atRest.files()) assert.ok(!file.includes(Buffer.from(key, 'utf8')), `launch key ${key} is in a database file`);
      }
      // The keys not used yet still open a session: only their digests were needed.
      for (const key of [keys[1]!, keys[KEYS_PER_PLAYER + 2]!]) {
        const opened = await store.authenticate({ key, game: 'dice', now: NOW + 3, newSessionId: randomUUID() });
        assert.ok(opened.ok, JSON.stringify(opened));
      }
    });
  });
}
