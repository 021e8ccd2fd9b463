/**
 * What the sandbox runs: one operator and one provider on 127.0.0.1, joined
 * by one integration whose secrets come from the data folder
 * (sandbox-secrets.ts). The provider's config is built in memory from
 * examples/provider.json (its games, ladders, exchange rates and limits), so
 * the sandbox offers whatever games that catalog has; only the secrets, the
 * ports, the paths and the demo players change.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPostgresUrl, urlParameter } from '../platform/postgres/settings.js';
import { backendOf } from '../stores/open-store.js';
import type { ProviderConfigFile } from '../provider/config-schema.js';
import { resolveProviderConfig, type ProviderConfig } from '../provider/provider-config.js';
import type { SandboxSecrets } from './sandbox-secrets.js';
import { PROVIDER_SCHEMA_DEFAULT } from './sandbox-defaults.js';
import { loopbackAuthorities } from '../http/host-guard.js';

/** The sandbox listens on the loopback interface only: its lobby API takes no token (docs/sandbox.md#who-may-call-what). */
export const SANDBOX_HOST = '127.0.0.1';

export const SANDBOX_OPERATOR_ID = 'sandbox-operator';
export const SANDBOX_WALLET_ID = 'sandbox-wallet';

/** The demo players, one per currency the issue names, each with an opening balance in its currency's units. */
export const DEMO_PLAYERS = [
  { playerId: 'alice', currency: 'EUR', balance: '100', country: 'DE' },
  { playerId: 'bob', currency: 'USD', balance: '250', country: 'US' },
  { playerId: 'chika', currency: 'JPY', balance: '20000', country: 'JP' },
  { playerId: 'satoshi', currency: 'BTC', balance: '0.005', country: 'SV' },
] as const;

/** The one free-bet campaign: five free rounds of 1 EUR of the first game for alice; a fixed id, so a restart imports it once. */
const DEMO_CAMPAIGN_ID = '5b0c7a52-2d1e-4c55-9c1a-7f0e3c2b9a10';

export interface SandboxSettings {
  dataDir: string;
  operatorPort: number;
  providerPort: number;
  /** The operator's database: a SQLite file in dataDir by default, or a postgres:// URL. */
  operatorDatabase: string;
  /**
   * With a postgres:// operatorDatabase, the provider's tables live in the
   * same database under this schema (made if missing), beside the wallet's
   * in the URL's own (public by default): both sides have a `rounds` table
   * and a `schema_migrations`. Default PROVIDER_SCHEMA_DEFAULT.
   */
  providerSchema?: string | undefined;
  /** The provider's limits.dispatchHorizonSeconds; default the config's (72 h). */
  dispatchHorizonSeconds?: number | undefined;
}

/**
 * The id of the sandbox's one seed key (its secrets file keeps the key): a
 * fingerprint of the key, so that a key made anew (the secrets file
 * deleted) has another id, and a session sealed under the old one is
 * refused as sealed under a key the ring no longer holds, not as altered.
 */
/**
 * WAGERLINK_INTEGRATION_KEYS of the sandbox (docs/operator.md): its one
 * integration key, under the id `sandbox`, so that integrations added to
 * its wallet, by its back office or by `wagerlink operator integrations`
 * with `sandbox env`'s variables, are sealed and opened alike.
 */
export function sandboxIntegrationKeys(integrationKey: string): string {
  return `sandbox:${integrationKey}`;
}

export function sandboxSeedKeyId(seedKey: string): string {
  return `sandbox-${createHash('sha256').update(seedKey).digest('hex').slice(0, 8)}`;
}

/** Each side's SQLite file in the data folder, when the sandbox runs on SQLite. */
export const OPERATOR_DB_FILE = 'operator.db';
const PROVIDER_DB_FILE = 'provider.db';

/** The provider's database: its schema of the operator's PostgreSQL database, or a SQLite file in dataDir. */
function providerDatabase(settings: SandboxSettings): { database: string; databaseSchema?: string } {
  if (isPostgresUrl(settings.operatorDatabase)) {
    return { database: settings.operatorDatabase, databaseSchema: settings.providerSchema ?? PROVIDER_SCHEMA_DEFAULT };
  }
  return { database: join(settings.dataDir, PROVIDER_DB_FILE) };
}

/**
 * What the sandbox says of its databases when it is ready: where each side
 * keeps its data and, on PostgreSQL, the SQLite files an earlier start left
 * in the data folder. Those are not read, not copied and not deleted: a
 * person who moves to PostgreSQL may well come back, and the provider's
 * outbox in provider.db may still hold a round or payout for the operator
 * of that database, which only a start on SQLite delivers.
 */
export function databaseLines(settings: SandboxSettings, exists: (path: string) => boolean = existsSync): string[] {
  if (!isPostgresUrl(settings.operatorDatabase)) {
    return [`Databases: SQLite, the operator's ${settings.operatorDatabase}, the provider's ${providerDatabase(settings).database}`];
  }
  const operatorSchema = urlParameter(settings.operatorDatabase, 'search_path') ?? 'public';
  const lines = [
    `Databases: PostgreSQL ${backendOf(settings.operatorDatabase).display}, the operator's in schema ${operatorSchema}, ` +
      `the provider's in schema ${providerDatabase(settings).databaseSchema}`,
  ];
  const left = [OPERATOR_DB_FILE, PROVIDER_DB_FILE].map((file) => join(settings.dataDir, file)).filter((path) => exists(path));
  if (left.length > 0) {
    lines.push(
      `  ${left.join(' and ')}, of a start on SQLite, ${left.length === 1 ? 'is' : 'are'} left as ${left.length === 1 ? 'it is' : 'they are'} ` +
        'and not read here: a start without --database runs on them again (and sends what their outbox still holds)',
    );
  }
  return lines;
}

export function operatorOrigin(settings: SandboxSettings): string {
  return `http://${SANDBOX_HOST}:${settings.operatorPort}`;
}

export function providerOrigin(settings: SandboxSettings): string {
  return `http://${SANDBOX_HOST}:${settings.providerPort}`;
}

/** The example config the catalog comes from; shipped with the package (package.json "files"). */
function exampleProviderConfig(): ProviderConfigFile {
  const file = new URL('../../../examples/provider.json', import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as ProviderConfigFile;
}

export function sandboxProviderConfig(settings: SandboxSettings, secrets: SandboxSecrets): ProviderConfig {
  const example = exampleProviderConfig();
  const firstGame = example.games[0]!.slug;
  const file: ProviderConfigFile = {
    ...example,
    host: SANDBOX_HOST,
    port: settings.providerPort,
    publicBaseUrl: providerOrigin(settings),
    ...providerDatabase(settings),
    // The sandbox prints what a person needs; the servers log only what went wrong.
    logLevel: 'warn',
    ...(settings.dispatchHorizonSeconds === undefined ? {} : { limits: { ...example.limits, dispatchHorizonSeconds: settings.dispatchHorizonSeconds } }),
    launchTokenSecret: secrets.launchTokenSecret,
    adminToken: secrets.providerAdminToken,
    seedKeys: { current: sandboxSeedKeyId(secrets.seedKey), keys: { [sandboxSeedKeyId(secrets.seedKey)]: secrets.seedKey } },
    operators: [
      {
        operatorId: SANDBOX_OPERATOR_ID,
        walletIds: [SANDBOX_WALLET_ID],
        secret: secrets.secret,
        ipWhitelist: ['127.0.0.1', '::1'],
        trustedProxies: [],
        endpoint: operatorOrigin(settings),
        // The lobby frames the game, at whichever of this machine's names the person opened it by. Not [::1]:
        // a Content-Security-Policy cannot name an IPv6 address, and the sandbox listens on 127.0.0.1 alone.
        pageOrigins: loopbackAuthorities(settings.operatorPort)
          .filter((authority) => !authority.startsWith('['))
          .map((authority) => `http://${authority}`),
        accessToken: secrets.accessToken,
        currencies: [...new Set(DEMO_PLAYERS.map((player) => player.currency))],
      },
    ],
    campaigns: [
      {
        id: DEMO_CAMPAIGN_ID,
        operatorId: SANDBOX_OPERATOR_ID,
        game: firstGame,
        currency: 'EUR',
        betAmount: '1',
        rounds: 5,
        players: ['alice'],
      },
    ],
  };
  return resolveProviderConfig(file);
}
