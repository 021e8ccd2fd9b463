/**
 * Files a server writes are its owner's alone, whatever the umask: under
 * umask 000, a SQLite database opened the stores' way (openDatabase) is made
 * in folders of mode 0700, and the database, its WAL and its shared-memory
 * file are 0600; a database, side files and folder an earlier version left
 * wider are narrowed to 0600 when opened again, while a folder that already
 * existed is the caller's and keeps its mode unless the caller owns it
 * (ownerOnlyFolder's `tighten`), which then learns the mode it had.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerOnlyFile, ownerOnlyFolder, tightenFile } from '../../src/platform/owner-only-files.js';
import { openDatabase } from '../../src/platform/sqlite/open-database.js';
import { tempDir } from '../helpers.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Runs `body` under umask 000, the widest, and restores the test process's umask after. */
function underUmask000<T>(body: () => T): T {
  const before = process.umask(0);
  try {
    return body();
  } finally {
    process.umask(before);
  }
}

/** Opens a database, writes to it so that its WAL holds a commit, and answers each file's mode while it is open. */
function modesWhileOpen(path: string): Record<string, number> {
  const db = openDatabase(path);
  try {
    db.exec('CREATE TABLE IF NOT EXISTS t (x INTEGER); INSERT INTO t VALUES (1)');
    const dir = join(path, '..');
    return Object.fromEntries(readdirSync(dir).map((name) => [name, modeOf(join(dir, name))]));
  } finally {
    db.close();
  }
}

test('a database made under umask 000: its folders 0700, the database, WAL and shared memory 0600', () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'data', 'nested', 'wallet.db');
    const modes = underUmask000(() => modesWhileOpen(path));
    assert.deepEqual(modes, { 'wallet.db': 0o600, 'wallet.db-shm': 0o600, 'wallet.db-wal': 0o600 });
    assert.equal(modeOf(join(dir, 'data')), 0o700);
    assert.equal(modeOf(join(dir, 'data', 'nested')), 0o700);
  } finally {
    cleanup();
  }
});

test('a database an earlier version left 0644 is narrowed to 0600 with its side files; the folder that held it is left alone', () => {
  const { dir, cleanup } = tempDir();
  try {
    const folder = join(dir, 'shared');
    mkdirSync(folder);
    chmodSync(folder, 0o755);
    const path = join(folder, 'wallet.db');
    openDatabase(path).close();
    // As an earlier version under umask 022 left them, with the side files a crash leaves behind (empty: SQLite's to handle).
    chmodSync(path, 0o644);
    for (const suffix of ['-wal', '-shm', '-journal']) {
      writeFileSync(`${path}${suffix}`, '');
      chmodSync(`${path}${suffix}`, 0o644);
    }
    const modes = underUmask000(() => {
      const db = openDatabase(path);
      db.close();
      return Object.fromEntries(readdirSync(folder).map((name) => [name, modeOf(join(folder, name))]));
    });
    for (const [name, mode] of Object.entries(modes)) assert.equal(mode, 0o600, `${name} is 0${mode.toString(8)}`);
    assert.equal(modes['wallet.db'], 0o600);
    assert.equal(modeOf(folder), 0o755, "a folder that existed is the caller's");
  } finally {
    cleanup();
  }
});

test('a folder the caller owns is narrowed and its former mode answered; files are made 0600 and narrowed, never truncated', () => {
  const { dir, cleanup } = tempDir();
  try {
    const folder = join(dir, 'sandbox');
    mkdirSync(folder);
    chmodSync(folder, 0o755);
    assert.equal(ownerOnlyFolder(folder), undefined);
    assert.equal(modeOf(folder), 0o755);
    assert.equal(ownerOnlyFolder(folder, { tighten: true }), 0o755);
    assert.equal(modeOf(folder), 0o700);
    assert.equal(ownerOnlyFolder(folder, { tighten: true }), undefined, 'a folder already 0700 is left as it is');

    const file = join(folder, 'log');
    assert.equal(tightenFile(file), undefined, 'a missing file stays missing');
    underUmask000(() => ownerOnlyFile(file));
    assert.equal(modeOf(file), 0o600);
    writeFileSync(file, 'kept');
    chmodSync(file, 0o664);
    ownerOnlyFile(file);
    assert.equal(modeOf(file), 0o600);
    assert.equal(statSync(file).size, 4, 'the file keeps what it held');
    chmodSync(file, 0o640);
    assert.equal(tightenFile(file), 0o640);
    assert.equal(modeOf(file), 0o600);
  } finally {
    cleanup();
  }
});
