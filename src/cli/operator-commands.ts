/**
 * The operator's commands: the wallet served, its database migrated and
 * verified, players, launch keys, staff and audit on the same database as
 * the server (operator-config.ts), so the back office is usable with the
 * server stopped or running; and the provider's endpoints as the operator
 * calls them. main.ts imports this module when one of them runs.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism, userInfo } from 'node:os';
import type { Static, TSchema } from '@sinclair/typebox';
import { isRole, ROLES } from '../access/roles.js';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, cliActor, type AuditEntry } from '../access/staff.js';
import { checkStaffName, checkTokenDays, STAFF_TOKEN_DAYS_DEFAULT } from '../access/staff-token.js';
import { AuditQuery } from '../access/staff-schemas.js';
import { isCountryCode } from '../protocol/regions.js';
import { compile } from '../protocol/validate.js';
import { AdjustmentRequest, CreateLaunchKeyRequest, CreatePlayerRequest, PageQuery } from '../protocol/schemas.js';
import { decimalFromString, inexactNumbers, SIGNIFICANT_DIGITS_MAX } from '../protocol/money.js';
import { ERRORS, type Refusal } from '../protocol/errors.js';
import { stringify } from '../protocol/json.js';
import { adjustmentBody, launchKeyBody, playerBody, roundsBody, transfersBody } from '../operator/operator-views.js';
import { parseWorkers, readOperatorConfig, type OperatorConfig } from '../operator/operator-config.js';
import { OperatorService } from '../operator/operator-service.js';
import type { ProviderLink } from '../operator/provider-link.js';
import { couldNotReach } from '../clients/unreachable.js';
import type { CallOutcome } from '../clients/http-call.js';
import { backendOf, migrateDatabase, openStore } from '../stores/open-store.js';
import { integrationView, parseIntegrationKeys } from '../access/integrations.js';
import { ENV_INTEGRATION_ID } from '../protocol/integration-id.js';
import { IntegrationAdmin, type IntegrationMade } from '../operator/integration-admin.js';
import { UsageError, type Values } from './command-table.js';
import { refusalLine, requireExistingDatabase } from './cli-failure.js';
import { databaseFrom, databaseInUse, portFrom } from './options.js';

/**
 * The server and the provider's client are imported by the commands that use
 * them: the back-office commands, run one process each, load neither the
 * HTTP framework, the metrics nor the HTTP client (docs/performance.md: the
 * CLI's start).
 */
const server = () => import('../operator/serve-operator.js');
const providerLink = () => import('../operator/provider-link.js');

export async function serve(values: Values): Promise<void> {
  const config = configFrom(values);
  return (await server()).serveOperator(config);
}

export async function migrate(values: Values): Promise<void> {
  const config = configFrom(values);
  const applied = await migrateDatabase(config.database, config.postgres);
  print({ database: backendOf(config.database).display, applied });
}

export async function verify(values: Values): Promise<void> {
  const report = await withService(configFrom(values), (service) => service.verify());
  print(report);
  if (!report.ok) process.exitCode = 1;
}

export async function launchKey(playerId: string | undefined, values: Values): Promise<void> {
  const input = checkedArgs(CreateLaunchKeyRequest, { playerId, game: values.game, integration: values.integration });
  const { integration } = input;
  const audit = cliAudit('operator launch-key', {
    target: `player=${input.playerId} game=${input.game}${integration === undefined ? '' : ` integration=${integration}`}`,
  });
  report(
    await withService(configFrom(values), (service) =>
      audited(service, audit(201), service.createLaunchKey(input.playerId, input.game, audit(201), integration)),
    ),
    launchKeyBody,
  );
}

export async function audit(values: Values): Promise<void> {
  const page = checkedArgs(AuditQuery, { limit: values.limit, cursor: values.cursor });
  const limit = page.limit === undefined ? AUDIT_PAGE_DEFAULT : Number(page.limit);
  if (limit < 1 || limit > AUDIT_PAGE_MAX) throw new UsageError(`--limit must be 1..${AUDIT_PAGE_MAX}`);
  print(await withService(configFrom(values), (service) => service.listAudit(limit, page.cursor === undefined ? undefined : Number(page.cursor))));
}

export async function gameBets(values: Values): Promise<void> {
  const list = (text: string) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  const link = await linkFrom(values);
  printCall(await (await providerLink()).requestGameBets(link, list(values.games!), list(values.currencies!)), link);
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
  databaseInUse.database = config.database;
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
export async function players(action: string, playerId: string, values: Values): Promise<void> {
  const config = configFrom(values);
  switch (action) {
    case 'add': {
      const input = checkedArgs(CreatePlayerRequest, {
        playerId,
        currency: values.currency,
        balance: amountArg('balance', values.balance ?? '0'),
        country: values.country,
      });
      if (input.country !== undefined && !isCountryCode(input.country))
        throw new UsageError(`--country ${input.country} is not an assigned ISO 3166-1 alpha-2 code`);
      const audit = cliAudit('operator players add', { target: `player=${playerId}`, amount: values.balance ?? '0', currency: input.currency });
      return withService(config, async (service) => report(await audited(service, audit(201), service.createPlayer(input, audit(201))), playerBody));
    }
    case 'show':
      return withService(config, async (service) => report(await service.getPlayer(playerId), playerBody));
    case 'adjust': {
      const input = checkedArgs(AdjustmentRequest, {
        id: values.id ?? randomUUID(),
        type: values.type,
        amount: amountArg('amount', values.amount),
        reason: values.reason,
      });
      const audit = cliAudit('operator players adjust', { target: `player=${playerId} ${input.type}=${input.id}`, amount: values.amount! });
      return withService(config, async (service) => {
        const player = await service.getPlayer(playerId);
        const withCurrency = (status: number) => ({ ...audit(status), currency: player.ok ? player.currency : null });
        report(await audited(service, withCurrency(200), service.adjust(playerId, input, withCurrency(200))), (outcome) =>
          adjustmentBody(input.id, outcome.balance),
        );
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
export async function staff(action: 'add' | 'list' | 'revoke', name: string, values: Values): Promise<void> {
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
        report(await audited(service, audit(200), service.revokeStaff(name, audit(200))), (outcome) => ({
          name: outcome.name,
          revokedTokenIds: outcome.tokenIds,
        })),
      );
    }
  }
}

export type IntegrationAction = 'add' | 'list' | 'rotate' | 'pause' | 'resume' | 'off' | 'set' | 'remove';

/** A comma-separated list option; an empty text is the empty list. */
function listOption(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * The integration commands, on the server's database: each change is
 * audited as cli:<user>, moves the stored version that every serving node
 * polls, and prints a new secret or token once. The environment's
 * `default` integration is listed, and changed only in the environment.
 */
export async function integrations(action: IntegrationAction, id: string, values: Values): Promise<void> {
  const config = configFrom(values);
  let keyring;
  try {
    keyring = config.integrationKeys === undefined ? undefined : parseIntegrationKeys(config.integrationKeys);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const providerUrl = values['provider-url'] === undefined ? undefined : values['provider-url'] === '' ? null : values['provider-url'];
  const audit = cliAudit(`operator integrations ${action}`, { target: `integration=${id}` });
  const shown = (made: IntegrationMade) => ({
    ...made.integration,
    ...(made.secret === undefined ? {} : { secret: made.secret }),
    ...(made.secretNext === undefined ? {} : { secretNext: made.secretNext }),
    ...(made.token === undefined ? {} : { token: made.token }),
  });
  return withService(config, async (service) => {
    const admin = new IntegrationAdmin(service.store, keyring, () => Date.now());
    const run = async <T extends { ok: true }>(status: number, pending: Promise<T | Refusal>, view: (value: T) => unknown) =>
      report(await audited(service, audit(status), pending), view);
    switch (action) {
      case 'list': {
        const stored = (await service.store.listIntegrations()).integrations.map(integrationView);
        const environment =
          config.secret === undefined ? [] : [{ id: ENV_INTEGRATION_ID, source: 'environment', state: 'active', tokens: config.accessTokens.length }];
        return print({ items: [...environment, ...stored] });
      }
      case 'add':
        return run(201, admin.add({ id, name: values.name!, ranges: listOption(values.ranges), providerUrl }, audit(201)), shown);
      case 'rotate': {
        const step =
          values.finish === true
            ? { step: 'finish' as const }
            : { step: 'begin' as const, secret: values['no-secret'] !== true, token: values['no-token'] !== true };
        return run(200, admin.rotate(id, step, audit(200)), shown);
      }
      case 'pause':
      case 'resume':
      case 'off': {
        const state = action === 'pause' ? 'paused' : action === 'resume' ? 'active' : 'off';
        return run(200, admin.setState(id, state, audit(200)), shown);
      }
      case 'set':
        return run(200, admin.set(id, { name: values.name, ranges: listOption(values.ranges), providerUrl }, audit(200)), shown);
      case 'remove':
        return run(200, admin.remove(id, audit(200)), (removed) => ({ removed: removed.id }));
    }
  });
}

// ------------------------------------------------ the provider's endpoints

async function linkFrom(values: Values): Promise<ProviderLink> {
  return (await providerLink()).readProviderLink(process.env, {
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
export async function launchUrl(playerId: string | undefined, values: Values): Promise<void> {
  const game = values.game!;
  const mode = values.mode ?? 'real';
  if (mode !== 'real' && mode !== 'fun') throw new UsageError('--mode must be real or fun');
  if (mode === 'real' && !playerId) throw new UsageError('launch-url in real mode needs a player id');
  // The id a launch key is made for obeys docs/protocol.md §5.4, as in POST /admin/launch-keys.
  if (mode === 'real') checkedArgs(CreateLaunchKeyRequest, { playerId, game });
  const link = await linkFrom(values);
  const { requestLaunchUrl } = await providerLink();
  const urls = Object.fromEntries((['lobby', 'deposit', 'refresh'] as const).flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])));
  const common = { mode: mode as 'real' | 'fun', game, language: values.language ?? 'en', ...(Object.keys(urls).length > 0 ? { urls } : {}) };
  if (mode === 'fun')
    return printCall(await requestLaunchUrl(link, { ...common, ...(values.currency === undefined ? {} : { currency: values.currency }) }), link);
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
