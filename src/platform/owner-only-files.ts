/**
 * Every file a server writes is readable by its owner alone: databases
 * hold players and money, the sandbox's secrets file holds the HMAC secret
 * and tokens in clear, and the request log names players. Files are 0600
 * and the folders a server makes for them 0700, whatever the umask.
 *
 * Two layers, because each misses what the other catches. `serve` and
 * `sandbox` set the process's umask to 0o077 first (restrictUmask), so that
 * every file the process makes is owner-only, including those made by code
 * that names no mode (SQLite's rollback journal, a library's files, files
 * added later). And the code that makes a known file or folder gives it its
 * mode explicitly (ownerOnlyFolder, ownerOnlyFile): a store is also opened
 * by back-office commands and by programs that embed it, where the umask is
 * not ours to set, and a file or folder left by an earlier version with a
 * wider mode is made owner-only when it is opened again.
 */
import { chmodSync, closeSync, fchmodSync, fstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMainThread } from 'node:worker_threads';

/** The umask of `serve` and `sandbox`: no permission for the group or others on anything they create. */
export const OWNER_ONLY_UMASK = 0o077;
/** A file's mode: read and write for its owner, nothing for anyone else. */
export const OWNER_ONLY_FILE_MODE = 0o600;
/** A folder's mode: its owner alone lists, enters and writes it. */
export const OWNER_ONLY_FOLDER_MODE = 0o700;

/** The permission bits a file must not have: any for the group or others, and execution. */
const WIDER_THAN_FILE = 0o177;
/** The permission bits a folder must not have: any for the group or others. */
const WIDER_THAN_FOLDER = 0o077;

/** Sets the process's umask to OWNER_ONLY_UMASK (the main thread's: a worker thread cannot set it, and shares it). */
export function restrictUmask(): void {
  if (isMainThread) process.umask(OWNER_ONLY_UMASK);
}

/**
 * Makes `path` and any missing folder above it, each 0700. An existing
 * folder is left as it is: it may be shared (a home folder, /var/lib),
 * unless `tighten` says the caller owns it, when a wider mode is narrowed
 * to 0700. Answers the mode the folder had when it was narrowed.
 */
export function ownerOnlyFolder(folder: string, options: { tighten?: boolean } = {}): number | undefined {
  const path = resolve(folder);
  const made = mkdirSync(path, { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
  if (made !== undefined) {
    const first = resolve(made);
    // The mode given to mkdir is masked by the umask: set it exactly on each folder made.
    for (let dir = path; ; dir = dirname(dir)) {
      chmodSync(dir, OWNER_ONLY_FOLDER_MODE);
      if (dir === first || dirname(dir) === dir) break;
    }
    return undefined;
  }
  if (!options.tighten) return undefined;
  const mode = statSync(path).mode & 0o777;
  if ((mode & WIDER_THAN_FOLDER) === 0) return undefined;
  chmodSync(path, OWNER_ONLY_FOLDER_MODE);
  return mode;
}

/**
 * A warning for a server to log when the folder that holds its database
 * (`databasePath`) lets the group or others in, or undefined when it does
 * not. Such a folder is not narrowed (ownerOnlyFolder leaves a folder that
 * existed as it is): the files in it are 0600 all the same, but whoever
 * may list it sees their names and sizes, and the owner should choose.
 */
export function openFolderWarning(databasePath: string): string | undefined {
  const folder = dirname(resolve(databasePath));
  const mode = statSync(folder).mode & 0o777;
  if ((mode & WIDER_THAN_FOLDER) === 0) return undefined;
  return `the database's folder ${folder} is open to others (mode 0${mode.toString(8)}): the files in it are readable by their owner alone, but others may list them; make it owner-only with chmod 700 ${folder}`;
}

/** Makes `path` an owner-only file: created empty (0600) when missing, never truncated, narrowed to 0600 when wider. */
export function ownerOnlyFile(path: string): void {
  const fd = openSync(path, 'a', OWNER_ONLY_FILE_MODE);
  try {
    if ((fstatSync(fd).mode & WIDER_THAN_FILE) !== 0) fchmodSync(fd, OWNER_ONLY_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/** Narrows an existing file to 0600 when its mode is wider; a missing file is left missing. Answers the mode it had when narrowed. */
export function tightenFile(path: string): number | undefined {
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & WIDER_THAN_FILE) === 0) return undefined;
    chmodSync(path, OWNER_ONLY_FILE_MODE);
    return mode;
  } catch (error) {
    // Gone, or gone in between: SQLite removes a WAL when its last connection closes, perhaps another process's.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
