/**
 * The provider's configuration: one JSON file (`--config provider.json`),
 * checked at start against its schema (config-schema.ts) and then for
 * meaning (known currencies, exact ladders, references between members).
 * Every error names the member at fault, e.g. `games[0].ladders.EUR[2]: ...`.
 *
 * This file holds the resolved form and the order of the steps; each step
 * reads the members of one job: the limits (config-limits.ts), the
 * operators (config-operators.ts), the exchange rates, games and fun play
 * (config-games.ts), the campaigns (config-campaigns.ts), and here the
 * server, its database and its secrets. One value is read by
 * config-values.ts. Amounts, rates and the RTP may be written as JSON
 * numbers or as decimal strings ("0.10"); either way they are read exactly.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_STAFF_LIMITS, staffLimitsProblem, type StaffLimits } from '../access/limits.js';
import { isRole } from '../access/roles.js';
import { isPostgresUrl, readPostgresSettings, schemaNameProblem, type PostgresSettings } from '../platform/postgres/settings.js';
import { createCurrencies, DEFAULT_CRYPTO_DECIMALS, inexactNumbers, SIGNIFICANT_DIGITS_MAX, type Currencies } from '../protocol/money.js';
import { compile } from '../protocol/validate.js';
import { campaignsOf, type CampaignSettings } from './config-campaigns.js';
import { exchangeRatesOf, funOf, gamesOf, type ExchangeRates, type GameSettings } from './config-games.js';
import { limitsOf, retiredLimitWarnings, type ProviderLimits } from './config-limits.js';
import { operatorsOf, pageOriginWarnings, type OperatorSettings } from './config-operators.js';
import { ProviderConfigSchema, type ProviderConfigFile } from './config-schema.js';
import { fail, httpUrl, ProviderConfigError } from './config-values.js';
import { SEED_KEY_ID_PATTERN, SEED_KEYS_MAX, SeedKeyring, seedKeyBytes } from './seed-keyring.js';

export interface ProviderConfig {
  host: string;
  port: number;
  publicBaseUrl: string;
  database: string;
  /** PostgreSQL: the schema of the provider's tables, made if missing; undefined: the URL's search_path. */
  databaseSchema: string | undefined;
  /** PostgreSQL: the pool and its time-outs (the operator's settings, read by the same code); unused on SQLite. */
  postgres: PostgresSettings;
  logLevel: string;
  launchTokenSecrets: string[];
  adminToken: string | undefined;
  /** Money limits of the staff roles per call and currency (access/limits.ts); default DEFAULT_STAFF_LIMITS. */
  staffLimits: StaffLimits;
  /** Seals the server seeds of rounds not yet played (seed-keyring.ts); its keys are shown nowhere. */
  seedKeys: SeedKeyring;
  /** Reads /metrics and nothing else; the admin token reads it too. */
  metricsToken: string | undefined;
  limits: ProviderLimits;
  currencies: Currencies;
  fun: { currency: string; balanceMinor: bigint };
  /** Units of each currency per unit of `base`. */
  exchangeRates: ExchangeRates | undefined;
  operators: OperatorSettings[];
  games: GameSettings[];
  campaigns: CampaignSettings[];
  /** Settings that were given but mean nothing any more, each with what replaced it: `serve` logs each as a warning. */
  warnings: string[];
}

// --------------------------------------------------------------- resolving

const schemaCheck = compile(ProviderConfigSchema);

/**
 * Checks a parsed config file and resolves it; throws ProviderConfigError
 * naming the member at fault. The steps run in one fixed order (limits,
 * operators, exchange rates, games, fun play, campaigns, the database, the
 * server, the secrets), so that a file with several faults is always told
 * the same one first.
 */
export function resolveProviderConfig(input: unknown): ProviderConfig {
  const checked = schemaCheck.check(input);
  if (!checked.ok) throw new ProviderConfigError(checked.detail);
  const file = checked.value;
  const currencies = createCurrencies({ ...DEFAULT_CRYPTO_DECIMALS, ...(file.cryptoDecimals ?? {}) });
  const limitsIn = file.limits ?? {};
  const limits = limitsOf(limitsIn);
  const operators = operatorsOf(file.operators, currencies);
  const exchangeRates = exchangeRatesOf(file.exchangeRates, currencies);
  const games = gamesOf(file.games, currencies, exchangeRates);
  const fun = funOf(file.fun, currencies);
  const campaigns = campaignsOf(file.campaigns ?? [], { operators, games, currencies, exchangeRates });
  checkDatabaseSchema(file);
  return {
    ...serverOf(file),
    ...secretsOf(file),
    limits,
    currencies,
    fun,
    exchangeRates,
    operators,
    games,
    campaigns,
    warnings: [...retiredLimitWarnings(limitsIn), ...pageOriginWarnings(operators)],
  };
}

/** A schema of its own is PostgreSQL's, and its name one PostgreSQL takes. */
function checkDatabaseSchema(file: ProviderConfigFile): void {
  if (file.databaseSchema === undefined) return;
  if (!isPostgresUrl(file.database)) fail('databaseSchema', 'a schema needs a postgres:// database');
  const problem = schemaNameProblem(file.databaseSchema);
  if (problem) fail('databaseSchema', problem);
}

/** Where the server listens and is reached, its database and its log. */
function serverOf(file: ProviderConfigFile): Pick<ProviderConfig, 'host' | 'port' | 'publicBaseUrl' | 'database' | 'databaseSchema' | 'postgres' | 'logLevel'> {
  return {
    host: file.host ?? '127.0.0.1',
    port: file.port ?? 8090,
    publicBaseUrl: httpUrl('publicBaseUrl', file.publicBaseUrl),
    database: file.database,
    databaseSchema: file.databaseSchema,
    postgres: readPostgresSettings({
      value: (key) => file.postgres?.[key],
      name: (key) => `postgres.${key}`,
      error: (message) => new ProviderConfigError(message),
    }),
    logLevel: file.logLevel ?? 'info',
  };
}

/** The launch tokens' secrets, the admin and metrics tokens, the staff's money limits and the seeds' keyring. */
function secretsOf(file: ProviderConfigFile): Pick<ProviderConfig, 'launchTokenSecrets' | 'adminToken' | 'staffLimits' | 'seedKeys' | 'metricsToken'> {
  return {
    launchTokenSecrets: [file.launchTokenSecret, ...(file.launchTokenSecretPrevious === undefined ? [] : [file.launchTokenSecretPrevious])],
    adminToken: file.adminToken,
    staffLimits: staffLimitsOf(file.staffLimits),
    seedKeys: seedKeysOf(file.seedKeys),
    metricsToken: file.metricsToken,
  };
}

/** The config's staffLimits: each role named replaces its defaults whole, as WAGERLINK_STAFF_LIMITS does on the operator. */
function staffLimitsOf(value: Record<string, Record<string, string>> | undefined): StaffLimits {
  if (value === undefined) return DEFAULT_STAFF_LIMITS;
  const problem = staffLimitsProblem(value, isRole);
  if (problem !== undefined) throw new ProviderConfigError(`staffLimits.${problem}`);
  return { ...DEFAULT_STAFF_LIMITS, ...value };
}

/**
 * The seed keyring of the config. Required: without it a server seed not
 * yet revealed would have to sit in the database as it is, where anyone
 * who reads the database could pick a client seed that wins (docs/games.md).
 */
function seedKeysOf(seedKeys: ProviderConfigFile['seedKeys']): SeedKeyring {
  if (seedKeys === undefined) {
    fail(
      'seedKeys',
      'is required: the server seeds of rounds not yet played are kept sealed under a key of this ring, outside the database; ' +
        'add e.g. "seedKeys": { "current": "k1", "keys": { "k1": "<the output of openssl rand -base64 32>" } } (docs/provider.md#configuration)',
    );
  }
  const entries = Object.entries(seedKeys.keys);
  if (entries.length === 0) fail('seedKeys.keys', 'needs at least the current key');
  if (entries.length > SEED_KEYS_MAX) fail('seedKeys.keys', `holds at most ${SEED_KEYS_MAX} keys: remove those no open round needs any more`);
  const keys = new Map<string, Buffer>();
  const idRe = new RegExp(SEED_KEY_ID_PATTERN);
  for (const [id, text] of entries) {
    if (!idRe.test(id)) fail(`seedKeys.keys.${id}`, 'a key id has 1 to 32 letters, digits, _ or -');
    const key = seedKeyBytes(text.trim());
    // The member is named, never its value: a config error may be printed or logged.
    if (key === undefined) fail(`seedKeys.keys.${id}`, 'must be 32 bytes as base64 (openssl rand -base64 32) or as 64 hex digits');
    keys.set(id, key);
  }
  if (!keys.has(seedKeys.current)) fail('seedKeys.current', `${seedKeys.current} is not a key of seedKeys.keys`);
  return new SeedKeyring(keys, seedKeys.current);
}

/** Parses config text; numbers a double cannot hold exactly are refused, as on the wire. */
export function parseProviderConfig(text: string): ProviderConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ProviderConfigError(`the config is not valid JSON: ${(error as Error).message}`);
  }
  const inexact = inexactNumbers(text);
  if (inexact.length > 0) {
    throw new ProviderConfigError(`the number ${inexact[0]} has more than ${SIGNIFICANT_DIGITS_MAX} significant digits: write it as a string`);
  }
  return resolveProviderConfig(value);
}

export function readProviderConfig(path: string): ProviderConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ProviderConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseProviderConfig(text);
  } catch (error) {
    if (error instanceof ProviderConfigError) throw new ProviderConfigError(`${path}: ${error.message}`);
    throw error;
  }
}
