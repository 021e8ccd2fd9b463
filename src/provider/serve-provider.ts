/**
 * `wagerlink provider serve --config provider.json`: reads and checks the
 * config (naming in a warning each retired setting it still sets), holds its
 * port, opens the provider's database, writes the config's campaigns, listens, starts the
 * delivery of rounds (round-delivery.ts), logs one line when ready, and
 * shuts down gracefully on SIGTERM or SIGINT (in-flight requests finish, new
 * ones get 503, then the delivery stops once its sends in flight have been
 * answered and recorded, the operator clients close and the database
 * closes); past limits.shutdownTimeoutMs, or on a second signal, open
 * connections are closed at once.
 *
 * This is where the provider's work starts: the app it builds has none of
 * its own (provider-app.ts).
 */
import { readProviderConfig } from './provider-config.js';
import { redactUrl } from '../platform/postgres/settings.js';
import { holdPort, listenOn } from '../http/listen.js';
import { stopOnSignals } from '../http/stop-on-signals.js';
import { buildProviderNode, type ProviderNode } from './provider-node.js';
import { serverLogger } from '../http/server-logger.js';
import { openFolderWarning, restrictUmask } from '../platform/owner-only-files.js';
import { providerBackendOf } from './store/open-provider-store.js';

export interface ServeProviderFlags {
  host?: string;
  port?: number;
  /** Replaces the config's `database`: a SQLite file path, or a postgres:// URL that several provider nodes share. */
  database?: string;
}

/**
 * The public base URL once `--port` moves the server. Launch URLs are built
 * on publicBaseUrl: one that names the config's own port reaches this
 * server directly, so it moves with it; any other (a proxy, a public name)
 * stays, and the server says so rather than hand out URLs that may lead
 * nowhere.
 */
export function movedPublicBaseUrl(publicBaseUrl: string, configPort: number, port: number): { url: string; warning?: string } {
  if (port === configPort) return { url: publicBaseUrl };
  const url = new URL(publicBaseUrl);
  const named = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (named === configPort) {
    url.port = String(port);
    return { url: url.toString().replace(/\/$/, '') };
  }
  return {
    url: publicBaseUrl,
    warning: `--port ${port}: launch URLs still use publicBaseUrl ${publicBaseUrl}; set publicBaseUrl in the config if it should change`,
  };
}

/** What moves the provider's server to another port, as a port in use is told. */
const LISTEN_SETTING = '--port or the config\'s "port"';

export async function serveProvider(configPath: string, flags: ServeProviderFlags = {}): Promise<void> {
  // Before any file is made: everything this process writes is its owner's alone (owner-only-files.ts).
  restrictUmask();
  const config = readProviderConfig(configPath);
  const logger = serverLogger(config.logLevel, { service: 'wagerlink-provider' });
  for (const warning of config.warnings) logger.warn(warning);
  if (flags.host !== undefined) config.host = flags.host;
  if (flags.database !== undefined) config.database = flags.database;
  if (flags.port !== undefined) {
    const moved = movedPublicBaseUrl(config.publicBaseUrl, config.port, flags.port);
    if (moved.warning) logger.warn(moved.warning);
    config.publicBaseUrl = moved.url;
    config.port = flags.port;
  }
  const where = { host: config.host, port: config.port };
  // Before the database: a port in use fails the start with nothing created or migrated (holdPort).
  const port = await holdPort(where, LISTEN_SETTING);
  let node: ProviderNode;
  try {
    node = await buildProviderNode(config, { logger, metrics: { processMetrics: true } });
  } catch (error) {
    port.release();
    throw error;
  }
  const { app, delivery } = node;
  // A SQLite database's folder that others may list is the owner's to narrow, not ours: said once, at start.
  const openFolder = providerBackendOf(config.database) === 'sqlite' ? openFolderWarning(config.database) : undefined;
  if (openFolder !== undefined) logger.warn(openFolder);
  let address: string;
  try {
    port.release();
    address = await listenOn(app, where, LISTEN_SETTING);
  } catch (error) {
    await node.stopWork();
    throw error;
  }
  delivery.start();
  node.completion.start();
  // Before the ready line: a signal sent the moment a supervisor reads it must find the handler, not the default that kills.
  stopOnSignals(logger, app, () => node.stopWork(), { shutdownTimeoutMs: config.limits.shutdownTimeoutMs });
  logger.info(
    { address, database: redactUrl(config.database), publicBaseUrl: config.publicBaseUrl, operators: config.operators.length, games: config.games.length },
    `wagerlink provider ready on ${address}`,
  );
}
