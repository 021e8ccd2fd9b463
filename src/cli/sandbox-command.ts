/**
 * `wagerlink sandbox [--data DIR] [--port P] [--provider-port P] [--database URL [--provider-schema NAME]]`:
 * its own options and help, parsed here so that main.ts only hands over.
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { backendOf } from '../stores/open-store.js';
import { OPERATOR_DB_FILE, OPERATOR_PORT_DEFAULT, PROVIDER_PORT_DEFAULT, PROVIDER_SCHEMA_DEFAULT } from '../sandbox/sandbox-config.js';
import { DISPATCH_HORIZON_SECONDS_MAX } from '../provider/provider-config.js';
import { schemaNameProblem } from '../platform/postgres/settings.js';
import { runSandbox } from '../sandbox/run-sandbox.js';
import { processSources, secretFrom, urlHasPassword } from './secret-input.js';

export const SANDBOX_USAGE = `wagerlink sandbox — the whole interface on this machine: the operator wallet with a lobby and a
back office, and the provider with its games, on 127.0.0.1 (the same as npm start)

Usage:
  wagerlink sandbox [--data DIR] [--port P] [--provider-port P]
                    [--database postgres://... | --database-file FILE [--provider-schema NAME]] [--dispatch-horizon SECONDS]

Options:
  --data DIR            where the databases and the integration's secrets are kept (default ./data)
  --port P              the operator's port: lobby, back office, wallet API (default ${OPERATOR_PORT_DEFAULT})
  --provider-port P     the provider's port: its API and the games (default ${PROVIDER_PORT_DEFAULT})
  --database URL        both sides' database as a postgres:// URL (default SQLite in DIR: operator.db,
                        provider.db, which a start with --database neither reads nor changes); the
                        operator's tables go in the URL's schema (its search_path, else public), the
                        provider's in a schema of their own; a password in it is better in PGPASSWORD or
                        --database-file (an argument can be read by other users, and is warned about)
  --database-file FILE  a file holding --database's URL, on one line (warned about when group or others can read it)
  --provider-schema S   with --database: the provider's schema, made if missing (default ${PROVIDER_SCHEMA_DEFAULT})
  --dispatch-horizon S  how long the provider resends a round or payout before it parks it for staff, seconds
                        (default 259200, 72 h); with the back office's Casino down, a short one parks items soon
`;

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
function sandboxOptions(args: string[], usage: (message: string) => Error) {
  try {
    return parseArgs({ args, options: SANDBOX_OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // Node quotes the option as given ('--bogus', '-x') or as declared ('-h, --help', '--port <value>'): the long name if any.
    const option = /'(?:-[a-z], )?(--?[^' ,<]+)/i.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw usage(`unknown option ${option} for "sandbox"`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      throw usage(SANDBOX_OPTIONS[option.replace(/^--/, '') as keyof typeof SANDBOX_OPTIONS]?.type === 'boolean' ? `${option} takes no value` : `${option} needs a value`);
    }
    throw error;
  }
}

/**
 * Runs the sandbox. `usage` makes a usage error of a message; `onDatabase` is told the PostgreSQL
 * database once the options name one, so that a failure to reach it is told with its name.
 */
export async function sandboxCommand(args: string[], usage: (message: string) => Error, onDatabase: (database: string) => void = () => {}): Promise<void> {
  const { values, positionals } = sandboxOptions(args, usage);
  if (values.help) {
    process.stdout.write(SANDBOX_USAGE);
    return;
  }
  if (positionals.length > 0) throw usage(`sandbox takes no arguments, got "${positionals[0]}"`);
  const dataDir = resolve(values.data ?? 'data');
  const operatorPort = port(values.port, 'port', OPERATOR_PORT_DEFAULT, usage);
  const providerPort = port(values['provider-port'], 'provider-port', PROVIDER_PORT_DEFAULT, usage);
  if (operatorPort === providerPort) throw usage(`--port and --provider-port must differ, both are ${operatorPort}`);
  const database = secretFrom({ value: values.database, file: values['database-file'] }, { option: 'database', secretIn: urlHasPassword }, processSources(usage));
  if (database !== undefined && backendOf(database).name !== 'postgres') {
    throw usage(`--database takes a postgres:// URL (the default is SQLite in --data), got "${database}"`);
  }
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
  await runSandbox({
    dataDir,
    operatorPort,
    providerPort,
    operatorDatabase: database ?? join(dataDir, OPERATOR_DB_FILE),
    providerSchema,
    dispatchHorizonSeconds: horizon === undefined ? undefined : Number(horizon),
  });
}
