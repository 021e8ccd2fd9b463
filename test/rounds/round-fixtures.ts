/**
 * Facts the tests of src/rounds share: a real and a fun session, rounds of
 * each game at each stage, and a reels draw searched for free spins.
 */
import { createHash, randomUUID } from 'node:crypto';
import { drawSource } from '../../src/game/fairness.js';
import { playRound, type ReelsRules } from '../../src/game/reels.js';
import type { ReelsPart, RoundFacts, SessionFacts } from '../../src/rounds/facts.js';

export const REELS_RULES: ReelsRules = { rtpBp: 9_600, jackpotBp: 100 };

export function session(mode: 'real' | 'fun' = 'real', currency = 'EUR'): SessionFacts {
  return {
    pk: 7,
    sessionId: randomUUID(),
    mode,
    operatorId: 'op-1',
    game: 'lucky-reels',
    playerId: mode === 'real' ? 'player-1' : null,
    operatorSessionId: mode === 'real' ? randomUUID() : null,
    currency,
    nonce: 3,
    serverSeedHash: 'ab'.repeat(32),
  };
}

export function seedHex(n: number): string {
  return createHash('sha256').update(`seed ${n}`).digest('hex');
}

export function reelsPart(overrides: Partial<ReelsPart> = {}): ReelsPart {
  return {
    rtpBp: REELS_RULES.rtpBp,
    jackpotBp: REELS_RULES.jackpotBp,
    baseWinMinor: 0n,
    featureWinMinor: 0n,
    jackpotContributionMinor: 1n,
    jackpotWinMinor: null,
    jackpotSeedMinor: 0n,
    freeSpins: 0,
    freeSpinsPlayed: 0,
    calls: 2,
    callsDone: 0,
    completedAt: null,
    ...overrides,
  };
}

export function round(overrides: Partial<RoundFacts> = {}): RoundFacts {
  return {
    roundId: randomUUID(),
    sessionPk: 7,
    mode: 'real',
    operatorId: 'op-1',
    playerId: 'player-1',
    game: 'dice',
    currency: 'EUR',
    betMinor: 100n,
    winMinor: 250n,
    betTxId: randomUUID(),
    winTxId: randomUUID(),
    campaignId: null,
    campaignFinished: null,
    chancePct: 40,
    threshold: 400_000,
    roll: 123_456,
    serverSeed: seedHex(1),
    sealedSeed: null,
    serverSeedHash: 'ab'.repeat(32),
    clientSeed: 'client',
    nonce: 3,
    requestBody: null,
    createdAt: Date.UTC(2026, 10, 29),
    kind: 'dice',
    reels: null,
    status: 'pending',
    refusalCode: null,
    refusalDetail: null,
    balanceAfterMinor: null,
    ...overrides,
  };
}

/** A server seed whose round at nonce 3 with client seed `client` and `betMinor` triggers free spins: searched, at most 20,000 seeds. */
export function seedWithFeature(betMinor: bigint): string {
  for (let n = 0; n < 20_000; n++) {
    const seed = seedHex(n);
    if (playRound(REELS_RULES, betMinor, drawSource(seed, 'client', 3)).freeSpins.length > 0) return seed;
  }
  throw new Error('no seed with free spins among 20,000');
}

/** A server seed whose round has no free spins. */
export function seedWithoutFeature(betMinor: bigint): string {
  for (let n = 0; n < 1_000; n++) {
    const seed = seedHex(n);
    if (playRound(REELS_RULES, betMinor, drawSource(seed, 'client', 3)).freeSpins.length === 0) return seed;
  }
  throw new Error('every seed had free spins');
}
