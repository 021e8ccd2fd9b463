/**
 * The reels game's part of the game service, as pure functions: a round
 * planned from the session's seeds (the whole round is drawn at once, so
 * its free spins are fixed before the player sees the first), its
 * /transaction bodies (src/game/reels-calls.ts, in major units, the ids
 * kept for every run of the store's transaction), and what the page sees
 * of a round at each stage (docs/provider.md, The reels game's API).
 *
 * A round's row keeps the rules it was played with and its draw inputs
 * (server seed, client seed, nonce): the spins are recomputed from them
 * for every view, never stored twice. A round whose free spins are not all
 * played keeps its seed sealed (seed-keyring.ts), since the seed would
 * tell the spins to come: its views take the seed opened by the caller.
 */
import { drawSource } from '../game/fairness.js';
import { playRound, FREE_SPIN_MULTIPLIER, FREE_SPINS_AWARD, FREE_SPINS_MAX, LINES, paytable, type ReelsRound, type ReelsRules, type Spin } from '../game/reels.js';
import { roundCalls, type TransactionSlot } from '../game/reels-calls.js';
import { raw, stringify } from '../protocol/json.js';
import { formatMinor } from '../protocol/money.js';
import type { ReelsGameSettings } from './provider-config.js';
import { featureDone, roundOfSession, type CampaignRow, type GameSessionRow, type NewReelsRound, type RoundRow } from './store/provider-store.js';

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

export function reelsGameView(game: ReelsGameSettings): ReelsGameView {
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

/** The round a row's seeds and rules draw: the same every time. `serverSeed`: the round's, revealed or opened. */
export function drawnRound(round: Pick<RoundRow, 'reels' | 'betMinor' | 'clientSeed' | 'nonce'>, serverSeed: string): ReelsRound {
  const rules: ReelsRules = { rtpBp: round.reels!.rtpBp, jackpotBp: round.reels!.jackpotBp };
  return playRound(rules, round.betMinor, drawSource(serverSeed, round.clientSeed, round.nonce));
}

export interface ReelsPlanInput {
  game: ReelsGameSettings;
  session: GameSessionRow;
  betMinor: bigint;
  clientSeed: string;
  roundId: string;
  createdAt: number;
  /** A new transaction id (real rounds). */
  newId: () => string;
  campaign: { row: CampaignRow; finished: boolean } | undefined;
  decimals: number;
  /** The session's seed for this round, opened; its commitment is the session's. */
  serverSeed: string;
  /** Seals the seed for the round, when it has free spins to hide. */
  sealForRound: (seedHex: string, roundId: string) => string;
}

/** A reels round to write (the store adds the pool it takes), drawn from the session's seeds at its nonce. */
export function planReelsRound(input: ReelsPlanInput): { round: NewReelsRound; drawn: ReelsRound } {
  const { game, session, betMinor, decimals } = input;
  const drawn = playRound(game.rules, betMinor, drawSource(input.serverSeed, input.clientSeed, session.nonce));
  // Free spins are revealed one by one, later: until the last, the seed that tells them stays sealed.
  const hidden = drawn.freeSpins.length > 0;
  const real = session.mode === 'real';
  // One id per transaction slot, made once: the store's transaction may build the bodies more than once (a retried run) and must send the same ids.
  const ids = new Map<string, string>();
  const idOf = (slot: TransactionSlot) => {
    const key = slot.kind === 'freeSpinWin' ? `${slot.kind}:${slot.spin}` : slot.kind;
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = input.newId()));
    return id;
  };
  const betTxId = real ? idOf({ kind: 'bet' }) : null;
  const winTxId = real ? idOf({ kind: 'baseWin' }) : null;
  const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
  const campaign = input.campaign;
  const callBodies = (jackpotWinMinor: bigint | undefined) =>
    roundCalls(drawn, {
      newId: idOf,
      ...(jackpotWinMinor === undefined ? {} : { jackpotWinMinor }),
      ...(campaign === undefined ? {} : { freeBet: { campaignId: campaign.row.campaignId, finished: campaign.finished } }),
    }).map((call) =>
      stringify({
        sessionId: session.operatorSessionId,
        playerId: session.playerId,
        game: session.game,
        transactions: call.transactions.map((tx) => ({
          id: tx.id,
          type: tx.type,
          amount: amount(tx.amountMinor),
          ...(tx.jpAmountMinor === undefined ? {} : { jpAmount: amount(tx.jpAmountMinor) }),
        })),
        round: { id: input.roundId, finished: call.finished },
        ...(call.campaign === undefined ? {} : { campaign: call.campaign }),
      }),
    );
  const featureWinMinor = drawn.freeSpins.reduce((sum, spin) => sum + spin.winMinor, 0n);
  const round: NewReelsRound = {
    roundId: input.roundId,
    ...roundOfSession(session),
    betMinor,
    winMinor: drawn.winMinor,
    betTxId,
    winTxId,
    campaignId: campaign?.row.campaignId ?? null,
    campaignFinished: campaign ? campaign.finished : null,
    chancePct: 0,
    threshold: 0,
    roll: 0,
    serverSeed: hidden ? null : input.serverSeed,
    sealedSeed: hidden ? input.sealForRound(input.serverSeed, input.roundId) : null,
    clientSeed: input.clientSeed,
    requestBody: null,
    createdAt: input.createdAt,
    plan: {
      rtpBp: game.rules.rtpBp,
      jackpotBp: game.rules.jackpotBp,
      baseWinMinor: drawn.base.winMinor,
      featureWinMinor,
      jackpotContributionMinor: drawn.jackpotContributionMinor,
      jackpotHit: drawn.jackpot,
      jackpotSeedMinor: game.jackpotSeeds.get(session.currency) ?? 0n,
      freeSpins: drawn.freeSpins.length,
    },
    ...(real ? { callBodies } : {}),
  };
  return { round, drawn };
}

/** Where a round stands, as the page is told. */
export function stageOf(round: RoundRow): ReelsStage {
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
export function reelsRoundView(round: RoundRow, decimals: number, seedOf: (round: RoundRow) => string): ReelsRoundView {
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
