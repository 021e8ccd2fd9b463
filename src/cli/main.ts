/**
 * The `wagerlink` command. Operator commands read the same configuration as
 * the server (operator-config.ts) and work on the same database, so the
 * back office is usable with the server stopped or running.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isCountryCode } from '../protocol/regions.js';
import { compile } from '../protocol/validate.js';
import { AdjustmentRequest, CreatePlayerRequest } from '../protocol/schemas.js';
import { decimalFromString, inexactNumbers, SIGNIFICANT_DIGITS_MAX } from '../protocol/money.js';
import { operatorOpenApi } from '../operator/operator-openapi.js';
import { adjustmentBody, launchKeyBody, playerBody, roundsBody, transfersBody } from '../operator/operator-views.js';
import { problemJson, type Refusal } from '../protocol/errors.js';
import { stringify } from '../protocol/json.js';
import { ConfigError, CONFIG_VARIABLES, readOperatorConfig, type OperatorConfig } from '../operator/operator-config.js';
import { OperatorService } from '../operator/operator-service.js';
import { serveOperator } from '../operator/serve-operator.js';
import { migrate } from '../stores/sqlite/migrations.js';
import { openDatabase } from '../stores/sqlite/open-database.js';
import { openStore } from '../stores/open-store.js';

const USAGE = `wagerlink — the game provider <-> operator wallet interface

Usage:
  wagerlink operator serve [--host H] [--port P] [--database PATH]
  wagerlink operator migrate [--database PATH]
  wagerlink operator verify [--database PATH]
  wagerlink operator players add PLAYER --currency EUR [--balance 100.00] [--country DE]
  wagerlink operator players show PLAYER
  wagerlink operator players adjust PLAYER --type deposit|withdrawal --amount 10.00 [--id UUID] [--reason TEXT]
  wagerlink operator players block PLAYER [--reason TEXT]
  wagerlink operator players unblock PLAYER
  wagerlink operator players rounds PLAYER [--limit N] [--cursor C]
  wagerlink operator players transactions PLAYER [--limit N] [--cursor C]
  wagerlink operator launch-key PLAYER --game SLUG
  wagerlink openapi operator

Configuration (environment):
${Object.entries(CONFIG_VARIABLES)
  .map(([name, text]) => `  ${name.padEnd(34)}${text}`)
  .join('\n')}

Results are printed as JSON. Exit codes: 0 done, 1 refused or failed, 2 usage.
`;

class UsageError extends Error {
  override name = 'UsageError';
}

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  database: { type: 'string' },
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
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function configFrom(values: Values): OperatorConfig {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) throw new UsageError(`--port must be 0..65535`);
  return readOperatorConfig(process.env, {
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(port === undefined ? {} : { port }),
    ...(values.database === undefined ? {} : { database: values.database }),
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
  const store = await openStore(config.database, { rules: config.rules, cryptoDecimals: config.cryptoDecimals, sqliteWriter: config.sqliteWriter });
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
      const db = openDatabase(config.database);
      try {
        const applied = migrate(db);
        print({ database: config.database, applied });
      } finally {
        db.close();
      }
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
    default:
      throw new UsageError(`unknown operator command "${command ?? ''}"`);
  }
}

export async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [area, command, ...rest] = positionals;
  if (values.help || area === undefined || area === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  switch (area) {
    case 'operator':
      return operator(command, rest, values);
    case 'openapi':
      if (command !== 'operator') throw new UsageError('openapi takes: operator');
      process.stdout.write(`${JSON.stringify(operatorOpenApi(), null, 2)}\n`);
      return;
    default:
      throw new UsageError(`unknown command "${area}"`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const err = error as Error & { code?: string };
  if (error instanceof UsageError || err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    process.stderr.write(`wagerlink: ${err.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof ConfigError || err.name === 'UnsupportedDatabaseError') {
    process.stderr.write(`wagerlink: ${err.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`wagerlink: ${err.stack ?? err.message}\n`);
    process.exitCode = 1;
  }
});
