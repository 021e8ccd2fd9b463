/**
 * A round of each game planned from its session, before anything is
 * written: the dice round's roll and win, the reels round drawn whole (so
 * its free spins are fixed before the player sees the first), what each
 * writes and, for a real round, its requests. The seeds, ids and time come
 * in as parameters: the plan is the same every time it is asked, and a
 * store's transaction may ask a reels plan for its bodies more than once.
 */
import { chanceRange, isOfferedChance, quote, settle, type DiceRules } from '../game/dice.js';
import { drawSource, rollOf } from '../game/fairness.js';
import { playRound, type ReelsRound, type ReelsRules } from '../game/reels.js';
import { roundCalls, type TransactionSlot } from '../game/reels-calls.js';
import { refuse, type Refusal } from '../protocol/errors.js';
import { reelsCallBody } from './bodies.js';
import type { CampaignTerms, PlannedReelsRound, PlannedRound, RoundFacts, SessionFacts } from './facts.js';

/** The free-bets campaign a round is played on, and whether it is the campaign's last round for the player. */
export interface FreeRoundStake {
  row: Pick<CampaignTerms, 'campaignId'>;
  finished: boolean;
}

/** What a new round of either game takes from its session: whose it is, the draw's nonce and the commitment shown for it. */
export function roundOfSession(
  session: SessionFacts,
): Pick<PlannedRound, 'sessionPk' | 'mode' | 'operatorId' | 'playerId' | 'game' | 'currency' | 'nonce' | 'serverSeedHash'> {
  const { pk: sessionPk, mode, operatorId, playerId, game, currency, nonce, serverSeedHash } = session;
  return { sessionPk, mode, operatorId, playerId, game, currency, nonce, serverSeedHash };
}

/** A dice chance the game does not offer, refused before the stake is looked at; undefined when it is offered. */
export function chanceRefusal(rules: DiceRules, chancePct: number): Refusal | undefined {
  if (isOfferedChance(rules, chancePct)) return undefined;
  const range = chanceRange(rules);
  return refuse('INVALID_REQUEST', `chancePct: must be a whole percent from ${range.min} to ${range.max}`);
}

export interface DicePlanInput {
  rules: DiceRules;
  session: SessionFacts;
  betMinor: bigint;
  /** The bet as the player wrote it (undefined for a free round), for the refusal's words. */
  betText: string | undefined;
  chancePct: number;
  clientSeed: string;
  campaign: FreeRoundStake | undefined;
  /**
   * Opens the session's seed for this round (its commitment is the
   * session's). Asked only once the bet is priced, so that a bet too small
   * is refused as such even when the seed cannot be opened.
   */
  openSeed: () => string;
  /** A new id: the round's, then (real rounds) its bet's and its win's, asked in that order. */
  newId: () => string;
  createdAt: number;
}

/** A dice round to write, rolled from the session's seeds at its nonce. Outcomes: the round | INVALID_REQUEST (a bet too small to pay anything at that chance) */
export function planDiceRound(input: DicePlanInput): { ok: true; round: PlannedRound } | Refusal {
  const { session, campaign } = input;
  const priced = quote(input.rules, input.betMinor, input.chancePct);
  if (!priced) return refuse('INVALID_REQUEST', `bet: ${input.betText} is too small to pay anything at ${input.chancePct} %`);
  const serverSeed = input.openSeed();
  const roll = rollOf(serverSeed, input.clientSeed, session.nonce);
  const outcome = settle(priced, roll);
  const round: PlannedRound = {
    roundId: input.newId(),
    ...roundOfSession(session),
    betMinor: input.betMinor,
    winMinor: outcome.winMinor,
    betTxId: session.mode === 'real' ? input.newId() : null,
    winTxId: session.mode === 'real' ? input.newId() : null,
    campaignId: campaign?.row.campaignId ?? null,
    campaignFinished: campaign ? campaign.finished : null,
    chancePct: input.chancePct,
    threshold: priced.threshold,
    roll,
    // A dice round is played whole at once: its seed is revealed with it (shown to the player once the casino has answered).
    serverSeed,
    sealedSeed: null,
    clientSeed: input.clientSeed,
    requestBody: null,
    createdAt: input.createdAt,
  };
  return { ok: true, round };
}

/** The round a row's seeds and rules draw: the same every time. `serverSeed`: the round's, revealed or opened. */
export function drawnRound(round: Pick<RoundFacts, 'reels' | 'betMinor' | 'clientSeed' | 'nonce'>, serverSeed: string): ReelsRound {
  const rules: ReelsRules = { rtpBp: round.reels!.rtpBp, jackpotBp: round.reels!.jackpotBp };
  return playRound(rules, round.betMinor, drawSource(serverSeed, round.clientSeed, round.nonce));
}

export interface ReelsPlanInput {
  game: { rules: ReelsRules; jackpotSeeds: ReadonlyMap<string, bigint> };
  session: SessionFacts;
  betMinor: bigint;
  clientSeed: string;
  roundId: string;
  createdAt: number;
  /** A new transaction id (real rounds). */
  newId: () => string;
  campaign: FreeRoundStake | undefined;
  decimals: number;
  /** The session's seed for this round, opened; its commitment is the session's. */
  serverSeed: string;
  /** Seals the seed for the round, when it has free spins to hide. */
  sealForRound: (seedHex: string, roundId: string) => string;
}

/** A reels round to write (the store adds the pool it takes), drawn from the session's seeds at its nonce. */
export function planReelsRound(input: ReelsPlanInput): { round: PlannedReelsRound; drawn: ReelsRound } {
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
  const campaign = input.campaign;
  const callBodies = (jackpotWinMinor: bigint | undefined) =>
    roundCalls(drawn, {
      newId: idOf,
      ...(jackpotWinMinor === undefined ? {} : { jackpotWinMinor }),
      ...(campaign === undefined ? {} : { freeBet: { campaignId: campaign.row.campaignId, finished: campaign.finished } }),
    }).map((call) => reelsCallBody(call, input.roundId, session, decimals));
  const featureWinMinor = drawn.freeSpins.reduce((sum, spin) => sum + spin.winMinor, 0n);
  const round: PlannedReelsRound = {
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
