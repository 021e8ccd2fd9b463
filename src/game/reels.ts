/**
 * Reels, the provider's second game, as pure integer arithmetic: a classic
 * slot of three reels showing three rows each, five lines, a free-spins
 * feature and a progressive jackpot. The maths sheet is docs/games.md.
 *
 * A round is a base spin and, when a star shows on every reel, a feature of
 * free spins played in the same round at the same bet with every win
 * multiplied; a star on every reel during the feature adds spins, up to a
 * cap. Three crowns on the middle line of the base spin win the jackpot
 * pool, which the bets feed with a fixed share (jackpotContribution).
 *
 * The RTP is configured by scaling one paytable, not by swapping strips:
 * every stop combination is enumerated once (32^3 of them) and the feature
 * is solved exactly (featureMoments), which gives the paytable's own return
 * R0 as an exact fraction; a spin then pays
 *
 *   win = floor(bet × pay × multiplier × scale),  scale = (rtp − jackpot share) / R0
 *
 * so that the unrounded return is the configured RTP exactly, at any value
 * in basis points, with one set of strips whose hit and feature frequencies
 * do not move with the RTP. Each paying spin rounds down, never up, so a
 * round returns the configured RTP less at most (paying spins per round) /
 * bet, plus what the contribution's own rounding drops (rtpAtBet computes
 * the exact value at a bet, rtpSheet states the bound).
 */
import assert from 'node:assert/strict';
import { RTP_BP_MAX, RTP_BP_SCALE } from './dice.js';
import { add, div, mul, ratio, sub, ZERO, type Ratio } from './ratio.js';

/**
 * The symbols, one character each so that a strip reads as a string:
 * 7 seven, B bar, L bell, P plum, O orange, M lemon, C cherry, - blank,
 * S star (the scatter: triggers free spins), J crown (the jackpot symbol).
 */
export type ReelSymbol = '7' | 'B' | 'L' | 'P' | 'O' | 'M' | 'C' | '-' | 'S' | 'J';

const REEL_COUNT = 3;
/** A window's rows around a stop: the one above, the stop itself on the middle row, the one below. */
const ROW_OFFSETS = [-1, 0, 1];

/**
 * The strips, 32 stops each; stop i shows strip[i] on the middle row, the
 * stop before it above and the one after it below (wrapping round). Each
 * reel holds 7×1, J×1, B×2, L×3, P×4, O×5, M×6, stars 2, 2 and 3, cherries
 * 6, 5 and 4, and blanks to 32. Stars, crowns and sevens stand at least
 * three stops apart, so a window shows at most one of each per reel.
 */
export const STRIPS: readonly string[] = ['-OPLSC-MCJMCMCBOBOLPCMP7OCSOMLMP', 'MPCOMSO-MPOBMLJ-PBMC7OCMC-LOSCPL', 'POPJ-CL7MCBC-OMOM-SMPSLOSMBPOCML'];

/** The rows (0 top, 1 middle, 2 bottom) a line crosses on reels 1, 2 and 3; line 1 is the middle row. */
export const LINES: readonly (readonly number[])[] = [
  [1, 1, 1],
  [0, 0, 0],
  [2, 2, 2],
  [0, 1, 2],
  [2, 1, 0],
];
const MIDDLE_LINE = 0;

/**
 * What three of a kind on a line pays, in multiples of the bet (the whole
 * stake of the spin, all five lines), before the RTP's scale. A line with
 * cherries on reels 1 and 2 and none on reel 3 pays CHERRY_PAIR_PAY. Stars,
 * crowns and blanks pay no line.
 */
const THREE_OF_A_KIND_PAY: Readonly<Partial<Record<ReelSymbol, number>>> = { '7': 200, B: 40, L: 15, P: 10, O: 5, M: 3, C: 4 };
const CHERRY_PAIR_PAY = 2;
const CHERRY: ReelSymbol = 'C';
const SCATTER: ReelSymbol = 'S';
const JACKPOT_SYMBOL: ReelSymbol = 'J';

/** Free spins a star on every reel awards, on the base spin or again during the feature. */
export const FREE_SPINS_AWARD = 10;
/** Every win of a free spin is multiplied by this. */
export const FREE_SPIN_MULTIPLIER = 3;
/**
 * The most free spins one round plays: retriggers stop adding spins there.
 * It bounds a round's length and its calls: the feature's wins travel in
 * one request, and docs/protocol.md §9 allows 100 transactions in one.
 */
export const FREE_SPINS_MAX = 50;

/**
 * The smallest RTP (bp) a reels game may be configured with. With the
 * largest contribution the smallest pay (2x) still scales to about 1.48x
 * the bet, above dice's 1.01x floor: no win pays less than its stake.
 */
export const REELS_RTP_BP_MIN = 8_000;
/**
 * The largest jackpot contribution (bp of every bet): beyond 5 % too much
 * of the return would sit in a prize that one round in 32,768 wins.
 */
export const JACKPOT_BP_MAX = 500;

export interface ReelsRules {
  /** The whole return to player in bp, the jackpot's share included. */
  rtpBp: number;
  /** The share of every bet that feeds the jackpot pool, in bp. */
  jackpotBp: number;
}

export function assertReelsRules(rules: ReelsRules): void {
  // Messages are built only on failure: every round checks its rules.
  if (!(Number.isInteger(rules.rtpBp) && rules.rtpBp >= REELS_RTP_BP_MIN && rules.rtpBp <= RTP_BP_MAX)) {
    assert.fail(`rtpBp out of range ${REELS_RTP_BP_MIN} to ${RTP_BP_MAX}: ${rules.rtpBp}`);
  }
  if (!(Number.isInteger(rules.jackpotBp) && rules.jackpotBp >= 0 && rules.jackpotBp <= JACKPOT_BP_MAX)) {
    assert.fail(`jackpotBp out of range 0 to ${JACKPOT_BP_MAX}: ${rules.jackpotBp}`);
  }
}

/** A uniform integer in [0, n) per call, in the order a round asks: reels 1, 2, 3 of the base spin, then of each free spin. */
export type UniformSource = (n: number) => number;

interface LineWin {
  /** 1 to 5, as LINES numbers them. */
  line: number;
  /** The three symbols the line crosses. */
  symbols: string;
  /** In multiples of the bet, before the scale. */
  pay: number;
}

export interface SpinOutcome {
  /** window[reel][row]. */
  window: ReelSymbol[][];
  lines: LineWin[];
  /** The sum of the lines' pays, in multiples of the bet, before the scale and the multiplier. */
  pay: number;
  /** A star on every reel. */
  scatter: boolean;
  /** Three crowns on the middle line: the jackpot, when the spin is a base spin. */
  jackpotLine: boolean;
}

export interface Spin extends SpinOutcome {
  /** The stop of each reel: the index in its strip shown on the middle row. */
  stops: number[];
  /** 1 for the base spin, FREE_SPIN_MULTIPLIER for a free spin. */
  multiplier: number;
  /** floor(bet × pay × multiplier × scale), minor units. */
  winMinor: bigint;
  /** Free spins this spin added to the round (0, or up to FREE_SPINS_AWARD). */
  freeSpinsAwarded: number;
}

export interface ReelsRound {
  betMinor: bigint;
  /** The part of the bet that feeds the jackpot pool (jpAmount). */
  jackpotContributionMinor: bigint;
  base: Spin;
  freeSpins: Spin[];
  /** Whether the base spin won the jackpot pool; the pool's amount is the caller's, not part of winMinor. */
  jackpot: boolean;
  /** The base spin's and the free spins' wins, each rounded down; the jackpot pool excluded. */
  winMinor: bigint;
}

export function windowOf(stops: readonly number[]): ReelSymbol[][] {
  assert.equal(stops.length, REEL_COUNT, 'one stop per reel');
  return STRIPS.map((strip, reel) => {
    const stop = stops[reel]!;
    if (!(Number.isInteger(stop) && stop >= 0 && stop < strip.length)) assert.fail(`stop ${stop} is off reel ${reel + 1}`);
    return ROW_OFFSETS.map((offset) => strip[(stop + offset + strip.length) % strip.length] as ReelSymbol);
  });
}

/** What a window pays and triggers, before the scale: the same on a base spin and a free spin. */
export function evaluate(stops: readonly number[]): SpinOutcome {
  const window = windowOf(stops);
  const lines: LineWin[] = [];
  for (const [index, rows] of LINES.entries()) {
    const [a, b, c] = rows.map((row, reel) => window[reel]![row]!) as [ReelSymbol, ReelSymbol, ReelSymbol];
    const three = a === b && b === c ? THREE_OF_A_KIND_PAY[a] : undefined;
    const pay = three ?? (a === CHERRY && b === CHERRY && c !== CHERRY ? CHERRY_PAIR_PAY : 0);
    if (pay > 0) lines.push({ line: index + 1, symbols: a + b + c, pay });
  }
  const middle = LINES[MIDDLE_LINE]!.map((row, reel) => window[reel]![row]);
  return {
    window,
    lines,
    pay: lines.reduce((sum, line) => sum + line.pay, 0),
    scatter: window.every((reel) => reel.includes(SCATTER)),
    jackpotLine: middle.every((symbol) => symbol === JACKPOT_SYMBOL),
  };
}

// ------------------------------------------------------------ the exact maths

/** One class of stop combinations: how many show this pay with or without a star on every reel. */
interface OutcomeClass {
  pay: number;
  scatter: boolean;
  count: bigint;
}

/** What enumerating every stop combination yields, before any scale. */
interface Enumeration {
  combinations: bigint;
  classes: OutcomeClass[];
  jackpotCombinations: bigint;
  /** The largest pay of any window, and of a window with a star on every reel. */
  payMax: number;
  scatterPayMax: number;
}

function enumerate(): Enumeration {
  const byKey = new Map<string, OutcomeClass>();
  let jackpotCombinations = 0n;
  let payMax = 0;
  let scatterPayMax = 0;
  const [first, second, third] = STRIPS.map((strip) => strip.length) as [number, number, number];
  for (let a = 0; a < first; a++) {
    for (let b = 0; b < second; b++) {
      for (let c = 0; c < third; c++) {
        const outcome = evaluate([a, b, c]);
        const key = `${outcome.pay}:${outcome.scatter}`;
        const found = byKey.get(key);
        if (found) found.count += 1n;
        else byKey.set(key, { pay: outcome.pay, scatter: outcome.scatter, count: 1n });
        if (outcome.jackpotLine) jackpotCombinations += 1n;
        payMax = Math.max(payMax, outcome.pay);
        if (outcome.scatter) scatterPayMax = Math.max(scatterPayMax, outcome.pay);
      }
    }
  }
  const classes = [...byKey.values()].sort((x, y) => x.pay - y.pay || Number(x.scatter) - Number(y.scatter));
  return { combinations: BigInt(first * second * third), classes, jackpotCombinations, payMax, scatterPayMax };
}

let enumerated: Enumeration | undefined;
/** The enumeration depends only on the strips and the paytable: done once, on first use (a few milliseconds). */
function enumeration(): Enumeration {
  return (enumerated ??= enumerate());
}

/** Mean and second moment of one quantity, exact. */
interface Moments {
  mean: Ratio;
  second: Ratio;
}

export interface FeatureMoments {
  /** P(the feature plays exactly n spins), for each n it can end at. */
  spinsDistribution: Map<number, Ratio>;
  meanSpins: Ratio;
  /** Of the feature's total win, the sum over its spins of winOf(pay). */
  win: Moments;
}

/**
 * The free-spins feature solved exactly. The feature is a walk over (spins
 * played, spins awarded): each spin is one stop combination of the
 * enumeration, and a star on every reel adds FREE_SPINS_AWARD spins up to
 * FREE_SPINS_MAX. Every path is followed as an integer weight (the number
 * of stop sequences taking it) with the sums of the win and of its square
 * along it, so the feature's spin count and total win come out as exact
 * fractions over combinations^FREE_SPINS_MAX. The walk is finite because
 * the cap is: at most FREE_SPINS_MAX steps, at most FREE_SPINS_MAX /
 * FREE_SPINS_AWARD award levels.
 *
 * `winOf` maps a window's pay to the spin's win in any unit: the pay
 * itself for the paytable's return, minor units at a bet for the rounded one.
 */
export function featureMoments(winOf: (pay: number) => bigint): FeatureMoments {
  const { combinations, classes } = enumeration();
  // Per class of the next spin: whether it retriggers, how many combinations, their wins and squared wins summed.
  const steps = [true, false].map((scatter) => {
    const members = classes.filter((c) => c.scatter === scatter);
    return {
      scatter,
      count: members.reduce((sum, c) => sum + c.count, 0n),
      win: members.reduce((sum, c) => sum + c.count * winOf(c.pay), 0n),
      win2: members.reduce((sum, c) => sum + c.count * winOf(c.pay) ** 2n, 0n),
    };
  });
  interface Path {
    weight: bigint;
    win: bigint;
    win2: bigint;
  }
  // Live paths after `played` spins, by spins awarded; every weight is over combinations^played.
  let live = new Map<number, Path>([[FREE_SPINS_AWARD, { weight: 1n, win: 0n, win2: 0n }]]);
  const ended = new Map<number, Path & { played: number }>();
  for (let played = 0; live.size > 0; played++) {
    assert.ok(played < FREE_SPINS_MAX, 'the feature ends by FREE_SPINS_MAX');
    const next = new Map<number, Path>();
    for (const [awarded, path] of live) {
      for (const step of steps) {
        const to = step.scatter ? Math.min(awarded + FREE_SPINS_AWARD, FREE_SPINS_MAX) : awarded;
        const sum = next.get(to) ?? { weight: 0n, win: 0n, win2: 0n };
        // (S + w)^2 = S^2 + 2 S w + w^2, summed over the path's sequences and the step's combinations.
        next.set(to, {
          weight: sum.weight + path.weight * step.count,
          win: sum.win + path.win * step.count + path.weight * step.win,
          win2: sum.win2 + path.win2 * step.count + 2n * path.win * step.win + path.weight * step.win2,
        });
      }
    }
    live = new Map();
    for (const [awarded, path] of next) {
      if (awarded === played + 1) ended.set(awarded, { ...path, played: awarded });
      else live.set(awarded, path);
    }
  }
  const spinsDistribution = new Map<number, Ratio>();
  let meanSpins = ZERO;
  let mean = ZERO;
  let second = ZERO;
  for (const [spins, path] of [...ended].sort(([x], [y]) => x - y)) {
    const paths = combinations ** BigInt(path.played);
    spinsDistribution.set(spins, ratio(path.weight, paths));
    meanSpins = add(meanSpins, ratio(BigInt(spins) * path.weight, paths));
    mean = add(mean, ratio(path.win, paths));
    second = add(second, ratio(path.win2, paths));
  }
  return { spinsDistribution, meanSpins, win: { mean, second } };
}

export interface RoundMoments {
  /** Of the base spin's win. */
  base: Moments;
  /** Of the feature's wins, per round (the trigger's chance included). */
  freeSpins: Ratio;
  /** Of the round's whole win (base and feature), its mean and second moment. */
  round: Moments;
  feature: FeatureMoments;
}

/**
 * The exact moments of a round's win, jackpot pool excluded, given what a
 * base spin and a free spin of each pay win. The round's win is
 * base + [trigger] × feature, the feature independent of the base spin, so
 * E[X] = E[b] + P(trigger) E[F] and
 * E[X^2] = E[b^2] + 2 E[b × trigger] E[F] + P(trigger) E[F^2].
 */
export function roundMoments(baseWinOf: (pay: number) => bigint, freeWinOf: (pay: number) => bigint): RoundMoments {
  const { combinations, classes } = enumeration();
  const feature = featureMoments(freeWinOf);
  let base = 0n;
  let base2 = 0n;
  let baseTriggered = 0n;
  let triggers = 0n;
  for (const c of classes) {
    const win = baseWinOf(c.pay);
    base += c.count * win;
    base2 += c.count * win * win;
    if (c.scatter) {
      baseTriggered += c.count * win;
      triggers += c.count;
    }
  }
  const trigger = ratio(triggers, combinations);
  const freeSpins = mul(trigger, feature.win.mean);
  const mean = add(ratio(base, combinations), freeSpins);
  const second = add(add(ratio(base2, combinations), mul(ratio(2n * baseTriggered, combinations), feature.win.mean)), mul(trigger, feature.win.second));
  return { base: { mean: ratio(base, combinations), second: ratio(base2, combinations) }, freeSpins, round: { mean, second }, feature };
}

let referenceMoments: RoundMoments | undefined;
/** The paytable's own moments, in multiples of the bet: R0 is its round mean. */
function reference(): RoundMoments {
  return (referenceMoments ??= roundMoments(
    (pay) => BigInt(pay),
    (pay) => BigInt(pay * FREE_SPIN_MULTIPLIER),
  ));
}

/** What the paytable returns unscaled, per unit staked: R0, an exact fraction (about 1.0137). */
export function paytableRtp(): Ratio {
  return reference().round.mean;
}

/** Scales by the paid part of the RTP in bp: at most RTP_BP_MAX − REELS_RTP_BP_MIN + JACKPOT_BP_MAX + 1 entries. */
const scales = new Map<number, Ratio>();

/** The factor every pay is multiplied by: (rtp − jackpot share) / R0. */
export function payScale(rules: ReelsRules): Ratio {
  assertReelsRules(rules);
  const paidBp = rules.rtpBp - rules.jackpotBp;
  let scale = scales.get(paidBp);
  if (scale === undefined) {
    // R0's denominator has hundreds of digits: dividing by it once per rules, not once per round, keeps a round at microseconds.
    scale = div(ratio(BigInt(paidBp), BigInt(RTP_BP_SCALE)), paytableRtp());
    scales.set(paidBp, scale);
  }
  return scale;
}

/** What a spin of this pay and multiplier wins at a bet: rounded down to minor units, never up. */
function spinWinMinor(betMinor: bigint, pay: number, multiplier: number, scale: Ratio): bigint {
  // Four spins in five pay nothing: they skip the arithmetic on the scale's hundreds of digits.
  if (pay === 0) return 0n;
  return (betMinor * BigInt(pay * multiplier) * scale.num) / scale.den;
}

/** The part of a bet that feeds the jackpot (its jpAmount): rounded down, so never more than the bet. */
export function jackpotContribution(rules: ReelsRules, betMinor: bigint): bigint {
  assertReelsRules(rules);
  assert.ok(betMinor > 0n, 'a bet is positive');
  return (betMinor * BigInt(rules.jackpotBp)) / BigInt(RTP_BP_SCALE);
}

// ------------------------------------------------------------ playing a round

function spinWith(draw: UniformSource, betMinor: bigint, multiplier: number, scale: Ratio): Omit<Spin, 'freeSpinsAwarded'> {
  const stops = STRIPS.map((strip) => {
    const stop = draw(strip.length);
    if (!(Number.isInteger(stop) && stop >= 0 && stop < strip.length)) assert.fail(`the source drew ${stop}, not a stop of 0 to ${strip.length - 1}`);
    return stop;
  });
  const outcome = evaluate(stops);
  return { ...outcome, stops, multiplier, winMinor: spinWinMinor(betMinor, outcome.pay, multiplier, scale) };
}

/**
 * Plays a whole round: the base spin, then the free spins it triggers, each
 * from three draws of the source (reels 1, 2, 3). A star on every reel adds
 * FREE_SPINS_AWARD spins while the round stays within FREE_SPINS_MAX.
 */
export function playRound(rules: ReelsRules, betMinor: bigint, draw: UniformSource): ReelsRound {
  assert.ok(betMinor > 0n, 'a bet is positive');
  const scale = payScale(rules);
  const baseSpin = spinWith(draw, betMinor, 1, scale);
  let awarded = baseSpin.scatter ? FREE_SPINS_AWARD : 0;
  const base: Spin = { ...baseSpin, freeSpinsAwarded: awarded };
  const freeSpins: Spin[] = [];
  while (freeSpins.length < awarded) {
    const spin = spinWith(draw, betMinor, FREE_SPIN_MULTIPLIER, scale);
    const added = spin.scatter ? Math.min(FREE_SPINS_AWARD, FREE_SPINS_MAX - awarded) : 0;
    awarded += added;
    freeSpins.push({ ...spin, freeSpinsAwarded: added });
  }
  return {
    betMinor,
    jackpotContributionMinor: jackpotContribution(rules, betMinor),
    base,
    freeSpins,
    jackpot: base.jackpotLine,
    winMinor: freeSpins.reduce((sum, spin) => sum + spin.winMinor, base.winMinor),
  };
}

// ------------------------------------------------------------ the maths sheet

export interface RtpSheet {
  /** The parts of the RTP, per unit staked, before the rounding of wins; they add up to rtpBp / 10^4 exactly. */
  base: Ratio;
  freeSpins: Ratio;
  jackpot: Ratio;
  total: Ratio;
  scale: Ratio;
  /** P(the base spin pays a line). */
  hitFrequency: Ratio;
  /** P(a star on every reel), on any spin. */
  triggerChance: Ratio;
  /** P(three crowns on the middle line of the base spin). */
  jackpotChance: Ratio;
  /** Free spins a triggered feature plays on average, and P(it plays exactly n). */
  meanFreeSpins: Ratio;
  freeSpinsDistribution: Map<number, Ratio>;
  /** Of a round's win per unit staked, jackpot excluded, before rounding. */
  variance: Ratio;
  /**
   * Spins that pay per round on average. A bet B returns at least
   * total − payingSpins / B − (the contribution's rounding), never more than total.
   */
  payingSpins: Ratio;
  /** The largest win one round can pay, in multiples of the bet, jackpot excluded. */
  maxWin: Ratio;
}

/** The game's exact maths at its rules. */
export function rtpSheet(rules: ReelsRules): RtpSheet {
  const scale = payScale(rules);
  const { combinations, classes, jackpotCombinations, payMax, scatterPayMax } = enumeration();
  const moments = reference();
  const count = (keep: (c: OutcomeClass) => boolean) => classes.filter(keep).reduce((sum, c) => sum + c.count, 0n);
  const hitFrequency = ratio(
    count((c) => c.pay > 0),
    combinations,
  );
  const triggerChance = ratio(
    count((c) => c.scatter),
    combinations,
  );
  const meanFreeSpins = moments.feature.meanSpins;
  const base = mul(scale, moments.base.mean);
  const freeSpins = mul(scale, moments.freeSpins);
  const jackpot = ratio(BigInt(rules.jackpotBp), BigInt(RTP_BP_SCALE));
  const variance = mul(mul(scale, scale), sub(moments.round.second, mul(moments.round.mean, moments.round.mean)));
  // Wald: a feature's spins are alike and whether spin i is played depends only on the spins before it.
  const payingSpins = mul(hitFrequency, add(ratio(1n), mul(triggerChance, meanFreeSpins)));
  // The most: a base spin with every star, retriggers on the first free spins at their best pay, the rest at the best pay of all.
  const retriggers = Math.ceil((FREE_SPINS_MAX - FREE_SPINS_AWARD) / FREE_SPINS_AWARD);
  const featureMax = FREE_SPIN_MULTIPLIER * (retriggers * scatterPayMax + (FREE_SPINS_MAX - retriggers) * payMax);
  const maxWin = mul(scale, ratio(BigInt(Math.max(payMax, scatterPayMax + featureMax))));
  return {
    base,
    freeSpins,
    jackpot,
    total: add(add(base, freeSpins), jackpot),
    scale,
    hitFrequency,
    triggerChance,
    jackpotChance: ratio(jackpotCombinations, combinations),
    meanFreeSpins,
    freeSpinsDistribution: moments.feature.spinsDistribution,
    variance,
    payingSpins,
    maxWin,
  };
}

export interface RtpAtBet {
  /** Per unit staked, with every spin's win rounded down to minor units at this bet. */
  base: Ratio;
  freeSpins: Ratio;
  /** jackpotContribution / bet: what the pool receives of this bet. */
  jackpot: Ratio;
  total: Ratio;
  /** Of a round's win per unit staked, jackpot excluded, with the rounding. */
  variance: Ratio;
  /** Of the base spin's win alone per unit staked, with the rounding. */
  baseVariance: Ratio;
}

/** The exact return of a bet: each spin's win rounded down as playRound rounds it. */
export function rtpAtBet(rules: ReelsRules, betMinor: bigint): RtpAtBet {
  assert.ok(betMinor > 0n, 'a bet is positive');
  const scale = payScale(rules);
  const moments = roundMoments(
    (pay) => spinWinMinor(betMinor, pay, 1, scale),
    (pay) => spinWinMinor(betMinor, pay, FREE_SPIN_MULTIPLIER, scale),
  );
  const perBet = ratio(1n, betMinor);
  const varianceOf = ({ mean, second }: Moments) => mul(sub(second, mul(mean, mean)), mul(perBet, perBet));
  const base = mul(moments.base.mean, perBet);
  const freeSpins = mul(moments.freeSpins, perBet);
  const jackpot = ratio(jackpotContribution(rules, betMinor), betMinor);
  return {
    base,
    freeSpins,
    jackpot,
    total: add(add(base, freeSpins), jackpot),
    variance: varianceOf(moments.round),
    baseVariance: varianceOf(moments.base),
  };
}

/** A line of the paytable as the game shows it: the pay at the rules, in bp of the bet, rounded down. */
export function paytable(rules: ReelsRules): { symbols: string; pay: number; payBp: number }[] {
  const scale = payScale(rules);
  const rows = Object.entries(THREE_OF_A_KIND_PAY).map(([symbol, pay]) => ({ symbols: symbol.repeat(REEL_COUNT), pay: pay! }));
  rows.push({ symbols: `${CHERRY}${CHERRY}*`, pay: CHERRY_PAIR_PAY });
  return rows.sort((x, y) => y.pay - x.pay).map((row) => ({ ...row, payBp: Number((BigInt(row.pay * RTP_BP_SCALE) * scale.num) / scale.den) }));
}
