/**
 * `wagerlink sandbox [--data DIR] [--port P] [--provider-port P] [--database URL [--provider-schema NAME]]`,
 * and `wagerlink sandbox env`, which prints a running sandbox's ids and
 * secrets as the variables the other commands read: their own options and
 * help, parsed here so that main.ts only hands over.
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { backendOf } from '../stores/open-store.js';
import { OPERATOR_PORT_DEFAULT, PROVIDER_PORT_DEFAULT, PROVIDER_SCHEMA_DEFAULT } from '../sandbox/sandbox-defaults.js';
import { OPERATOR_DB_FILE, SANDBOX_HOST, SANDBOX_OPERATOR_ID, SANDBOX_WALLET_ID, sandboxIntegrationKeys } from '../sandbox/sandbox-config.js';
import { readSecrets, SandboxSetupError, SECRETS_FILE } from '../sandbox/sandbox-secrets.js';
import type { CONFIG_VARIABLES, PROVIDER_LINK_VARIABLES } from '../operator/config-variables.js';
import type { PROVIDER_ADMIN_VARIABLES } from './provider-admin-help.js';
import { DISPATCH_HORIZON_SECONDS_MAX } from '../provider/config-schema.js';
import { schemaNameProblem } from '../platform/postgres/settings.js';
import { processSources, secretFrom, urlHasPassword } from './secret-input.js';
import { SANDBOX_ENV_USAGE, SANDBOX_USAGE } from './sandbox-usage.js';

/** --database or --database-file: a postgres:// URL, or undefined for the SQLite files in --data. */
function databaseOf(values: { database?: string | undefined; 'database-file'?: string | undefined }, usage: (message: string) => Error): string | undefined {
  const database = secretFrom(
    { value: values.database, file: values['database-file'] },
    { option: 'database', secretIn: urlHasPassword },
    processSources(usage),
  );
  if (database !== undefined && backendOf(database).name !== 'postgres') {
    throw usage(`--database takes a postgres:// URL (the default is SQLite in --data), got "${database}"`);
  }
  return database;
}

function port(text: string | undefined, name: string, fallback: number, usage: (message: string) => Error): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^[0-9]{1,5}$/.test(text) || value < 1 || value > 65_535) throw usage(`--${name} must be a port, 1..65535, got "${text}"`);
  return value;
}

const SANDBOX_OPTIONS = {
  data: { type: 'string' },
  port: { type: 'string' },
  'provider-port': { type: 'string' },
  database: { type: 'string' },
  'database-file': { type: 'string' },
  'provider-schema': { type: 'string' },
  'dispatch-horizon': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  // Read by main.ts's failure report; accepted here so that it is no unknown option.
  verbose: { type: 'boolean' },
} as const;

/** The options, or a usage error in the words the other commands use (node's own messages name its API, not ours). */
function sandboxOptions<T extends Partial<typeof SANDBOX_OPTIONS>>(args: string[], usage: (message: string) => Error, options: T, command = 'sandbox') {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // Node quotes the option as given ('--bogus', '-x') or as declared ('-h, --help', '--port <value>'): the long name if any.
    const option = /'(?:-[a-z], )?(--?[^' ,<]+)/i.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw usage(`unknown option ${option} for "${command}"`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      throw usage(
        (options as Record<string, { type: string } | undefined>)[option.replace(/^--/, '')]?.type === 'boolean'
          ? `${option} takes no value`
          : `${option} needs a value`,
      );
    }
    throw error;
  }
}

/**
 * Runs the sandbox. `usage` makes a usage error of a message; `onDatabase` is told the PostgreSQL
 * database once the options name one, so that a failure to reach it is told with its name.
 */
export async function sandboxCommand(args: string[], usage: (message: string) => Error, onDatabase: (database: string) => void = () => {}): Promise<void> {
  const { values, positionals } = sandboxOptions(args, usage, SANDBOX_OPTIONS);
  if (values.help) {
    process.stdout.write(SANDBOX_USAGE);
    return;
  }
  if (positionals.length > 0) throw usage(`sandbox takes no arguments, got "${positionals[0]}"`);
  const dataDir = resolve(values.data ?? 'data');
  const operatorPort = port(values.port, 'port', OPERATOR_PORT_DEFAULT, usage);
  const providerPort = port(values['provider-port'], 'provider-port', PROVIDER_PORT_DEFAULT, usage);
  if (operatorPort === providerPort) throw usage(`--port and --provider-port must differ, both are ${operatorPort}`);
  const database = databaseOf(values, usage);
  const providerSchema = values['provider-schema'];
  if (providerSchema !== undefined) {
    if (database === undefined) throw usage('--provider-schema needs --database postgres://... (SQLite keeps the provider in its own file)');
    const problem = schemaNameProblem(providerSchema);
    if (problem) throw usage(`--provider-schema: ${problem}`);
  }
  if (database !== undefined) {
    // The operator's schema is the URL's search_path; the provider's must be another, or their tables would meet.
    const operatorSchema = new URL(database).searchParams.get('search_path');
    if (operatorSchema !== null && operatorSchema === (providerSchema ?? PROVIDER_SCHEMA_DEFAULT)) {
      throw usage(`--provider-schema must differ from the operator's schema (the URL's search_path), both are ${operatorSchema}`);
    }
  }
  if (database !== undefined) onDatabase(database);
  const horizon = values['dispatch-horizon'];
  if (horizon !== undefined && (!/^[0-9]{1,7}$/.test(horizon) || Number(horizon) < 1 || Number(horizon) > DISPATCH_HORIZON_SECONDS_MAX)) {
    throw usage(`--dispatch-horizon must be seconds, 1..${DISPATCH_HORIZON_SECONDS_MAX}, got "${horizon}"`);
  }
  // The servers are imported once the options are known to be good: a usage error or --help loads neither.
  const { runSandbox } = await import('../sandbox/run-sandbox.js');
  await runSandbox({
    dataDir,
    operatorPort,
    providerPort,
    operatorDatabase: database ?? join(dataDir, OPERATOR_DB_FILE),
    providerSchema,
    dispatchHorizonSeconds: horizon === undefined ? undefined : Number(horizon),
  });
}

/** A variable some command reads: the operator's settings, its link to the provider, the provider's back office, the conformance kit's. */
type VariableName =
  | keyof typeof CONFIG_VARIABLES
  | keyof typeof PROVIDER_LINK_VARIABLES
  | keyof typeof PROVIDER_ADMIN_VARIABLES
  | 'WAGERLINK_CONFORMANCE_SECRET'
  | 'WAGERLINK_CONFORMANCE_TOKEN'
  | 'WAGERLINK_CONFORMANCE_ADMIN_TOKEN';

/**
 * What `sandbox env` prints, in order, with what each is for. Not the
 * operator's address or port: no command reads them (`operator serve` would,
 * and must not start a second operator on the sandbox's port).
 */
function sandboxEnvironment(
  settings: { dataDir: string; providerPort: number; database: string | undefined },
  secrets: NonNullable<ReturnType<typeof readSecrets>>,
): [VariableName, string, string][] {
  return [
    ['WAGERLINK_DATABASE', settings.database ?? join(settings.dataDir, OPERATOR_DB_FILE), "the operator's database: operator players, launch-key, verify ..."],
    ['WAGERLINK_SECRET', secrets.secret, "the integration's HMAC secret, both directions"],
    ['WAGERLINK_ACCESS_TOKENS', secrets.accessToken, 'the bearer token the provider sends the operator'],
    ['WAGERLINK_ADMIN_TOKEN', secrets.adminToken, "the operator's back-office token (/admin)"],
    // A data folder a sandbox made before integration keys existed has none until it starts again.
    ...(secrets.integrationKey === undefined
      ? []
      : [
          ['WAGERLINK_INTEGRATION_KEYS', sandboxIntegrationKeys(secrets.integrationKey), "seals the secrets of the wallet's stored integrations"] as [
            VariableName,
            string,
            string,
          ],
        ]),
    [
      'WAGERLINK_PROVIDER_URL',
      `http://${SANDBOX_HOST}:${settings.providerPort}`,
      'the provider: operator launch-url and game-bets, provider payouts and outbox',
    ],
    ['WAGERLINK_OPERATOR_ID', SANDBOX_OPERATOR_ID, "the operator's id at the provider"],
    ['WAGERLINK_WALLET_ID', SANDBOX_WALLET_ID, 'the wallet id the provider issued it'],
    ['WAGERLINK_PROVIDER_ADMIN_TOKEN', secrets.providerAdminToken, "the provider's back-office token"],
    ['WAGERLINK_CONFORMANCE_SECRET', secrets.secret, 'the conformance kit: the secret it signs with'],
    ['WAGERLINK_CONFORMANCE_TOKEN', secrets.accessToken, 'the conformance kit: the token it sends the operator'],
    ['WAGERLINK_CONFORMANCE_ADMIN_TOKEN', secrets.adminToken, "the conformance kit: the operator's back-office token, to make its players"],
  ];
}

/** A value as one shell word, whatever it holds: single-quoted, each single quote closed, escaped and reopened. */
function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `wagerlink sandbox env`: the variables of the sandbox of --data, printed on stdout because they were asked for. */
export async function sandboxEnvCommand(args: string[], usage: (message: string) => Error): Promise<void> {
  const { values, positionals } = sandboxOptions(args, usage, SANDBOX_OPTIONS, 'sandbox env');
  if (values.help) {
    process.stdout.write(SANDBOX_ENV_USAGE);
    return;
  }
  if (positionals.length > 0) throw usage(`sandbox env takes no arguments, got "${positionals[0]}"`);
  const dataDir = resolve(values.data ?? 'data');
  const providerPort = port(values['provider-port'], 'provider-port', PROVIDER_PORT_DEFAULT, usage);
  port(values.port, 'port', OPERATOR_PORT_DEFAULT, usage);
  const database = databaseOf(values, usage);
  const secrets = readSecrets(dataDir);
  if (secrets === undefined) {
    throw new SandboxSetupError(`${join(dataDir, SECRETS_FILE)} does not exist: start the sandbox first (npm start, or wagerlink sandbox --data ${dataDir})`);
  }
  const lines = sandboxEnvironment({ dataDir, providerPort, database }, secrets).map(([name, value, what]) => `export ${name}=${shellWord(value)}   # ${what}`);
  // The folder as a JSON string: a line break in its name cannot end the comment and become a command of the eval.
  process.stdout.write(`# The sandbox of ${JSON.stringify(dataDir)}: its ids, addresses and secrets. Secrets: keep this out of logs.\n${lines.join('\n')}\n`);
}
