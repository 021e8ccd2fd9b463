/**
 * The provider's use-cases behind the game page: open a launch, play a
 * round. Real money lives in the operator's wallet and moves only through
 * its /authenticate and /transaction; fun money lives in the provider's
 * store and no call reaches an operator.
 *
 * Rounds of one launch run one at a time (a per-launch queue in this
 * process). A real round is logged pending with its exact request, which
 * the same database transaction enqueues in the durable outbox
 * (store/provider-store.ts, src/dispatch); once that is durable the dispatcher is
 * woken to send it, and the player waits for its final answer up to
 * limits.roundSettleMsMax. The dispatcher goes on without the player: a
 * round still pending then is delivered on the protocol's back-off until
 * the operator answers, across restarts, never played twice, and the
 * launch's next round waits until it is settled or refused.
 *
 * One service per process: the app's routes share it, so that its
 * per-launch queues hold for every request. `createGameService` builds it
 * from the config; the server (serve-provider.ts) owns it and closes it
 * after the app.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chanceRange, type DiceRules } from '../game/dice.js';
import { refuse, type ErrorCode, type Refusal } from '../protocol/errors.js';
import { decimalFromString, formatMinor, toMinor } from '../protocol/money.js';
import type { Dispatcher } from 'undici';
import { PROTOCOL_RETRY, REAL_CLIENT_WORLD, type CallOutcome, type ClientWorld, type RetryPolicy } from '../clients/http-call.js';
import { createOperatorClient, type OperatorClient } from '../clients/operator-client.js';
import { Catalog } from './catalog.js';
import { launchTokens, type LaunchClaims, type LaunchTokens } from './launch-token.js';
import type { DiceGameSettings, GameSettings, OperatorSettings, ProviderConfig, ReelsGameSettings } from './provider-config.js';
import type { PlayRequest, ReelsPlayRequest } from './provider-schemas.js';
import { diceRoundBody } from '../rounds/bodies.js';
import { featureDone, reelsBaseBooked, roundFinished } from '../rounds/completion.js';
import { roundRefusal } from '../rounds/outcomes.js';
import { chanceRefusal, drawnRound, planDiceRound, planReelsRound } from '../rounds/plan.js';
import { reelsGameView, reelsRoundView, roundView, spinView, stageOf, type ReelsGameView, type ReelsRoundView, type RoundView, type SpinView } from '../rounds/views.js';
import {
  type CampaignRow,
  type GameSessionRow,
  type NewRound,
  type NextSeed,
  type ProviderStore,
  type RoundRow,
  type RoundWrite,
  type SeedSealing,
} from './store/provider-store.js';
import { openRoundSeed, openSessionSeed, SeedKeyMissingError, seedSealing, type SeedKeyring } from './seed-keyring.js';
import { timeOrderedUuid } from './time-ordered-id.js';

export interface ProviderWorld extends ClientWorld {
  randomBytes: (size: number) => Buffer;
  newId: () => string;
}

export const REAL_PROVIDER_WORLD: ProviderWorld = {
  ...REAL_CLIENT_WORLD,
  randomBytes: (size) => randomBytes(size),
  newId: () => timeOrderedUuid(),
};

/** Rounds shown on the game page. */
export const ROUNDS_SHOWN_MAX = 20;

/** What the game service needs of the outbox's dispatcher (src/dispatch/dispatcher.ts). */
export interface RoundDelivery {
  /** Claims at once: a round was just enqueued and is durable. */
  poke(): void;
}

// ------------------------------------------------------------------ views

export type { RoundView } from '../rounds/views.js';

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

// --------------------------------------------------------------- service

export interface GameServiceOptions {
  config: ProviderConfig;
  catalog: Catalog<GameSettings>;
  store: ProviderStore;
  tokens: LaunchTokens;
  /** One client per operator, by operatorId: /authenticate. */
  clients: ReadonlyMap<string, OperatorClient>;
  world: ProviderWorld;
  /** Woken for each new round; without one, rounds wait for the dispatcher's next claim. */
  delivery?: RoundDelivery;
}

export interface GameServiceSetup {
  config: ProviderConfig;
  store: ProviderStore;
  /** Default REAL_PROVIDER_WORLD. */
  world?: ProviderWorld;
  /** The undici dispatcher of every operator client (a mock in tests); by default each client has its own. */
  dispatcher?: Dispatcher;
  /** The outbox's dispatcher, woken for each new round (round-delivery.ts). */
  delivery?: RoundDelivery;
}

/** The game service of a config: its catalog, its launch tokens, and one operator client per operator, which close() closes. */
export function createGameService(setup: GameServiceSetup): GameService {
  const { config, store } = setup;
  const world = setup.world ?? REAL_PROVIDER_WORLD;
  const clients = new Map<string, OperatorClient>(
    config.operators.map((op) => [
      op.operatorId,
      createOperatorClient({
        endpoint: op.endpoint,
        secret: op.secrets[0]!,
        accessToken: op.accessToken,
        answerMsMax: config.limits.operatorAnswerMsMax,
        world,
        ...(setup.dispatcher === undefined ? {} : { dispatcher: setup.dispatcher }),
      }),
    ]),
  );
  return new GameService({
    config,
    catalog: new Catalog(config),
    store,
    tokens: launchTokens(config.launchTokenSecrets, world.randomBytes),
    clients,
    world,
    ...(setup.delivery === undefined ? {} : { delivery: setup.delivery }),
  });
}

function rtpText(rules: DiceRules): string {
  return formatMinor(BigInt(rules.rtpBp), 4);
}

export class GameService {
  private readonly queues = new Map<string, Promise<void>>();
  private readonly operators: Map<string, OperatorSettings>;
  /** The retry rule of /authenticate within one player request: docs/protocol.md §3/§9, bounded by the player's wait. */
  private readonly settleRetry: RetryPolicy;
  /** Players waiting for a pending round's final answer, by the round's pk. */
  private readonly finishWaiters = new Map<number, Set<(round?: RoundRow) => void>>();
  private readonly stopWatching: () => void;
  /** The config's seed keyring: new seeds are sealed under its current key, and sealed ones opened only where a round needs them. */
  private readonly keyring: SeedKeyring;
  private readonly sealing: SeedSealing;

  constructor(private readonly options: GameServiceOptions) {
    this.keyring = options.config.seedKeys;
    this.sealing = seedSealing(this.keyring, options.world.randomBytes);
    this.operators = new Map(options.config.operators.map((op) => [op.operatorId, op]));
    const limits = options.config.limits;
    this.settleRetry = {
      ...PROTOCOL_RETRY,
      retryDelayMsMin: limits.retryDelayMsMin,
      retryDelayMsMax: limits.retryDelayMsMax,
      elapsedMsMax: limits.roundSettleMsMax,
    };
    // Whichever delivery in this process finishes a round, its player's wait ends then.
    this.stopWatching = options.store.onRoundFinished((round) => {
      for (const wake of [...(this.finishWaiters.get(round.pk) ?? [])]) wake(round);
    });
  }

  /** The games, ladders and currencies offered: the app's routes read the same catalog. */
  get catalog(): Catalog<GameSettings> {
    return this.options.catalog;
  }

  /**
   * Ends the players' waits (their rounds stay in the outbox) and closes the
   * operator clients, once the calls they are making have ended. Nothing may
   * be played after.
   */
  async close(): Promise<void> {
    this.stopWatching();
    for (const waiters of [...this.finishWaiters.values()]) for (const wake of [...waiters]) wake();
    await Promise.all([...this.options.clients.values()].map((client) => client.close()));
  }

  /**
   * The launch a token is of (its launchId), for the app's limit of calls
   * per launch; undefined for anything that is not an intact token of ours,
   * which every call refuses anyway. Opened tokens are kept (launch-token.ts),
   * so the call that follows opens it again for free.
   */
  launchIdOf(token: string): string | undefined {
    return this.options.tokens.open(token)?.launchId;
  }

  /** Seals the claims of a new launch into the token of its URL. */
  launchUrl(claims: Omit<LaunchClaims, 'launchId' | 'expiresAt'>): string {
    const { config, world, tokens } = this.options;
    const token = tokens.seal({ ...claims, launchId: world.newId(), expiresAt: world.clock() + config.limits.launchTokenTtlMs });
    // The token travels in the fragment: browsers never send it to a server, so it stays out of access logs and Referer headers.
    return `${config.publicBaseUrl}/game/${encodeURIComponent(claims.game)}#${token}`;
  }

  /** Outcomes: session view | INVALID_LAUNCH_KEY | SESSION_MISMATCH | WALLET_NOT_FOUND | GAME_NOT_FOUND | UNSUPPORTED_CURRENCY | the operator's refusals | SERVICE_UNAVAILABLE */
  async open(token: string, slug: string): Promise<SessionView | ReelsSessionView | Refusal> {
    const launch = this.launchOf(token, slug);
    if (!launch.ok) return launch;
    const { claims, operator } = launch;
    const { store } = this.options;
    if (this.expired(claims, await store.sessionByLaunch(claims.launchId))) {
      return refuse('INVALID_LAUNCH_KEY', 'the launch URL has expired: launch the game again from the lobby');
    }
    return this.exclusive(claims.launchId, async () => {
      // Read again in the launch's turn: an open that went before may have created it.
      const existing = await store.sessionByLaunch(claims.launchId);
      const opened = claims.mode === 'fun' ? await this.openFun(claims, existing) : await this.openReal(claims, operator, existing);
      if (!opened.ok) return opened;
      const session = await store.session(opened.session.pk);
      return this.unlessKeyMissing(session, () => this.sessionView(session, claims));
    });
  }

  /**
   * The launch as the provider knows it, without asking the casino: the
   * page follows a pending round with it (a round gone from `rounds` was
   * refused). Outcomes: session view | INVALID_LAUNCH_KEY | SESSION_MISMATCH | WALLET_NOT_FOUND | GAME_NOT_FOUND | SESSION_NOT_FOUND
   */
  async state(token: string, slug: string): Promise<SessionView | ReelsSessionView | Refusal> {
    const launch = this.launchOf(token, slug);
    if (!launch.ok) return launch;
    const { claims } = launch;
    const { store } = this.options;
    const found = await store.sessionByLaunch(claims.launchId);
    if (!found) return refuse('SESSION_NOT_FOUND', 'the game session is not open: open the game first');
    if (this.expired(claims, found)) return refuse('INVALID_LAUNCH_KEY', 'the launch URL has expired: launch the game again from the lobby');
    // Nothing is shown that a crash could still take back (a final answer not yet synced).
    await store.durable();
    const session = await store.session(found.pk);
    return this.unlessKeyMissing(session, () => this.sessionView(session, claims));
  }

  /** Outcomes: play view (its round pending when the casino has not answered in time) | INVALID_LAUNCH_KEY | SESSION_NOT_FOUND | SESSION_EXPIRED | INVALID_REQUEST | INSUFFICIENT_FUNDS | CAMPAIGN_FINISHED | the operator's refusals | SERVICE_UNAVAILABLE */
  async play(token: string, slug: string, input: PlayRequest): Promise<PlayView | Refusal>;
  async play(token: string, slug: string, input: ReelsPlayRequest): Promise<ReelsPlayView | Refusal>;
  async play(token: string, slug: string, input: PlayRequest | ReelsPlayRequest): Promise<PlayView | ReelsPlayView | Refusal> {
    const { store } = this.options;
    return this.inLaunchTurn(token, slug, async (opened) => {
      // In order: a launch's next round is played only once the one before it has a final answer (and, reels, its free spins are played).
      const left = await this.pendingAfterWait(opened.pk);
      const session = await store.session(opened.pk);
      if (left === 'unfinished') {
        return refuse('ROUND_UNFINISHED', 'the previous round still has free spins to play: play them first', formatMinor(session.balanceMinor, this.decimalsOf(session)));
      }
      if (left > 0) {
        return refuse('SERVICE_UNAVAILABLE', 'the previous round is still being settled with the casino: try again in a moment');
      }
      const game = this.options.catalog.game(session.game)!;
      if (game.kind === 'reels') return this.playReels(session, game, input as ReelsPlayRequest);
      // The plan reads the session and the campaigns; the round's write checks, in its own transaction, that they have not moved since.
      const plan = await this.planRound(session, input as PlayRequest);
      if (!plan.ok) return plan;
      return session.mode === 'fun' ? this.playFun(session, plan) : this.playReal(session, plan);
    });
  }

  /**
   * Plays the next free spin of a reels round's feature (drawn with the
   * round); after the last, the feature's call goes to the casino and the
   * answer waits for it as a play does. Outcomes: play view with the spin |
   * INVALID_LAUNCH_KEY | SESSION_NOT_FOUND | SESSION_EXPIRED | ROUND_MISMATCH (no round of the launch) |
   * ROUND_CLOSED (a round of the launch, however old, with no free spin left) | SERVICE_UNAVAILABLE (its bet still being settled, or another request played it first)
   */
  async freeSpin(token: string, slug: string, roundId: string): Promise<ReelsPlayView | Refusal> {
    const { store, world, config } = this.options;
    return this.inLaunchTurn(token, slug, async (session) => {
      const balance = formatMinor(session.balanceMinor, this.decimalsOf(session));
      const now = world.clock();
      const round = (await store.pendingRounds(session.pk)).find((one) => one.roundId === roundId);
      if (round === undefined || round.kind !== 'reels' || featureDone(round.reels!)) {
        // Looked up in the store, not among the rounds the page shows: a round of this launch many rounds back is over, not another's.
        const known = round !== undefined || (await store.sessionRound(session.pk, roundId)) !== undefined;
        return known
          ? refuse('ROUND_CLOSED', `round ${roundId} has no free spin left to play`, balance)
          : refuse('ROUND_MISMATCH', `round ${roundId} is no round of this launch`, balance);
      }
      if (stageOf(round) === 'betting') return refuse('SERVICE_UNAVAILABLE', "the round's bet is still being settled with the casino: try again in a moment", balance);
      // A fun session stays alive while its player spins.
      if (session.mode === 'fun') await store.touchSession(session.pk, now);
      const played = round.reels!.freeSpinsPlayed;
      // Opened for the spin shown, and for its reveal when this spin is the feature's last.
      const serverSeed = this.seedOf(round);
      const written = await store.playFreeSpins(round.pk, played, played + 1, now, serverSeed);
      if (!written.ok) {
        return featureDone(written.round.reels!)
          ? refuse('ROUND_CLOSED', `round ${roundId} has no free spin left to play`, balance)
          : refuse('SERVICE_UNAVAILABLE', 'this free spin was played at the same time by another request: try again', balance);
      }
      let after = written.round;
      if (after.mode === 'real' && featureDone(after.reels!)) {
        // The feature's wins were enqueued (or are, once the base spin's answer is recorded): wait for the round's end as a play waits.
        await store.durable();
        this.options.delivery?.poke();
        after = await this.waitFor(after.pk, config.limits.roundSettleMsMax, roundFinished);
      }
      const view = await this.reelsPlayView(session.pk, after);
      return { ...view, spin: spinView(drawnRound(after, serverSeed).freeSpins[played]!, this.decimalsOf(session), false) };
    });
  }

  // ------------------------------------------------------------- opening

  private launchOf(token: string, slug: string): { ok: true; claims: LaunchClaims; operator: OperatorSettings } | Refusal {
    const claims = this.options.tokens.open(token);
    if (!claims) return refuse('INVALID_LAUNCH_KEY', 'the launch token is not valid');
    if (claims.game !== slug) return refuse('SESSION_MISMATCH', `this launch is for game ${claims.game}, not ${slug}`);
    const operator = this.operators.get(claims.operatorId);
    // A player may read these: no operator's or wallet's id.
    if (!operator) return refuse('WALLET_NOT_FOUND', "the launch's casino is no longer configured");
    if (claims.walletId !== undefined && !operator.walletIds.includes(claims.walletId)) {
      return refuse('WALLET_NOT_FOUND', "the launch's wallet is no longer registered for its casino");
    }
    if (!this.options.catalog.game(claims.game)) return refuse('GAME_NOT_FOUND', `game ${claims.game} is no longer offered`);
    return { ok: true, claims, operator };
  }

  /** A launch URL is good until it expires, and after that while its session is in use. */
  private expired(claims: LaunchClaims, existing: GameSessionRow | undefined): boolean {
    const now = this.options.world.clock();
    return now > claims.expiresAt && !(existing && now - existing.lastActiveAt <= this.options.config.limits.sessionIdleMs);
  }

  /** A fresh seed for a session's round at `nonce`: sealed for that place, with its commitment. */
  private nextSeed(sessionId: string, nonce: number): NextSeed {
    return this.sealing.fresh(sessionId, nonce);
  }

  /** The seed a round needs, revealed or opened from its sealed form. */
  private readonly seedOf = (round: RoundRow): string => openRoundSeed(this.keyring, round);

  /**
   * A seed sealed under a key the ring no longer holds cannot be opened:
   * that session's next round (or that round's spins) cannot be played or
   * shown, and the player is told so plainly, not with an internal error.
   */
  private async unlessKeyMissing<T>(session: GameSessionRow, work: () => Promise<T | Refusal>): Promise<T | Refusal> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof SeedKeyMissingError)) throw error;
      return refuse(
        'SERVICE_UNAVAILABLE',
        `this game's round was committed under seed key ${error.keyId}, which the provider no longer holds: launch the game again for a new session`,
        formatMinor(session.balanceMinor, this.decimalsOf(session)),
      );
    }
  }

  private async openFun(claims: LaunchClaims, existing: GameSessionRow | undefined): Promise<{ ok: true; session: GameSessionRow } | Refusal> {
    const { store, world, config, catalog } = this.options;
    if (existing) {
      await store.touchSession(existing.pk, world.clock());
      return { ok: true, session: existing };
    }
    if (!catalog.ladder(claims.game, config.fun.currency)) {
      return refuse('UNSUPPORTED_CURRENCY', `game ${claims.game} has no bet ladder for the play-money currency ${config.fun.currency}`);
    }
    const sessionId = world.newId();
    const first = this.nextSeed(sessionId, 0);
    const session = await store.createSession({
      sessionId,
      launchId: claims.launchId,
      mode: 'fun',
      operatorId: claims.operatorId,
      walletId: claims.walletId ?? null,
      game: claims.game,
      playerId: null,
      operatorSessionId: null,
      currency: config.fun.currency,
      country: claims.country ?? null,
      language: claims.language,
      balanceMinor: config.fun.balanceMinor,
      sealedSeed: first.sealed,
      serverSeedHash: first.hash,
      now: world.clock(),
    });
    return { ok: true, session };
  }

  /** Authenticates the launch key with the operator: a reload answers the same session (docs/protocol.md §5). */
  private async openReal(
    claims: LaunchClaims,
    operator: OperatorSettings,
    existing: GameSessionRow | undefined,
  ): Promise<{ ok: true; session: GameSessionRow } | Refusal> {
    const { store, world, catalog } = this.options;
    const client = this.options.clients.get(operator.operatorId);
    if (!client || claims.key === undefined) return refuse('INVALID_LAUNCH_KEY', 'the launch carries no launch key');
    const answer = await client.authenticate({ key: claims.key, game: claims.game }, this.settleRetry);
    if (!answer.ok) return this.operatorFailure(answer);
    const { sessionId, playerId, currency, balance } = answer.value;
    const decimals = catalog.decimals(currency);
    if (decimals === undefined || !operator.currencies.includes(currency) || !catalog.ladder(claims.game, currency)) {
      return refuse('UNSUPPORTED_CURRENCY', `game ${claims.game} has no bets in ${currency} at this casino`);
    }
    const balanceMinor = this.minorOf(balance, decimals);
    if (balanceMinor === undefined) return refuse('SERVICE_UNAVAILABLE', `the casino answered a balance of ${balance}, more decimals than ${currency} has`);
    const now = world.clock();
    if (existing) {
      if (existing.playerId !== playerId || existing.currency !== currency) {
        return refuse('SESSION_MISMATCH', 'the launch key now opens a session of another player or currency');
      }
      return { ok: true, session: await store.reopenSession(existing.pk, sessionId, balanceMinor, now) };
    }
    const providerSessionId = world.newId();
    const first = this.nextSeed(providerSessionId, 0);
    const session = await store.createSession({
      sessionId: providerSessionId,
      launchId: claims.launchId,
      mode: 'real',
      operatorId: operator.operatorId,
      walletId: claims.walletId ?? null,
      game: claims.game,
      playerId,
      operatorSessionId: sessionId,
      currency,
      country: claims.country ?? null,
      language: claims.language,
      balanceMinor,
      sealedSeed: first.sealed,
      serverSeedHash: first.hash,
      now,
    });
    return { ok: true, session };
  }

  // ------------------------------------------------------------- playing

  private async planRound(session: GameSessionRow, input: PlayRequest) {
    const { world } = this.options;
    const game = this.diceGame(session.game);
    // An unknown currency is a broken session: it fails here as it would when the round is shown.
    this.decimalsOf(session);
    const badChance = chanceRefusal(game.rules, input.chancePct);
    if (badChance) return badChance;
    const stake = await this.stakeOf(session, input);
    if (!stake.ok) return stake;
    return planDiceRound({
      rules: game.rules,
      session,
      betMinor: stake.betMinor,
      betText: input.bet,
      chancePct: input.chancePct,
      clientSeed: input.clientSeed,
      campaign: stake.campaign,
      openSeed: () => openSessionSeed(this.keyring, session),
      newId: world.newId,
      createdAt: world.clock(),
    });
  }

  /**
   * The bet of a round: a ladder amount, or a free round's (the player's
   * oldest live campaign on this game, `finished` on its last round).
   * Outcomes: the stake | INVALID_REQUEST | CAMPAIGN_FINISHED
   */
  private async stakeOf(
    session: GameSessionRow,
    input: { bet?: string; free?: boolean },
  ): Promise<{ ok: true; betMinor: bigint; campaign: { row: CampaignRow; finished: boolean } | undefined } | Refusal> {
    const { catalog, world } = this.options;
    const decimals = this.decimalsOf(session);
    if (input.free) {
      if (session.mode === 'fun' || session.playerId === null) return refuse('CAMPAIGN_FINISHED', 'free rounds are played with real sessions only');
      const offer = await this.freeRoundsOf(session, world.clock());
      if (!offer) return refuse('CAMPAIGN_FINISHED', 'no free rounds are left', formatMinor(session.balanceMinor, decimals));
      return { ok: true, betMinor: offer.campaign.betMinor, campaign: { row: offer.campaign, finished: offer.left === 1 } };
    }
    if (input.bet === undefined) return refuse('INVALID_REQUEST', 'bet: a bet from the ladder is needed unless free is true');
    const bet = this.minorOf(input.bet, decimals);
    const ladder = catalog.ladder(session.game, session.currency) ?? [];
    if (bet === undefined || !ladder.includes(bet)) return refuse('INVALID_REQUEST', `bet: ${input.bet} is not on the ${session.currency} bet ladder`);
    return { ok: true, betMinor: bet, campaign: undefined };
  }

  /**
   * A reels round: drawn whole from the session's seeds, written with its
   * bet's request (real) or its balance's move (fun), then answered once the
   * bet and the base spin's win are booked, or pending (the app's 202)
   * after limits.roundSettleMsMax. Outcomes: play view | INVALID_REQUEST |
   * INSUFFICIENT_FUNDS | CAMPAIGN_FINISHED | the operator's refusals | SERVICE_UNAVAILABLE
   */
  private async playReels(session: GameSessionRow, game: ReelsGameSettings, input: ReelsPlayRequest): Promise<ReelsPlayView | Refusal> {
    const { store, world, config } = this.options;
    const decimals = this.decimalsOf(session);
    const stake = await this.stakeOf(session, input);
    if (!stake.ok) return stake;
    const { round } = planReelsRound({
      game,
      session,
      betMinor: stake.betMinor,
      clientSeed: input.clientSeed,
      roundId: world.newId(),
      createdAt: world.clock(),
      newId: world.newId,
      campaign: stake.campaign,
      decimals,
      serverSeed: openSessionSeed(this.keyring, session),
      sealForRound: this.sealing.sealForRound,
    });
    const begun = await store.beginReelsRound(round, this.nextSeed(session.sessionId, session.nonce + 1));
    if (!begun.ok) return begun.conflict === 'insufficient-funds' ? this.fundsRefusal(begun.session, round.betMinor) : this.conflictRefusal(begun);
    if (session.mode === 'fun') return this.reelsPlayView(session.pk, begun.round);
    // As a dice round: nothing is sent before it is durable; then the player waits for the bet and the base spin's win.
    await store.durable();
    this.options.delivery?.poke();
    const after = await this.waitFor(begun.round.pk, config.limits.roundSettleMsMax, reelsBaseBooked);
    if (after.status === 'refused') return roundRefusal(after, decimals);
    return this.reelsPlayView(session.pk, after);
  }

  private async reelsPlayView(sessionPk: number, round: RoundRow): Promise<ReelsPlayView> {
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
  private async poolOf(session: GameSessionRow): Promise<bigint> {
    const game = this.options.catalog.game(session.game);
    if (game?.kind !== 'reels') return 0n;
    const seed = game.jackpotSeeds.get(session.currency) ?? 0n;
    return session.mode === 'fun' ? seed : this.options.store.jackpotPool(session.operatorId, session.game, session.currency, seed);
  }

  private fundsRefusal(session: GameSessionRow, betMinor: bigint): Refusal {
    const decimals = this.decimalsOf(session);
    const balance = formatMinor(session.balanceMinor, decimals);
    return refuse('INSUFFICIENT_FUNDS', `bet ${formatMinor(betMinor, decimals)} exceeds balance ${balance}`, balance);
  }

  private async playFun(session: GameSessionRow, plan: { round: NewRound }): Promise<PlayView | Refusal> {
    const { store } = this.options;
    const logged = await store.playFunRound(plan.round, this.nextSeed(session.sessionId, session.nonce + 1));
    if (!logged.ok) return logged.conflict === 'insufficient-funds' ? this.fundsRefusal(logged.session, plan.round.betMinor) : this.conflictRefusal(logged);
    return this.playView(await store.session(session.pk), logged.round);
  }

  /**
   * A round whose write found the session or the campaign moved since it
   * was planned (another request got there first, on this node or another):
   * nothing was written, and playing again plans it anew.
   */
  private conflictRefusal(write: Extract<RoundWrite, { ok: false }>): Refusal {
    const balance = formatMinor(write.session.balanceMinor, this.decimalsOf(write.session));
    if (write.conflict === 'campaign-used') {
      return refuse('SERVICE_UNAVAILABLE', "the player's free rounds were used at the same time by another game: try again", balance);
    }
    return refuse('SERVICE_UNAVAILABLE', 'another round of this game session was played at the same time: try again', balance);
  }

  private async playReal(session: GameSessionRow, plan: { round: NewRound }): Promise<PlayView | Refusal> {
    const { store, config } = this.options;
    const decimals = this.decimalsOf(session);
    const round = plan.round;
    // docs/protocol.md §6: bet and win of a one-step game in one request that finishes the round.
    const body = diceRoundBody(round, session, decimals);
    const begun = await store.beginRealRound({ ...round, requestBody: body }, this.nextSeed(session.sessionId, session.nonce + 1));
    if (!begun.ok) return this.conflictRefusal(begun);
    const pending = begun.round;
    // Never send a round the provider could still lose (a crash would forget a bet the operator booked): the outbox claims only durable items.
    await store.durable();
    this.options.delivery?.poke();
    const finished = await this.waitFor(pending.pk, config.limits.roundSettleMsMax, roundFinished);
    // Still pending: the round is kept in the outbox and delivered without its player; the page follows it (state).
    if (finished.status === 'pending') return this.playView(await store.session(session.pk), finished);
    if (finished.status === 'refused') return roundRefusal(finished, decimals);
    // The operator answered 200, so it booked the round; only its balance is unknown (unreadable, or a round settled by hand).
    if (finished.balanceAfterMinor === null) return refuse('SERVICE_UNAVAILABLE', "the round was booked but the casino's answer gave no balance that can be read exactly");
    return this.playView(await store.session(session.pk), finished);
  }

  /**
   * Waits for the session's pending rounds to get a final answer, in order,
   * up to limits.roundSettleMsMax in all; answers how many are still
   * pending, or `unfinished` at once when one is a reels round with free
   * spins left: only its player (or the completion) can end that wait.
   */
  private async pendingAfterWait(sessionPk: number): Promise<number | 'unfinished'> {
    const { store, config } = this.options;
    const pending = await store.pendingRounds(sessionPk);
    if (pending.some((round) => round.reels !== null && !featureDone(round.reels))) return 'unfinished';
    // A person waits: real time, whatever the world's clock says.
    const deadline = Date.now() + config.limits.roundSettleMsMax;
    for (const [index, round] of pending.entries()) {
      if ((await this.waitFor(round.pk, deadline - Date.now(), roundFinished)).status === 'pending') return pending.length - index;
    }
    return 0;
  }

  /**
   * The round once `done` holds of it, or as it is after `msMax` (real
   * time: a player is waiting). Read once first; then each wake brings the
   * round as the answer recorded in this process left it, with no read, and
   * a wait that timed out reads it again, since another process (or a
   * person resolving it) may have answered it meanwhile. Each `done` here,
   * once true of a round, stays true, so a wake's row serves as a read.
   */
  private async waitFor(pk: number, msMax: number, done: (round: RoundRow) => boolean): Promise<RoundRow> {
    const { store } = this.options;
    const deadline = Date.now() + msMax;
    let current = await store.round(pk);
    for (;;) {
      const left = deadline - Date.now();
      if (done(current) || left <= 0) return current;
      current = (await this.wake(pk, left)) ?? (await store.round(pk));
    }
  }

  /** Resolves with the round when the store reports an answer of it, or with nothing after `msMax`. */
  private wake(pk: number, msMax: number): Promise<RoundRow | undefined> {
    return new Promise<RoundRow | undefined>((resolve) => {
      let waiters = this.finishWaiters.get(pk);
      if (waiters === undefined) this.finishWaiters.set(pk, (waiters = new Set()));
      const own = waiters;
      const done = (round?: RoundRow) => {
        clearTimeout(timer);
        own.delete(done);
        if (own.size === 0 && this.finishWaiters.get(pk) === own) this.finishWaiters.delete(pk);
        resolve(round);
      };
      const timer = setTimeout(done, msMax);
      own.add(done);
    });
  }

  // -------------------------------------------------------------- helpers

  private operatorFailure(answer: Exclude<CallOutcome<unknown>, { ok: true }>): Refusal {
    if (answer.kind === 'refused') {
      const code: ErrorCode = answer.code ?? 'SERVICE_UNAVAILABLE';
      return refuse(code, `the casino refused: ${answer.detail}`, answer.balance);
    }
    if (answer.kind === 'invalid-answer') return refuse('SERVICE_UNAVAILABLE', `the casino's answer was unreadable: ${answer.detail}`);
    return refuse('SERVICE_UNAVAILABLE', `the casino did not answer: ${answer.detail}`);
  }

  private diceGame(slug: string): DiceGameSettings {
    const game = this.options.catalog.game(slug);
    assert.ok(game?.kind === 'dice', `game ${slug} is a dice game`);
    return game;
  }

  private minorOf(text: string, decimals: number): bigint | undefined {
    const decimal = decimalFromString(text);
    return decimal === undefined ? undefined : toMinor(decimal, decimals);
  }

  private decimalsOf(session: GameSessionRow): number {
    const decimals = this.options.catalog.decimals(session.currency);
    if (decimals === undefined) throw new Error(`session ${session.sessionId} has an unknown currency ${session.currency}`);
    return decimals;
  }

  private async freeRoundsOf(session: GameSessionRow, now: number): Promise<{ campaign: CampaignRow; left: number } | undefined> {
    if (session.mode !== 'real' || session.playerId === null) return undefined;
    const { store } = this.options;
    for (const campaign of await store.campaignsOf(session.operatorId, session.playerId, session.game, session.currency, now)) {
      const left = campaign.rounds - (await store.campaignRoundsUsed(campaign.campaignId, session.operatorId, session.playerId));
      if (left > 0) return { campaign, left };
    }
    return undefined;
  }

  private async freeRoundsView(session: GameSessionRow): Promise<FreeRoundsView | null> {
    const offer = await this.freeRoundsOf(session, this.options.world.clock());
    if (!offer) return null;
    return { campaignId: offer.campaign.campaignId, left: offer.left, bet: formatMinor(offer.campaign.betMinor, this.decimalsOf(session)) };
  }

  private async sessionView(session: GameSessionRow, claims: LaunchClaims): Promise<SessionView | ReelsSessionView> {
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

  private async playView(session: GameSessionRow, round: RoundRow): Promise<PlayView> {
    const decimals = this.decimalsOf(session);
    return {
      round: roundView(round, decimals),
      balance: formatMinor(round.balanceAfterMinor ?? session.balanceMinor, decimals),
      fairness: { serverSeedHash: session.serverSeedHash, nonce: session.nonce },
      freeRounds: await this.freeRoundsView(session),
    };
  }

  /** Runs `work` after every earlier work of the same launch has finished, and answers once what it wrote is durable. */
  /**
   * Runs `work` in the launch's turn with its session as it is then: a
   * launch that does not open, a session not opened, or a fun session idle
   * past its time (real ones expire on the operator's rule) is refused first.
   */
  private async inLaunchTurn<T>(token: string, slug: string, work: (session: GameSessionRow) => Promise<T | Refusal>): Promise<T | Refusal> {
    const launch = this.launchOf(token, slug);
    if (!launch.ok) return launch;
    const { claims } = launch;
    const { store, world, config } = this.options;
    const found = await store.sessionByLaunch(claims.launchId);
    if (!found) return refuse('SESSION_NOT_FOUND', 'the game session is not open: open the game first');
    return this.exclusive(claims.launchId, async () => {
      const session = await store.session(found.pk);
      if (session.mode === 'fun' && world.clock() - session.lastActiveAt > config.limits.sessionIdleMs) {
        return refuse('SESSION_EXPIRED', 'the fun session has expired: launch the game again', formatMinor(session.balanceMinor, this.decimalsOf(session)));
      }
      return this.unlessKeyMissing(session, () => work(session));
    });
  }

  private async exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = before.then(() => mine);
    this.queues.set(key, tail);
    await before;
    try {
      const result = await work();
      // Nothing is answered that a crash could still take back: a fun round's revealed seed, a balance, a session.
      await this.options.store.durable();
      return result;
    } finally {
      release();
      if (this.queues.get(key) === tail) this.queues.delete(key);
    }
  }
}
