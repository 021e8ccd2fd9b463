/**
 * Dice, the provider's game, as pure integer arithmetic.
 *
 * The player picks a win chance in whole percent and a bet from the ladder.
 * A roll is a uniform integer in [0, ROLL_OUTCOMES); the round wins when the
 * roll is below the round's threshold. Amounts are minor units (bigint).
 *
 * The configured RTP holds exactly per round, not only on average over
 * chances: the win is first rounded down to whole minor units,
 *
 *   win = floor(bet × rtp / chance)
 *
 * and the threshold is then chosen from the rounded win,
 *
 *   threshold = floor(rtp × bet × ROLL_OUTCOMES / win)   (at most ROLL_OUTCOMES)
 *
 * so that threshold / ROLL_OUTCOMES × win / bet, the round's expected
 * return, is the configured RTP less at most win / (bet × ROLL_OUTCOMES):
 * below 1e-4 at a 1 % chance, below 2e-6 at 50 %. Rounding the win down and
 * keeping the chance would instead cost up to one minor unit per round, a
 * visible error on small bets (0.293 -> 0.29 is 1 %).
 *
 * Volatility bounds the chances a game offers, and so its largest multiplier.
 */
import assert from 'node:assert/strict';

/** A roll is one of a million outcomes, shown as 0.0000 to 99.9999. */
export const ROLL_OUTCOMES = 1_000_000;
/** RTP is configured in basis points: 9700 is 97.00 %. */
export const RTP_BP_SCALE = 10_000;
/** The smallest RTP a game may be configured with (bp); below it the game is not worth offering. */
export const RTP_BP_MIN = 5_000;
/** The largest RTP (bp): a game may give everything back, never more. */
export const RTP_BP_MAX = 10_000;

export const VOLATILITIES = ['low', 'medium', 'high'] as const;
export type Volatility = (typeof VOLATILITIES)[number];

/**
 * The smallest win chance (whole percent) per volatility: high volatility
 * offers up to about 100x at 1 %, medium about 10x at 10 %, low about 4x.
 */
const CHANCE_PCT_MIN: Readonly<Record<Volatility, number>> = { low: 25, medium: 10, high: 1 };
/** The largest win chance (whole percent), before the RTP caps it (see chanceRange). */
const CHANCE_PCT_CEILING = 95;
/** A win pays at least this much of the stake (in bp of the bet) at the nominal multiplier. */
export const MULTIPLIER_BP_FLOOR = 10_100;

export interface DiceRules {
  rtpBp: number;
  volatility: Volatility;
}

export interface ChanceRange {
  min: number;
  max: number;
}

/**
 * The whole-percent chances a game offers. The top is capped so that the
 * nominal multiplier stays at least 1.01x: a "win" paying less than the
 * stake would mislead.
 */
export function chanceRange(rules: DiceRules): ChanceRange {
  const max = Math.min(CHANCE_PCT_CEILING, Math.floor((rules.rtpBp * 100) / MULTIPLIER_BP_FLOOR));
  return { min: CHANCE_PCT_MIN[rules.volatility], max };
}

export function isOfferedChance(rules: DiceRules, chancePct: number): boolean {
  const range = chanceRange(rules);
  return Number.isInteger(chancePct) && chancePct >= range.min && chancePct <= range.max;
}

/** What a bet at a chance pays, and below which roll it wins. */
export interface Quote {
  /** Minor units paid on a win (the stake included). */
  winMinor: bigint;
  /** The round wins when roll < threshold; threshold / ROLL_OUTCOMES is the exact chance. */
  threshold: number;
}

/**
 * Undefined when the bet cannot pay a whole minor unit at this chance; the
 * chances chanceRange offers keep every win at least 1.01x the bet, so for
 * them any bet of one minor unit or more is quoted.
 */
export function quote(rules: DiceRules, betMinor: bigint, chancePct: number): Quote | undefined {
  assert.ok(isOfferedChance(rules, chancePct), `chance ${chancePct} is not offered`);
  assert.ok(betMinor > 0n, 'a bet is positive');
  const rtp = BigInt(rules.rtpBp);
  // bet × (rtpBp / 10^4) / (chancePct / 100)
  const winMinor = (betMinor * rtp) / (BigInt(chancePct) * 100n);
  if (winMinor === 0n) return undefined;
  const exact = (rtp * betMinor * BigInt(ROLL_OUTCOMES)) / (winMinor * BigInt(RTP_BP_SCALE));
  const threshold = Number(exact < BigInt(ROLL_OUTCOMES) ? exact : BigInt(ROLL_OUTCOMES));
  assert.ok(threshold > 0, 'a quoted round can be won');
  return { winMinor, threshold };
}

/** The nominal multiplier of a chance, in bp (19400 is 1.94x), as the game table shows it. */
export function nominalMultiplierBp(rules: DiceRules, chancePct: number): number {
  return Math.floor((rules.rtpBp * 100) / chancePct);
}

/** The game's outcome table: one row per offered chance. */
export function outcomeTable(rules: DiceRules): { chancePct: number; multiplierBp: number }[] {
  const { min, max } = chanceRange(rules);
  const rows: { chancePct: number; multiplierBp: number }[] = [];
  for (let chancePct = min; chancePct <= max; chancePct++) rows.push({ chancePct, multiplierBp: nominalMultiplierBp(rules, chancePct) });
  return rows;
}

export interface Settlement {
  won: boolean;
  winMinor: bigint;
}

/** The result of a roll for a quoted round. */
export function settle(round: Quote, roll: number): Settlement {
  assert.ok(Number.isInteger(roll) && roll >= 0 && roll < ROLL_OUTCOMES, `roll out of range: ${roll}`);
  const won = roll < round.threshold;
  return { won, winMinor: won ? round.winMinor : 0n };
}

/**
 * The exact expected return of one round per unit staked, as a fraction,
 * and the mean and variance of (payout / bet) as numbers, for tolerances.
 */
export function roundMoments(betMinor: bigint, round: Quote): { rtpNumerator: bigint; rtpDenominator: bigint; mean: number; variance: number } {
  const rtpNumerator = BigInt(round.threshold) * round.winMinor;
  const rtpDenominator = BigInt(ROLL_OUTCOMES) * betMinor;
  const p = round.threshold / ROLL_OUTCOMES;
  const x = Number(round.winMinor) / Number(betMinor);
  return { rtpNumerator, rtpDenominator, mean: p * x, variance: p * x * x - (p * x) ** 2 };
}
