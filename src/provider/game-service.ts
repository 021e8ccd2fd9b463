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
 * per-launch queues hold for every request. Each job is a file of its own:
 * the launches (game-launches.ts), the plays (game-plays.ts), the waits
 * (round-waits.ts) and what a page is told (session-views.ts); this puts
 * them together. `createGameService` builds it
 * from the config; the server (serve-provider.ts) owns it and closes it
 * after the app.
 */
import type { Dispatcher } from 'undici';
import { createOperatorClient, type OperatorClient } from '../clients/operator-client.js';
import type { Refusal } from '../protocol/errors.js';
import { Catalog } from './catalog.js';
import type { GameContext, GameServiceOptions, RoundDelivery, RoundsLeftBehind, ProviderWorld } from './game-context.js';
import { REAL_PROVIDER_WORLD } from './game-context.js';
import { GameLaunches } from './game-launches.js';
import { GamePlays } from './game-plays.js';
import { launchTokens, type LaunchClaims } from './launch-token.js';
import type { GameSettings } from './config-games.js';
import type { ProviderConfig } from './provider-config.js';
import type { PlayRequest, ReelsPlayRequest } from './provider-schemas.js';
import { RoundWaits } from './round-waits.js';
import { seedSealing } from './seed-keyring.js';
import { SessionViews, type PlayView, type ReelsPlayView, type ReelsSessionView, type SessionView } from './session-views.js';
import type { ProviderStore } from './store/provider-store.js';

export { REAL_PROVIDER_WORLD, type GameServiceOptions, type ProviderWorld, type RoundDelivery } from './game-context.js';
export {
  answeredPending,
  ROUNDS_SHOWN_MAX,
  type FreeRoundsView,
  type PlayView,
  type ReelsPlayView,
  type ReelsSessionView,
  type RoundView,
  type SessionView,
} from './session-views.js';

export interface GameServiceSetup {
  config: ProviderConfig;
  store: ProviderStore;
  /** Default REAL_PROVIDER_WORLD. */
  world?: ProviderWorld;
  /** The undici dispatcher of every operator client (a mock in tests); by default each client has its own. */
  dispatcher?: Dispatcher;
  /** The outbox's dispatcher, woken for each new round (round-delivery.ts). */
  delivery?: RoundDelivery;
  /** The completion of rounds left unfinished, told of each round with free spins (round-completion.ts). */
  completion?: RoundsLeftBehind;
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
    ...(setup.completion === undefined ? {} : { completion: setup.completion }),
  });
}

/** The one object the app's routes share: the launches, plays and waits of one process, over one set of per-launch queues. */
export class GameService {
  private readonly waits: RoundWaits;
  private readonly launches: GameLaunches;
  private readonly plays: GamePlays;

  constructor(private readonly options: GameServiceOptions) {
    const keyring = options.config.seedKeys;
    const context: GameContext = { ...options, keyring, sealing: seedSealing(keyring, options.world.randomBytes) };
    this.waits = new RoundWaits(options.store, options.config.limits.roundSettleMsMax, options.world.playerTimer);
    const views = new SessionViews(context);
    this.launches = new GameLaunches(context, views, this.waits);
    this.plays = new GamePlays(context, views, this.waits, this.launches);
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
    this.waits.close();
    await Promise.all([...this.options.clients.values()].map((client) => client.close()));
  }

  /**
   * The launch a token is of (its launchId), for the app's limit of calls
   * per launch; undefined for anything that is not an intact token of ours,
   * which every call refuses anyway.
   */
  launchIdOf(token: string): string | undefined {
    return this.launches.launchIdOf(token);
  }

  /** Seals the claims of a new launch into the token of its URL. */
  launchUrl(claims: Omit<LaunchClaims, 'launchId' | 'expiresAt'>): string {
    return this.launches.launchUrl(claims);
  }

  /** See GameLaunches.open. */
  open(token: string, slug: string): Promise<SessionView | ReelsSessionView | Refusal> {
    return this.launches.open(token, slug);
  }

  /** See GameLaunches.state. */
  state(token: string, slug: string): Promise<SessionView | ReelsSessionView | Refusal> {
    return this.launches.state(token, slug);
  }

  /** See GamePlays.play. */
  play(token: string, slug: string, input: PlayRequest): Promise<PlayView | Refusal>;
  play(token: string, slug: string, input: ReelsPlayRequest): Promise<ReelsPlayView | Refusal>;
  play(token: string, slug: string, input: PlayRequest | ReelsPlayRequest): Promise<PlayView | ReelsPlayView | Refusal> {
    return this.plays.play(token, slug, input as PlayRequest);
  }

  /** See GamePlays.freeSpin. */
  freeSpin(token: string, slug: string, roundId: string): Promise<ReelsPlayView | Refusal> {
    return this.plays.freeSpin(token, slug, roundId);
  }
}
