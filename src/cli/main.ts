/**
 * The `wagerlink` command. Operator commands read the same configuration as
 * the server (operator-config.ts) and work on the same database, so the
 * back office is usable with the server stopped or running.
 */
import { readFileSync } from 'node:fs';
// First, and whatever command runs: it notes the process that started this one before the command's own modules load
// (stopWhenOrphaned), so that a stop npm was sent while they load is not missed.
import '../http/stop-on-signals.js';
import { CONFIG_VARIABLES, PROVIDER_LINK_VARIABLES } from '../operator/config-variables.js';
import { OPERATOR_AREAS } from '../conformance/case-model.js';
import { SANDBOX_ENV_USAGE, SANDBOX_USAGE } from './sandbox-usage.js';
import { ADMIN_HELP, PROVIDER_ADMIN_VARIABLES } from './provider-admin-help.js';
import { CommandTable, UsageError, type Command, type Group, type Node, type OptionName, type Values } from './command-table.js';
import { cliFailure } from './cli-failure.js';
import { CONFORMANCE_PROVIDER_USAGE } from './conformance-provider-usage.js';
import { databaseFrom, databaseInUse, portFrom, usage } from './options.js';

const CONFORMANCE_USAGE = `wagerlink conformance — checks an operator endpoint against docs/protocol.md
(\`wagerlink conformance provider --help\` tells how to check a provider endpoint)

Usage:
  wagerlink conformance operator --endpoint URL --secret-file FILE --token-file FILE
      (--fixtures FILE | --admin-token-file FILE | both) [--report FILE]... [--only AREA|CASE]... [--bail]

Options:
  --endpoint URL        the operator endpoint's base URL: its /authenticate, /transaction and /payout are checked
  --secret-file FILE    a file holding the integration's shared secret, which signs every request
                        (docs/protocol.md §2.2); or WAGERLINK_CONFORMANCE_SECRET, or --secret SECRET
  --token-file FILE     a file holding an access token the operator accepts (docs/protocol.md §2.4);
                        or WAGERLINK_CONFORMANCE_TOKEN, or --token TOKEN
  --fixtures FILE       test players, launch keys or a command that mints them, games, expiry
                        (docs/conformance.md; examples/conformance-fixtures.json)
  --admin-token-file FILE  a file holding the operator's admin token: make fresh players through its back office
                        (docs/protocol.md §11) instead of the file's players; the file may still give games and
                        expiry; or WAGERLINK_CONFORMANCE_ADMIN_TOKEN, or --admin-token TOKEN
  --report FILE         also write a report: FILE.json, FILE.xml (JUnit) or FILE.html; may be repeated
  --only AREA|CASE      run only these areas or case ids; may be repeated or comma-separated
  --bail                stop at the first case that fails

Areas: ${OPERATOR_AREAS.join(', ')}.

Each secret comes from its file, its option or its variable, in that order. An option's value can be read by
other users of the machine (ps, /proc) and stays in shell history: it works, with a warning on stderr. A file
holds the secret on one line; one readable by group or others is warned about too (chmod 600 it). The
variables are the kit's own, so that a server's settings in the same shell (WAGERLINK_ADMIN_TOKEN) are never
sent to the endpoint under test.

Exit codes: 0 every case judged passed, 1 a case failed, or the check before any case did (the fixtures' players
open no session as docs/protocol.md §5 says; the reports are written), 2 usage or fixtures-file error, or an
endpoint that does not answer (nothing judged).
`;

/** The options of the operator's commands that open its database. */
const DATABASE: readonly OptionName[] = ['database', 'database-file'];
/** How the operator's commands reach the provider's endpoints. */
const PROVIDER_LINK: readonly OptionName[] = ['provider', 'operator-id', 'wallet-id'];
/** How the provider's back-office commands reach the provider. */
const PROVIDER_ADMIN: readonly OptionName[] = ['provider', 'admin-token', 'admin-token-file'];

type Runner = (args: string[], values: Values) => Promise<void>;

/**
 * The operator's commands, imported when one runs: a usage error, --help or
 * another side's command loads neither the wallet's store nor its server.
 */
const operator = () => import('./operator-commands.js');

/**
 * The sandbox's commands, imported when one runs: its config reads the
 * provider's, whose schemas every other command would load for nothing
 * (the usage texts are in sandbox-usage.ts).
 */
const sandbox = () => import('./sandbox-command.js');

/** Every command, once: the usage of each is derived from its row, and its row says what runs it. */
const COMMANDS: readonly (Command & { run: Runner })[] = [
  {
    name: 'operator serve',
    options: ['host', 'port', ...DATABASE, 'workers'],
    summary: 'runs the operator wallet; creates its database (SQLite file or PostgreSQL tables) if there is none yet',
    run: async (_args, values) => (await operator()).serve(values),
  },
  {
    name: 'operator migrate',
    options: DATABASE,
    summary: 'creates the database, or brings its tables up to date, and prints the migrations applied',
    run: async (_args, values) => (await operator()).migrate(values),
  },
  {
    name: 'operator verify',
    options: DATABASE,
    summary: 'checks that the books balance; exit 1 with the problems when they do not',
    run: async (_args, values) => (await operator()).verify(values),
  },
  {
    name: 'operator players add',
    args: 'PLAYER',
    options: ['currency', 'balance', 'country', ...DATABASE],
    required: ['currency'],
    summary: 'adds a player with a currency and an opening balance',
    run: async (args, values) => (await operator()).players('add', args[0]!, values),
  },
  {
    name: 'operator players show',
    args: 'PLAYER',
    options: DATABASE,
    summary: 'prints a player',
    run: async (args, values) => (await operator()).players('show', args[0]!, values),
  },
  {
    name: 'operator players adjust',
    args: 'PLAYER',
    options: ['type', 'amount', 'id', 'reason', ...DATABASE],
    required: ['type', 'amount'],
    summary: "deposits to or withdraws from a player's balance",
    run: async (args, values) => (await operator()).players('adjust', args[0]!, values),
  },
  {
    name: 'operator players block',
    args: 'PLAYER',
    options: ['reason', ...DATABASE],
    summary: 'blocks a player: their bets and new sessions are refused until unblocked',
    run: async (args, values) => (await operator()).players('block', args[0]!, values),
  },
  {
    name: 'operator players unblock',
    args: 'PLAYER',
    options: DATABASE,
    summary: 'unblocks a player',
    run: async (args, values) => (await operator()).players('unblock', args[0]!, values),
  },
  {
    name: 'operator players rounds',
    args: 'PLAYER',
    options: ['limit', 'cursor', ...DATABASE],
    summary: "lists a player's rounds, newest first",
    run: async (args, values) => (await operator()).players('rounds', args[0]!, values),
  },
  {
    name: 'operator players transactions',
    args: 'PLAYER',
    options: ['limit', 'cursor', ...DATABASE],
    summary: "lists a player's transfers, newest first",
    run: async (args, values) => (await operator()).players('transactions', args[0]!, values),
  },
  {
    name: 'operator launch-key',
    args: 'PLAYER',
    options: ['game', 'integration', ...DATABASE],
    required: ['game'],
    summary: 'makes a one-time launch key for a player and a game',
    run: async ([playerId], values) => (await operator()).launchKey(playerId, values),
  },
  {
    name: 'operator staff add',
    args: 'NAME',
    options: ['role', 'expires-days', ...DATABASE],
    required: ['role'],
    summary: 'adds a staff account of the back office and prints its token, once (only its hash is stored)',
    run: async (args, values) => (await operator()).staff('add', args[0]!, values),
  },
  {
    name: 'operator staff list',
    options: DATABASE,
    summary: 'lists the staff accounts and their tokens (never the tokens themselves)',
    run: async (_args, values) => (await operator()).staff('list', '', values),
  },
  {
    name: 'operator staff revoke',
    args: 'NAME|TOKEN_ID',
    options: DATABASE,
    summary: 'revokes an account and every token of it, or one token: refused at once on every node',
    run: async (args, values) => (await operator()).staff('revoke', args[0]!, values),
  },
  {
    name: 'operator integrations add',
    args: 'ID',
    options: ['name', 'ranges', 'provider-url', ...DATABASE],
    required: ['name'],
    summary: 'adds an integration (a studio) and prints its secret and access token, once (WAGERLINK_INTEGRATION_KEYS seals the secret)',
    run: async (args, values) => (await operator()).integrations('add', args[0]!, values),
  },
  {
    name: 'operator integrations list',
    options: DATABASE,
    summary: "lists the integrations, the environment's default among them (never a secret or a token)",
    run: async (_args, values) => (await operator()).integrations('list', '', values),
  },
  {
    name: 'operator integrations rotate',
    args: 'ID',
    options: ['finish', 'no-secret', 'no-token', ...DATABASE],
    summary: 'begins a rotation (prints a next secret and a new token, once) or, with --finish, completes it',
    run: async (args, values) => (await operator()).integrations('rotate', args[0]!, values),
  },
  {
    name: 'operator integrations pause',
    args: 'ID',
    options: DATABASE,
    summary: "pauses an integration's bets: its wins and payouts are still booked",
    run: async (args, values) => (await operator()).integrations('pause', args[0]!, values),
  },
  {
    name: 'operator integrations resume',
    args: 'ID',
    options: DATABASE,
    summary: 'makes an integration active again',
    run: async (args, values) => (await operator()).integrations('resume', args[0]!, values),
  },
  {
    name: 'operator integrations off',
    args: 'ID',
    options: DATABASE,
    summary: 'switches an integration off: every call of it is refused',
    run: async (args, values) => (await operator()).integrations('off', args[0]!, values),
  },
  {
    name: 'operator integrations set',
    args: 'ID',
    options: ['name', 'ranges', 'provider-url', ...DATABASE],
    summary: "changes an integration's name, caller ranges or provider endpoint",
    run: async (args, values) => (await operator()).integrations('set', args[0]!, values),
  },
  {
    name: 'operator integrations remove',
    args: 'ID',
    options: DATABASE,
    summary: 'removes an integration: its tokens are refused on every node within seconds',
    run: async (args, values) => (await operator()).integrations('remove', args[0]!, values),
  },
  {
    name: 'operator audit',
    options: ['limit', 'cursor', ...DATABASE],
    summary: "lists the back office's audit log, newest first",
    run: async (_args, values) => (await operator()).audit(values),
  },
  {
    name: 'operator launch-url',
    args: '[PLAYER]',
    options: ['game', 'mode', 'currency', 'language', 'country', 'lobby', 'deposit', 'refresh', ...DATABASE, ...PROVIDER_LINK],
    required: ['game'],
    summary:
      "asks the provider for a game's launch URL (real mode: for the player, with a launch key made here; fun mode: play money in --currency, else the provider's)",
    run: async ([playerId], values) => (await operator()).launchUrl(playerId, values),
  },
  {
    name: 'operator game-bets',
    options: ['games', 'currencies', ...PROVIDER_LINK],
    required: ['games', 'currencies'],
    summary: "asks the provider for its games' bet ladders in these currencies",
    run: async (_args, values) => (await operator()).gameBets(values),
  },
  {
    name: 'provider serve',
    options: ['config', 'host', 'port', 'database', 'database-file'],
    required: ['config'],
    summary: 'runs the provider: its interface endpoints, game pages and back office',
    run: async (_args, values) => {
      const port = portFrom(values);
      const database = databaseFrom(values);
      const { serveProvider } = await import('../provider/serve-provider.js');
      return serveProvider(values.config!, {
        ...(values.host === undefined ? {} : { host: values.host }),
        ...(port === undefined ? {} : { port }),
        ...(database === undefined ? {} : { database }),
      });
    },
  },
  {
    name: 'provider payouts create',
    options: ['operator', 'player', 'currency', 'amount', 'campaign', 'payout', ...PROVIDER_ADMIN],
    required: ['operator', 'player', 'currency', 'amount', 'campaign'],
    summary: 'pays one player a prize',
    help: ADMIN_HELP['payouts create'],
    run: async (args, values) => (await import('./provider-admin.js')).providerAdmin('payouts', ['create', ...args], values, usage),
  },
  {
    name: 'provider payouts import',
    args: 'FILE.csv',
    options: ['operator', 'campaign', ...PROVIDER_ADMIN],
    required: ['operator', 'campaign'],
    summary: "pays a leaderboard's prizes from a CSV file",
    help: ADMIN_HELP['payouts import'],
    run: async (args, values) => (await import('./provider-admin.js')).providerAdmin('payouts', ['import', ...args], values, usage),
  },
  {
    name: 'provider outbox list',
    options: ['status', 'operator', 'limit', ...PROVIDER_ADMIN],
    summary: "lists the provider's outbox",
    help: ADMIN_HELP['outbox list'],
    run: async (args, values) => (await import('./provider-admin.js')).providerAdmin('outbox', ['list', ...args], values, usage),
  },
  {
    name: 'provider outbox retry',
    args: 'ID',
    options: PROVIDER_ADMIN,
    summary: 'sends an outbox item again now',
    help: ADMIN_HELP['outbox retry'],
    run: async (args, values) => (await import('./provider-admin.js')).providerAdmin('outbox', ['retry', ...args], values, usage),
  },
  {
    name: 'provider outbox resolve',
    args: 'ID',
    options: ['reference', ...PROVIDER_ADMIN],
    required: ['reference'],
    summary: "settles an outbox item by hand with the operator's reference",
    help: ADMIN_HELP['outbox resolve'],
    run: async (args, values) => (await import('./provider-admin.js')).providerAdmin('outbox', ['resolve', ...args], values, usage),
  },
  {
    name: 'provider staff add',
    args: 'NAME',
    options: ['role', 'operators', 'expires-days', 'config'],
    required: ['role', 'config'],
    summary: "adds a staff account of the provider's back office, scoped to operators, and prints its token once",
    run: async (args, values) => (await import('./provider-staff.js')).providerStaff('add', args[0]!, values, usage),
  },
  {
    name: 'provider staff list',
    options: ['config'],
    required: ['config'],
    summary: "lists the provider's staff accounts and their tokens (never the tokens themselves)",
    run: async (_args, values) => (await import('./provider-staff.js')).providerStaff('list', '', values, usage),
  },
  {
    name: 'provider staff revoke',
    args: 'NAME|TOKEN_ID',
    options: ['config'],
    required: ['config'],
    summary: 'revokes an account and every token of it, or one token: refused at once on every node',
    run: async (args, values) => (await import('./provider-staff.js')).providerStaff('revoke', args[0]!, values, usage),
  },
  {
    name: 'provider audit',
    options: ['limit', 'cursor', 'config'],
    required: ['config'],
    summary: "lists the provider back office's audit log, newest first",
    run: async (_args, values) => (await import('./provider-staff.js')).providerStaff('audit', '', values, usage),
  },
  {
    name: 'provider verify',
    options: ['json', 'config'],
    required: ['config'],
    summary: "checks that the provider's own records agree (rounds, outbox, jackpot pools, payouts, campaigns); exit 1 naming what does not, 2 when unread",
    run: async (_args, values) => (await import('./provider-verify.js')).providerVerify(values),
  },
  {
    name: 'sandbox',
    options: [],
    synopsis: '[--data DIR] [--port P] [--provider-port P] [--database URL | --database-file FILE [--provider-schema NAME]] [--dispatch-horizon S]',
    summary: 'the whole interface on this machine, with a lobby and a back office (npm start)',
    help: SANDBOX_USAGE,
    // Listed here for the usage texts; main() hands its arguments to sandbox-command.ts, which parses its own.
    run: async (args) => (await sandbox()).sandboxCommand(args, (message) => new UsageError(message)),
  },
  {
    name: 'sandbox env',
    options: [],
    synopsis: "[--data DIR] [--provider-port P] [--database URL | --database-file FILE] [the sandbox's other options]",
    summary: 'prints the sandbox\'s ids and secrets as the variables these commands read: eval "$(wagerlink sandbox env)"',
    help: SANDBOX_ENV_USAGE,
    // Listed here for the usage texts; main() hands its arguments to sandbox-command.ts, which parses its own.
    run: async (args) => (await sandbox()).sandboxEnvCommand(args, (message) => new UsageError(message)),
  },
  {
    name: 'openapi',
    args: 'operator|provider',
    options: [],
    summary: "prints a server's OpenAPI document",
    run: async ([which]) => {
      if (which !== 'operator' && which !== 'provider') throw new UsageError(`openapi takes: operator, provider (got "${which}")`);
      const document =
        which === 'operator'
          ? (await import('../operator/operator-openapi.js')).operatorOpenApi()
          : (await import('../provider/provider-openapi.js')).providerOpenApi();
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    },
  },
  {
    name: 'conformance operator',
    options: ['endpoint', 'secret-file', 'secret', 'token-file', 'token', 'fixtures', 'admin-token-file', 'admin-token', 'report', 'only', 'bail'],
    required: ['endpoint'],
    synopsis:
      '--endpoint URL --secret-file FILE --token-file FILE (--fixtures FILE | --admin-token-file FILE | both) [--report FILE]... [--only AREA|CASE]... [--bail]',
    summary: 'checks an operator endpoint against docs/protocol.md',
    help: CONFORMANCE_USAGE,
    run: async (_args, values) => (await import('./conformance-operator.js')).conformance('operator', values),
  },
  {
    name: 'conformance provider',
    options: [],
    synopsis:
      '--endpoint URL --secret-file FILE --operator-id ID --wallet-id ID --game SLUG [--currency CODE[,CODE]]... [--next-secret-file FILE] [--outside-whitelist] [--report FILE]... [--only AREA|CASE]... [--bail]',
    summary: 'checks a provider endpoint against docs/protocol.md',
    help: CONFORMANCE_PROVIDER_USAGE,
    // Listed here for the usage texts; main() hands its arguments to conformance-provider.ts, which parses its own.
    run: async (args) => (await import('./conformance-provider.js')).conformanceProvider(args, TABLE.usage(TABLE.resolve(['conformance', 'provider']).node)),
  },
];

const GROUPS: readonly Group[] = [
  { name: 'operator', summary: 'the operator wallet and its back office', environment: { ...CONFIG_VARIABLES, ...PROVIDER_LINK_VARIABLES } },
  { name: 'operator players', summary: 'players: add, show, adjust, block, histories' },
  { name: 'operator staff', summary: 'staff accounts of the back office: add, list, revoke' },
  { name: 'operator integrations', summary: 'the studios that call the wallet: add, list, rotate, pause, resume, off, set, remove' },
  {
    name: 'provider',
    summary: 'the provider server and its back office',
    environment: { ...PROVIDER_ADMIN_VARIABLES, WAGERLINK_PROVIDER_URL: PROVIDER_LINK_VARIABLES.WAGERLINK_PROVIDER_URL },
  },
  { name: 'provider payouts', summary: 'tournament prizes', help: ADMIN_HELP.payouts },
  { name: 'provider outbox', summary: "the provider's outbox", help: ADMIN_HELP.outbox },
  { name: 'provider staff', summary: "staff accounts of the provider's back office, on its database (--config): add, list, revoke" },
  { name: 'conformance', summary: 'the conformance kit', help: CONFORMANCE_USAGE },
];

const TABLE = new CommandTable(COMMANDS, GROUPS, {
  title: 'wagerlink — the game provider <-> operator wallet interface',
  environment: { ...CONFIG_VARIABLES, ...PROVIDER_LINK_VARIABLES, ...PROVIDER_ADMIN_VARIABLES },
  footer: 'Results are printed as JSON. Exit codes: 0 done, 1 refused or failed, 2 usage.\n',
});

/** The version of the installed package (package.json ships with it). */
function packageVersion(): string {
  const file = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Where the command line led: a usage error is told with this node's usage. */
const reached: { node: Node } = { node: { kind: 'root' } };

export async function main(argv: string[]): Promise<void> {
  // `wagerlink help [COMMAND...]` is `wagerlink [COMMAND...] --help`.
  if (argv[0] === 'help') {
    process.stdout.write(TABLE.help(TABLE.resolve(argv.slice(1)).node));
    return;
  }
  // The sandbox parses options of its own (sandbox-command.ts); a usage error of its shows its own usage.
  if (argv[0] === 'sandbox' && argv[1] === 'env') {
    reached.node = TABLE.resolve(['sandbox', 'env']).node;
    return (await sandbox()).sandboxEnvCommand(argv.slice(2), (message) => new UsageError(message));
  }
  if (argv[0] === 'sandbox') {
    reached.node = TABLE.resolve(['sandbox']).node;
    return (await sandbox()).sandboxCommand(
      argv.slice(1),
      (message) => new UsageError(message),
      (database) => {
        databaseInUse.database = database;
        databaseInUse.setting = '--database';
      },
    );
  }
  // The provider side of the kit parses its own options, --help included (conformance-provider.ts).
  if (argv[0] === 'conformance' && argv[1] === 'provider')
    return (await import('./conformance-provider.js')).conformanceProvider(argv.slice(2), TABLE.usage(TABLE.resolve(['conformance', 'provider']).node));
  const { node, args, values } = TABLE.parse(argv, reached);
  if (values.version) {
    process.stdout.write(`wagerlink ${packageVersion()}\n`);
    return;
  }
  if (values.help) {
    process.stdout.write(TABLE.help(node));
    return;
  }
  // parse() answers every other node with a usage error.
  const command = COMMANDS.find((entry) => node.kind === 'command' && entry.name === node.name)!;
  await command.run(args, values);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const failure = cliFailure(error, { database: databaseInUse.database, databaseSetting: databaseInUse.setting });
  const debug = process.argv.includes('--verbose') || process.env.WAGERLINK_DEBUG === '1';
  if (failure.kind === 'usage') {
    process.stderr.write(`wagerlink: ${failure.message}\n\n${TABLE.usage(reached.node)}`);
  } else {
    process.stderr.write(`wagerlink: ${failure.message}\n`);
  }
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exitCode = failure.exitCode;
});
