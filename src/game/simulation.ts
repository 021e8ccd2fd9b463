/**
 * Plays many rounds of dice without I/O, to measure the return to player.
 * The rolls and the player's choices come from the caller, so a test can
 * seed them and an auditor can feed recorded rounds.
 */
import assert from 'node:assert/strict';
import { quote, settle, type DiceRules, type Quote } from './dice.js';

/** A simulation is bounded: ten million rounds is far beyond any test. */
export const SIMULATION_ROUNDS_MAX = 10_000_000;

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
