/**
 * Rows the provider store's tests write directly, without a game service: a
 * real game session of player p-1 in EUR, and a real round of it (a lost
 * bet of 1.00), whose request body the test may name.
 */
import { randomUUID } from 'node:crypto';
import type { GameSessionRow, NewRound, ProviderStore } from '../../src/provider/provider-store.js';

export const SEED = 'ab'.repeat(32);

export function realSession(store: ProviderStore, options: { operatorId: string; now: number; balanceMinor?: bigint }): GameSessionRow {
  return store.createSession({
    sessionId: randomUUID(),
    launchId: randomUUID(),
    mode: 'real',
    operatorId: options.operatorId,
    walletId: null,
    game: 'dice',
    playerId: 'p-1',
    operatorSessionId: randomUUID(),
    currency: 'EUR',
    country: null,
    language: 'en',
    balanceMinor: options.balanceMinor ?? 10_000n,
    serverSeed: SEED,
    now: options.now,
  });
}

export function realRound(session: GameSessionRow, nonce: number, createdAt: number, requestBody = '{}'): NewRound & { requestBody: string } {
  return {
    roundId: randomUUID(),
    sessionPk: session.pk,
    mode: 'real',
    operatorId: session.operatorId,
    playerId: 'p-1',
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
    serverSeedHash: 'cd'.repeat(32),
    clientSeed: 'c',
    nonce,
    requestBody,
    createdAt,
  };
}
