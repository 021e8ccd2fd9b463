/**
 * How real rounds reach their operators: the outbox's dispatcher
 * (src/dispatch) over the provider store's outbox, sending each round's
 * stored /transaction body, signed with its operator's secret and carrying
 * its access token, on the protocol's back-off (limits.retryDelayMsMin to
 * limits.retryDelayMsMax) until the operator gives a final answer. The
 * store's hook settles or refuses the round with that answer.
 *
 * Building it starts nothing, so that the app builders stay free of side
 * effects: the server (serve-provider.ts) starts it once it listens, and
 * stops it on shutdown before the store closes; the game service pokes it
 * for each new round.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Dispatcher as UndiciDispatcher } from 'undici';
import { REAL_CLIENT_WORLD, type ClientWorld } from '../clients/http-call.js';
import { Dispatcher, DISPATCHER_LIMITS, httpSend, type DispatcherLimits, type DispatcherLog } from '../dispatch/dispatcher.js';
import { leaseOwner } from '../dispatch/outbox.js';
import { DISPATCH_SCHEDULE, type DispatchSchedule } from '../dispatch/retry-schedule.js';
import type { RoundDelivery } from './game-service.js';
import type { ProviderConfig } from './provider-config.js';
import type { ProviderStore } from './store/provider-store.js';

export interface RoundDeliverySetup {
  config: ProviderConfig;
  store: ProviderStore;
  /**
   * The name this node keeps across restarts, in its leases (leaseOwner);
   * default lastingNodeName(config). A process that builds nodes without
   * serving them on their ports (a test's) gives each its own.
   */
  lastingName?: string;
  /**
   * The clock of the schedule and the leases, the jitter's randomness, and
   * the idle wait between claims; default REAL_CLIENT_WORLD. Its clock must
   * be the one rounds are written with (their enqueue time).
   */
  world?: ClientWorld;
  /** The undici dispatcher of the sends (a mock in tests); by default one of its own, which stop() closes. */
  dispatcher?: UndiciDispatcher;
  limits?: Partial<DispatcherLimits>;
  log?: DispatcherLog;
}

export interface RoundDispatch extends RoundDelivery {
  /** This process's name in the outbox's leases: the node's lasting name, if it has one, and this run's. */
  readonly node: string;
  /** The part of `node` a restart keeps; undefined for a node on an ephemeral port. */
  readonly lastingName: string | undefined;
  start(): void;
  /** Claims nothing more, waits for the sends in flight and records their answers, then closes its connections. */
  stop(): Promise<void>;
  /** The dispatcher itself: its onDelivery watches each attempt's outcome (tests, measurements). */
  readonly dispatcher: Dispatcher;
}

/**
 * The name a provider node keeps across restarts: its host and the port it
 * serves on. No other live process on the host holds that port, so no two
 * live nodes share it, and a node restarted on its port finds the leases
 * its killed run left (Dispatcher's `lastingName`). Undefined for an
 * ephemeral port (0), which a restart does not keep.
 */
export function lastingNodeName(config: Pick<ProviderConfig, 'port'>): string | undefined {
  return config.port === 0 ? undefined : `${hostname()}:${config.port}`;
}

/**
 * This run's name in leases: the lasting name, if any, then the process and
 * random bits for a pid reused after a restart; without a lasting name, the
 * host in its place, so that the name stays unique among the processes that
 * may share an outbox.
 */
function nodeOf(lastingName: string | undefined): string {
  const run = `${process.pid}-${randomBytes(4).toString('hex')}`;
  return lastingName === undefined ? `${hostname()}:${run}` : leaseOwner(lastingName, run);
}

/** The protocol's schedule with the config's back-off bounds (limits.retryDelayMsMin, limits.retryDelayMsMax) and horizon (limits.dispatchHorizonSeconds, every kind). */
export function roundSchedule(config: ProviderConfig): DispatchSchedule {
  const { retryDelayMsMin, retryDelayMsMax, dispatchHorizonMs } = config.limits;
  return {
    ...DISPATCH_SCHEDULE,
    retry: { ...DISPATCH_SCHEDULE.retry, retryDelayMsMin, retryDelayMsMax },
    horizonMs: { bet: dispatchHorizonMs, win: dispatchHorizonMs, payout: dispatchHorizonMs },
  };
}

export function createRoundDelivery(setup: RoundDeliverySetup): RoundDispatch {
  const { config, store } = setup;
  const world = setup.world ?? REAL_CLIENT_WORLD;
  const operators = new Map(config.operators.map((op) => [op.operatorId, op]));
  const sender = httpSend({
    endpoint: (operatorId) => {
      const op = operators.get(operatorId);
      return op && { url: op.endpoint, secret: op.secrets[0]!, accessToken: op.accessToken };
    },
    answerMsMax: config.limits.operatorAnswerMsMax,
    world,
    ...(setup.dispatcher === undefined ? {} : { dispatcher: setup.dispatcher }),
  });
  const lastingName = setup.lastingName ?? lastingNodeName(config);
  const node = nodeOf(lastingName);
  const dispatcher = new Dispatcher({
    outbox: store.outbox,
    node,
    ...(lastingName === undefined ? {} : { lastingName }),
    send: sender.send,
    schedule: roundSchedule(config),
    world,
    limits: {
      operatorInFlightMax: config.limits.operatorInFlightMax,
      // One node can keep one operator's whole limit busy.
      inFlightMax: Math.max(DISPATCHER_LIMITS.inFlightMax, config.limits.operatorInFlightMax),
      ...setup.limits,
    },
    ...(setup.log === undefined ? {} : { log: setup.log }),
  });
  let started = false;
  let stopping: Promise<void> | undefined;
  return {
    node,
    lastingName,
    dispatcher,
    poke: () => dispatcher.poke(),
    start: () => {
      started = true;
      dispatcher.start();
    },
    // Stopping again waits for the first stop.
    stop: () =>
      (stopping ??= (async () => {
        if (started) await dispatcher.stop();
        await sender.close();
      })()),
  };
}
