/**
 * Plays many rounds of a game (dice, reels) without I/O, to measure the return to player.
 * The rolls and the player's choices come from the caller, so a test can
 * seed them and an auditor can feed recorded rounds.
 */
import assert from 'node:assert/strict';
import { quote, settle, type DiceRules, type Quote } from './dice.js';
import { playRound, type ReelsRules, type UniformSource } from './reels.js';

/** A simulation is bounded: ten million rounds is far beyond any test. */
const SIMULATION_ROUNDS_MAX = 10_000_000;

export interface SimulationInput {
  rules: DiceRules;
  rounds: number;
  betMinor: bigint;
  /** The chance (whole percent) the player picks for round i. */
  chanceOf: (round: number) => number;
  /** A uniform roll in [0, ROLL_OUTCOMES). */
  nextRoll: () => number;
}

export interface SimulationResult {
  rounds: number;
  stakedMinor: bigint;
  returnedMinor: bigint;
  wins: number;
  /** returned / staked. */
  rtp: number;
}

export function simulate(input: SimulationInput): SimulationResult {
  assert.ok(Number.isInteger(input.rounds) && input.rounds > 0 && input.rounds <= SIMULATION_ROUNDS_MAX, 'rounds within bounds');
  // Quotes depend only on the chance for a fixed bet: compute each once.
  const quotes = new Map<number, Quote>();
  let returnedMinor = 0n;
  let wins = 0;
  for (let round = 0; round < input.rounds; round++) {
    const chancePct = input.chanceOf(round);
    let q = quotes.get(chancePct);
    if (q === undefined) {
      q = quote(input.rules, input.betMinor, chancePct);
      assert.ok(q, `bet ${input.betMinor} cannot be played at ${chancePct} %`);
      quotes.set(chancePct, q);
    }
    const result = settle(q, input.nextRoll());
    if (result.won) {
      wins++;
      returnedMinor += result.winMinor;
    }
  }
  const stakedMinor = input.betMinor * BigInt(input.rounds);
  // A ratio of two exact sums, turned into a number once, for comparison with a tolerance.
  const rtp = Number((returnedMinor * 1_000_000_000n) / stakedMinor) / 1e9;
  return { rounds: input.rounds, stakedMinor, returnedMinor, wins, rtp };
}

export interface ReelsSimulationInput {
  rules: ReelsRules;
  rounds: number;
  betMinor: bigint;
  /** A uniform integer in [0, n), as playRound draws them. */
  draw: UniformSource;
}

export interface ReelsSimulationResult {
  rounds: number;
  stakedMinor: bigint;
  /** The rounds' wins, jackpot pools excluded (the pool is the provider's, not the maths'). */
  returnedMinor: bigint;
  /** Of returnedMinor, what the base spins won. */
  baseReturnedMinor: bigint;
  contributedMinor: bigint;
  features: number;
  freeSpins: number;
  jackpots: number;
  /** returned / staked, the game's part of the RTP. */
  rtp: number;
}

/** Plays reels rounds back to back, each from the same source. */
export function simulateReels(input: ReelsSimulationInput): ReelsSimulationResult {
  assert.ok(Number.isInteger(input.rounds) && input.rounds > 0 && input.rounds <= SIMULATION_ROUNDS_MAX, 'rounds within bounds');
  let returnedMinor = 0n;
  let baseReturnedMinor = 0n;
  let contributedMinor = 0n;
  let features = 0;
  let freeSpins = 0;
  let jackpots = 0;
  for (let round = 0; round < input.rounds; round++) {
    const played = playRound(input.rules, input.betMinor, input.draw);
    returnedMinor += played.winMinor;
    baseReturnedMinor += played.base.winMinor;
    contributedMinor += played.jackpotContributionMinor;
    if (played.freeSpins.length > 0) features++;
    freeSpins += played.freeSpins.length;
    if (played.jackpot) jackpots++;
  }
  const stakedMinor = input.betMinor * BigInt(input.rounds);
  const rtp = Number((returnedMinor * 1_000_000_000n) / stakedMinor) / 1e9;
  return { rounds: input.rounds, stakedMinor, returnedMinor, baseReturnedMinor, contributedMinor, features, freeSpins, jackpots, rtp };
}
