/**
 * Options several commands read the same way, and what main.ts needs to
 * tell a failure in words: the database a command was working on. Light on
 * purpose: main.ts imports it before it knows which command runs.
 */
import { UsageError, type Values } from './command-table.js';
import { processSources, secretFrom, urlHasPassword } from './secret-input.js';

export const usage = (message: string) => new UsageError(message);

/** Where commands take their secrets from: files, options (warned about) and the environment (secret-input.ts). */
export const SECRETS = processSources(usage);

export function portFrom(values: Values): number | undefined {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!/^\d+$/.test(values.port!) || port > 65_535))
    throw new UsageError(`--port must be a whole number 0..65535, got "${values.port}"`);
  return port;
}

/** --database, or the file that holds it; a URL with a password on the command line is warned about. */
export function databaseFrom(values: Values): string | undefined {
  return secretFrom({ value: values.database, file: values['database-file'] }, { option: 'database', secretIn: urlHasPassword }, SECRETS);
}

/**
 * The database the command works on, once known, so that a failure to reach
 * it is told with its name; and what set it, when not the operator commands'
 * --database or WAGERLINK_DATABASE.
 */
export const databaseInUse: { database?: string; setting?: string } = {};
