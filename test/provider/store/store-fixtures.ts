/**
 * Rows the provider store's tests write directly, without a game service: a
 * real game session of player p-1 in EUR, and a real round of it (a lost
 * bet of 1.00), whose request body the test may name.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { commitment } from '../../../src/game/fairness.js';
import { SeedKeyring } from '../../../src/provider/seed-keyring.js';
import type { GameSessionRow, NewRound, NextSeed, ProviderStore, RoundRow, RoundWrite } from '../../../src/provider/store/provider-store.js';

export const SEED = 'ab'.repeat(32);

/** The store tests' keyring: the store never opens a sealed seed, so any key seals them. */
export const TEST_KEYRING = new SeedKeyring(new Map([['store-test', randomBytes(32)]]), 'store-test');

const sealedSeeds = new Map<string, NextSeed>();

/** A seed as a session's next one, sealed and with its commitment: the same object for the same seed, so tests can compare what was written. */
export function sealedNext(seed: string): NextSeed {
  let next = sealedSeeds.get(seed);
  if (next === undefined) sealedSeeds.set(seed, (next = { sealed: TEST_KEYRING.seal(seed, { session: 'store-test', nonce: 0 }), hash: commitment(seed) }));
  return next;
}

export function realSession(
  store: ProviderStore,
  options: { operatorId: string; now: number; balanceMinor?: bigint; playerId?: string },
): Promise<GameSessionRow> {
  return store.createSession({
    sessionId: randomUUID(),
    launchId: randomUUID(),
    mode: 'real',
    operatorId: options.operatorId,
    walletId: null,
    game: 'dice',
    playerId: options.playerId ?? 'p-1',
    operatorSessionId: randomUUID(),
    currency: 'EUR',
    country: null,
    language: 'en',
    balanceMinor: options.balanceMinor ?? 10_000n,
    sealedSeed: sealedNext(SEED).sealed,
    serverSeedHash: sealedNext(SEED).hash,
    now: options.now,
  });
}

export function realRound(session: GameSessionRow, nonce: number, createdAt: number, requestBody = '{}'): NewRound & { requestBody: string } {
  return {
    roundId: randomUUID(),
    sessionPk: session.pk,
    mode: 'real',
    operatorId: session.operatorId,
    playerId: session.playerId,
    game: 'dice',
    currency: 'EUR',
    betMinor: 100n,
    winMinor: 0n,
    betTxId: randomUUID(),
    winTxId: randomUUID(),
    campaignId: null,
    campaignFinished: null,
    chancePct: 50,
    threshold: 5_000,
    roll: 7_000,
    serverSeed: SEED,
    sealedSeed: null,
    serverSeedHash: commitment(SEED),
    clientSeed: 'c',
    nonce,
    requestBody,
    createdAt,
  };
}

/** The round a write wrote; fails the test with the conflict when it wrote none. */
export function begun(write: RoundWrite): RoundRow {
  assert.ok(write.ok, `the round was written, not answered ${write.ok ? '' : write.conflict}`);
  return write.round;
}
