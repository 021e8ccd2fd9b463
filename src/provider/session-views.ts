/**
 * What a game page is told of its launch: the session (its game, balance,
 * ladder, rounds and free rounds), a play's answer, and the reels game's
 * pool. Read from the store at the moment of asking; the shape of each
 * round is the rounds layer's (src/rounds/views.ts).
 */
import assert from 'node:assert/strict';
import { chanceRange, type DiceRules } from '../game/dice.js';
import { formatMinor } from '../protocol/money.js';
import { reelsGameView, reelsRoundView, roundView, type ReelsGameView, type ReelsRoundView, type RoundView, type SpinView } from '../rounds/views.js';
import type { GameContext } from './game-context.js';
import type { LaunchClaims } from './launch-token.js';
import type { DiceGameSettings } from './config-games.js';
import { openRoundSeed } from './seed-keyring.js';
import type { CampaignRow, GameSessionRow, RoundRow } from './store/provider-store.js';

export type { RoundView } from '../rounds/views.js';

/** Rounds shown on the game page. */
export const ROUNDS_SHOWN_MAX = 20;

export interface FreeRoundsView {
  campaignId: string;
  left: number;
  bet: string;
}

export interface SessionView {
  mode: 'real' | 'fun';
  game: { slug: string; title: string; rtp: string; volatility: string; chancePctMin: number; chancePctMax: number; rtpBp: number };
  currency: string;
  decimals: number;
  balance: string;
  ladder: string[];
  defaultBet: string;
  language: string;
  urls: LaunchClaims['urls'];
  fairness: { serverSeedHash: string; nonce: number };
  rounds: RoundView[];
  freeRounds: FreeRoundsView | null;
  /** How often the page calls urls.refresh; null when it must not. */
  refreshIntervalMs: number | null;
}

/**
 * A played round and the launch after it. A real round with no final answer
 * within limits.roundSettleMsMax is answered pending (the app's 202): its
 * roll and win stay hidden, the balance is the last the casino gave, and the
 * page follows it with `state` until it is settled or refused.
 */
export interface PlayView {
  round: RoundView;
  balance: string;
  fairness: { serverSeedHash: string; nonce: number };
  freeRounds: FreeRoundsView | null;
}

/** The reels game's session view (docs/provider.md, The reels game's API): the launch's common part, its game, pool and rounds. */
export interface ReelsSessionView extends Omit<SessionView, 'game' | 'rounds'> {
  game: ReelsGameView;
  jackpot: { pool: string };
  /** The launch's round whose free spins are not all played, if any: a reload resumes it. */
  unfinished: ReelsRoundView | null;
  rounds: ReelsRoundView[];
}

/** A reels play or free spin and the launch after it; `spin` is the free spin just played. */
export interface ReelsPlayView {
  round: ReelsRoundView;
  balance: string;
  fairness: { serverSeedHash: string; nonce: number };
  freeRounds: FreeRoundsView | null;
  jackpot: { pool: string };
  spin?: SpinView;
}

/** Whether a play's answer is the app's 202: its round's requests are still on their way to the casino. */
export function answeredPending(view: PlayView | ReelsPlayView): boolean {
  return 'stage' in view.round ? view.round.stage === 'betting' || view.round.stage === 'closing' : view.round.status === 'pending';
}

function rtpText(rules: DiceRules): string {
  return formatMinor(BigInt(rules.rtpBp), 4);
}

export class SessionViews {
  constructor(private readonly options: GameContext) {}

  /** The seed a round needs, revealed or opened from its sealed form. */
  readonly seedOf = (round: RoundRow): string => openRoundSeed(this.options.keyring, round);

  diceGame(slug: string): DiceGameSettings {
    const game = this.options.catalog.game(slug);
    assert.ok(game?.kind === 'dice', `game ${slug} is a dice game`);
    return game;
  }

  decimalsOf(session: GameSessionRow): number {
    const decimals = this.options.catalog.decimals(session.currency);
    if (decimals === undefined) throw new Error(`session ${session.sessionId} has an unknown currency ${session.currency}`);
    return decimals;
  }

  async freeRoundsOf(session: GameSessionRow, now: number): Promise<{ campaign: CampaignRow; left: number } | undefined> {
    if (session.mode !== 'real' || session.playerId === null) return undefined;
    const { store } = this.options;
    for (const campaign of await store.campaignsOf(session.operatorId, session.playerId, session.game, session.currency, now)) {
      const left = campaign.rounds - (await store.campaignRoundsUsed(campaign.campaignId, session.operatorId, session.playerId));
      if (left > 0) return { campaign, left };
    }
    return undefined;
  }

  async freeRoundsView(session: GameSessionRow): Promise<FreeRoundsView | null> {
    const offer = await this.freeRoundsOf(session, this.options.world.clock());
    if (!offer) return null;
    return { campaignId: offer.campaign.campaignId, left: offer.left, bet: formatMinor(offer.campaign.betMinor, this.decimalsOf(session)) };
  }

  async sessionView(session: GameSessionRow, claims: LaunchClaims): Promise<SessionView | ReelsSessionView> {
    const { catalog, store, config } = this.options;
    const decimals = this.decimalsOf(session);
    const ladder = (catalog.ladder(session.game, session.currency) ?? []).map((amount) => formatMinor(amount, decimals));
    // What every game's page is told of its launch; each kind adds its game, rounds and what only it has.
    const shared = {
      mode: session.mode,
      currency: session.currency,
      decimals,
      balance: formatMinor(session.balanceMinor, decimals),
      ladder,
      // A modest default: a third of the way up the ladder.
      defaultBet: ladder[Math.floor((ladder.length - 1) / 3)] ?? '0',
      language: session.language,
      urls: claims.urls,
      fairness: { serverSeedHash: session.serverSeedHash, nonce: session.nonce },
      freeRounds: await this.freeRoundsView(session),
      refreshIntervalMs: session.mode === 'real' && claims.urls.refresh !== undefined ? config.limits.refreshIntervalMs : null,
    };
    const anyGame = catalog.game(session.game)!;
    if (anyGame.kind === 'reels') {
      const rounds = (await store.recentRounds(session.pk, ROUNDS_SHOWN_MAX)).map((round) => reelsRoundView(round, decimals, this.seedOf));
      const first = rounds[0];
      return {
        ...shared,
        game: reelsGameView(anyGame),
        jackpot: { pool: formatMinor(await this.poolOf(session), decimals) },
        unfinished: first !== undefined && first.stage === 'feature' ? first : null,
        rounds,
      };
    }
    const game = this.diceGame(session.game);
    const range = chanceRange(game.rules);
    return {
      ...shared,
      game: {
        slug: game.slug,
        title: game.title,
        rtp: rtpText(game.rules),
        volatility: game.rules.volatility,
        chancePctMin: range.min,
        chancePctMax: range.max,
        rtpBp: game.rules.rtpBp,
      },
      rounds: (await store.recentRounds(session.pk, ROUNDS_SHOWN_MAX)).map((round) => roundView(round, decimals)),
    };
  }

  async playView(session: GameSessionRow, round: RoundRow): Promise<PlayView> {
    const decimals = this.decimalsOf(session);
    return {
      round: roundView(round, decimals),
      balance: formatMinor(round.balanceAfterMinor ?? session.balanceMinor, decimals),
      fairness: { serverSeedHash: session.serverSeedHash, nonce: session.nonce },
      freeRounds: await this.freeRoundsView(session),
    };
  }

  async reelsPlayView(sessionPk: number, round: RoundRow): Promise<ReelsPlayView> {
    const session = await this.options.store.session(sessionPk);
    const decimals = this.decimalsOf(session);
    return {
      round: reelsRoundView(round, decimals, this.seedOf),
      balance: formatMinor(session.balanceMinor, decimals),
      fairness: { serverSeedHash: session.serverSeedHash, nonce: session.nonce },
      freeRounds: await this.freeRoundsView(session),
      jackpot: { pool: formatMinor(await this.poolOf(session), decimals) },
    };
  }

  /** The launch's jackpot pool; in fun mode the seed, which a fun jackpot pays. */
  async poolOf(session: GameSessionRow): Promise<bigint> {
    const game = this.options.catalog.game(session.game);
    if (game?.kind !== 'reels') return 0n;
    const seed = game.jackpotSeeds.get(session.currency) ?? 0n;
    return session.mode === 'fun' ? seed : this.options.store.jackpotPool(session.operatorId, session.game, session.currency, seed);
  }
}
