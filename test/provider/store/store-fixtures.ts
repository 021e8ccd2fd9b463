/**
 * Rows the provider store's tests write directly, without a game service: a
 * real game session of player p-1 in EUR, and a real round of it (a lost
 * bet of 1.00), whose request body the test may name.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { GameSessionRow, NewRound, ProviderStore, RoundRow, RoundWrite } from '../../../src/provider/store/provider-store.js';

export const SEED = 'ab'.repeat(32);

export function realSession(store: ProviderStore, options: { operatorId: string; now: number; balanceMinor?: bigint; playerId?: string }): Promise<GameSessionRow> {
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
    serverSeedHash: 'cd'.repeat(32),
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
