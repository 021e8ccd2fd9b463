/**
 * The `wagerlink` command. Operator commands read the same configuration as
 * the server (operator-config.ts) and work on the same database, so the
 * back office is usable with the server stopped or running.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isCountryCode } from '../protocol/regions.js';
import { compile } from '../protocol/validate.js';
import { AdjustmentRequest, CreatePlayerRequest } from '../protocol/schemas.js';
import { decimalFromString, inexactNumbers, SIGNIFICANT_DIGITS_MAX } from '../protocol/money.js';
import { operatorOpenApi } from '../operator/operator-openapi.js';
import { adjustmentBody, launchKeyBody, playerBody, roundsBody, transfersBody } from '../operator/operator-views.js';
import { problemJson, type Refusal } from '../protocol/errors.js';
import { stringify } from '../protocol/json.js';
import { ConfigError, CONFIG_VARIABLES, parseWorkers, readOperatorConfig, type OperatorConfig } from '../operator/operator-config.js';
import { OperatorService } from '../operator/operator-service.js';
import { readFileSync } from 'node:fs';
import { serveOperator } from '../operator/serve-operator.js';
import { PROVIDER_LINK_VARIABLES, readProviderLink, requestGameBets, requestLaunchUrl } from '../operator/provider-link.js';
import { serveProvider } from '../provider/serve-provider.js';
import { sandboxCommand } from './sandbox-command.js';
import { providerOpenApi } from '../provider/provider-openapi.js';
import { PROVIDER_ADMIN_VARIABLES, providerAdmin } from './provider-admin.js';
import type { CallOutcome } from '../clients/http-call.js';
import { backendOf, migrateDatabase, openStore } from '../stores/open-store.js';
import { OPERATOR_AREAS } from '../conformance/case-model.js';
import { loadFixturesFile, type FixturesSetting } from '../conformance/fixtures.js';
import { runOperatorConformance } from '../conformance/runner.js';
import { reportFormat, writeReport } from '../conformance/reporters/files.js';
import { terminalReporter, wantsColour } from '../conformance/reporters/terminal.js';

const USAGE = `wagerlink — the game provider <-> operator wallet interface

Usage:
  wagerlink --help | --version
  wagerlink sandbox [--data DIR] [--port P] [--provider-port P] [--database URL]   (npm start; sandbox --help)
  wagerlink operator serve [--host H] [--port P] [--database PATH|URL] [--workers N|auto]
  wagerlink operator migrate [--database PATH|URL]
  wagerlink operator verify [--database PATH|URL]
  wagerlink operator players add PLAYER --currency EUR [--balance 100.00] [--country DE]
  wagerlink operator players show PLAYER
  wagerlink operator players adjust PLAYER --type deposit|withdrawal --amount 10.00 [--id UUID] [--reason TEXT]
  wagerlink operator players block PLAYER [--reason TEXT]
  wagerlink operator players unblock PLAYER
  wagerlink operator players rounds PLAYER [--limit N] [--cursor C]
  wagerlink operator players transactions PLAYER [--limit N] [--cursor C]
  wagerlink operator launch-key PLAYER --game SLUG
  wagerlink operator launch-url [PLAYER] --game SLUG [--mode real|fun] [--language en] [--country DE] [--lobby URL] [--deposit URL] [--refresh URL]
  wagerlink operator game-bets --games SLUG[,SLUG] --currencies EUR[,USD]
  wagerlink provider serve --config FILE [--host H] [--port P]
  wagerlink provider payouts create --operator ID --player ID --currency C --amount A --campaign UUID [--payout UUID]
  wagerlink provider payouts import FILE.csv --operator ID --campaign UUID
  wagerlink provider outbox list [--status S] [--operator ID] [--limit N]
  wagerlink provider outbox retry ID
  wagerlink provider outbox resolve ID --reference REF
    (payouts and outbox: --provider URL --admin-token T; each command takes --help)
  wagerlink openapi operator|provider
  wagerlink conformance operator --endpoint URL --secret S --token T (--fixtures FILE | --admin-token A) [--report FILE]... [--only AREA] [--bail]

Configuration (environment):
${Object.entries({ ...CONFIG_VARIABLES, ...PROVIDER_LINK_VARIABLES, ...PROVIDER_ADMIN_VARIABLES })
  .map(([name, text]) => `  ${name.padEnd(34)}${text}`)
  .join('\n')}

Results are printed as JSON. Exit codes: 0 done, 1 refused or failed, 2 usage.
\`wagerlink conformance --help\` tells the conformance kit's own options.
`;

const CONFORMANCE_USAGE = `wagerlink conformance — checks an operator endpoint against docs/protocol.md

Usage:
  wagerlink conformance operator --endpoint URL --secret SECRET --token TOKEN
      (--fixtures FILE | --admin-token TOKEN | both) [--report FILE]... [--only AREA|CASE]... [--bail]

Options:
  --endpoint URL        the operator endpoint's base URL: its /authenticate, /transaction and /payout are checked
  --secret SECRET       the integration's shared secret, which signs every request (docs/protocol.md §2.2)
  --token TOKEN         an access token the operator accepts (docs/protocol.md §2.4)
  --fixtures FILE       test players, launch keys or a command that mints them, games, expiry
                        (docs/conformance.md; examples/conformance-fixtures.json)
  --admin-token TOKEN   make fresh players through the operator's back office (docs/protocol.md §11) instead
                        of the file's players; the file may still give games and expiry
  --report FILE         also write a report: FILE.json, FILE.xml (JUnit) or FILE.html; may be repeated
  --only AREA|CASE      run only these areas or case ids; may be repeated or comma-separated
  --bail                stop at the first case that fails

Areas: ${OPERATOR_AREAS.join(', ')}.

Exit codes: 0 every case judged passed, 1 a case failed, 2 usage, fixtures or set-up error (nothing judged).
`;

class UsageError extends Error {
  override name = 'UsageError';
}

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  database: { type: 'string' },
  workers: { type: 'string' },
  currency: { type: 'string' },
  balance: { type: 'string' },
  country: { type: 'string' },
  type: { type: 'string' },
  amount: { type: 'string' },
  id: { type: 'string' },
  reason: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  game: { type: 'string' },
  config: { type: 'string' },
  mode: { type: 'string' },
  language: { type: 'string' },
  lobby: { type: 'string' },
  deposit: { type: 'string' },
  refresh: { type: 'string' },
  games: { type: 'string' },
  currencies: { type: 'string' },
  provider: { type: 'string' },
  'admin-token': { type: 'string' },
  operator: { type: 'string' },
  player: { type: 'string' },
  campaign: { type: 'string' },
  payout: { type: 'string' },
  status: { type: 'string' },
  reference: { type: 'string' },
  'operator-id': { type: 'string' },
  'wallet-id': { type: 'string' },
  endpoint: { type: 'string' },
  secret: { type: 'string' },
  token: { type: 'string' },
  fixtures: { type: 'string' },
  report: { type: 'string', multiple: true },
  only: { type: 'string', multiple: true },
  bail: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function configFrom(values: Values): OperatorConfig {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) throw new UsageError(`--port must be 0..65535`);
  return readOperatorConfig(process.env, {
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(port === undefined ? {} : { port }),
    ...(values.database === undefined ? {} : { database: values.database }),
    ...(values.workers === undefined ? {} : { workers: parseWorkers(values.workers, '--workers', availableParallelism()) }),
  });
}

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

async function withService<T>(config: OperatorConfig, work: (service: OperatorService) => Promise<T>): Promise<T> {
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

/** Prints a success through its view; a refusal goes to stderr as problem JSON and sets exit code 1. */
function report<T extends { ok: true }>(outcome: T | Refusal, view: (value: T) => unknown): void {
  if (outcome.ok) {
    print(view(outcome));
  } else {
    process.stderr.write(`${problemJson(outcome.code, outcome.detail, outcome.balance)}\n`);
    process.exitCode = 1;
  }
}

async function players(action: string | undefined, playerId: string | undefined, values: Values): Promise<void> {
  if (!action || !playerId) throw new UsageError('players needs an action and a player id');
  const config = configFrom(values);
  const pageLimit = values.limit === undefined ? undefined : Number(values.limit);
  const before = values.cursor === undefined ? undefined : BigInt(values.cursor);
  await withService(config, async (service) => {
    switch (action) {
      case 'add': {
        const input = { playerId, currency: values.currency, balance: amountArg('balance', values.balance ?? '0'), country: values.country };
        if (input.country === undefined) delete input.country;
        const checked = compile(CreatePlayerRequest).check(input);
        if (!checked.ok) throw new UsageError(checked.detail);
        if (checked.value.country !== undefined && !isCountryCode(checked.value.country)) {
          throw new UsageError(`--country ${checked.value.country} is not an ISO 3166-1 alpha-2 code`);
        }
        return report(await service.createPlayer(checked.value), playerBody);
      }
      case 'show':
        return report(await service.getPlayer(playerId), playerBody);
      case 'adjust': {
        const input = { id: values.id ?? randomUUID(), type: values.type, amount: amountArg('amount', values.amount), reason: values.reason };
        if (input.reason === undefined) delete input.reason;
        const checked = compile(AdjustmentRequest).check(input);
        if (!checked.ok) throw new UsageError(checked.detail);
        const { id } = checked.value;
        return report(await service.adjust(playerId, checked.value), (outcome) => adjustmentBody(id, outcome.balance));
      }
      case 'block':
      case 'unblock':
        return report(await service.setBlocked(playerId, action === 'block', values.reason), playerBody);
      case 'rounds':
        return report(await service.listRounds(playerId, pageLimit, before), roundsBody);
      case 'transactions':
        return report(await service.listTransfers(playerId, pageLimit, before), transfersBody);
      default:
        throw new UsageError(`unknown players action "${action}"`);
    }
  });
}

async function operator(command: string | undefined, rest: string[], values: Values): Promise<void> {
  switch (command) {
    case 'serve':
      return serveOperator(configFrom(values));
    case 'migrate': {
      const config = configFrom(values);
      const applied = await migrateDatabase(config.database, config.postgres);
      print({ database: backendOf(config.database).display, applied });
      return;
    }
    case 'verify': {
      const report = await withService(configFrom(values), (service) => service.verify());
      print(report);
      if (!report.ok) process.exitCode = 1;
      return;
    }
    case 'players':
      return players(rest[0], rest[1], values);
    case 'launch-key': {
      const playerId = rest[0];
      if (!playerId || !values.game) throw new UsageError('launch-key needs a player id and --game');
      const game = values.game;
      const outcome = await withService(configFrom(values), (service) => service.createLaunchKey(playerId, game));
      return report(outcome, launchKeyBody);
    }
    case 'launch-url':
      return launchUrl(rest[0], values);
    case 'game-bets': {
      if (!values.games || !values.currencies) throw new UsageError('game-bets needs --games and --currencies');
      const list = (text: string) => text.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
      return printCall(await requestGameBets(linkFrom(values), list(values.games), list(values.currencies)));
    }
    default:
      throw new UsageError(`unknown operator command "${command ?? ''}"`);
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

/** Prints a provider's answer; anything else goes to stderr (a refusal as its problem) with exit code 1. */
function printCall<T>(outcome: CallOutcome<T>): void {
  if (outcome.ok) return print(outcome.value);
  const text = outcome.kind === 'refused' && outcome.code !== undefined ? problemJson(outcome.code, outcome.detail, outcome.balance) : JSON.stringify(outcome);
  process.stderr.write(`${text}\n`);
  process.exitCode = 1;
}

/** A launch URL from the provider: real mode makes a launch key for the player in this operator's database first. */
async function launchUrl(playerId: string | undefined, values: Values): Promise<void> {
  const game = values.game;
  if (!game) throw new UsageError('launch-url needs --game');
  const mode = values.mode ?? 'real';
  if (mode !== 'real' && mode !== 'fun') throw new UsageError('--mode must be real or fun');
  const link = linkFrom(values);
  const urls = Object.fromEntries(
    (['lobby', 'deposit', 'refresh'] as const).flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])),
  );
  const common = { mode: mode as 'real' | 'fun', game, language: values.language ?? 'en', ...(Object.keys(urls).length > 0 ? { urls } : {}) };
  if (mode === 'fun') return printCall(await requestLaunchUrl(link, common));
  if (!playerId) throw new UsageError('launch-url in real mode needs a player id');
  const prepared = await withService(configFrom(values), async (service) => {
    const player = await service.getPlayer(playerId);
    if (!player.ok) return player;
    const key = await service.createLaunchKey(playerId, game);
    if (!key.ok) return key;
    return { ok: true as const, key: key.key, country: values.country ?? player.country };
  });
  if (!prepared.ok) return report(prepared, () => undefined);
  if (!prepared.country) throw new UsageError(`player ${playerId} has no country: pass --country`);
  return printCall(await requestLaunchUrl(link, { ...common, key: prepared.key, country: prepared.country }));
}

// ------------------------------------------------------ the conformance kit

/** Runs the operator's conformance cases; the exit code says whether any failed (1) or all that ran passed (0). */
async function conformance(command: string | undefined, values: Values): Promise<void> {
  if (command !== 'operator') throw new UsageError('conformance takes: operator (the provider side is not in the kit yet)');
  const endpoint = values.endpoint;
  if (!endpoint) throw new UsageError('conformance operator needs --endpoint URL');
  if (!/^https?:\/\/[^/]/i.test(endpoint) || !URL.canParse(endpoint)) throw new UsageError(`--endpoint must be an http(s) URL, got "${endpoint}"`);
  if (!values.secret) throw new UsageError('conformance operator needs --secret (the shared secret that signs requests)');
  if (!values.token) throw new UsageError('conformance operator needs --token (an access token the operator accepts)');
  if (values.fixtures === undefined && values['admin-token'] === undefined) throw new UsageError('conformance operator needs --fixtures FILE or --admin-token TOKEN');
  const reports = values.report ?? [];
  for (const path of reports) if (reportFormat(path) === undefined) throw new UsageError(`--report ${path}: a report file ends in .json, .xml or .html`);
  const only = (values.only ?? []).flatMap((entry) => entry.split(',')).map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  const fixtures: FixturesSetting = {
    ...(values.fixtures === undefined ? {} : { file: { content: await loadFixturesFile(values.fixtures), origin: values.fixtures } }),
    ...(values['admin-token'] === undefined ? {} : { adminToken: values['admin-token'] }),
  };
  const report = await runOperatorConformance({
    target: { endpoint, secret: values.secret, accessToken: values.token },
    fixtures,
    only,
    bail: values.bail === true,
    onEvent: terminalReporter(process.stdout, wantsColour(process.stdout)),
  });
  for (const path of reports) {
    await writeReport(report, path);
    process.stdout.write(`report: ${path}\n`);
  }
  process.exitCode = report.summary.failed > 0 ? 1 : 0;
}

/** The version of the installed package (package.json ships with it). */
function packageVersion(): string {
  const file = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<void> {
  // The sandbox parses options of its own (sandbox-command.ts).
  if (argv[0] === 'sandbox') return sandboxCommand(argv.slice(1), (message) => new UsageError(message));
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [area, command, ...rest] = positionals;
  if (area === 'conformance' && values.help) {
    process.stdout.write(CONFORMANCE_USAGE);
    return;
  }
  // The provider's back-office commands have a help of their own.
  const ownHelp = area === 'provider' && (command === 'payouts' || command === 'outbox');
  if (values.version) {
    process.stdout.write(`wagerlink ${packageVersion()}\n`);
    return;
  }
  if ((values.help && !ownHelp) || area === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  // A script that forgot its command must not pass: the usage, as a usage error.
  if (area === undefined) throw new UsageError('a command is needed');
  switch (area) {
    case 'operator':
      return operator(command, rest, values);
    case 'provider': {
      if (command === 'payouts' || command === 'outbox') return providerAdmin(command, rest, values, (message) => new UsageError(message));
      if (command !== 'serve') throw new UsageError('provider takes: serve, payouts, outbox');
      if (!values.config) throw new UsageError('provider serve needs --config FILE (see examples/provider.json)');
      const port = values.port === undefined ? undefined : Number(values.port);
      if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) throw new UsageError(`--port must be 0..65535`);
      return serveProvider(values.config, { ...(values.host === undefined ? {} : { host: values.host }), ...(port === undefined ? {} : { port }) });
    }
    case 'openapi':
      if (command !== 'operator' && command !== 'provider') throw new UsageError('openapi takes: operator, provider');
      process.stdout.write(`${JSON.stringify(command === 'operator' ? operatorOpenApi() : providerOpenApi(), null, 2)}\n`);
      return;
    case 'conformance':
      return conformance(command, values);
    default:
      throw new UsageError(`unknown command "${area}"`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const err = error as Error & { code?: string };
  if (error instanceof UsageError || err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const conformanceCall = process.argv[2] === 'conformance';
    process.stderr.write(`wagerlink: ${err.message}\n\n${conformanceCall ? CONFORMANCE_USAGE : USAGE}`);
    process.exitCode = 2;
  } else if (err.name === 'FixturesError' || err.name === 'RunNotStarted') {
    // The conformance run could not start: nothing was judged.
    process.stderr.write(`wagerlink conformance: ${err.message}\n`);
    process.exitCode = 2;
  } else if (error instanceof ConfigError || err.name === 'UnavailableError' || err.name === 'ProviderConfigError' || err.name === 'ProviderLinkError' || err.name === 'SandboxSetupError' || err.name === 'PagesNotBuilt') {
    process.stderr.write(`wagerlink: ${err.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`wagerlink: ${err.stack ?? err.message}\n`);
    process.exitCode = 1;
  }
});
