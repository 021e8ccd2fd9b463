/**
 * Where a command takes a secret from: its option's file (`--secret-file
 * PATH`), the option itself (`--secret S`), or an environment variable
 * (`WAGERLINK_SECRET`). An argument can be read by every user of the
 * machine (ps, /proc/PID/cmdline) and stays in the shell's history, so it
 * still works but is warned about, in one line on stderr; a file or the
 * environment is what scripts and services should use.
 */
import { readFileSync, statSync } from 'node:fs';

/** One secret a command takes. */
export interface SecretOption {
  /** The option's name without dashes: `secret`; its file is `--secret-file`. */
  option: string;
  /** The environment variable that gives it when neither option does. */
  variable?: string;
  /** When the option's value is secret; default always (a database URL is secret only with a password). */
  secretIn?: (value: string) => boolean;
}

export interface SecretSources {
  env: NodeJS.ProcessEnv;
  usage: (message: string) => Error;
  /** Told each warning, one line without its prefix. */
  warn: (line: string) => void;
}

/** The usual sources: this process's environment, and warnings on stderr. */
export function processSources(usage: (message: string) => Error): SecretSources {
  return { env: process.env, usage, warn: (line) => process.stderr.write(`wagerlink: warning: ${line}\n`) };
}

/** Group and others may not read a secret's file: anything in 0o077 is more than its owner. */
const OTHERS_MODE_MASK = 0o077;

/**
 * A secret's file holds the secret on one line; a line break at its end
 * (as editors and `echo` write one) is not part of it. A file readable
 * by group or others is warned about, as ssh does of a private key, but
 * not refused: a container's secret files (Docker's are 0444, Kubernetes'
 * 0644 by default) are readable by all on purpose, with one user inside.
 */
function readSecretFile(path: string, flag: string, sources: SecretSources): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    throw sources.usage(
      `${flag} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable by this user' : code === 'EISDIR' ? 'a directory, not a file' : (error as Error).message}`,
    );
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '') throw sources.usage(`${flag} ${path}: the file is empty`);
  if (/[\r\n]/.test(secret)) throw sources.usage(`${flag} ${path}: the file must hold the secret on one line`);
  if (process.platform !== 'win32') {
    const mode = statSync(path).mode & 0o777;
    if ((mode & OTHERS_MODE_MASK) !== 0) {
      sources.warn(`${flag} ${path} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}); chmod 600 ${path}`);
    }
  }
  return secret;
}

/**
 * The secret from `--OPTION-file`, `--OPTION` or the variable, in that
 * order; undefined when none gives one. Both options at once is a usage
 * error: which one was meant cannot be guessed.
 */
export function secretFrom(given: { value?: string | undefined; file?: string | undefined }, spec: SecretOption, sources: SecretSources): string | undefined {
  const flag = `--${spec.option}`;
  if (given.value !== undefined && given.file !== undefined) throw sources.usage(`${flag} and ${flag}-file both give ${flag}: give one`);
  if (given.file !== undefined) return readSecretFile(given.file, `${flag}-file`, sources);
  if (given.value !== undefined) {
    if (spec.secretIn?.(given.value) ?? true) {
      const instead = [`${flag}-file FILE`, ...(spec.variable === undefined ? [] : [spec.variable])].join(' or ');
      sources.warn(`${flag} on the command line can be read by other users (ps, /proc) and stays in shell history; use ${instead}`);
    }
    return given.value;
  }
  const fromEnv = spec.variable === undefined ? undefined : sources.env[spec.variable];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** A database setting is secret when it is a URL with a password in it. */
export function urlHasPassword(value: string): boolean {
  return URL.canParse(value) && new URL(value).password !== '';
}
