/**
 * The sandbox's secrets: made once, from the operating system's random
 * source, the first time a data folder is used, and kept in it
 * (sandbox-secrets.json, readable by its owner only) so that a restart keeps
 * the same integration: the provider's outbox can still sign rounds it holds
 * for the operator, and a back-office URL a person kept still works. The
 * provider's seed key is one of them: it seals the server seeds of rounds
 * not yet played, so it is kept here, apart from the provider's database.
 *
 * They are kept in clear, unlike the wallet's launch keys: an HMAC secret
 * signs and checks, so whoever checks must hold it, and the tokens here are
 * the ones the sandbox itself sends and prints. Their protection is the
 * file's mode, 0600, in a folder of mode 0700 (owner-only-files.ts).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OWNER_ONLY_FILE_MODE, ownerOnlyFolder, tightenFile } from '../platform/owner-only-files.js';

export const SECRETS_FILE = 'sandbox-secrets.json';

/** Random bytes per secret: 256 bits, the HMAC-SHA256 key size, so that no secret is the weak link. */
const SECRET_BYTES = 32;

export interface SandboxSecrets {
  /** The integration's HMAC secret, both directions (docs/protocol.md §2). */
  secret: string;
  /** The bearer token the provider sends the operator. */
  accessToken: string;
  /** The operator's back-office token. */
  adminToken: string;
  /** The provider's back-office token. */
  providerAdminToken: string;
  /** Signs the provider's launch tokens. */
  launchTokenSecret: string;
  /** The provider's seed key (32 bytes, base64url): seals the server seeds of rounds not yet played (docs/games.md). */
  seedKey: string;
  /** The operator's integration key (32 bytes, base64url): seals the secrets of the integrations it stores (docs/operator.md). */
  integrationKey: string;
}

/** Keys a later version added: a data folder made before one existed gets it, and keeps every secret it had. */
const ADDED_KEYS = ['seedKey', 'integrationKey'] as const;

const NAMES = ['secret', 'accessToken', 'adminToken', 'providerAdminToken', 'launchTokenSecret'] as const;

export class SandboxSetupError extends Error {
  override name = 'SandboxSetupError';
}

const one = () => randomBytes(SECRET_BYTES).toString('base64url');

function fresh(): SandboxSecrets {
  return {
    secret: one(),
    accessToken: one(),
    adminToken: one(),
    providerAdminToken: one(),
    launchTokenSecret: one(),
    seedKey: one(),
    integrationKey: one(),
  };
}

/** The integration's secrets of a secrets file's text, each checked; a file that is not such is a SandboxSetupError. */
function checkedSecrets(path: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SandboxSetupError(`${path} is not JSON: delete it to make new secrets (the data folder's players stay)`);
  }
  const value = parsed as Record<string, unknown>;
  for (const name of NAMES) {
    if (typeof value[name] !== 'string' || (value[name] as string).length < 16) {
      throw new SandboxSetupError(`${path}: ${name} is missing or shorter than 16 characters: delete the file to make new secrets`);
    }
  }
  return value;
}

/** Reads the data folder's secrets, or makes and keeps them (mode 0600) when it has none. */
export function loadOrCreateSecrets(dataDir: string): { secrets: SandboxSecrets; created: boolean } {
  ownerOnlyFolder(dataDir);
  const path = join(dataDir, SECRETS_FILE);
  let text: string | undefined;
  try {
    // A file an earlier version, or a person's copy, left wider is narrowed before it is read.
    tightenFile(path);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new SandboxSetupError(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (text === undefined) {
    const secrets = fresh();
    // 'wx': two sandboxes started at once on one folder cannot both write; the loser fails rather than overwrite.
    writeFileSync(path, `${JSON.stringify(secrets, null, 2)}\n`, { mode: OWNER_ONLY_FILE_MODE, flag: 'wx' });
    // The mode above is masked by the umask; this makes it exactly owner-only.
    chmodSync(path, OWNER_ONLY_FILE_MODE);
    return { secrets, created: true };
  }
  const value = checkedSecrets(path, text);
  for (const name of ADDED_KEYS) {
    if (value[name] !== undefined && (typeof value[name] !== 'string' || value[name].length < 16)) {
      throw new SandboxSetupError(`${path}: ${name} is not a key: delete the file to make new secrets`);
    }
  }
  const missing = ADDED_KEYS.filter((name) => value[name] === undefined);
  if (missing.length > 0) {
    // A data folder made before these keys existed: they are added, and the integration's secrets stay as they were.
    const secrets = { ...value, ...Object.fromEntries(missing.map((name) => [name, one()])) } as unknown as SandboxSecrets;
    const next = `${path}.new`;
    writeFileSync(next, `${JSON.stringify(secrets, null, 2)}\n`, { mode: OWNER_ONLY_FILE_MODE });
    chmodSync(next, OWNER_ONLY_FILE_MODE);
    renameSync(next, path);
    return { secrets, created: false };
  }
  return { secrets: value as unknown as SandboxSecrets, created: false };
}

/**
 * The data folder's secrets as they are, for `wagerlink sandbox env`:
 * undefined when the sandbox has not made them yet. Nothing is made,
 * added or narrowed: only a start of the sandbox writes in its folder.
 */
export function readSecrets(dataDir: string): (Omit<SandboxSecrets, 'seedKey' | 'integrationKey'> & { integrationKey?: string }) | undefined {
  const path = join(dataDir, SECRETS_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT') return undefined;
    throw new SandboxSetupError(`cannot read ${path}: ${code === 'EACCES' ? 'not readable by this user' : (error as Error).message}`);
  }
  return checkedSecrets(path, text) as unknown as Omit<SandboxSecrets, 'seedKey' | 'integrationKey'> & { integrationKey?: string };
}
