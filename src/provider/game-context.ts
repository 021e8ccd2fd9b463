/**
 * What every part of the game service is built from: the config and its
 * catalog, the provider's store, the launch tokens, one operator client per
 * operator, the world (clock, ids, randomness) and the seed keyring. The
 * launches, the plays, the waits and the views of a session
 * (game-launches.ts, game-plays.ts, round-waits.ts, session-views.ts) each
 * take the part they use; game-service.ts puts them together.
 */
import { randomBytes } from 'node:crypto';
import { REAL_CLIENT_WORLD, type ClientWorld } from '../clients/http-call.js';
import type { OperatorClient } from '../clients/operator-client.js';
import { decimalFromString, toMinor } from '../protocol/money.js';
import type { Catalog } from './catalog.js';
import type { LaunchTokens } from './launch-token.js';
import type { GameSettings } from './config-games.js';
import type { ProviderConfig } from './provider-config.js';
import type { SeedKeyring } from './seed-keyring.js';
import type { ProviderStore, SeedSealing } from './store/provider-store.js';
import { timeOrderedUuid } from './time-ordered-id.js';

export interface ProviderWorld extends ClientWorld {
  randomBytes: (size: number) => Buffer;
  newId: () => string;
  /** How long a player waits for a round's final answer: see PlayerTimer. */
  playerTimer: PlayerTimer;
}

/**
 * The time a person waits in (round-waits.ts): real time, whatever the
 * world's clock says, since a test moves that clock through back-offs and
 * a player's patience must not jump with it. A test gives its own, and ends
 * a wait when it chooses instead of after a number of milliseconds.
 */
export interface PlayerTimer {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Calls `fire` once after `ms`, unless cancelled first by the function answered. */
  after(ms: number, fire: () => void): () => void;
}

export const REAL_PLAYER_TIMER: PlayerTimer = {
  now: () => performance.now(),
  after: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

export const REAL_PROVIDER_WORLD: ProviderWorld = {
  ...REAL_CLIENT_WORLD,
  randomBytes: (size) => randomBytes(size),
  newId: () => timeOrderedUuid(),
  playerTimer: REAL_PLAYER_TIMER,
};

/** What the game service needs of the outbox's dispatcher (src/dispatch/dispatcher.ts). */
export interface RoundDelivery {
  /** Claims at once: a round was just enqueued and is durable. */
  poke(): void;
}

/** What the game service tells the completion of rounds their players leave (round-completion.ts). */
export interface RoundsLeftBehind {
  /** A reels round with free spins was written, at `createdAt` (the world's clock): it is due for completion from then on. */
  roundAdded(createdAt: number): void;
}

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
  /** Told of each round with free spins; without it, such rounds wait for the completion's next sweep. */
  completion?: RoundsLeftBehind;
}

/** The options with the config's seed keyring, and the sealing of new seeds under its current key. */
export interface GameContext extends GameServiceOptions {
  /** New seeds are sealed under its current key, and sealed ones opened only where a round needs them. */
  keyring: SeedKeyring;
  sealing: SeedSealing;
}

/** The minor units of an amount the player or the casino wrote, in a currency of `decimals`; undefined when it is no amount or has more decimals. */
export function minorOfText(text: string, decimals: number): bigint | undefined {
  const decimal = decimalFromString(text);
  return decimal === undefined ? undefined : toMinor(decimal, decimals);
}
