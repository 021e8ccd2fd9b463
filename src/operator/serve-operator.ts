/**
 * `wagerlink operator serve`: holds its port, opens (and migrates) its
 * database, listens, logs one line when ready, and shuts
 * down gracefully on SIGTERM or SIGINT (in-flight requests finish, new ones
 * get 503, then the database closes); past `shutdownTimeoutMs`, or on a
 * second signal, open connections are closed at once (stop-on-signals.ts).
 *
 * With `workers` > 1 (node:cluster) the primary process forks that many
 * workers that share the port, each with its own store, and logs the ready
 * line once all of them listen. It only supervises: a stop is passed on to
 * every worker, and a worker that dies on its own takes the others down with
 * it, so that the supervisor above (systemd, Kubernetes) sees the failure
 * and restarts the whole node rather than it running short-handed unseen.
 * Workers need a database that several processes can write at once.
 *
 * The primary passes a stop on as a message, not as a signal: systemd (its
 * default KillMode) signals every process of the service at once, and a
 * worker would count the primary's signal as the second one and drop its
 * requests in flight. A worker's own signals still count.
 */
import cluster, { type Worker } from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { backendOf, openStore, type OpenedStore } from '../stores/open-store.js';
import { buildOperatorApp } from './operator-app.js';
import { OperatorMetrics } from './metrics.js';
import { ConfigError, requireServeSecrets, type OperatorConfig, type ServeCredentials } from './operator-config.js';
import { IntegrationRegistry } from './integration-registry.js';
import { parseIntegrationKeys } from '../access/integrations.js';
import { holdPort, listenOn } from '../http/listen.js';
import { exitOnStorageFailure, stopOnSignals, stopWhenOrphaned, type Stopper } from '../http/stop-on-signals.js';
import { serverLogger } from '../http/server-logger.js';
import { openFolderWarning, restrictUmask } from '../platform/owner-only-files.js';

/**
 * A worker still running this long (ms) after its shutdown time-out is
 * killed: it has closed its connections by then, and closing its storage
 * waits only for calls in flight, each bounded by the database's deadlines
 * (4 s by default) and the pool's close (5 s).
 */
const WORKER_EXIT_MARGIN_MS = 20_000;

/** What the primary sends a worker to stop it (a graceful stop, or at once). */
type StopMessage = { wagerlink: 'stop' | 'stop-now' };

function isStopMessage(message: unknown): message is StopMessage {
  const kind = (message as { wagerlink?: unknown } | null)?.wagerlink;
  return kind === 'stop' || kind === 'stop-now';
}

export async function serveOperator(config: OperatorConfig): Promise<void> {
  // Before any file is made: everything this process (and each worker it forks) writes is its owner's alone
  // (owner-only-files.ts).
  restrictUmask();
  const credentials = requireServeSecrets(config);
  // Read before anything is opened: a malformed key stops the start with its reason.
  if (credentials.integrationKeys !== undefined) integrationKeyring(credentials.integrationKeys);
  const backend = backendOf(config.database);
  if (config.workers > 1 && !backend.capabilities.sharedByProcesses) {
    throw new ConfigError(
      `--workers ${config.workers} needs a database that several processes can write at once (PostgreSQL); ` +
        `${backend.name} has one writer, so serve it with one worker`,
    );
  }
  if (config.workers > 1 && cluster.isPrimary) {
    // The workers listen through the primary, which binds the port only when the first of them does: the port is
    // checked here, before any worker opens the database, and given back for them.
    (await holdPort({ host: config.host, port: config.port }, LISTEN_SETTING)).release();
    return supervise(config);
  }
  return serveOne(config, credentials);
}

/** What moves the operator's server to another port, as a port in use is told. */
const LISTEN_SETTING = '--port or WAGERLINK_PORT';

/** WAGERLINK_INTEGRATION_KEYS read, its error a ConfigError naming the variable. */
function integrationKeyring(text: string) {
  try {
    return parseIntegrationKeys(text);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** Every integration this node serves, read once before it listens; stored ones that cannot be opened stop the start. */
async function servedIntegrations(store: OpenedStore, credentials: ServeCredentials): Promise<IntegrationRegistry> {
  const integrations = new IntegrationRegistry({
    store,
    environment: credentials.environment,
    keyring: credentials.integrationKeys === undefined ? undefined : integrationKeyring(credentials.integrationKeys),
  });
  await integrations.reload();
  return integrations;
}

/** What a stop closes: the poll of the integrations, then the store. */
function closing(store: OpenedStore, following: { stop(): void } | undefined): () => Promise<void> {
  return () => {
    following?.stop();
    return store.close();
  };
}

async function serveOne(config: OperatorConfig, credentials: ServeCredentials): Promise<void> {
  const worker = cluster.isWorker ? cluster.worker?.id : undefined;
  const logger = serverLogger(config.logLevel, { service: 'wagerlink-operator', ...(worker === undefined ? {} : { worker }) });
  for (const warning of config.warnings) logger.warn(warning);
  const display = backendOf(config.database).display;
  // A stop from the primary can come while this worker still starts: it is kept, and made once it serves.
  let stopper: Stopper | undefined;
  let stopAsked: StopMessage['wagerlink'] | undefined;
  const stopAsPrimaryAsks = (kind: StopMessage['wagerlink']) => {
    if (kind === 'stop') stopper?.stop('the primary is stopping');
    else stopper?.stopNow('the primary is stopping at once');
  };
  if (worker !== undefined) {
    process.on('message', (message: unknown) => {
      if (!isStopMessage(message)) return;
      stopAsked = message.wagerlink;
      stopAsPrimaryAsks(message.wagerlink);
    });
  }
  // Before the database: a port in use fails the start with nothing created or migrated (holdPort). A worker's
  // port was checked by its primary, which holds the one socket the workers share.
  const port = worker === undefined ? await holdPort({ host: config.host, port: config.port }, LISTEN_SETTING) : undefined;
  let store: OpenedStore;
  try {
    store = await openStore(config.database, {
      rules: config.rules,
      cryptoDecimals: config.cryptoDecimals,
      postgres: config.postgres,
    });
  } catch (error) {
    port?.release();
    throw error;
  }
  // A SQLite database's folder that others may list is the owner's to narrow, not ours: said once, at start.
  const openFolder = backendOf(config.database).name === 'sqlite' ? openFolderWarning(config.database) : undefined;
  if (openFolder !== undefined) logger.warn(openFolder);
  let app: FastifyInstance;
  let address: string;
  let following: { stop(): void } | undefined;
  try {
    const integrations = await servedIntegrations(store, credentials);
    following = integrations.follow(logger);
    app = await buildOperatorApp({
      store,
      integrations,
      adminToken: credentials.adminToken,
      metricsToken: config.metricsToken,
      bodyBytesMax: config.bodyBytesMax,
      transactionsPerRequestMax: config.transactionsPerRequestMax,
      requestTimeoutMs: config.requestTimeoutMs,
      staffLimits: config.staffLimits,
      logger,
      // The process's own series too (CPU, memory, event-loop lag): sampling them starts here, with the server.
      metrics: new OperatorMetrics(),
    });
    // A dead writer thread or a broken invariant means a state nobody can
    // vouch for: stop answering rather than serve from it.
    store.onFatal?.(exitOnStorageFailure(logger));
    port?.release();
    address = await listenOn(app, { host: config.host, port: config.port }, LISTEN_SETTING);
  } catch (error) {
    following?.stop();
    port?.release();
    // The store would otherwise keep alive a process that cannot serve (a
    // port in use, say), and a supervisor would never see it fail.
    await store.close();
    throw error;
  }
  // Before the ready line: a signal sent the moment a supervisor reads it must find the handler, not the default that kills.
  stopper = stopOnSignals(logger, app, closing(store, following), { shutdownTimeoutMs: config.shutdownTimeoutMs });
  if (stopAsked !== undefined) stopAsPrimaryAsks(stopAsked);
  if (worker === undefined) {
    logger.info({ address, database: display, backend: store.backend }, `wagerlink operator ready on ${address}`);
  } else {
    // The primary logs the ready line once every worker listens.
    logger.info({ address, database: display, backend: store.backend }, `worker ${worker} listening`);
  }
}

async function supervise(config: OperatorConfig): Promise<void> {
  const logger = serverLogger(config.logLevel, { service: 'wagerlink-operator', role: 'primary' });
  const workers = new Set<Worker>();
  let listening = 0;
  let stopping = false;
  let exitCode = 0;

  let killTimerSet = false;
  const stopAll = (kind: StopMessage['wagerlink']) => {
    for (const worker of workers) {
      // A worker whose channel is gone (it is exiting) gets the signal instead.
      worker.send({ wagerlink: kind } satisfies StopMessage, (error: Error | null) => {
        if (error) worker.process.kill('SIGTERM');
      });
    }
    if (killTimerSet) return;
    killTimerSet = true;
    setTimeout(() => {
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, config.shutdownTimeoutMs + WORKER_EXIT_MARGIN_MS).unref();
  };

  cluster.on('listening', (worker, address) => {
    listening++;
    if (listening === config.workers) {
      const origin = `http://${address.address?.includes(':') ? `[${address.address}]` : (address.address ?? config.host)}:${address.port}`;
      logger.info(
        { address: origin, database: backendOf(config.database).display, workers: config.workers },
        `wagerlink operator ready on ${origin} (${config.workers} workers)`,
      );
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    workers.delete(worker);
    if (!stopping) {
      // A worker that dies on its own (a broken invariant, a crash, a port in use) takes the node down.
      logger.error({ worker: worker.id, code, signal }, 'a worker exited; stopping the others');
      stopping = true;
      exitCode = code === 0 || code === null ? 1 : code;
      stopAll('stop');
    } else if (code !== 0 && exitCode === 0) {
      exitCode = code ?? 1;
    }
    if (workers.size === 0) {
      logger.info({ code: exitCode }, 'stopped');
      process.exit(exitCode);
    }
  });

  for (let i = 0; i < config.workers; i++) workers.add(cluster.fork());

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      stopping = true;
      logger.info({ signal }, 'shutting down the workers');
      stopAll('stop');
    } else if (signals === 2) {
      logger.warn({ signal }, 'second signal: the workers stop at once');
      stopAll('stop-now');
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // A stop that npm was sent and its shell did not pass on: as a first signal, never as a second.
  stopWhenOrphaned(() => {
    if (signals === 0) onSignal('SIGTERM');
  });
}
