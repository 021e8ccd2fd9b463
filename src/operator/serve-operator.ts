/**
 * `wagerlink operator serve`: listens, logs one line when ready, and shuts
 * down gracefully on SIGTERM or SIGINT (in-flight requests finish, new ones
 * get 503, then the database closes).
 *
 * With `workers` > 1 (node:cluster) the primary process forks that many
 * workers that share the port, each with its own store, and logs the ready
 * line once all of them listen. It only supervises: a signal is passed on to
 * every worker, and a worker that dies on its own takes the others down with
 * it, so that the supervisor above (systemd, Kubernetes) sees the failure
 * and restarts the whole node rather than it running short-handed unseen.
 * Workers need a database that several processes can write at once.
 */
import cluster, { type Worker } from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { backendOf, openStore } from '../stores/open-store.js';
import { buildOperatorApp } from './operator-app.js';
import { ConfigError, requireServeSecrets, type OperatorConfig } from './operator-config.js';
import { exitOnStorageFailure, stopOnSignals } from '../http/stop-on-signals.js';

/** A worker that has not exited this long after SIGTERM is killed (ms): in-flight requests have had their time. */
export const WORKER_EXIT_TIMEOUT_MS = 30_000;

export async function serveOperator(config: OperatorConfig): Promise<void> {
  const credentials = requireServeSecrets(config);
  const backend = backendOf(config.database);
  if (config.workers > 1 && !backend.capabilities.sharedByProcesses) {
    throw new ConfigError(
      `--workers ${config.workers} needs a database that several processes can write at once (PostgreSQL); ` +
        `${backend.name} has one writer, so serve it with one worker`,
    );
  }
  if (config.workers > 1 && cluster.isPrimary) return supervise(config);
  return serveOne(config, credentials);
}

async function serveOne(config: OperatorConfig, credentials: ReturnType<typeof requireServeSecrets>): Promise<void> {
  const worker = cluster.isWorker ? cluster.worker?.id : undefined;
  const logger = pino({ level: config.logLevel, base: { service: 'wagerlink-operator', ...(worker === undefined ? {} : { worker }) } });
  const display = backendOf(config.database).display;
  const store = await openStore(config.database, {
    rules: config.rules,
    cryptoDecimals: config.cryptoDecimals,
    sqliteWriter: config.sqliteWriter,
    sqliteDurability: config.sqliteDurability,
    postgres: config.postgres,
  });
  let app: FastifyInstance;
  let address: string;
  try {
    app = await buildOperatorApp({
      store,
      ...credentials,
      bodyBytesMax: config.bodyBytesMax,
      transactionsPerRequestMax: config.transactionsPerRequestMax,
      logger,
    });
    // A dead writer thread or a broken invariant means a state nobody can
    // vouch for: stop answering rather than serve from it.
    store.onFatal?.(exitOnStorageFailure(logger));
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // The store would otherwise keep alive a process that cannot serve (a
    // port in use, say), and a supervisor would never see it fail.
    await store.close();
    throw error;
  }
  if (worker === undefined) {
    logger.info({ address, database: display, backend: store.backend }, `wagerlink operator ready on ${address}`);
  } else {
    // The primary logs the ready line once every worker listens.
    logger.info({ address, database: display, backend: store.backend }, `worker ${worker} listening`);
  }

  stopOnSignals(logger, app, () => store.close());
}

async function supervise(config: OperatorConfig): Promise<void> {
  const logger = pino({ level: config.logLevel, base: { service: 'wagerlink-operator', role: 'primary' } });
  const workers = new Set<Worker>();
  let listening = 0;
  let stopping = false;
  let exitCode = 0;

  const stopAll = (signal: NodeJS.Signals) => {
    for (const worker of workers) {
      worker.process.kill(signal);
      setTimeout(() => worker.process.kill('SIGKILL'), WORKER_EXIT_TIMEOUT_MS).unref();
    }
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
      stopAll('SIGTERM');
    } else if (code !== 0 && exitCode === 0) {
      exitCode = code ?? 1;
    }
    if (workers.size === 0) {
      logger.info({ code: exitCode }, 'stopped');
      process.exit(exitCode);
    }
  });

  for (let i = 0; i < config.workers; i++) workers.add(cluster.fork());

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down the workers');
    stopAll('SIGTERM');
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
