/**
 * One provider node put together, in the order its parts need: the store,
 * the delivery of rounds and payouts, the games, the config's campaigns
 * (before the app: the first request may be a free round of one of them),
 * then the app. Listening and starting the delivery stay with the caller
 * (`serve-provider.ts`, the sandbox), which may listen on more than one
 * server first; so does starting the completion of interrupted rounds. Whatever was opened is closed again if a part fails.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { exitOnStorageFailure } from '../http/stop-on-signals.js';
import { importConfigCampaigns } from './config-campaigns.js';
import { createGameService, REAL_PROVIDER_WORLD, type GameService } from './game-service.js';
import { ProviderMetrics } from './metrics.js';
import { buildProviderApp } from './provider-app.js';
import type { ProviderConfig } from './provider-config.js';
import { createRoundDelivery, type RoundDispatch } from './round-delivery.js';
import { RoundCompletion } from './round-completion.js';
import { seedSealing } from './seed-keyring.js';
import { openProviderStore } from './store/open-provider-store.js';
import type { ProviderStore } from './store/provider-store.js';

export interface ProviderNode {
  app: FastifyInstance;
  store: ProviderStore;
  delivery: RoundDispatch;
  /** The sweep that completes reels rounds their players left (round-completion.ts); started beside the delivery. */
  completion: RoundCompletion;
  games: GameService;
  /** After the app has closed: the sends in flight end first, so that their answers are recorded before the database closes. */
  stopWork(): Promise<void>;
}

export async function buildProviderNode(
  config: ProviderConfig,
  options: {
    logger: Logger;
    /** Serve /metrics, with the process's own series or not. */
    metrics?: { processMetrics: boolean };
    /** The authorities (host:port) the app answers for (provider-app.ts); default any. */
    allowedHosts?: readonly string[];
  },
): Promise<ProviderNode> {
  const { logger } = options;
  // SQLite: the WAL could not be synced (wal-flusher.ts): nothing more is answered; the outbox delivers pending rounds after the restart.
  // PostgreSQL: migrated once, whichever node starts first; every node delivers from the one outbox.
  const store = await openProviderStore(config.database, {
    onFatal: exitOnStorageFailure(logger),
    currencies: config.currencies,
    schema: config.databaseSchema,
    postgres: config.postgres,
    seeds: seedSealing(config.seedKeys, REAL_PROVIDER_WORLD.randomBytes),
  });
  const delivery = createRoundDelivery({ config, store, log: logger });
  let metrics: ProviderMetrics | undefined;
  if (options.metrics) {
    metrics = new ProviderMetrics({ outbox: store.outbox, clock: REAL_PROVIDER_WORLD.clock, processMetrics: options.metrics.processMetrics });
    const observed = metrics;
    delivery.dispatcher.onDelivery((delivered) => observed.dispatch.observe(delivered));
  }
  const completion = new RoundCompletion({
    store,
    keyring: config.seedKeys,
    roundCompletionMs: config.limits.roundCompletionMs,
    clock: REAL_PROVIDER_WORLD.clock,
    delivery,
    onError: (error) => logger.warn({ err: error }, 'completing interrupted rounds failed; the next sweeps try again, and their return is logged'),
    onRecovered: (failedSweeps) => logger.info({ failedSweeps }, 'completing interrupted rounds works again'),
  });
  const games = createGameService({ config, store, delivery, completion });
  const stopWork = async () => {
    await completion.stop();
    await delivery.stop();
    await games.close();
    await store.close();
  };
  try {
    await importConfigCampaigns(config, store, REAL_PROVIDER_WORLD.clock());
    const app = await buildProviderApp({
      config,
      store,
      games,
      logger,
      delivery,
      ...(metrics === undefined ? {} : { metrics }),
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    });
    return { app, store, delivery, completion, games, stopWork };
  } catch (error) {
    await stopWork();
    throw error;
  }
}
