/**
 * What a player is shown of rounds, at each stage of one: a dice round
 * (nothing of its outcome until the casino has answered), a reels round
 * (docs/provider.md, The reels game's API: nothing while its bet is on its
 * way, the free spins played so far, the seed once settled) and a reels
 * game's rules. A round's spins are recomputed from its draw inputs for
 * every view, never stored twice; a round whose free spins are not all
 * played keeps its seed sealed, so its views take the seed opened by the
 * caller.
 */
import { FREE_SPIN_MULTIPLIER, FREE_SPINS_AWARD, FREE_SPINS_MAX, LINES, paytable, type ReelsRules, type Spin } from '../game/reels.js';
import { formatMinor } from '../protocol/money.js';
import { featureDone } from './completion.js';
import type { RoundFacts } from './facts.js';
import { drawnRound } from './plan.js';

export interface RoundView {
  roundId: string;
  nonce: number;
  /** Pending: sent to the casino, no final answer yet; nothing about its outcome is shown. */
  status: 'pending' | 'settled';
  bet: string;
  chancePct: number;
  threshold: number;
  serverSeedHash: string;
  clientSeed: string;
  free: boolean;
  at: string;
  /** Revealed once the round is settled. */
  roll?: number;
  win?: string;
  serverSeed?: string;
}

/** A dice round as the page sees it: its roll, win and seed once settled. */
export function roundView(round: RoundFacts, decimals: number): RoundView {
  const view: RoundView = {
    roundId: round.roundId,
    nonce: round.nonce,
    status: round.status === 'settled' ? 'settled' : 'pending',
    bet: formatMinor(round.betMinor, decimals),
    chancePct: round.chancePct,
    threshold: round.threshold,
    serverSeedHash: round.serverSeedHash,
    clientSeed: round.clientSeed,
    free: round.campaignId !== null,
    at: new Date(round.createdAt).toISOString(),
  };
  if (round.status === 'settled') {
    view.roll = round.roll;
    view.win = formatMinor(round.winMinor, decimals);
    view.serverSeed = round.serverSeed ?? undefined;
  }
  return view;
}

export interface SpinView {
  stops: number[];
  /** window[reel][row], rows top, middle, bottom. */
  window: string[][];
  lines: { line: number; symbols: string; pay: number }[];
  multiplier: number;
  win: string;
  freeSpinsAwarded: number;
  /** Base spin: three crowns on line 1. */
  jackpot: boolean;
}

export interface FeatureView {
  total: number;
  played: number;
  left: number;
  /** The free spins played so far, in order. */
  spins: SpinView[];
  /** Their wins. */
  win: string;
  completedByProvider: boolean;
}

/**
 * `betting`: the bet or the base spin's win is on its way to the casino,
 * nothing of the outcome shown. `feature`: free spins left to play.
 * `closing`: every spin shown, the feature's wins on their way. `settled`:
 * the casino answered the last request (fun: the last spin was played).
 */
export type ReelsStage = 'betting' | 'feature' | 'closing' | 'settled';

export interface ReelsRoundView {
  roundId: string;
  nonce: number;
  stage: ReelsStage;
  status: 'pending' | 'settled';
  bet: string;
  free: boolean;
  clientSeed: string;
  serverSeedHash: string;
  at: string;
  jackpotContribution: string;
  base?: SpinView;
  jackpotWin?: string | null;
  feature?: FeatureView | null;
  win?: string;
  serverSeed?: string;
}

export interface ReelsGameView {
  slug: string;
  title: string;
  kind: 'reels';
  rtp: string;
  rtpBp: number;
  jackpotShare: string;
  jackpotBp: number;
  lines: (readonly number[])[];
  paytable: { symbols: string; pay: number; payBp: number }[];
  freeSpinsAward: number;
  freeSpinMultiplier: number;
  freeSpinsMax: number;
}

/** A reels game's rules as its page is told them. */
export function reelsGameView(game: { slug: string; title: string; rules: ReelsRules }): ReelsGameView {
  return {
    slug: game.slug,
    title: game.title,
    kind: 'reels',
    rtp: formatMinor(BigInt(game.rules.rtpBp), 4),
    rtpBp: game.rules.rtpBp,
    jackpotShare: formatMinor(BigInt(game.rules.jackpotBp), 4),
    jackpotBp: game.rules.jackpotBp,
    lines: [...LINES],
    paytable: paytable(game.rules),
    freeSpinsAward: FREE_SPINS_AWARD,
    freeSpinMultiplier: FREE_SPIN_MULTIPLIER,
    freeSpinsMax: FREE_SPINS_MAX,
  };
}

/** Where a round stands, as the page is told. */
export function stageOf(round: Pick<RoundFacts, 'reels' | 'status' | 'mode'>): ReelsStage {
  const reels = round.reels!;
  if (round.status === 'settled') return 'settled';
  if (round.mode === 'real' && reels.callsDone < 2) return 'betting';
  return featureDone(reels) ? 'closing' : 'feature';
}

export function spinView(spin: Spin, decimals: number, base: boolean): SpinView {
  return {
    stops: [...spin.stops],
    window: spin.window.map((reel) => [...reel]),
    lines: spin.lines.map((line) => ({ line: line.line, symbols: line.symbols, pay: line.pay })),
    multiplier: spin.multiplier,
    win: formatMinor(spin.winMinor, decimals),
    freeSpinsAwarded: spin.freeSpinsAwarded,
    jackpot: base && spin.jackpotLine,
  };
}

/**
 * A round as the page sees it at its stage: nothing of the outcome while
 * betting, the free spins played so far, the seed once settled.
 * `seedOf` opens the round's seed while it is sealed; it is asked only
 * past the betting stage.
 */
export function reelsRoundView<R extends RoundFacts>(round: R, decimals: number, seedOf: (round: R) => string): ReelsRoundView {
  const reels = round.reels!;
  const stage = stageOf(round);
  const view: ReelsRoundView = {
    roundId: round.roundId,
    nonce: round.nonce,
    stage,
    status: stage === 'settled' ? 'settled' : 'pending',
    bet: formatMinor(round.betMinor, decimals),
    free: round.campaignId !== null,
    clientSeed: round.clientSeed,
    serverSeedHash: round.serverSeedHash,
    at: new Date(round.createdAt).toISOString(),
    jackpotContribution: formatMinor(reels.jackpotContributionMinor, decimals),
  };
  if (stage === 'betting') return view;
  const drawn = drawnRound(round, seedOf(round));
  const played = drawn.freeSpins.slice(0, reels.freeSpinsPlayed);
  const featureWin = played.reduce((sum, spin) => sum + spin.winMinor, 0n);
  view.base = spinView(drawn.base, decimals, true);
  view.jackpotWin = reels.jackpotWinMinor === null ? null : formatMinor(reels.jackpotWinMinor, decimals);
  view.feature =
    reels.freeSpins === 0
      ? null
      : {
          total: reels.freeSpins,
          played: reels.freeSpinsPlayed,
          left: reels.freeSpins - reels.freeSpinsPlayed,
          spins: played.map((spin) => spinView(spin, decimals, false)),
          win: formatMinor(featureWin, decimals),
          completedByProvider: reels.completedAt !== null,
        };
  view.win = formatMinor(drawn.base.winMinor + (reels.jackpotWinMinor ?? 0n) + featureWin, decimals);
  // Settled: every spin has been shown, and the seed was revealed with the last (playFreeSpins).
  if (stage === 'settled') view.serverSeed = round.serverSeed ?? seedOf(round);
  return view;
}
