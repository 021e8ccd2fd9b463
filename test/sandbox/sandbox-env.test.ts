/**
 * Proves `wagerlink sandbox env`: it prints a data folder's secrets and the
 * sandbox's ids as `export` lines that a shell's `eval` turns into exactly
 * the values the sandbox uses, under the variables the other commands read
 * (a path with a quote in it stays one word); the provider's port and a
 * --database are those given; a folder the sandbox has not started in is one
 * line and exit 1, and nothing is made there; an argument is a usage error.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runWagerlink } from '../harness/child-process.js';
import { loadOrCreateSecrets } from '../../src/sandbox/sandbox-secrets.js';

/** The variables a shell has after `eval "$(wagerlink sandbox env ...)"` of this output. */
function evaluated(output: string): Record<string, string> {
  const printed = execFileSync('bash', ['-c', 'eval "$1" && env -0', 'bash', output], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  return Object.fromEntries(
    printed
      .split('\0')
      .filter((entry) => entry.startsWith('WAGERLINK_'))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

test("sandbox env prints the sandbox's ids and secrets as the variables the commands read", async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'wagerlink-env-')), "it's data");
  mkdirSync(dir);
  const { secrets } = loadOrCreateSecrets(dir);
  const run = await runWagerlink(['sandbox', 'env', '--data', dir, '--provider-port', '9191', '--port', '9190']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  assert.deepEqual(evaluated(run.stdout), {
    WAGERLINK_DATABASE: join(dir, 'operator.db'),
    WAGERLINK_SECRET: secrets.secret,
    WAGERLINK_ACCESS_TOKENS: secrets.accessToken,
    WAGERLINK_ADMIN_TOKEN: secrets.adminToken,
    WAGERLINK_INTEGRATION_KEYS: `sandbox:${secrets.integrationKey}`,
    WAGERLINK_PROVIDER_URL: 'http://127.0.0.1:9191',
    WAGERLINK_OPERATOR_ID: 'sandbox-operator',
    WAGERLINK_WALLET_ID: 'sandbox-wallet',
    WAGERLINK_PROVIDER_ADMIN_TOKEN: secrets.providerAdminToken,
    WAGERLINK_CONFORMANCE_SECRET: secrets.secret,
    WAGERLINK_CONFORMANCE_TOKEN: secrets.accessToken,
    WAGERLINK_CONFORMANCE_ADMIN_TOKEN: secrets.adminToken,
  });
  // The seed key stays in the file: no command needs it.
  assert.doesNotMatch(run.stdout, new RegExp(secrets.seedKey));

  const url = 'postgres://postgres@127.0.0.1:5432/wagerlink';
  const onPostgres = await runWagerlink(['sandbox', 'env', '--data', dir, '--database', url]);
  assert.equal(onPostgres.code, 0, onPostgres.stderr);
  assert.equal(evaluated(onPostgres.stdout).WAGERLINK_DATABASE, url);
  assert.equal(evaluated(onPostgres.stdout).WAGERLINK_PROVIDER_URL, 'http://127.0.0.1:8090');
});

test('sandbox env on a folder the sandbox has not started in says so, exit 1, and makes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wagerlink-env-'));
  const run = await runWagerlink(['sandbox', 'env', '--data', dir]);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.equal(
    run.stderr,
    `wagerlink: ${join(dir, 'sandbox-secrets.json')} does not exist: start the sandbox first (npm start, or wagerlink sandbox --data ${dir})\n`,
  );
  assert.deepEqual(readdirSync(dir), []);
  const missing = join(dir, 'nowhere');
  assert.equal((await runWagerlink(['sandbox', 'env', '--data', missing])).code, 1);
  assert.equal(existsSync(missing), false);

  const argument = await runWagerlink(['sandbox', 'env', 'now']);
  assert.equal(argument.code, 2);
  assert.match(argument.stderr, /^wagerlink: sandbox env takes no arguments, got "now"\n\nUsage:\n {2}wagerlink sandbox env /);
});
