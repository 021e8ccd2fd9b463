/**
 * The `wagerlink` command. Operator commands read the same configuration as
 * the server (operator-config.ts) and work on the same database, so the
 * back office is usable with the server stopped or running.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism, userInfo } from 'node:os';
import { isRole, ROLES } from '../access/roles.js';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, cliActor, type AuditEntry } from '../access/staff.js';
import { checkStaffName, checkTokenDays, STAFF_TOKEN_DAYS_DEFAULT } from '../access/staff-token.js';
import { AuditQuery } from '../access/staff-schemas.js';
import { isCountryCode } from '../protocol/regions.js';
import { compile } from '../protocol/validate.js';
import { AdjustmentRequest, CreateLaunchKeyRequest, CreatePlayerRequest, PageQuery } from '../protocol/schemas.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { decimalFromString, inexactNumbers, SIGNIFICANT_DIGITS_MAX } from '../protocol/money.js';
import { operatorOpenApi } from '../operator/operator-openapi.js';
import { adjustmentBody, launchKeyBody, playerBody, roundsBody, transfersBody } from '../operator/operator-views.js';
import { ERRORS, type Refusal } from '../protocol/errors.js';
import { stringify } from '../protocol/json.js';
import { CONFIG_VARIABLES, parseWorkers, readOperatorConfig, type OperatorConfig } from '../operator/operator-config.js';
import { OperatorService } from '../operator/operator-service.js';
import { readFileSync } from 'node:fs';
import { serveOperator } from '../operator/serve-operator.js';
import { PROVIDER_LINK_VARIABLES, readProviderLink, requestGameBets, requestLaunchUrl } from '../operator/provider-link.js';
import { serveProvider } from '../provider/serve-provider.js';
import { SANDBOX_ENV_USAGE, SANDBOX_USAGE, sandboxCommand, sandboxEnvCommand } from './sandbox-command.js';
import { providerOpenApi } from '../provider/provider-openapi.js';
import { ADMIN_HELP, PROVIDER_ADMIN_VARIABLES, providerAdmin } from './provider-admin.js';
import { CommandTable, UsageError, type Command, type Group, type Node, type OptionName, type Values } from './command-table.js';
import { cliFailure, refusalLine, requireExistingDatabase } from './cli-failure.js';
import { couldNotReach } from '../clients/unreachable.js';
import type { CallOutcome } from '../clients/http-call.js';
import { backendOf, migrateDatabase, openStore } from '../stores/open-store.js';
import { OPERATOR_AREAS } from '../conformance/case-model.js';
import { loadFixturesFile, type FixturesSetting } from '../conformance/fixtures.js';
import { runOperatorConformance } from '../conformance/operator-runner.js';
import { runFailed } from '../conformance/report.js';
import { reportFormat, writeReports } from '../conformance/reporters/files.js';
import { terminalReporter, wantsColour } from '../conformance/reporters/terminal.js';
import { CONFORMANCE_PROVIDER_USAGE, conformanceProvider } from './conformance-provider.js';
import { providerStaff } from './provider-staff.js';
import { processSources, secretFrom, urlHasPassword } from './secret-input.js';

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

/** Every command, once: the usage of each is derived from its row, and its row says what runs it. */
const COMMANDS: readonly (Command & { run: Runner })[] = [
  {
    name: 'operator serve',
    options: ['host', 'port', ...DATABASE, 'workers'],
    summary: 'runs the operator wallet; creates its database (SQLite file or PostgreSQL tables) if there is none yet',
    run: async (_args, values) => serveOperator(configFrom(values)),
  },
  {
    name: 'operator migrate',
    options: DATABASE,
    summary: 'creates the database, or brings its tables up to date, and prints the migrations applied',
    run: async (_args, values) => {
      const config = configFrom(values);
      const applied = await migrateDatabase(config.database, config.postgres);
      print({ database: backendOf(config.database).display, applied });
    },
  },
  {
    name: 'operator verify',
    options: DATABASE,
    summary: 'checks that the books balance; exit 1 with the problems when they do not',
    run: async (_args, values) => {
      const report = await withService(configFrom(values), (service) => service.verify());
      print(report);
      if (!report.ok) process.exitCode = 1;
    },
  },
  {
    name: 'operator players add',
    args: 'PLAYER',
    options: ['currency', 'balance', 'country', ...DATABASE],
    required: ['currency'],
    summary: 'adds a player with a currency and an opening balance',
    run: (args, values) => players('add', args[0]!, values),
  },
  { name: 'operator players show', args: 'PLAYER', options: DATABASE, summary: 'prints a player', run: (args, values) => players('show', args[0]!, values) },
  {
    name: 'operator players adjust',
    args: 'PLAYER',
    options: ['type', 'amount', 'id', 'reason', ...DATABASE],
    required: ['type', 'amount'],
    summary: "deposits to or withdraws from a player's balance",
    run: (args, values) => players('adjust', args[0]!, values),
  },
  {
    name: 'operator players block',
    args: 'PLAYER',
    options: ['reason', ...DATABASE],
    summary: 'blocks a player: their bets and new sessions are refused until unblocked',
    run: (args, values) => players('block', args[0]!, values),
  },
  { name: 'operator players unblock', args: 'PLAYER', options: DATABASE, summary: 'unblocks a player', run: (args, values) => players('unblock', args[0]!, values) },
  {
    name: 'operator players rounds',
    args: 'PLAYER',
    options: ['limit', 'cursor', ...DATABASE],
    summary: "lists a player's rounds, newest first",
    run: (args, values) => players('rounds', args[0]!, values),
  },
  {
    name: 'operator players transactions',
    args: 'PLAYER',
    options: ['limit', 'cursor', ...DATABASE],
    summary: "lists a player's transfers, newest first",
    run: (args, values) => players('transactions', args[0]!, values),
  },
  {
    name: 'operator launch-key',
    args: 'PLAYER',
    options: ['game', ...DATABASE],
    required: ['game'],
    summary: 'makes a one-time launch key for a player and a game',
    run: async ([playerId], values) => {
      const input = checkedArgs(CreateLaunchKeyRequest, { playerId, game: values.game });
      const audit = cliAudit('operator launch-key', { target: `player=${input.playerId} game=${input.game}` });
      report(
        await withService(configFrom(values), (service) => audited(service, audit(201), service.createLaunchKey(input.playerId, input.game, audit(201)))),
        launchKeyBody,
      );
    },
  },
  {
    name: 'operator staff add',
    args: 'NAME',
    options: ['role', 'expires-days', ...DATABASE],
    required: ['role'],
    summary: 'adds a staff account of the back office and prints its token, once (only its hash is stored)',
    run: (args, values) => staff('add', args[0]!, values),
  },
  { name: 'operator staff list', options: DATABASE, summary: 'lists the staff accounts and their tokens (never the tokens themselves)', run: (_args, values) => staff('list', '', values) },
  {
    name: 'operator staff revoke',
    args: 'NAME|TOKEN_ID',
    options: DATABASE,
    summary: 'revokes an account and every token of it, or one token: refused at once on every node',
    run: (args, values) => staff('revoke', args[0]!, values),
  },
  {
    name: 'operator audit',
    options: ['limit', 'cursor', ...DATABASE],
    summary: "lists the back office's audit log, newest first",
    run: async (_args, values) => {
      const page = checkedArgs(AuditQuery, { limit: values.limit, cursor: values.cursor });
      const limit = page.limit === undefined ? AUDIT_PAGE_DEFAULT : Number(page.limit);
      if (limit < 1 || limit > AUDIT_PAGE_MAX) throw new UsageError(`--limit must be 1..${AUDIT_PAGE_MAX}`);
      print(await withService(configFrom(values), (service) => service.listAudit(limit, page.cursor === undefined ? undefined : Number(page.cursor))));
    },
  },
  {
    name: 'operator launch-url',
    args: '[PLAYER]',
    options: ['game', 'mode', 'currency', 'language', 'country', 'lobby', 'deposit', 'refresh', ...DATABASE, ...PROVIDER_LINK],
    required: ['game'],
    summary: "asks the provider for a game's launch URL (real mode: for the player, with a launch key made here; fun mode: play money in --currency, else the provider's)",
    run: ([playerId], values) => launchUrl(playerId, values),
  },
  {
    name: 'operator game-bets',
    options: ['games', 'currencies', ...PROVIDER_LINK],
    required: ['games', 'currencies'],
    summary: "asks the provider for its games' bet ladders in these currencies",
    run: async (_args, values) => {
      const list = (text: string) => text.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
      const link = linkFrom(values);
      printCall(await requestGameBets(link, list(values.games!), list(values.currencies!)), link);
    },
  },
  {
    name: 'provider serve',
    options: ['config', 'host', 'port', 'database', 'database-file'],
    required: ['config'],
    summary: 'runs the provider: its interface endpoints, game pages and back office',
    run: async (_args, values) => {
      const port = portFrom(values);
      const database = databaseFrom(values);
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
    run: (args, values) => providerAdmin('payouts', ['create', ...args], values, usage),
  },
  {
    name: 'provider payouts import',
    args: 'FILE.csv',
    options: ['operator', 'campaign', ...PROVIDER_ADMIN],
    required: ['operator', 'campaign'],
    summary: "pays a leaderboard's prizes from a CSV file",
    help: ADMIN_HELP['payouts import'],
    run: (args, values) => providerAdmin('payouts', ['import', ...args], values, usage),
  },
  {
    name: 'provider outbox list',
    options: ['status', 'operator', 'limit', ...PROVIDER_ADMIN],
    summary: "lists the provider's outbox",
    help: ADMIN_HELP['outbox list'],
    run: (args, values) => providerAdmin('outbox', ['list', ...args], values, usage),
  },
  {
    name: 'provider outbox retry',
    args: 'ID',
    options: PROVIDER_ADMIN,
    summary: 'sends an outbox item again now',
    help: ADMIN_HELP['outbox retry'],
    run: (args, values) => providerAdmin('outbox', ['retry', ...args], values, usage),
  },
  {
    name: 'provider outbox resolve',
    args: 'ID',
    options: ['reference', ...PROVIDER_ADMIN],
    required: ['reference'],
    summary: "settles an outbox item by hand with the operator's reference",
    help: ADMIN_HELP['outbox resolve'],
    run: (args, values) => providerAdmin('outbox', ['resolve', ...args], values, usage),
  },
  {
    name: 'provider staff add',
    args: 'NAME',
    options: ['role', 'operators', 'expires-days', 'config'],
    required: ['role', 'config'],
    summary: "adds a staff account of the provider's back office, scoped to operators, and prints its token once",
    run: (args, values) => providerStaff('add', args[0]!, values, usage),
  },
  { name: 'provider staff list', options: ['config'], required: ['config'], summary: "lists the provider's staff accounts and their tokens (never the tokens themselves)", run: (_args, values) => providerStaff('list', '', values, usage) },
  {
    name: 'provider staff revoke',
    args: 'NAME|TOKEN_ID',
    options: ['config'],
    required: ['config'],
    summary: 'revokes an account and every token of it, or one token: refused at once on every node',
    run: (args, values) => providerStaff('revoke', args[0]!, values, usage),
  },
  {
    name: 'provider audit',
    options: ['limit', 'cursor', 'config'],
    required: ['config'],
    summary: "lists the provider back office's audit log, newest first",
    run: (_args, values) => providerStaff('audit', '', values, usage),
  },
  {
    name: 'sandbox',
    options: [],
    synopsis: '[--data DIR] [--port P] [--provider-port P] [--database URL | --database-file FILE [--provider-schema NAME]] [--dispatch-horizon S]',
    summary: 'the whole interface on this machine, with a lobby and a back office (npm start)',
    help: SANDBOX_USAGE,
    // Listed here for the usage texts; main() hands its arguments to sandbox-command.ts, which parses its own.
    run: (args) => sandboxCommand(args, (message) => new UsageError(message)),
  },
  {
    name: 'sandbox env',
    options: [],
    synopsis: "[--data DIR] [--provider-port P] [--database URL | --database-file FILE] [the sandbox's other options]",
    summary: "prints the sandbox's ids and secrets as the variables these commands read: eval \"$(wagerlink sandbox env)\"",
    help: SANDBOX_ENV_USAGE,
    // Listed here for the usage texts; main() hands its arguments to sandbox-command.ts, which parses its own.
    run: (args) => sandboxEnvCommand(args, (message) => new UsageError(message)),
  },
  {
    name: 'openapi',
    args: 'operator|provider',
    options: [],
    summary: "prints a server's OpenAPI document",
    run: async ([which]) => {
      if (which !== 'operator' && which !== 'provider') throw new UsageError(`openapi takes: operator, provider (got "${which}")`);
      process.stdout.write(`${JSON.stringify(which === 'operator' ? operatorOpenApi() : providerOpenApi(), null, 2)}\n`);
    },
  },
  {
    name: 'conformance operator',
    options: ['endpoint', 'secret-file', 'secret', 'token-file', 'token', 'fixtures', 'admin-token-file', 'admin-token', 'report', 'only', 'bail'],
    required: ['endpoint'],
    synopsis: '--endpoint URL --secret-file FILE --token-file FILE (--fixtures FILE | --admin-token-file FILE | both) [--report FILE]... [--only AREA|CASE]... [--bail]',
    summary: 'checks an operator endpoint against docs/protocol.md',
    help: CONFORMANCE_USAGE,
    run: (_args, values) => conformance('operator', values),
  },
  {
    name: 'conformance provider',
    options: [],
    synopsis:
      '--endpoint URL --secret-file FILE --operator-id ID --wallet-id ID --game SLUG [--currency CODE[,CODE]]... [--next-secret-file FILE] [--outside-whitelist] [--report FILE]... [--only AREA|CASE]... [--bail]',
    summary: 'checks a provider endpoint against docs/protocol.md',
    help: CONFORMANCE_PROVIDER_USAGE,
    // Listed here for the usage texts; main() hands its arguments to conformance-provider.ts, which parses its own.
    run: (args) => conformanceProvider(args, TABLE.usage(TABLE.resolve(['conformance', 'provider']).node)),
  },
];

const GROUPS: readonly Group[] = [
  { name: 'operator', summary: 'the operator wallet and its back office', environment: { ...CONFIG_VARIABLES, ...PROVIDER_LINK_VARIABLES } },
  { name: 'operator players', summary: 'players: add, show, adjust, block, histories' },
  { name: 'operator staff', summary: 'staff accounts of the back office: add, list, revoke' },
  { name: 'provider', summary: 'the provider server and its back office', environment: { ...PROVIDER_ADMIN_VARIABLES, WAGERLINK_PROVIDER_URL: PROVIDER_LINK_VARIABLES.WAGERLINK_PROVIDER_URL } },
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

const usage = (message: string) => new UsageError(message);

function portFrom(values: Values): number | undefined {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!/^\d+$/.test(values.port!) || port > 65_535)) throw new UsageError(`--port must be a whole number 0..65535, got "${values.port}"`);
  return port;
}

/** Where commands take their secrets from: files, options (warned about) and the environment (secret-input.ts). */
const SECRETS = processSources(usage);

/** --database, or the file that holds it; a URL with a password on the command line is warned about. */
function databaseFrom(values: Values): string | undefined {
  return secretFrom({ value: values.database, file: values['database-file'] }, { option: 'database', secretIn: urlHasPassword }, SECRETS);
}

function configFrom(values: Values): OperatorConfig {
  const port = portFrom(values);
  const database = databaseFrom(values);
  const config = readOperatorConfig(process.env, {
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(port === undefined ? {} : { port }),
    ...(database === undefined ? {} : { database }),
    ...(values.workers === undefined ? {} : { workers: workersFrom(values.workers) }),
  });
  databaseInUse = config.database;
  return config;
}

/** --workers, whose bad value is a usage error of the command like any other option's. */
function workersFrom(text: string): number {
  try {
    return parseWorkers(text, '--workers', availableParallelism());
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The database the command works on, once known: a failure to reach it is told with its name. */
let databaseInUse: string | undefined;
/** What set it, when not the operator commands' --database or WAGERLINK_DATABASE. */
let databaseSetting: string | undefined;

/** A CLI amount is a decimal string; it is handed on as the JSON number it names. */
function amountArg(name: string, text: string | undefined): number {
  if (text === undefined) throw new UsageError(`--${name} is required`);
  if (!decimalFromString(text)) throw new UsageError(`--${name} must be a decimal such as 10.50, got "${text}"`);
  // As on the wire: a number a double cannot hold exactly is refused, never rounded.
  if (inexactNumbers(text.trim()).length > 0) throw new UsageError(`--${name} has more than ${SIGNIFICANT_DIGITS_MAX} significant digits`);
  return Number(text);
}

function print(value: unknown): void {
  process.stdout.write(`${stringify(value)}\n`);
}

/**
 * Opens the operator's store for a back-office command. Only `serve` and
 * `migrate` create a database: a command pointed at a SQLite file that is
 * not there (a typo, another directory) says so instead of making an empty
 * ledger there and answering from it.
 */
async function withService<T>(config: OperatorConfig, work: (service: OperatorService) => Promise<T>): Promise<T> {
  requireExistingDatabase(config.database);
  const store = await openStore(config.database, {
    rules: config.rules,
    cryptoDecimals: config.cryptoDecimals,
    postgres: config.postgres,
  });
  try {
    return await work(new OperatorService(store));
  } finally {
    await store.close();
  }
}

/** Prints a success through its view; a refusal is one line on stderr, `wagerlink: CODE: detail`, exit code 1. */
function report<T extends { ok: true }>(outcome: T | Refusal, view: (value: T) => unknown): void {
  if (outcome.ok) {
    print(view(outcome));
  } else {
    refused(refusalLine(undefined, outcome.code, outcome.detail));
  }
}

/** A refusal or a failure that is the command's answer, not an error of the command: one line, exit code 1. */
function refused(line: string): void {
  process.stderr.write(`wagerlink: ${line}\n`);
  process.exitCode = 1;
}

/**
 * A refusal of a member, told as the command line wrote it: `currency: must
 * be ...` is `--currency must be ...`, the player id is PLAYER.
 */
function asOptions(detail: string): string {
  return detail.replace(/^(\w+): /, (_whole, field: string) => (field === 'playerId' ? 'PLAYER ' : `--${field} `));
}

function checkedArgs<T extends TSchema>(schema: T, input: Record<string, unknown>): Static<T> {
  for (const [name, value] of Object.entries(input)) if (value === undefined) delete input[name];
  const checked = compile(schema).check(input);
  if (!checked.ok) throw new UsageError(asOptions(checked.detail));
  return checked.value;
}

/** The players commands: their input is checked before the database is opened, so bad input touches nothing. */
async function players(action: string, playerId: string, values: Values): Promise<void> {
  const config = configFrom(values);
  switch (action) {
    case 'add': {
      const input = checkedArgs(CreatePlayerRequest, { playerId, currency: values.currency, balance: amountArg('balance', values.balance ?? '0'), country: values.country });
      if (input.country !== undefined && !isCountryCode(input.country)) throw new UsageError(`--country ${input.country} is not an assigned ISO 3166-1 alpha-2 code`);
      const audit = cliAudit('operator players add', { target: `player=${playerId}`, amount: values.balance ?? '0', currency: input.currency });
      return withService(config, async (service) => report(await audited(service, audit(201), service.createPlayer(input, audit(201))), playerBody));
    }
    case 'show':
      return withService(config, async (service) => report(await service.getPlayer(playerId), playerBody));
    case 'adjust': {
      const input = checkedArgs(AdjustmentRequest, { id: values.id ?? randomUUID(), type: values.type, amount: amountArg('amount', values.amount), reason: values.reason });
      const audit = cliAudit('operator players adjust', { target: `player=${playerId} ${input.type}=${input.id}`, amount: values.amount! });
      return withService(config, async (service) => {
        const player = await service.getPlayer(playerId);
        const withCurrency = (status: number) => ({ ...audit(status), currency: player.ok ? player.currency : null });
        report(await audited(service, withCurrency(200), service.adjust(playerId, input, withCurrency(200))), (outcome) => adjustmentBody(input.id, outcome.balance));
      });
    }
    case 'block':
    case 'unblock': {
      const audit = cliAudit(`operator players ${action}`, { target: `player=${playerId}` });
      return withService(config, async (service) =>
        report(await audited(service, audit(200), service.setBlocked(playerId, action === 'block', values.reason, audit(200))), playerBody),
      );
    }
    case 'rounds':
    case 'transactions': {
      const page = checkedArgs(PageQuery, { limit: values.limit, cursor: values.cursor });
      const pageLimit = page.limit === undefined ? undefined : Number(page.limit);
      const before = page.cursor === undefined ? undefined : BigInt(page.cursor);
      return withService(config, async (service) =>
        action === 'rounds'
          ? report(await service.listRounds(playerId, pageLimit, before), roundsBody)
          : report(await service.listTransfers(playerId, pageLimit, before), transfersBody),
      );
    }
    default:
      throw new UsageError(`unknown players action "${action}"`);
  }
}

/**
 * The audit row of a CLI command that works on the database directly, for
 * the answer's status (the status the back office's HTTP route would
 * answer): actor `cli:` and the system user, no token, no address.
 */
function cliAudit(command: string, facts: { target?: string; amount?: string; currency?: string }): (status: number) => AuditEntry {
  const actor = cliActor(userInfo().username);
  return (status) => ({
    at: Date.now(),
    actor,
    tokenId: null,
    method: 'CLI',
    route: command,
    target: facts.target ?? null,
    amount: facts.amount ?? null,
    currency: facts.currency ?? null,
    address: null,
    operatorId: null,
    status,
    code: null,
  });
}

/**
 * Waits for a change that carried its audit row (written with it when it
 * was made); a refusal changed nothing, and its row is written on its own.
 */
async function audited<T extends { ok: true }>(service: OperatorService, entry: AuditEntry, pending: Promise<T | Refusal>): Promise<T | Refusal> {
  const outcome = await pending;
  if (!outcome.ok) await service.store.appendAudit({ ...entry, status: ERRORS[outcome.code].status, code: outcome.code });
  return outcome;
}

/** The staff commands: names and roles are checked before the database is opened. */
async function staff(action: 'add' | 'list' | 'revoke', name: string, values: Values): Promise<void> {
  const config = configFrom(values);
  switch (action) {
    case 'add': {
      const refused = checkStaffName(name);
      if (refused) throw new UsageError(refused.replace(/^name: /, 'NAME '));
      const role = values.role!;
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}, got "${role}"`);
      const days = values['expires-days'] === undefined ? STAFF_TOKEN_DAYS_DEFAULT : Number(values['expires-days']);
      const badDays = checkTokenDays(days);
      if (badDays) throw new UsageError(`--${badDays}`);
      const audit = cliAudit('operator staff add', { target: `staff=${name}` });
      return withService(config, async (service) => {
        const outcome = await service.addStaff(name, role, days, audit(201));
        if (!outcome.ok) await service.store.appendAudit({ ...audit(ERRORS[outcome.code].status), code: outcome.code });
        report(outcome, (added) => ({ ...added.staff, token: added.token }));
      });
    }
    case 'list':
      return withService(config, async (service) => print({ items: await service.listStaff() }));
    case 'revoke': {
      const audit = cliAudit('operator staff revoke', { target: `staff=${name}` });
      return withService(config, async (service) =>
        report(await audited(service, audit(200), service.revokeStaff(name, audit(200))), (outcome) => ({ name: outcome.name, revokedTokenIds: outcome.tokenIds })),
      );
    }
  }
}

// ------------------------------------------------ the provider's endpoints

function linkFrom(values: Values) {
  return readProviderLink(process.env, {
    ...(values.provider === undefined ? {} : { provider: values.provider }),
    ...(values['operator-id'] === undefined ? {} : { operatorId: values['operator-id'] }),
    ...(values['wallet-id'] === undefined ? {} : { walletId: values['wallet-id'] }),
  });
}

/**
 * Prints a provider's answer; anything else is one line on stderr with exit
 * code 1: a refusal `CODE: detail`, a provider that could not be reached
 * `could not reach URL (why)`, an answer that is not the interface's in words.
 */
function printCall<T>(outcome: CallOutcome<T>, link: { providerUrl: string }): void {
  if (outcome.ok) return print(outcome.value);
  if (outcome.kind === 'unavailable' && outcome.status === undefined) return refused(couldNotReach(link.providerUrl, outcome.detail, outcome.detail));
  if (outcome.kind === 'invalid-answer') return refused(`the provider answered ${outcome.status} with ${outcome.detail}`);
  refused(refusalLine(outcome.status, outcome.code, outcome.detail));
}

/** A launch URL from the provider: real mode makes a launch key for the player in this operator's database first. */
async function launchUrl(playerId: string | undefined, values: Values): Promise<void> {
  const game = values.game!;
  const mode = values.mode ?? 'real';
  if (mode !== 'real' && mode !== 'fun') throw new UsageError('--mode must be real or fun');
  if (mode === 'real' && !playerId) throw new UsageError('launch-url in real mode needs a player id');
  // The id a launch key is made for obeys docs/protocol.md §5.4, as in POST /admin/launch-keys.
  if (mode === 'real') checkedArgs(CreateLaunchKeyRequest, { playerId, game });
  const link = linkFrom(values);
  const urls = Object.fromEntries(
    (['lobby', 'deposit', 'refresh'] as const).flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])),
  );
  const common = { mode: mode as 'real' | 'fun', game, language: values.language ?? 'en', ...(Object.keys(urls).length > 0 ? { urls } : {}) };
  if (mode === 'fun') return printCall(await requestLaunchUrl(link, { ...common, ...(values.currency === undefined ? {} : { currency: values.currency }) }), link);
  if (!playerId) throw new UsageError('launch-url in real mode needs a player id');
  if (values.currency !== undefined) throw new UsageError("--currency is for fun mode: real mode plays in the player's currency");
  const prepared = await withService(configFrom(values), async (service) => {
    const player = await service.getPlayer(playerId);
    if (!player.ok) return player;
    const key = await service.createLaunchKey(playerId, game);
    if (!key.ok) return key;
    return { ok: true as const, key: key.key, country: values.country ?? player.country, currency: player.currency };
  });
  if (!prepared.ok) return report(prepared, () => undefined);
  if (!prepared.country) throw new UsageError(`player ${playerId} has no country: pass --country`);
  // The player's currency goes along: a game with no bets in it is refused now, not when the page opens.
  return printCall(await requestLaunchUrl(link, { ...common, key: prepared.key, country: prepared.country, currency: prepared.currency }), link);
}

// ------------------------------------------------------ the conformance kit

/** Runs the operator's conformance cases; the exit code says whether any failed, or the check before them (1), or all that ran passed (0). */
async function conformance(command: string | undefined, values: Values): Promise<void> {
  if (command !== 'operator') throw new UsageError('conformance takes: operator, provider');
  const endpoint = values.endpoint;
  if (!endpoint) throw new UsageError('conformance operator needs --endpoint URL');
  if (!/^https?:\/\/[^/]/i.test(endpoint) || !URL.canParse(endpoint)) throw new UsageError(`--endpoint must be an http(s) URL, got "${endpoint}"`);
  const secret = secretFrom({ value: values.secret, file: values['secret-file'] }, { option: 'secret', variable: 'WAGERLINK_CONFORMANCE_SECRET' }, SECRETS);
  if (!secret) throw new UsageError('conformance operator needs --secret-file FILE, WAGERLINK_CONFORMANCE_SECRET or --secret (the shared secret that signs requests)');
  const token = secretFrom({ value: values.token, file: values['token-file'] }, { option: 'token', variable: 'WAGERLINK_CONFORMANCE_TOKEN' }, SECRETS);
  if (!token) throw new UsageError('conformance operator needs --token-file FILE, WAGERLINK_CONFORMANCE_TOKEN or --token (an access token the operator accepts)');
  const adminToken = secretFrom({ value: values['admin-token'], file: values['admin-token-file'] }, { option: 'admin-token', variable: 'WAGERLINK_CONFORMANCE_ADMIN_TOKEN' }, SECRETS);
  if (values.fixtures === undefined && adminToken === undefined) throw new UsageError('conformance operator needs --fixtures FILE or the admin token (--admin-token-file FILE, WAGERLINK_CONFORMANCE_ADMIN_TOKEN or --admin-token)');
  const reports = values.report ?? [];
  for (const path of reports) if (reportFormat(path) === undefined) throw new UsageError(`--report ${path}: a report file ends in .json, .xml or .html`);
  const only = (values.only ?? []).flatMap((entry) => entry.split(',')).map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  const fixtures: FixturesSetting = {
    ...(values.fixtures === undefined ? {} : { file: { content: await loadFixturesFile(values.fixtures), origin: values.fixtures } }),
    ...(adminToken === undefined ? {} : { adminToken }),
  };
  const report = await runOperatorConformance({
    target: { endpoint, secret, accessToken: token },
    fixtures,
    only,
    bail: values.bail === true,
    onEvent: terminalReporter(process.stdout, wantsColour(process.stdout)),
  });
  await writeReports(report, reports, process.stdout);
  process.exitCode = runFailed(report) ? 1 : 0;
}

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
    return sandboxEnvCommand(argv.slice(2), (message) => new UsageError(message));
  }
  if (argv[0] === 'sandbox') {
    reached.node = TABLE.resolve(['sandbox']).node;
    return sandboxCommand(
      argv.slice(1),
      (message) => new UsageError(message),
      (database) => {
        databaseInUse = database;
        databaseSetting = '--database';
      },
    );
  }
  // The provider side of the kit parses its own options, --help included (conformance-provider.ts).
  if (argv[0] === 'conformance' && argv[1] === 'provider') return conformanceProvider(argv.slice(2), TABLE.usage(TABLE.resolve(['conformance', 'provider']).node));
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
  const failure = cliFailure(error, { database: databaseInUse, databaseSetting });
  const debug = process.argv.includes('--verbose') || process.env.WAGERLINK_DEBUG === '1';
  if (failure.kind === 'usage') {
    process.stderr.write(`wagerlink: ${failure.message}\n\n${TABLE.usage(reached.node)}`);
  } else {
    process.stderr.write(`wagerlink: ${failure.message}\n`);
  }
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exitCode = failure.exitCode;
});
