/**
 * The plain facts the rules of rounds read and write: a round as planned,
 * a round as it stands, the reels part of one, and what a rule needs of a
 * session, a campaign or a payout. They are data, not storage: the store
 * contract (src/provider/store/provider-store.ts) builds its row types on
 * them, as the ledger's rules take a StoredPlayer, so that this layer
 * imports nothing of the provider's and a store cannot hold a field a rule
 * reads under another name.
 */

export type Mode = 'real' | 'fun';

/**
 * A dice round: `pending` until its one request has a final answer. A reels
 * round: `pending` while it is unfinished (a call on its way, or free spins
 * not yet played), `settled` once its last call is answered (fun: its last
 * free spin played), `refused` when its bet was.
 */
export type RoundStatus = 'pending' | 'settled' | 'refused';
export type GameKindOfRound = 'dice' | 'reels';

/**
 * What a reels round's row holds besides the round's: the rules it was
 * played with and the inputs of its draw (the seeds and nonce on the round)
 * recompute every spin exactly, so only the amounts and the progress are
 * kept. Amounts in minor units.
 */
export interface ReelsPart {
  rtpBp: number;
  jackpotBp: number;
  /** The base spin's line win. */
  baseWinMinor: bigint;
  /** The free spins' wins, all of them. */
  featureWinMinor: bigint;
  /** The bet's jpAmount: added to the pool with the bet. */
  jackpotContributionMinor: bigint;
  /** The pool the round won, null when it won none. */
  jackpotWinMinor: bigint | null;
  /** What the pool was reset to by the win (for a refused bet's undo). */
  jackpotSeedMinor: bigint;
  /** Free spins the draw gives the round (0: no feature). */
  freeSpins: number;
  /** Free spins revealed so far, by the player or the provider's completion. */
  freeSpinsPlayed: number;
  /** The round's /transaction requests (0 for fun rounds). */
  calls: number;
  /** Calls with a final answer. */
  callsDone: number;
  /** When the provider completed the feature the player left; null when the player played it, or there is none. */
  completedAt: number | null;
}

/** A round as planned, before a store numbers it: everything a round of either game is written with. */
export interface PlannedRound {
  roundId: string;
  sessionPk: number;
  mode: Mode;
  operatorId: string;
  playerId: string | null;
  game: string;
  currency: string;
  betMinor: bigint;
  winMinor: bigint;
  betTxId: string | null;
  winTxId: string | null;
  campaignId: string | null;
  campaignFinished: boolean | null;
  /** Dice: the chance, threshold and roll; 0 on a reels round. */
  chancePct: number;
  threshold: number;
  roll: number;
  /**
   * The round's server seed once revealed (for verification, as the player
   * is shown it); null while it is not: a reels round whose free spins are
   * not all played yet keeps it sealed in `sealedSeed` instead, since the
   * seed would tell those spins before the player sees them.
   */
  serverSeed: string | null;
  /** The seed, sealed for this round (src/provider/seed-keyring.ts), while `serverSeed` is null. */
  sealedSeed: string | null;
  serverSeedHash: string;
  clientSeed: string;
  nonce: number;
  requestBody: string | null;
  createdAt: number;
}

/** A round as it stands: as planned, with where it is and, once it has one, its final answer. */
export interface RoundFacts extends PlannedRound {
  kind: GameKindOfRound;
  /** Reels rounds only; null on a dice round. */
  reels: ReelsPart | null;
  status: RoundStatus;
  refusalCode: string | null;
  refusalDetail: string | null;
  /** Settled: the balance the operator answered. Refused: the balance its problem carried, if any. */
  balanceAfterMinor: bigint | null;
}

/**
 * A reels round to write: its row (winMinor: base and free spins' wins,
 * the jackpot not counted; the store adds the pool it takes), what the
 * draw gave, and for a real round its requests' bodies, made from the
 * jackpot the round's own transaction takes from the pool.
 */
export interface PlannedReelsRound extends PlannedRound {
  plan: {
    rtpBp: number;
    jackpotBp: number;
    baseWinMinor: bigint;
    featureWinMinor: bigint;
    jackpotContributionMinor: bigint;
    /** The base spin showed three crowns on line 1. */
    jackpotHit: boolean;
    /** The pool's seed in the round's currency: what a new pool starts from and a win resets it to. */
    jackpotSeedMinor: bigint;
    freeSpins: number;
  };
  /** Real rounds: the bodies of the round's calls, in order (src/game/reels-calls.ts), given the pool won (undefined: none). Pure. */
  callBodies?: (jackpotWinMinor: bigint | undefined) => string[];
}

/** What a round takes from its game session, and what a request names of it. */
export interface SessionFacts {
  pk: number;
  sessionId: string;
  mode: Mode;
  operatorId: string;
  game: string;
  playerId: string | null;
  /** The operator's session (real sessions): the requests' sessionId. */
  operatorSessionId: string | null;
  currency: string;
  nonce: number;
  /** The commitment of the seed of the session's next round. */
  serverSeedHash: string;
}

/** A free-bets campaign's terms: what makes one put again the same. */
export interface CampaignTerms {
  campaignId: string;
  operatorId: string;
  game: string;
  currency: string;
  betMinor: bigint;
  rounds: number;
  expiresAt: number | null;
}

/** A tournament prize's terms: what makes one asked again the same. */
export interface PayoutTerms {
  payoutId: string;
  operatorId: string;
  playerId: string;
  currency: string;
  amountMinor: bigint;
  campaignId: string;
}
