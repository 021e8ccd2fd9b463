/**
 * How the command tells a failure: one line, `wagerlink: <message>`, never a
 * stack trace (`--verbose` or WAGERLINK_DEBUG=1 adds it). Known failures,
 * a usage error, a bad setting, a database that is not there, a port in
 * use, are told in their own words; anything else by its message, with a
 * hint where the stack is.
 */
import { existsSync } from 'node:fs';
import { backendOf } from '../stores/open-store.js';

export interface CliFailure {
  /** A usage error is followed by the usage of the command it concerns. */
  kind: 'usage' | 'failure';
  message: string;
  /** 2 for usage (and a conformance run that could not start), 1 for the rest. */
  exitCode: 1 | 2;
}

/** A command's database is not there: it is told, and nothing is created. */
class MissingDatabaseError extends Error {
  override name = 'MissingDatabaseError';
}

/** A server that could not be reached: its message is `could not reach URL (why)` (src/clients/unreachable.ts). */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
}

/**
 * A server's refusal, one line: `CODE: detail` (docs/protocol.md §3), the
 * status when the answer was no problem+json, and the text as it came when
 * it was not even JSON.
 */
export function refusalLine(status: number | undefined, code: string | undefined, detail: string | undefined): string {
  const told = detail === undefined || detail === '' ? undefined : detail.replace(/\s*\n\s*/g, ' ').trim();
  if (code !== undefined) return told === undefined ? code : `${code}: ${told}`;
  const head = status === undefined ? 'refused' : `refused with HTTP ${status}`;
  return told === undefined ? head : `${head}: ${told}`;
}

/** A problem+json answer's text as one line (refusalLine); any other text is its detail. */
export function refusalOfAnswer(status: number, text: string): string {
  try {
    const problem = JSON.parse(text) as { code?: unknown; detail?: unknown };
    if (problem !== null && typeof problem === 'object' && typeof problem.code === 'string') {
      return refusalLine(status, problem.code, typeof problem.detail === 'string' ? problem.detail : undefined);
    }
  } catch {
    // Not JSON: its text is the detail.
  }
  return refusalLine(status, undefined, text.length > 300 ? `${text.slice(0, 300)}…` : text);
}

/** Failures whose message is already the whole story, told as they are. */
const TOLD_AS_THEY_ARE = new Set([
  'ConfigError',
  'SqliteDriverMissing',
  'UnavailableError',
  'UnreachableError',
  'ProviderConfigError',
  'ProviderLinkError',
  'ListenError',
  'MissingDatabaseError',
  'SandboxSetupError',
  'PagesNotBuilt',
]);
/** Nothing was judged, which exit code 2 says: the conformance kit could not start a run (docs/conformance.md), a verify could not read. */
const CONFORMANCE_NOT_STARTED = new Set(['FixturesError', 'RunNotStarted', 'VerifyNotRead']);

/** PostgreSQL's SQLSTATE for a database that does not exist (invalid_catalog_name). */
const PG_DATABASE_MISSING = '3D000';

/** `host:port` of a postgres:// URL, as a message names it. */
function hostPort(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'its host';
  }
}

function databaseName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
  } catch {
    return url;
  }
}

/**
 * A back-office command's SQLite file must be there already: opening it
 * would create an empty ledger, and the command would answer from that
 * (PLAYER_NOT_FOUND for a player who is in the real one).
 */
export function requireExistingDatabase(database: string): void {
  if (backendOf(database).name !== 'sqlite' || database === ':memory:') return;
  if (existsSync(database)) return;
  throw new MissingDatabaseError(
    `database file ${database} does not exist; create it with "wagerlink operator migrate --database ${database}" ` +
      `(or start "wagerlink operator serve"), or point --database or WAGERLINK_DATABASE at the existing one`,
  );
}

export interface FailureContext {
  /** The database the command works on, once known. */
  database?: string | undefined;
  /** What sets it, as the message names it; default "--database or WAGERLINK_DATABASE" (the sandbox reads no environment). */
  databaseSetting?: string | undefined;
}

export function cliFailure(error: unknown, context: FailureContext): CliFailure {
  const err = (error instanceof Error ? error : new Error(String(error))) as Error & { code?: string; cause?: unknown };
  if (err.name === 'UsageError') return { kind: 'usage', message: err.message, exitCode: 2 };
  if (CONFORMANCE_NOT_STARTED.has(err.name)) return { kind: 'failure', message: err.message, exitCode: 2 };
  const pgCode = err.code ?? (err.cause as { code?: string } | undefined)?.code;
  if (pgCode === PG_DATABASE_MISSING && context.database !== undefined) {
    const database = context.database;
    return {
      kind: 'failure',
      message:
        `database "${databaseName(database)}" does not exist on ${hostPort(database)}; create it (createdb ${databaseName(database)}) ` +
        `or point ${context.databaseSetting ?? '--database or WAGERLINK_DATABASE'} at another`,
      exitCode: 1,
    };
  }
  if (TOLD_AS_THEY_ARE.has(err.name)) return { kind: 'failure', message: err.message, exitCode: 1 };
  return { kind: 'failure', message: `${err.message} (--verbose or WAGERLINK_DEBUG=1 shows where)`, exitCode: 1 };
}
