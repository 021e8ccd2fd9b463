/**
 * Proves how rounds are planned (src/rounds/plan.ts): a round takes its
 * session's owner, nonce and commitment; a dice chance not offered is
 * refused in words; a dice round's roll is the session's seeds' at its
 * nonce, the same every time, with ids only for a real round, asked in
 * order, and its seed opened once; a reels round is drawn whole, its seed
 * sealed while it has free spins to hide and its calls' bodies only for a
 * real round; a free round carries its campaign.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { DiceRules } from '../../src/game/dice.js';
import { rollOf } from '../../src/game/fairness.js';
import { chanceRefusal, planDiceRound, planReelsRound, roundOfSession, type DicePlanInput, type ReelsPlanInput } from '../../src/rounds/plan.js';
import { REELS_RULES, seedHex, seedWithFeature, seedWithoutFeature, session } from './round-fixtures.js';

const DEFAULT_RULES: DiceRules = { rtpBp: 9700, volatility: 'medium' };

test("a round takes its session's owner, game, currency, nonce and commitment", () => {
  const real = session();
  assert.deepEqual(roundOfSession(real), {
    sessionPk: real.pk,
    mode: 'real',
    operatorId: 'op-1',
    playerId: 'player-1',
    game: 'lucky-reels',
    currency: 'EUR',
    nonce: 3,
    serverSeedHash: real.serverSeedHash,
  });
});

function diceInput(overrides: Partial<DicePlanInput> = {}): DicePlanInput {
  let n = 0;
  return {
    rules: DEFAULT_RULES,
    session: session(),
    betMinor: 100n,
    betText: '1',
    chancePct: 50,
    clientSeed: 'client',
    campaign: undefined,
    openSeed: () => seedHex(1),
    newId: () => `id-${++n}`,
    createdAt: 1_000,
    ...overrides,
  };
}

test('a chance the game does not offer is refused in words', () => {
  assert.equal(chanceRefusal(DEFAULT_RULES, 50), undefined);
  const refused = chanceRefusal(DEFAULT_RULES, 99.5);
  assert.equal(refused?.code, 'INVALID_REQUEST');
  assert.match(refused!.detail, /^chancePct: must be a whole percent from \d+ to \d+$/);
});

test("a dice round is the seeds' roll at the session's nonce, with its round, bet and win ids asked in that order", () => {
  const planned = planDiceRound(diceInput());
  assert.ok(planned.ok);
  const { round } = planned;
  assert.equal(round.roll, rollOf(seedHex(1), 'client', 3));
  assert.deepEqual([round.roundId, round.betTxId, round.winTxId], ['id-1', 'id-2', 'id-3']);
  assert.equal(round.serverSeed, seedHex(1), 'a dice round reveals its seed with it');
  assert.equal(round.sealedSeed, null);
  assert.equal(round.createdAt, 1_000);
  assert.deepEqual(planDiceRound(diceInput()), planned, 'the same inputs plan the same round');
});

test('a fun dice round has no transaction ids; a free one carries its campaign', () => {
  const fun = planDiceRound(diceInput({ session: session('fun') }));
  assert.ok(fun.ok);
  assert.deepEqual([fun.round.betTxId, fun.round.winTxId, fun.round.campaignId, fun.round.campaignFinished], [null, null, null, null]);
  const campaignId = randomUUID();
  const free = planDiceRound(diceInput({ campaign: { row: { campaignId }, finished: true }, betText: undefined }));
  assert.ok(free.ok);
  assert.deepEqual([free.round.campaignId, free.round.campaignFinished], [campaignId, true]);
});

test('the seed is opened once, for the roll', () => {
  let opened = 0;
  const planned = planDiceRound(diceInput({ openSeed: () => (opened++, seedHex(2)) }));
  assert.ok(planned.ok);
  assert.equal(opened, 1);
  assert.equal(planned.round.serverSeed, seedHex(2));
});

function reelsInput(serverSeed: string, overrides: Partial<ReelsPlanInput> = {}): ReelsPlanInput {
  let n = 0;
  return {
    game: { rules: REELS_RULES, jackpotSeeds: new Map([['EUR', 5_000n]]) },
    session: session(),
    betMinor: 100n,
    clientSeed: 'client',
    roundId: randomUUID(),
    createdAt: 2_000,
    newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    campaign: undefined,
    decimals: 2,
    serverSeed,
    sealForRound: (seed, roundId) => `sealed:${roundId}:${seed}`,
    ...overrides,
  };
}

test('a reels round with free spins keeps its seed sealed for the round; one without reveals it', () => {
  const withFeature = reelsInput(seedWithFeature(100n));
  const { round, drawn } = planReelsRound(withFeature);
  assert.ok(drawn.freeSpins.length > 0);
  assert.equal(round.serverSeed, null);
  assert.equal(round.sealedSeed, `sealed:${withFeature.roundId}:${withFeature.serverSeed}`);
  assert.equal(round.plan.freeSpins, drawn.freeSpins.length);
  assert.equal(
    round.plan.featureWinMinor,
    drawn.freeSpins.reduce((sum, spin) => sum + spin.winMinor, 0n),
  );
  assert.equal(round.plan.jackpotSeedMinor, 5_000n);
  const plain = planReelsRound(reelsInput(seedWithoutFeature(100n)));
  assert.equal(plain.round.serverSeed, seedWithoutFeature(100n));
  assert.equal(plain.round.sealedSeed, null);
});

test("a real reels round's bet and base win ids are its first calls' ids; a fun one has none and no bodies", () => {
  const real = planReelsRound(reelsInput(seedWithoutFeature(100n)));
  const bodies = real.round.callBodies!(real.drawn.jackpot ? 1n : undefined).map((text) => JSON.parse(text));
  assert.equal(bodies[0].transactions[0].id, real.round.betTxId);
  assert.equal(bodies[1].transactions[0].id, real.round.winTxId);
  const fun = planReelsRound(reelsInput(seedWithoutFeature(100n), { session: session('fun') }));
  assert.equal(fun.round.callBodies, undefined);
  assert.deepEqual([fun.round.betTxId, fun.round.winTxId], [null, null]);
  // A pool not yet known: the currency's seed when none is written.
  assert.equal(planReelsRound(reelsInput(seedWithoutFeature(100n), { session: session('real', 'USD') })).round.plan.jackpotSeedMinor, 0n);
});
