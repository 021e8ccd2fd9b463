/**
 * Proves, on PostgreSQL, that two provider nodes (two stores, each its own
 * pool, on one schema) racing over the reels game's shared state never
 * double-pay or lose anything: many jackpot rounds of one pool at once are
 * paid one pool each, in some order, and the pool ends at the seed with no
 * amount paid twice; a feature's last free spin racing the base spin's
 * answer on the other node enqueues the feature's call exactly once; two
 * nodes' completion sweeps at once complete each left round once. Skipped,
 * saying so, without DATABASE_URL.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CLAIM_LIMITS } from '../../../src/dispatch/outbox.js';
import { RoundCompletion } from '../../../src/provider/round-completion.js';
import { PostgresProviderStore } from '../../../src/provider/store/postgres/provider-store.js';
import type { GameSessionRow, NewReelsRound } from '../../../src/provider/store/provider-store.js';
import { freshSchema, POSTGRES_UNAVAILABLE, type Schema } from '../../stores/postgres-fixtures.js';
import { PROVIDER_TEST_POOL } from './backends.js';
import { commitment } from '../../../src/game/fairness.js';
import { begun, realSession, SEED, sealedNext, TEST_KEYRING } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const POOL_SEED = 5_000n;
/** Jackpot rounds played at once across the two nodes. */
const RACERS = 8;

let schema: Schema;
let a: PostgresProviderStore;
let b: PostgresProviderStore;

before(async () => {
  if (POSTGRES_UNAVAILABLE) return;
  schema = await freshSchema('reels_nodes');
  a = await PostgresProviderStore.open({ url: schema.url(), settings: PROVIDER_TEST_POOL });
  b = await PostgresProviderStore.open({ url: schema.url(), settings: PROVIDER_TEST_POOL });
});

after(async () => {
  await a?.close();
  await b?.close();
  await schema?.drop();
});

function reelsRound(session: GameSessionRow, shape: { jackpotHit?: boolean; freeSpins?: number; createdAt?: number }): NewReelsRound {
  const freeSpins = shape.freeSpins ?? 0;
  const roundId = randomUUID();
  return {
    roundId,
    sessionPk: session.pk,
    mode: 'real',
    operatorId: 'op',
    playerId: session.playerId,
    game: 'reels',
    currency: 'EUR',
    betMinor: 100n,
    winMinor: 0n,
    betTxId: randomUUID(),
    winTxId: randomUUID(),
    campaignId: null,
    campaignFinished: null,
    chancePct: 0,
    threshold: 0,
    roll: 0,
    // Free spins to reveal: sealed for the round until the last; the completion opens it with the keyring.
    serverSeed: freeSpins > 0 ? null : SEED,
    sealedSeed: freeSpins > 0 ? TEST_KEYRING.seal(SEED, { round: roundId }) : null,
    serverSeedHash: commitment(SEED),
    clientSeed: 'c',
    nonce: 0,
    requestBody: null,
    createdAt: shape.createdAt ?? NOW,
    plan: {
      rtpBp: 9_600,
      jackpotBp: 100,
      baseWinMinor: 0n,
      featureWinMinor: 0n,
      jackpotContributionMinor: 1n,
      jackpotHit: shape.jackpotHit ?? false,
      jackpotSeedMinor: POOL_SEED,
      freeSpins,
    },
    callBodies: (jackpot) => Array.from({ length: freeSpins > 0 ? 3 : 2 }, (_, i) => JSON.stringify({ call: i + 1, jackpot: jackpot?.toString() ?? null })),
  };
}

const session = (store: PostgresProviderStore) => realSession(store, { operatorId: 'op', now: NOW, playerId: `p-${randomUUID().slice(0, 6)}` });

test(
  'jackpot rounds of one pool on two nodes at once: each takes the pool the one before it left, none pays it twice',
  { skip: POSTGRES_UNAVAILABLE },
  async () => {
    const sessions = await Promise.all(Array.from({ length: RACERS }, (_, i) => session(i % 2 === 0 ? a : b)));
    // The pool exists and has grown by one contribution.
    begun(await a.beginReelsRound(reelsRound(await session(a), {}), sealedNext(SEED)));
    const wins = (
      await Promise.all(sessions.map((one, i) => (i % 2 === 0 ? a : b).beginReelsRound(reelsRound(one, { jackpotHit: true }), sealedNext(SEED))))
    ).map((write) => begun(write).reels!.jackpotWinMinor!);
    // One of them took the grown pool; every other one the seed its predecessor left, plus its own contribution.
    assert.deepEqual(
      [...wins].sort((x, y) => Number(x - y)),
      [...Array(RACERS - 1).fill(POOL_SEED + 1n), POOL_SEED + 2n],
    );
    assert.equal(await a.jackpotPool('op', 'reels', 'EUR', POOL_SEED), POOL_SEED);
  },
);

test(
  "a feature's last free spin on one node racing the base spin's answer on the other enqueues the feature's call once",
  { skip: POSTGRES_UNAVAILABLE },
  async () => {
    for (let trial = 0; trial < 10; trial++) {
      const round = begun(await a.beginReelsRound(reelsRound(await session(a), { freeSpins: 10 }), sealedNext(SEED)));
      await a.outbox.claim(NOW + 60_000, 'node-a', CLAIM_LIMITS);
      assert.ok(await a.outbox.sent(round.dispatchItemId!, 'node-a', { status: 200, detail: 'ok', balance: '99' }, NOW + 1));
      // Other tests' items may be due too: this round's are found by its key.
      const baseItem = (await b.outbox.claim(NOW + 60_000, 'node-b', CLAIM_LIMITS)).find((item) => item.orderingKey === round.roundId);
      assert.ok(baseItem);
      // The answer of the base spin's call on node b, the last free spins on node a, at once.
      const [sent, spun] = await Promise.all([
        b.outbox.sent(baseItem.id, 'node-b', { status: 200, detail: 'ok', balance: '99' }, NOW + 2),
        a.playFreeSpins(round.pk, 0, 10, NOW + 2, SEED),
      ]);
      assert.ok(sent && spun.ok);
      const calls = await a.roundCalls(round.pk);
      assert.deepEqual(
        calls.map((call) => call.status),
        ['accepted', 'accepted', 'pending'],
        `trial ${trial}`,
      );
      const items = (await a.outbox.list({ status: 'pending' })).filter((item) => item.orderingKey === round.roundId);
      assert.equal(items.length, 1, `trial ${trial}: the feature's call, once`);
      const featureItem = (await a.outbox.claim(NOW + 60_000, 'node-a', CLAIM_LIMITS)).find((item) => item.orderingKey === round.roundId);
      await a.outbox.sent(featureItem!.id, 'node-a', { status: 200, detail: 'ok', balance: '101' }, NOW + 3);
      assert.equal((await a.round(round.pk)).status, 'settled');
    }
  },
);

test('two nodes sweeping at once complete each left round once', { skip: POSTGRES_UNAVAILABLE }, async () => {
  const left = [];
  for (let i = 0; i < 6; i++) {
    const round = begun(await b.beginReelsRound(reelsRound(await session(b), { freeSpins: 10, createdAt: NOW - 3_600_000 }), sealedNext(SEED)));
    left.push(round.pk);
  }
  const sweeper = (store: PostgresProviderStore) => new RoundCompletion({ store, keyring: TEST_KEYRING, roundCompletionMs: 600_000, clock: () => NOW });
  const [byA, byB] = await Promise.all([sweeper(a).sweep(), sweeper(b).sweep()]);
  assert.equal(byA + byB, left.length + 0, `completed ${byA} on a and ${byB} on b`);
  for (const pk of left) {
    const round = await a.round(pk);
    assert.equal(round.reels?.freeSpinsPlayed, 10);
    assert.equal(round.reels?.completedAt, NOW);
    assert.deepEqual({ seed: round.serverSeed, sealed: round.sealedSeed }, { seed: SEED, sealed: null }, 'completed: its seed revealed');
  }
  assert.equal(await sweeper(a).sweep(), 0);
});
