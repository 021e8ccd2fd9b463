/**
 * The provider's use-cases behind the game page: open a launch, play a
 * round. Real money lives in the operator's wallet and moves only through
 * its /authenticate and /transaction; fun money lives in the provider's
 * store and no call reaches an operator.
 *
 * Rounds of one launch run one at a time (a per-launch queue in this
 * process). A real round is logged pending with its exact request before the
 * first attempt and resent with the same body while the player's request
 * lasts (limits.roundSettleMsMax); a round still pending then is resent
 * before the launch's next round, and by the outbox (outbox.ts, which calls
 * `resendLeftPending` every limits.outboxIntervalMs) without waiting for its
 * player, so an answer lost to a time-out or a restart is settled, never
 * played twice.
 *
 * One service per process: the app's routes and the outbox share it, so
 * that its per-launch queues hold for both. `createGameService` builds it
 * from the config; the server (serve-provider.ts) owns it and closes it
 * after the app.
 */
import { randomBytes } from 'node:crypto';
import { chanceRange, isOfferedChance, quote, settle, type DiceRules } from '../game/dice.js';
import { commitment, rollOf, SERVER_SEED_BYTES } from '../game/fairness.js';
import { refuse, type ErrorCode, type Refusal } from '../protocol/errors.js';
import { raw, stringify } from '../protocol/json.js';
import { decimalFromString, formatMinor, toMinor } from '../protocol/money.js';
import type { Dispatcher } from 'undici';
import { NO_RETRY, PROTOCOL_RETRY, REAL_CLIENT_WORLD, type CallOutcome, type ClientWorld, type RetryPolicy } from '../clients/http-call.js';
import { createOperatorClient, type OperatorClient } from '../clients/operator-client.js';
import { Catalog } from './catalog.js';
import { launchTokens, type LaunchClaims, type LaunchTokens } from './launch-token.js';
import type { GameSettings, OperatorSettings, ProviderConfig } from './provider-config.js';
import type { PlayRequest } from './provider-schemas.js';
import type { CampaignRow, GameSessionRow, NewRound, ProviderStore, RoundRow } from './provider-store.js';
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
/** Sessions the outbox reads at a time. */
const OUTBOX_PAGE_SESSIONS = 100;

/** What one pass of the outbox did. */
export interface OutboxPass {
  /** Launches that held rounds left pending. */
  sessions: number;
  /** Rounds the operator answered, settled or refused. */
  finished: number;
  /** Rounds still pending after the pass: the next pass resends them. */
  stillPending: number;
}

// ------------------------------------------------------------------ views

export interface RoundView {
  roundId: string;
  nonce: number;
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

export interface PlayView {
  round: RoundView;
  balance: string;
  fairness: { serverSeedHash: string; nonce: number };
  freeRounds: FreeRoundsView | null;
}

// --------------------------------------------------------------- service

export interface GameServiceOptions {
  config: ProviderConfig;
  catalog: Catalog<GameSettings>;
  store: ProviderStore;
  tokens: LaunchTokens;
  /** One client per operator, by operatorId. */
  clients: ReadonlyMap<string, OperatorClient>;
  world: ProviderWorld;
}

export interface GameServiceSetup {
  config: ProviderConfig;
  store: ProviderStore;
  /** Default REAL_PROVIDER_WORLD. */
  world?: ProviderWorld;
  /** The dispatcher of every operator client (a mock in tests); by default each client has its own. */
  dispatcher?: Dispatcher;
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
  });
}

function rtpText(rules: DiceRules): string {
  return formatMinor(BigInt(rules.rtpBp), 4);
}

export class GameService {
  private readonly queues = new Map<string, Promise<void>>();
  /** The outbox leaves an operator alone until this time (its clock): the operator's Retry-After. */
  private readonly outboxPausedUntil = new Map<string, number>();
  private readonly operators: Map<string, OperatorSettings>;
  /** The retry rule within one player request: docs/protocol.md §3/§9, bounded by the player's wait. */
  private readonly settleRetry: RetryPolicy;

  constructor(private readonly options: GameServiceOptions) {
    this.operators = new Map(options.config.operators.map((op) => [op.operatorId, op]));
    const limits = options.config.limits;
    this.settleRetry = {
      ...PROTOCOL_RETRY,
      retryDelayMsMin: limits.retryDelayMsMin,
      retryDelayMsMax: limits.retryDelayMsMax,
      elapsedMsMax: limits.roundSettleMsMax,
    };
  }

  /** The games, ladders and currencies offered: the app's routes read the same catalog. */
  get catalog(): Catalog<GameSettings> {
    return this.options.catalog;
  }

  /** Closes the operator clients, once the calls they are making have ended. Nothing may be played after. */
  async close(): Promise<void> {
    await Promise.all([...this.options.clients.values()].map((client) => client.close()));
  }

  /** Seals the claims of a new launch into the token of its URL. */
  launchUrl(claims: Omit<LaunchClaims, 'launchId' | 'expiresAt'>): string {
    const { config, world, tokens } = this.options;
    const token = tokens.seal({ ...claims, launchId: world.newId(), expiresAt: world.clock() + config.limits.launchTokenTtlMs });
    // The token travels in the fragment: browsers never send it to a server, so it stays out of access logs and Referer headers.
    return `${config.publicBaseUrl}/game/${encodeURIComponent(claims.game)}#${token}`;
  }

  /** Outcomes: session view | INVALID_LAUNCH_KEY | SESSION_MISMATCH | WALLET_NOT_FOUND | GAME_NOT_FOUND | UNSUPPORTED_CURRENCY | the operator's refusals | SERVICE_UNAVAILABLE */
  async open(token: string, slug: string): Promise<SessionView | Refusal> {
    const launch = this.launchOf(token, slug);
    if (!launch.ok) return launch;
    const { claims, operator } = launch;
    const now = this.options.world.clock();
    const existing = this.options.store.sessionByLaunch(claims.launchId);
    if (now > claims.expiresAt && !(existing && now - existing.lastActiveAt <= this.options.config.limits.sessionIdleMs)) {
      return refuse('INVALID_LAUNCH_KEY', 'the launch URL has expired: launch the game again from the lobby');
    }
    return this.exclusive(claims.launchId, async () => {
      const opened = claims.mode === 'fun' ? this.openFun(claims, existing) : await this.openReal(claims, operator, existing);
      if (!opened.ok) return opened;
      await this.settlePending(opened.session);
      return this.sessionView(this.options.store.session(opened.session.pk), claims);
    });
  }

  /** Outcomes: play view | INVALID_LAUNCH_KEY | SESSION_NOT_FOUND | SESSION_EXPIRED | INVALID_REQUEST | INSUFFICIENT_FUNDS | CAMPAIGN_FINISHED | the operator's refusals | SERVICE_UNAVAILABLE */
  async play(token: string, slug: string, input: PlayRequest): Promise<PlayView | Refusal> {
    const launch = this.launchOf(token, slug);
    if (!launch.ok) return launch;
    const { claims, operator } = launch;
    const { store, world, config } = this.options;
    const found = store.sessionByLaunch(claims.launchId);
    if (!found) return refuse('SESSION_NOT_FOUND', 'the game session is not open: open the game first');
    return this.exclusive(claims.launchId, async () => {
      let session = store.session(found.pk);
      const now = world.clock();
      // Fun sessions expire here; real ones on the operator's rule (a bet on an expired session: SESSION_EXPIRED).
      if (session.mode === 'fun' && now - session.lastActiveAt > config.limits.sessionIdleMs) {
        return refuse('SESSION_EXPIRED', 'the fun session has expired: launch the game again', formatMinor(session.balanceMinor, this.decimalsOf(session)));
      }
      if (session.mode === 'real') {
        const { left } = await this.settlePending(session);
        session = store.session(found.pk);
        if (left > 0) {
          return refuse('SERVICE_UNAVAILABLE', 'the previous round is still being settled with the casino: try again in a moment');
        }
      }
      const plan = this.planRound(session, input);
      if (!plan.ok) return plan;
      return session.mode === 'fun' ? this.playFun(session, plan) : this.playReal(session, operator, plan);
    });
  }

  // ------------------------------------------------------------- opening

  private launchOf(token: string, slug: string): { ok: true; claims: LaunchClaims; operator: OperatorSettings } | Refusal {
    const claims = this.options.tokens.open(token);
    if (!claims) return refuse('INVALID_LAUNCH_KEY', 'the launch token is not valid');
    if (claims.game !== slug) return refuse('SESSION_MISMATCH', `this launch is for game ${claims.game}, not ${slug}`);
    const operator = this.operators.get(claims.operatorId);
    if (!operator) return refuse('WALLET_NOT_FOUND', `operator ${claims.operatorId} is no longer configured`);
    if (claims.walletId !== undefined && !operator.walletIds.includes(claims.walletId)) {
      return refuse('WALLET_NOT_FOUND', `wallet ${claims.walletId} is no longer registered for operator ${claims.operatorId}`);
    }
    if (!this.options.catalog.game(claims.game)) return refuse('GAME_NOT_FOUND', `game ${claims.game} is no longer offered`);
    return { ok: true, claims, operator };
  }

  private newSeed(): string {
    return this.options.world.randomBytes(SERVER_SEED_BYTES).toString('hex');
  }

  private openFun(claims: LaunchClaims, existing: GameSessionRow | undefined): { ok: true; session: GameSessionRow } | Refusal {
    const { store, world, config, catalog } = this.options;
    if (existing) {
      store.touchSession(existing.pk, world.clock());
      return { ok: true, session: existing };
    }
    if (!catalog.ladder(claims.game, config.fun.currency)) {
      return refuse('UNSUPPORTED_CURRENCY', `game ${claims.game} has no bet ladder for the play-money currency ${config.fun.currency}`);
    }
    const session = store.createSession({
      sessionId: world.newId(),
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
      serverSeed: this.newSeed(),
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
      return refuse('UNSUPPORTED_CURRENCY', `game ${claims.game} has no bet ladder for ${currency} at operator ${operator.operatorId}`);
    }
    const balanceMinor = this.minorOf(balance, decimals);
    if (balanceMinor === undefined) return refuse('SERVICE_UNAVAILABLE', `the casino answered a balance of ${balance}, more decimals than ${currency} has`);
    const now = world.clock();
    if (existing) {
      if (existing.playerId !== playerId || existing.currency !== currency) {
        return refuse('SESSION_MISMATCH', 'the launch key now opens a session of another player or currency');
      }
      return { ok: true, session: store.reopenSession(existing.pk, sessionId, balanceMinor, now) };
    }
    const session = store.createSession({
      sessionId: world.newId(),
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
      serverSeed: this.newSeed(),
      now,
    });
    return { ok: true, session };
  }

  // ------------------------------------------------------------- playing

  private planRound(session: GameSessionRow, input: PlayRequest) {
    const { catalog, world } = this.options;
    const game = catalog.game(session.game)!;
    const decimals = this.decimalsOf(session);
    if (!isOfferedChance(game.rules, input.chancePct)) {
      const range = chanceRange(game.rules);
      return refuse('INVALID_REQUEST', `chancePct: must be a whole percent from ${range.min} to ${range.max}`);
    }
    let betMinor: bigint;
    let campaign: CampaignRow | undefined;
    let campaignFinished = false;
    if (input.free) {
      if (session.mode === 'fun' || session.playerId === null) return refuse('CAMPAIGN_FINISHED', 'free rounds are played with real sessions only');
      const offer = this.freeRoundsOf(session, world.clock());
      if (!offer) return refuse('CAMPAIGN_FINISHED', 'no free rounds are left', formatMinor(session.balanceMinor, decimals));
      campaign = offer.campaign;
      betMinor = campaign.betMinor;
      campaignFinished = offer.left === 1;
    } else {
      const bet = this.minorOf(input.bet, decimals);
      const ladder = catalog.ladder(session.game, session.currency) ?? [];
      if (bet === undefined || !ladder.includes(bet)) return refuse('INVALID_REQUEST', `bet: ${input.bet} is not on the ${session.currency} bet ladder`);
      betMinor = bet;
    }
    const priced = quote(game.rules, betMinor, input.chancePct);
    if (!priced) return refuse('INVALID_REQUEST', `bet: ${input.bet} is too small to pay anything at ${input.chancePct} %`);
    const roll = rollOf(session.serverSeed, input.clientSeed, session.nonce);
    const outcome = settle(priced, roll);
    const round: NewRound = {
      roundId: world.newId(),
      sessionPk: session.pk,
      mode: session.mode,
      operatorId: session.operatorId,
      playerId: session.playerId,
      game: session.game,
      currency: session.currency,
      betMinor,
      winMinor: outcome.winMinor,
      betTxId: session.mode === 'real' ? world.newId() : null,
      winTxId: session.mode === 'real' ? world.newId() : null,
      campaignId: campaign?.campaignId ?? null,
      campaignFinished: campaign ? campaignFinished : null,
      chancePct: input.chancePct,
      threshold: priced.threshold,
      roll,
      serverSeed: session.serverSeed,
      serverSeedHash: commitment(session.serverSeed),
      clientSeed: input.clientSeed,
      nonce: session.nonce,
      requestBody: null,
      createdAt: world.clock(),
    };
    return { ok: true as const, round };
  }

  private playFun(session: GameSessionRow, plan: { round: NewRound }): PlayView | Refusal {
    const { store } = this.options;
    const logged = store.playFunRound(plan.round, this.newSeed());
    if (!logged) {
      const decimals = this.decimalsOf(session);
      return refuse(
        'INSUFFICIENT_FUNDS',
        `bet ${formatMinor(plan.round.betMinor, decimals)} exceeds balance ${formatMinor(session.balanceMinor, decimals)}`,
        formatMinor(session.balanceMinor, decimals),
      );
    }
    return this.playView(store.session(session.pk), logged);
  }

  private async playReal(session: GameSessionRow, operator: OperatorSettings, plan: { round: NewRound }): Promise<PlayView | Refusal> {
    const { store } = this.options;
    const decimals = this.decimalsOf(session);
    const round = plan.round;
    const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
    // docs/protocol.md §6: bet and win of a one-step game in one request that finishes the round.
    const body = stringify({
      sessionId: session.operatorSessionId,
      playerId: session.playerId,
      game: session.game,
      transactions: [
        { id: round.betTxId, type: 'bet', amount: amount(round.betMinor) },
        { id: round.winTxId, type: 'win', amount: amount(round.winMinor) },
      ],
      round: { id: round.roundId, finished: true },
      ...(round.campaignId === null ? {} : { campaign: { id: round.campaignId, type: 'freeBets', finished: round.campaignFinished === true } }),
    });
    const pending = store.beginRealRound({ ...round, requestBody: body }, this.newSeed());
    // Never send a round the provider could still lose: a crash would forget a bet the operator booked.
    await store.durable();
    const finished = await this.send(pending, operator);
    if (!finished.ok) return finished;
    return this.playView(store.session(session.pk), finished.round);
  }

  /** Sends a pending round (again) and records the operator's final answer, if one comes. */
  private async send(round: RoundRow, operator: OperatorSettings, retry: RetryPolicy = this.settleRetry): Promise<{ ok: true; round: RoundRow } | Refusal> {
    const { store, world } = this.options;
    const client = this.options.clients.get(operator.operatorId);
    if (!client || round.requestBody === null) return refuse('SERVICE_UNAVAILABLE', 'the round cannot be sent');
    const answer = await client.transaction(round.requestBody, retry);
    const now = world.clock();
    if (answer.ok) {
      const minor = this.minorOf(answer.value.balance, this.options.catalog.decimals(round.currency) ?? 0);
      return { ok: true, round: store.finishRound(round.pk, { status: 'settled', balanceAfterMinor: minor ?? null }, answer.attempts, now) };
    }
    if (answer.kind === 'refused') {
      store.finishRound(round.pk, { status: 'refused', code: answer.code ?? `HTTP_${answer.status}`, detail: answer.detail }, answer.attempts, now);
      return this.operatorFailure(answer);
    }
    if (answer.kind === 'invalid-answer') {
      // The operator answered 200, so it applied the round; only its balance is unreadable.
      store.finishRound(round.pk, { status: 'settled', balanceAfterMinor: null }, answer.attempts, now);
      return refuse('SERVICE_UNAVAILABLE', `the round was booked but the casino's answer was unreadable: ${answer.detail}`);
    }
    store.countAttempts(round.pk, answer.attempts);
    if (answer.retryAfterMs !== undefined) this.outboxPausedUntil.set(operator.operatorId, now + answer.retryAfterMs);
    return refuse('SERVICE_UNAVAILABLE', 'the casino did not answer in time: the round is kept and will be settled before the next one');
  }

  /**
   * The outbox: resends, once each, the rounds whose player's request left
   * them pending (created limits.roundSettleMsMax ago or earlier), in order
   * per launch and behind any request of that launch in progress. A round
   * still pending waits for the next pass, so attempts stay at least a pass
   * apart, as the protocol's back-off asks once it has grown. An operator
   * that gave no final answer is left alone for the rest of the pass, and
   * for as long as its Retry-After asked.
   */
  async resendLeftPending(): Promise<OutboxPass> {
    const { store, world, config } = this.options;
    const createdBefore = world.clock() - config.limits.roundSettleMsMax;
    const pass: OutboxPass = { sessions: 0, finished: 0, stillPending: 0 };
    const unanswered = new Set<string>();
    for (let afterPk = 0; ; ) {
      const sessions = store.sessionsLeftPending(createdBefore, afterPk, OUTBOX_PAGE_SESSIONS);
      for (const found of sessions) {
        pass.sessions += 1;
        if (unanswered.has(found.operatorId) || world.clock() < (this.outboxPausedUntil.get(found.operatorId) ?? 0)) {
          pass.stillPending += store.pendingRounds(found.pk).length;
          continue;
        }
        await this.exclusive(found.launchId, async () => {
          const { finished, left } = await this.settlePending(store.session(found.pk), NO_RETRY);
          pass.finished += finished;
          pass.stillPending += left;
          if (left > 0) unanswered.add(found.operatorId);
        });
      }
      if (sessions.length < OUTBOX_PAGE_SESSIONS) return pass;
      afterPk = sessions[sessions.length - 1]!.pk;
    }
  }

  /** Resends the launch's pending rounds in order; answers how many got a final answer and how many are still pending. */
  private async settlePending(session: GameSessionRow, retry: RetryPolicy = this.settleRetry): Promise<{ finished: number; left: number }> {
    if (session.mode !== 'real') return { finished: 0, left: 0 };
    const operator = this.operators.get(session.operatorId);
    const pending = this.options.store.pendingRounds(session.pk);
    if (!operator) return { finished: 0, left: pending.length };
    for (const [index, round] of pending.entries()) {
      await this.send(round, operator, retry);
      // Settled or refused, the round is done; still pending, the rest wait behind it, in order.
      if (this.options.store.round(round.pk).status === 'pending') return { finished: index, left: pending.length - index };
    }
    return { finished: pending.length, left: 0 };
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

  private minorOf(text: string, decimals: number): bigint | undefined {
    const decimal = decimalFromString(text);
    return decimal === undefined ? undefined : toMinor(decimal, decimals);
  }

  private decimalsOf(session: GameSessionRow): number {
    const decimals = this.options.catalog.decimals(session.currency);
    if (decimals === undefined) throw new Error(`session ${session.sessionId} has an unknown currency ${session.currency}`);
    return decimals;
  }

  private freeRoundsOf(session: GameSessionRow, now: number): { campaign: CampaignRow; left: number } | undefined {
    if (session.mode !== 'real' || session.playerId === null) return undefined;
    const { store } = this.options;
    for (const campaign of store.campaignsOf(session.operatorId, session.playerId, session.game, session.currency, now)) {
      const left = campaign.rounds - store.campaignRoundsUsed(campaign.campaignId, session.operatorId, session.playerId);
      if (left > 0) return { campaign, left };
    }
    return undefined;
  }

  private freeRoundsView(session: GameSessionRow): FreeRoundsView | null {
    const offer = this.freeRoundsOf(session, this.options.world.clock());
    if (!offer) return null;
    return { campaignId: offer.campaign.campaignId, left: offer.left, bet: formatMinor(offer.campaign.betMinor, this.decimalsOf(session)) };
  }

  private roundView(round: RoundRow, decimals: number): RoundView {
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
      view.serverSeed = round.serverSeed;
    }
    return view;
  }

  private sessionView(session: GameSessionRow, claims: LaunchClaims): SessionView {
    const { catalog, store, config } = this.options;
    const game = catalog.game(session.game)!;
    const decimals = this.decimalsOf(session);
    const ladder = (catalog.ladder(session.game, session.currency) ?? []).map((amount) => formatMinor(amount, decimals));
    const range = chanceRange(game.rules);
    return {
      mode: session.mode,
      game: {
        slug: game.slug,
        title: game.title,
        rtp: rtpText(game.rules),
        volatility: game.rules.volatility,
        chancePctMin: range.min,
        chancePctMax: range.max,
        rtpBp: game.rules.rtpBp,
      },
      currency: session.currency,
      decimals,
      balance: formatMinor(session.balanceMinor, decimals),
      ladder,
      // A modest default: a third of the way up the ladder.
      defaultBet: ladder[Math.floor((ladder.length - 1) / 3)] ?? '0',
      language: session.language,
      urls: claims.urls,
      fairness: { serverSeedHash: commitment(session.serverSeed), nonce: session.nonce },
      rounds: store.recentRounds(session.pk, ROUNDS_SHOWN_MAX).map((round) => this.roundView(round, decimals)),
      freeRounds: this.freeRoundsView(session),
      refreshIntervalMs: session.mode === 'real' && claims.urls.refresh !== undefined ? config.limits.refreshIntervalMs : null,
    };
  }

  private playView(session: GameSessionRow, round: RoundRow): PlayView {
    const decimals = this.decimalsOf(session);
    return {
      round: this.roundView(round, decimals),
      balance: formatMinor(round.balanceAfterMinor ?? session.balanceMinor, decimals),
      fairness: { serverSeedHash: commitment(session.serverSeed), nonce: session.nonce },
      freeRounds: this.freeRoundsView(session),
    };
  }

  /** Runs `work` after every earlier work of the same launch has finished, and answers once what it wrote is durable. */
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
