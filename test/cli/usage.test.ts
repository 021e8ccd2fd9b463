/**
 * Proves how the command meets a newcomer: `--version` prints the
 * package's version; `--help` and `help` print the usage and succeed;
 * no command at all prints the usage on stderr and exits 2 (a usage
 * error), so that a script that forgot its command does not pass; an
 * unknown command names itself in one line before the usage.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runWagerlink } from '../harness/child-process.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

test('--version prints the version and succeeds', async () => {
  const run = await runWagerlink(['--version']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `wagerlink ${version}\n`);
});

test('--help and help print the usage and succeed', async () => {
  for (const args of [['--help'], ['help']]) {
    const run = await runWagerlink(args);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^wagerlink — the game provider <-> operator wallet interface/);
  }
});

test('no command prints the usage on stderr and exits 2', async () => {
  const run = await runWagerlink([]);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^wagerlink: a command is needed\n\nwagerlink — the game provider/);
});

test('an unknown command is named in one line before the usage', async () => {
  const run = await runWagerlink(['dance']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^wagerlink: unknown command "dance"\n\n/);
});
