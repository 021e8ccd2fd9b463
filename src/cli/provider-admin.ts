/**
 * `wagerlink provider payouts ...` and `wagerlink provider outbox ...`: the
 * provider's back office (/admin, docs/provider.md) over HTTP with its
 * admin token, so that they work against a running server from anywhere.
 * A payout is idempotent by its id (derived by the provider when none is
 * given), so a command, or a whole import, may be run again after a
 * failure: what was created is answered as already there.
 */
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { decimalFromString } from '../protocol/money.js';
import { stringify } from '../protocol/json.js';
import { Uuid } from '../protocol/schemas.js';
import { compile } from '../protocol/validate.js';
import { readLeaderboard, type LeaderboardRow } from './leaderboard-csv.js';
import { processSources, secretFrom } from './secret-input.js';
import { couldNotReach } from '../clients/unreachable.js';
import { refusalOfAnswer, UnreachableError } from './cli-failure.js';
import { ADMIN_HELP } from './provider-admin-help.js';

/** The flags these commands read (parsed by main.ts). */
export interface AdminFlags {
  provider?: string | undefined;
  'admin-token'?: string | undefined;
  'admin-token-file'?: string | undefined;
  operator?: string | undefined;
  player?: string | undefined;
  currency?: string | undefined;
  amount?: string | undefined;
  campaign?: string | undefined;
  payout?: string | undefined;
  status?: string | undefined;
  reference?: string | undefined;
  limit?: string | undefined;
  help?: boolean | undefined;
}

/** How long one back-office call may take: it answers after one durable commit, so this is a provider that does not answer. */
const ADMIN_CALL_TIMEOUT_MS = 30_000;
/** Characters of the import's progress bar: with its five counts of up to two digits it fits an 80-column terminal. */
const PROGRESS_BAR_WIDTH = 10;

type Usage = (message: string) => Error;

interface Connection {
  base: string;
  token: string;
}

interface Answered {
  status: number;
  text: string;
}

function connectionOf(flags: AdminFlags, usage: Usage): Connection {
  const base = flags.provider ?? process.env.WAGERLINK_PROVIDER_URL;
  const token = secretFrom(
    { value: flags['admin-token'], file: flags['admin-token-file'] },
    { option: 'admin-token', variable: 'WAGERLINK_PROVIDER_ADMIN_TOKEN' },
    processSources(usage),
  );
  if (!base) throw usage("--provider URL (or WAGERLINK_PROVIDER_URL) is required: the provider's base URL");
  if (!token) throw usage('--admin-token-file FILE (or WAGERLINK_PROVIDER_ADMIN_TOKEN, or --admin-token) is required');
  try {
    new URL(base);
  } catch {
    throw usage(`--provider must be an absolute URL, got "${base}"`);
  }
  return { base: base.replace(/\/+$/, ''), token };
}

/** One call of the back office; a provider that cannot be reached is an UnreachableError naming it. */
async function call(connection: Connection, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answered> {
  try {
    const answer = await request(`${connection.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${connection.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headersTimeout: ADMIN_CALL_TIMEOUT_MS,
      bodyTimeout: ADMIN_CALL_TIMEOUT_MS,
    });
    return { status: answer.statusCode, text: await answer.body.text() };
  } catch (error) {
    const err = error as Error & { code?: string };
    throw new UnreachableError(couldNotReach(connection.base, err.code ?? err.name, err.message));
  }
}

/** A 2xx answer's JSON to stdout; a refusal is one line on stderr, `wagerlink: CODE: detail`, exit code 1. */
function printAnswer(answer: Answered): void {
  if (answer.status >= 200 && answer.status < 300) {
    process.stdout.write(`${answer.text}\n`);
    return;
  }
  process.stderr.write(`wagerlink: ${refusalOfAnswer(answer.status, answer.text)}\n`);
  process.exitCode = 1;
}

function required(flags: AdminFlags, name: keyof AdminFlags, usage: Usage): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw usage(`--${name} is required`);
  return value;
}

const uuid = compile(Uuid);

function uuidFlag(flags: AdminFlags, name: 'campaign' | 'payout', usage: Usage): string {
  const value = required(flags, name, usage);
  if (!uuid.check(value).ok) throw usage(`--${name} must be a UUID, got "${value}"`);
  return value;
}

export async function providerAdmin(command: 'payouts' | 'outbox', rest: string[], flags: AdminFlags, usage: Usage): Promise<void> {
  const [action, target] = rest;
  const helpKey = action !== undefined && `${command} ${action}` in ADMIN_HELP ? (`${command} ${action}` as keyof typeof ADMIN_HELP) : command;
  if (flags.help) {
    process.stdout.write(ADMIN_HELP[helpKey]);
    return;
  }
  if (command === 'payouts') {
    if (action === 'create') return createPayout(connectionOf(flags, usage), flags, usage);
    if (action === 'import') {
      if (!target) throw usage('payouts import needs a CSV file');
      return importPayouts(target, flags, usage);
    }
    throw usage(`payouts takes: create, import (got "${action ?? ''}")`);
  }
  switch (action) {
    case 'list': {
      const connection = connectionOf(flags, usage);
      const query = new URLSearchParams();
      if (flags.status !== undefined) query.set('status', flags.status);
      if (flags.operator !== undefined) query.set('operatorId', flags.operator);
      if (flags.limit !== undefined) query.set('limit', flags.limit);
      const text = query.toString();
      return printAnswer(await call(connection, 'GET', `/admin/outbox${text === '' ? '' : `?${text}`}`));
    }
    case 'retry':
    case 'resolve': {
      if (!target || !/^[1-9][0-9]*$/.test(target)) throw usage(`outbox ${action} needs an item id (a positive integer), got "${target ?? ''}"`);
      const connection = connectionOf(flags, usage);
      if (action === 'retry') return printAnswer(await call(connection, 'POST', `/admin/outbox/${target}/retry`));
      const reference = required(flags, 'reference', usage);
      return printAnswer(await call(connection, 'POST', `/admin/outbox/${target}/resolve`, { reference }));
    }
    default:
      throw usage(`outbox takes: list, retry, resolve (got "${action ?? ''}")`);
  }
}

async function createPayout(connection: Connection, flags: AdminFlags, usage: Usage): Promise<void> {
  const amount = required(flags, 'amount', usage);
  if (!decimalFromString(amount)) throw usage(`--amount must be decimal text such as 50.00, got "${amount}"`);
  const body = {
    operatorId: required(flags, 'operator', usage),
    playerId: required(flags, 'player', usage),
    currency: required(flags, 'currency', usage),
    amount: amount.trim(),
    campaignId: uuidFlag(flags, 'campaign', usage),
    ...(flags.payout === undefined ? {} : { payoutId: uuidFlag(flags, 'payout', usage) }),
  };
  printAnswer(await call(connection, 'POST', '/admin/payouts', body));
}

type Outcome = 'created' | 'alreadyThere' | 'conflicts' | 'refused' | 'failed';

interface RowProblem {
  line: number;
  playerId: string;
  outcome: Outcome;
  status?: number;
  code?: string;
  detail: string;
}

function outcomeOf(status: number): Outcome {
  if (status === 202) return 'created';
  if (status === 200) return 'alreadyThere';
  if (status === 409) return 'conflicts';
  // A provider that is down or overloaded refused nothing: the row may be sent again.
  if (status >= 500 || status === 408 || status === 429) return 'failed';
  return 'refused';
}

/**
 * The bar's line, in the summary's own words and counts, so that what the
 * bar ends on is what the JSON summary says: `[####] 3/3 created 0
 * alreadyThere 0 conflicts 0 refused 3 failed 0`.
 */
function progressLine(bar: string, done: number, total: number, counts: Record<Outcome, number>): string {
  const told = (Object.keys(counts) as Outcome[]).map((outcome) => `${outcome} ${counts[outcome]}`);
  return `[${bar}] ${done}/${total} ${told.join(' ')}`;
}

/** Progress on stderr: a bar redrawn in place on a terminal, a line per row otherwise (a log, a pipe). */
function progress(total: number): { row: (done: number, row: LeaderboardRow, outcome: Outcome, counts: Record<Outcome, number>) => void; end: () => void } {
  const tty = process.stderr.isTTY === true;
  return {
    row: (done, row, outcome, counts) => {
      if (tty) {
        const filled = Math.round((done / total) * PROGRESS_BAR_WIDTH);
        const bar = `${'#'.repeat(filled)}${'.'.repeat(PROGRESS_BAR_WIDTH - filled)}`;
        process.stderr.write(`\r${progressLine(bar, done, total, counts)}`);
      } else {
        process.stderr.write(`payouts ${done}/${total}: line ${row.line} ${row.playerId} ${outcome}\n`);
      }
    },
    end: () => {
      if (tty) process.stderr.write('\n');
    },
  };
}

async function importPayouts(file: string, flags: AdminFlags, usage: Usage): Promise<void> {
  const operatorId = required(flags, 'operator', usage);
  const campaignId = uuidFlag(flags, 'campaign', usage);
  const connection = connectionOf(flags, usage);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw usage(`cannot read ${file}: ${(error as Error).message}`);
  }
  const read = readLeaderboard(text);
  if (!read.ok) {
    for (const { line, problem } of read.problems) process.stderr.write(`${file}:${line}: ${problem}\n`);
    process.stderr.write(`${read.problems.length} bad line${read.problems.length === 1 ? '' : 's'}; nothing was sent\n`);
    process.exitCode = 1;
    return;
  }
  const counts: Record<Outcome, number> = { created: 0, alreadyThere: 0, conflicts: 0, refused: 0, failed: 0 };
  const problems: RowProblem[] = [];
  const shown = progress(read.rows.length);
  for (const [index, row] of read.rows.entries()) {
    const body = {
      operatorId,
      playerId: row.playerId,
      currency: row.currency,
      amount: row.amount,
      campaignId,
      ...(row.payoutId === undefined ? {} : { payoutId: row.payoutId }),
    };
    let outcome: Outcome;
    try {
      const answer = await call(connection, 'POST', '/admin/payouts', body);
      outcome = outcomeOf(answer.status);
      if (outcome !== 'created' && outcome !== 'alreadyThere') {
        let problem: { code?: string; detail?: string } = {};
        try {
          problem = JSON.parse(answer.text) as typeof problem;
        } catch {
          // Not a problem+json: its text is the detail.
        }
        problems.push({
          line: row.line,
          playerId: row.playerId,
          outcome,
          status: answer.status,
          ...(problem.code === undefined ? {} : { code: problem.code }),
          detail: problem.detail ?? answer.text,
        });
      }
    } catch (error) {
      outcome = 'failed';
      problems.push({ line: row.line, playerId: row.playerId, outcome, detail: (error as Error).message });
    }
    counts[outcome] += 1;
    shown.row(index + 1, row, outcome, counts);
  }
  shown.end();
  process.stdout.write(`${stringify({ file, rows: read.rows.length, ...counts, problems })}\n`);
  if (counts.conflicts + counts.refused + counts.failed > 0) process.exitCode = 1;
}
