/**
 * The launches of games: a launch URL sealed with its claims (launch-token.ts),
 * a launch opened into a game session (a real one authenticated with the
 * operator's /authenticate, docs/protocol.md §5; a fun one with play money
 * in the provider's store), the launch as the provider knows it, and a
 * launch's turn: the checks every call of a game page passes before its
 * work runs in the launch's queue (round-waits.ts).
 */
import { PROTOCOL_RETRY, type CallOutcome, type RetryPolicy } from '../clients/http-call.js';
import { refuse, type ErrorCode, type Refusal } from '../protocol/errors.js';
import { formatMinor } from '../protocol/money.js';
import { funPlay } from './catalog.js';
import { minorOfText, type GameContext } from './game-context.js';
import type { LaunchClaims } from './launch-token.js';
import type { OperatorSettings } from './config-operators.js';
import type { RoundWaits } from './round-waits.js';
import { SeedKeyMissingError } from './seed-keyring.js';
import type { ReelsSessionView, SessionView, SessionViews } from './session-views.js';
import type { GameSessionRow } from './store/provider-store.js';

export class GameLaunches {
  private readonly operators: Map<string, OperatorSettings>;
  /** The retry rule of /authenticate within one player request: docs/protocol.md §3/§9, bounded by the player's wait. */
  private readonly settleRetry: RetryPolicy;

  constructor(
    private readonly options: GameContext,
    private readonly views: SessionViews,
    private readonly waits: RoundWaits,
  ) {
    this.operators = new Map(options.config.operators.map((op) => [op.operatorId, op]));
    const limits = options.config.limits;
    this.settleRetry = {
      ...PROTOCOL_RETRY,
      retryDelayMsMin: limits.retryDelayMsMin,
      retryDelayMsMax: limits.retryDelayMsMax,
      elapsedMsMax: limits.roundSettleMsMax,
    };
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
    return this.waits.exclusive(claims.launchId, async () => {
      // Read again in the launch's turn: an open that went before may have created it.
      const existing = await store.sessionByLaunch(claims.launchId);
      const opened = claims.mode === 'fun' ? await this.openFun(claims, operator, existing) : await this.openReal(claims, operator, existing);
      if (!opened.ok) return opened;
      const session = await store.session(opened.session.pk);
      return this.unlessKeyMissing(session, () => this.views.sessionView(session, claims));
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
    return this.unlessKeyMissing(session, () => this.views.sessionView(session, claims));
  }

  /**
   * Runs `work` in the launch's turn with its session as it is then: a
   * launch that does not open, a session not opened, or a fun session idle
   * past its time (real ones expire on the operator's rule) is refused first.
   */
  async inLaunchTurn<T>(token: string, slug: string, work: (session: GameSessionRow) => Promise<T | Refusal>): Promise<T | Refusal> {
    const launch = this.launchOf(token, slug);
    if (!launch.ok) return launch;
    const { claims } = launch;
    const { store, world, config } = this.options;
    const found = await store.sessionByLaunch(claims.launchId);
    if (!found) return refuse('SESSION_NOT_FOUND', 'the game session is not open: open the game first');
    return this.waits.exclusive(claims.launchId, async () => {
      const session = await store.session(found.pk);
      if (session.mode === 'fun' && world.clock() - session.lastActiveAt > config.limits.sessionIdleMs) {
        return refuse(
          'SESSION_EXPIRED',
          'the fun session has expired: launch the game again',
          formatMinor(session.balanceMinor, this.views.decimalsOf(session)),
        );
      }
      return this.unlessKeyMissing(session, () => work(session));
    });
  }

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
        formatMinor(session.balanceMinor, this.views.decimalsOf(session)),
      );
    }
  }

  private async openFun(
    claims: LaunchClaims,
    operator: OperatorSettings,
    existing: GameSessionRow | undefined,
  ): Promise<{ ok: true; session: GameSessionRow } | Refusal> {
    const { store, world, config, catalog } = this.options;
    if (existing) {
      await store.touchSession(existing.pk, world.clock());
      return { ok: true, session: existing };
    }
    // Checked again as the page opens: the config may have changed since the launch.
    const play = funPlay(catalog, config.fun, operator, claims.game, claims.currency);
    if (typeof play === 'string') return refuse('UNSUPPORTED_CURRENCY', play);
    const sessionId = world.newId();
    const first = this.options.sealing.fresh(sessionId, 0);
    const session = await store.createSession({
      sessionId,
      launchId: claims.launchId,
      mode: 'fun',
      operatorId: claims.operatorId,
      walletId: claims.walletId ?? null,
      game: claims.game,
      playerId: null,
      operatorSessionId: null,
      currency: play.currency,
      country: claims.country ?? null,
      language: claims.language,
      balanceMinor: play.balanceMinor,
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
    const balanceMinor = minorOfText(balance, decimals);
    if (balanceMinor === undefined) return refuse('SERVICE_UNAVAILABLE', `the casino answered a balance of ${balance}, more decimals than ${currency} has`);
    const now = world.clock();
    if (existing) {
      if (existing.playerId !== playerId || existing.currency !== currency) {
        return refuse('SESSION_MISMATCH', 'the launch key now opens a session of another player or currency');
      }
      return { ok: true, session: await store.reopenSession(existing.pk, sessionId, balanceMinor, now) };
    }
    const providerSessionId = world.newId();
    const first = this.options.sealing.fresh(providerSessionId, 0);
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

  private operatorFailure(answer: Exclude<CallOutcome<unknown>, { ok: true }>): Refusal {
    if (answer.kind === 'refused') {
      const code: ErrorCode = answer.code ?? 'SERVICE_UNAVAILABLE';
      return refuse(code, `the casino refused: ${answer.detail}`, answer.balance);
    }
    if (answer.kind === 'invalid-answer') return refuse('SERVICE_UNAVAILABLE', `the casino's answer was unreadable: ${answer.detail}`);
    return refuse('SERVICE_UNAVAILABLE', `the casino did not answer: ${answer.detail}`);
  }
}
