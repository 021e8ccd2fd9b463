/**
 * `wagerlink sandbox` (and `npm start`): the whole interface in one process
 * on 127.0.0.1 — the operator wallet with the lobby and the back office, and
 * the provider with its games — joined by one integration whose secrets are
 * made on the first start and kept in the data folder. Demo players and a
 * free-bet campaign are seeded idempotently, so a restart changes nothing
 * that was there.
 *
 * One process, so that one Ctrl-C or SIGTERM stops everything: the first
 * signal stops both servers gracefully (requests in flight finish, the
 * provider's sends in flight are answered and recorded), then the databases
 * close and the process exits 0; a second signal, or the shutdown time-out,
 * closes the connections still open at once.
 */
import { join } from 'node:path';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildOperatorApp } from '../operator/operator-app.js';
import { IntegrationRegistry } from '../operator/integration-registry.js';
import { parseIntegrationKeys } from '../access/integrations.js';
import { KIT_PLAYER_PREFIX } from '../conformance/fixtures.js';
import { registerLobby } from '../operator/lobby-routes.js';
import { OperatorService, REAL_WORLD } from '../operator/operator-service.js';
import { readOperatorConfig } from '../operator/operator-config.js';
import { buildProviderNode } from '../provider/provider-node.js';
import type { RoundDispatch } from '../provider/round-delivery.js';
import type { RoundCompletion } from '../provider/round-completion.js';
import { openStore } from '../stores/open-store.js';
import { sqliteDriver } from '../platform/sqlite/open-database.js';
import { isPostgresUrl } from '../platform/postgres/settings.js';
import { exitOnStorageFailure, stopWhenOrphaned } from '../http/stop-on-signals.js';
import { SHUTDOWN_TIMEOUT_MS } from '../http/limits.js';
import { holdPort, ListenError, type HeldPort } from '../http/listen.js';
import { loopbackAuthorities } from '../http/host-guard.js';
import { seedDemoPlayers } from './demo-seed.js';
import { registerSandboxPages } from './sandbox-pages.js';
import { registerCasinoOutage } from './casino-outage.js';
import {
  databaseLines,
  operatorOrigin,
  providerOrigin,
  SANDBOX_HOST,
  SANDBOX_OPERATOR_ID,
  SANDBOX_WALLET_ID,
  sandboxIntegrationKeys,
  sandboxProviderConfig,
  type SandboxSettings,
} from './sandbox-config.js';
import { loadOrCreateSecrets, SandboxSetupError } from './sandbox-secrets.js';
import { sandboxStaffToken } from './sandbox-staff.js';
import { adminTokenMatcher, isStaffTokenShape, staffTokenHash } from '../access/staff-token.js';
import { tokenValid } from '../access/staff.js';
import { allows } from '../access/roles.js';
import { bearerToken } from '../protocol/signing.js';
import { OWNER_ONLY_FILE_MODE, OWNER_ONLY_FOLDER_MODE, ownerOnlyFolder, restrictUmask, tightenFile } from '../platform/owner-only-files.js';

/** The file in the data folder that holds a line per request of both sides (appended to by each start). */
export const SANDBOX_LOG_FILE = 'sandbox.log';

/** The sandbox's own pages, first on the operator's `/`: a person who opens the bare address finds them. */
const SANDBOX_HOME_SECTIONS = [
  {
    heading: 'The sandbox',
    text: "The player's side and the casino staff's side of this sandbox. The back office asks for the admin tokens unless opened from the address the sandbox printed.",
    links: [
      { href: '/lobby/', text: 'Lobby: pick or create a player, play the games for real or for fun' },
      { href: '/backoffice/', text: 'Back office: players, rounds, payouts, the outbox, charts' },
    ],
  },
];

export interface SandboxOutput {
  write(line: string): void;
}

/** A file mode as `chmod` takes it: 0755. */
function octal(mode: number): string {
  return `0${mode.toString(8)}`;
}

/** Port taken: the words a newcomer acts on, the same whether the port is found taken early or at the listen. */
function portTaken(port: number, what: string, option: string): SandboxSetupError {
  return new SandboxSetupError(
    `port ${port} (the ${what}) is already in use on ${SANDBOX_HOST}, perhaps by another sandbox: stop it, or pick another port with ${option} PORT`,
  );
}

/**
 * Binds both ports before any file or database is made, and keeps them bound
 * while the databases are opened, migrated and seeded (holdPort): a start
 * that cannot serve fails before it creates anything, so that the next start
 * on the same data folder or database is still a fresh one. `release` frees
 * them just before the servers listen in their place.
 */
async function holdPorts(ports: { port: number; what: string; option: string }[]): Promise<{ release: () => Promise<void> }> {
  const held: HeldPort[] = [];
  const release = async () => {
    for (const one of held.splice(0)) one.release();
  };
  for (const { port, what, option } of ports) {
    try {
      held.push(await holdPort({ host: SANDBOX_HOST, port }, `${option} PORT`));
    } catch (error) {
      await release();
      const taken = error instanceof ListenError && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
      throw taken ? portTaken(port, what, option) : error;
    }
  }
  return { release };
}

/** Listens, or explains a port that is taken in words a newcomer acts on. */
async function listen(app: FastifyInstance, port: number, what: string, option: string): Promise<void> {
  try {
    await app.listen({ host: SANDBOX_HOST, port });
  } catch (error) {
    // Another process may still take a port in the moment between its release by holdPorts and this listen.
    throw (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? portTaken(port, what, option) : error;
  }
}

// eslint-disable-next-line max-lines-per-function -- the sandbox's start in its order (ports, data folder, both servers, seeding), each step needing the one before
export async function runSandbox(settings: SandboxSettings, out: SandboxOutput = { write: (line) => process.stdout.write(`${line}\n`) }): Promise<void> {
  // Before any file is made: everything this process writes is its owner's alone (owner-only-files.ts). The data
  // folder is the sandbox's own (its secrets are in it), so one an earlier version left open to others is narrowed.
  restrictUmask();
  const ports = await holdPorts([
    { port: settings.operatorPort, what: 'operator', option: '--port' },
    { port: settings.providerPort, what: 'provider', option: '--provider-port' },
  ]);
  // On SQLite, a missing driver is told before the data folder and its secrets are made: a start that cannot open its
  // databases leaves nothing behind, as every other command on SQLite (open-database.ts).
  if (!isPostgresUrl(settings.operatorDatabase)) sqliteDriver();
  const folderWas = ownerOnlyFolder(settings.dataDir, { tighten: true });
  const { secrets, created } = loadOrCreateSecrets(settings.dataDir);
  // Every request, refusals included, at the servers' default level into a file in the data folder; on the terminal,
  // warnings and failures only, so that the URLs stay readable among a lobby's and a game's steady requests.
  const logFile = join(settings.dataDir, SANDBOX_LOG_FILE);
  // The log names players and their rounds: owner-only, like the databases, including a log an earlier version left wider.
  tightenFile(logFile);
  const logger = pino(
    { level: 'info', base: { service: 'wagerlink-sandbox' } },
    pino.multistream([
      { level: 'info', stream: pino.destination({ dest: logFile, append: true, sync: true, mode: OWNER_ONLY_FILE_MODE }) },
      { level: 'warn', stream: pino.destination(2) },
    ]),
  );
  const operatorLogger = logger.child({ side: 'operator' });
  const providerLogger = logger.child({ side: 'provider' });

  const operatorConfig = readOperatorConfig({}, { host: SANDBOX_HOST, port: settings.operatorPort, database: settings.operatorDatabase });
  const providerConfig = sandboxProviderConfig(settings, secrets);
  const operatorUrl = operatorOrigin(settings);
  const providerUrl = providerOrigin(settings);

  const closers: (() => Promise<unknown>)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
    closers.length = 0;
  };
  closers.push(() => ports.release());
  let operatorApp: FastifyInstance;
  let providerApp: FastifyInstance;
  let delivery: RoundDispatch;
  let completion: RoundCompletion;
  let state: 'serving' | 'stopping' | 'now' = 'serving';
  const finish = () =>
    closeAll().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  const stopNow = () => {
    if (state === 'now') return;
    state = 'now';
    operatorApp.server.closeAllConnections();
    providerApp.server.closeAllConnections();
  };
  const stopGracefully = (reason: string) => {
    if (state !== 'serving') return;
    state = 'stopping';
    out.write(`${reason}: stopping`);
    setTimeout(stopNow, SHUTDOWN_TIMEOUT_MS).unref();
    void finish();
  };
  const onSignal = (signal: NodeJS.Signals) => (state === 'serving' ? stopGracefully(signal) : stopNow());
  try {
    const operatorStore = await openStore(settings.operatorDatabase, {
      rules: operatorConfig.rules,
      cryptoDecimals: operatorConfig.cryptoDecimals,
      postgres: operatorConfig.postgres,
    });
    closers.push(() => operatorStore.close());
    operatorStore.onFatal?.(exitOnStorageFailure(operatorLogger));
    // The back office's own accounts (sandbox-staff.ts): the configured admin tokens stay with the servers.
    const operatorStaffToken = await sandboxStaffToken(operatorStore, settings.dataDir, { name: 'operatorStaffToken', role: 'admin', operators: null });
    // The integrations that may call: the sandbox's own (its secret and token, as the environment's would be) and any
    // added to its wallet since, followed as `serve` follows them, so that one added or paused holds within seconds.
    const integrations = new IntegrationRegistry({
      store: operatorStore,
      environment: { secrets: [secrets.secret], accessTokens: [secrets.accessToken] },
      keyring: parseIntegrationKeys(sandboxIntegrationKeys(secrets.integrationKey)),
    });
    await integrations.reload();
    const following = integrations.follow(operatorLogger);
    closers.push(async () => following.stop());
    operatorApp = await buildOperatorApp({
      store: operatorStore,
      integrations,
      adminToken: secrets.adminToken,
      // The back office's chart reads the operator's /metrics with the token it holds.
      metricsToken: operatorStaffToken,
      logger: operatorLogger,
      homeSections: SANDBOX_HOME_SECTIONS,
      // The lobby takes no token: only requests addressed to this machine's own names for the sandbox are answered,
      // so that a web page cannot reach it through DNS rebinding (docs/sandbox.md#who-may-call-what).
      allowedHosts: loopbackAuthorities(settings.operatorPort),
    });
    closers.push(() => operatorApp.close());
    const service = new OperatorService(operatorStore, REAL_WORLD);
    await registerLobby(operatorApp, {
      service,
      link: { providerUrl, operatorId: SANDBOX_OPERATOR_ID, walletId: SANDBOX_WALLET_ID, secret: secrets.secret },
      games: providerConfig.games.map((game) => ({ slug: game.slug, title: game.title, kind: game.kind })),
      lobbyUrl: `${operatorUrl}/lobby/`,
      // The lobby is the player's side as the game pages are: it keeps their limit per address.
      limits: { callsPerAddressMax: providerConfig.limits.playerCallsPerAddressMax, windowMs: providerConfig.limits.playerRateWindowMs },
      // The conformance kit's players are the kit's, not players: the picker leaves them out (docs/sandbox.md).
      hiddenPlayerPrefixes: [KIT_PLAYER_PREFIX],
    });
    registerSandboxPages(operatorApp, { providerOrigin: providerUrl });
    const isAdminToken = adminTokenMatcher(secrets.adminToken);
    registerCasinoOutage(operatorApp, {
      admitted: async (authorization) => {
        const presented = bearerToken(authorization);
        if (isAdminToken(presented)) return true;
        if (presented === undefined || !isStaffTokenShape(presented)) return false;
        const found = await operatorStore.findStaffToken(staffTokenHash(presented));
        // Switching the casino off is a support action: it moves no money, and it stops every bet.
        return found !== null && tokenValid(found, Date.now()) && allows(found.account.role, 'players.manage');
      },
    });
    const seeded = await seedDemoPlayers(operatorApp, secrets.adminToken, new URL(operatorUrl).host);

    const provider = await buildProviderNode(providerConfig, { logger: providerLogger, allowedHosts: loopbackAuthorities(settings.providerPort) });
    // Closed in reverse: the app, then the delivery (its sends in flight answered and recorded), the games and the store.
    closers.push(() => provider.stopWork());
    providerApp = provider.app;
    const providerStaffToken = await sandboxStaffToken(provider.store, settings.dataDir, {
      name: 'providerStaffToken',
      role: 'payments',
      operators: [SANDBOX_OPERATOR_ID],
    });
    delivery = provider.delivery;
    completion = provider.completion;
    closers.push(() => providerApp.close());

    await ports.release();
    await listen(operatorApp, settings.operatorPort, 'operator', '--port');
    await listen(providerApp, settings.providerPort, 'provider', '--provider-port');
    delivery.start();
    completion.start();
    // Before the ready line: a signal sent the moment a person or a script reads it must find the handler.
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // A stop that npm was sent and its shell did not pass on: as a first signal, never as a second.
    stopWhenOrphaned(() => stopGracefully('the process that started the sandbox is gone'));

    out.write(`Wagerlink sandbox (${created ? 'new secrets made and kept' : 'secrets read'} in ${settings.dataDir}; ${seeded} demo players added)`);
    if (folderWas !== undefined) {
      out.write(`The data folder was open to others (mode ${octal(folderWas)}): it is now ${octal(OWNER_ONLY_FOLDER_MODE)}, its owner's alone`);
    }
    for (const line of databaseLines(settings)) out.write(line);
    out.write('');
    out.write(`  Lobby        ${operatorUrl}/lobby/`);
    out.write(`  Back office  ${operatorUrl}/backoffice/#admin=${operatorStaffToken}&provider=${providerStaffToken}`);
    out.write(`  Operator API ${operatorUrl}  (${operatorUrl}/openapi.json)`);
    out.write(`  Provider API ${providerUrl}  (${providerUrl}/openapi.json)`);
    out.write(`  Request log  ${logFile}`);
    out.write('');
    out.write(`wagerlink sandbox ready (pid ${process.pid}): Ctrl-C stops it`);
  } catch (error) {
    await closeAll();
    throw error;
  }
}
