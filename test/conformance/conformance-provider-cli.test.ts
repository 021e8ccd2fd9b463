/**
 * Proves `wagerlink conformance provider` as a command, run as a process
 * against our provider listening in this test: --help; exit 2 for usage
 * errors and for an endpoint that does not answer (nothing judged); exit
 * 1 for a target the provider does not accept, found before any case and
 * written in the report; exit 0 for a passing run, with its JSON, JUnit and HTML reports written;
 * exit 1 for a run that finds a fault, with the curl command in its
 * output, and --bail stopping it; the secret and the next secret taken
 * from files and from the kit's variables, without the warning that a
 * secret on the command line gets.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NEXT_SECRET, SECRET, tempDir } from '../helpers.js';
import { cleanEnv, runWagerlink } from '../harness/child-process.js';
import { OPERATOR_ID, WALLET_ID } from '../provider/provider-helpers.js';
import { faultyProvider } from './faulty-providers.js';
import { listeningProvider, type ListeningProvider, OUTSIDE_WHITELIST_CASES } from './provider-kit-helpers.js';

/** A run in a child process takes seconds; on a loaded machine, more (ms). */
const RUN_MS_MAX = 120_000;

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('wagerlink conformance provider', () => {
  let server: ListeningProvider;
  let dir: string;
  let cleanup: () => void;
  const target = (endpoint: string, secret = SECRET) => [
    'conformance',
    'provider',
    '--endpoint',
    endpoint,
    '--secret',
    secret,
    '--operator-id',
    OPERATOR_ID,
    '--wallet-id',
    WALLET_ID,
    '--game',
    'dice',
  ];

  before(async () => {
    server = await listeningProvider();
    ({ dir, cleanup } = tempDir('wagerlink-conformance-provider-cli-'));
  });
  after(async () => {
    cleanup?.();
    await server?.close();
  });

  test('--help tells the options, the areas and the exit codes; the general help names the command', async () => {
    const result = await runWagerlink(['conformance', 'provider', '--help']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /--operator-id ID/);
    assert.match(result.stdout, /Areas: auth, ip-whitelist, validation, launch-url, game-bets, errors\./);
    assert.match(result.stdout, /Exit codes: 0 every case judged passed, 1 a case failed, or the check before any case did [^]*, 2 usage/);
    const general = await runWagerlink(['--help']);
    assert.match(general.stdout, /wagerlink conformance provider --endpoint URL/);
    const kit = await runWagerlink(['conformance', '--help']);
    assert.match(kit.stdout, /wagerlink conformance provider --help/);
  });

  test('usage errors exit 2 and say what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['conformance', 'provider', '--secret', SECRET], /needs --endpoint/],
      [['conformance', 'provider', '--endpoint', 'ftp://example'], /must be an http\(s\) URL/],
      [target(server.origin).filter((arg) => arg !== '--game' && arg !== 'dice'), /needs --game/],
      [[...target(server.origin), '--report', join(dir, 'out.txt')], /ends in \.json, \.xml or \.html/],
      [[...target(server.origin), '--only', 'auth,no-such-area'], /--only no-such-area: no such area or case/],
      [[...target(server.origin), '--currency', 'XYZ1'], /knows no decimals for XYZ1/],
      [[...target(server.origin), '--no-such-option'], /Unknown option '--no-such-option'/],
    ];
    for (const [args, message] of cases) {
      const result = await runWagerlink(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });

  test('a secret the provider does not hold is a finding before any case: exit 1, with the report written', async () => {
    const path = join(dir, 'not-held.json');
    const result = await runWagerlink([...target(server.origin, 'not-the-secret'), '--report', path]);
    assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
    assert.match(result.stdout, /^Conformance of the provider at /);
    assert.match(result.stdout, /^FAIL before any case: ask \/game-bets for the ladders of dice in /m);
    assert.match(result.stdout, /- expected 200, got 401 INVALID_SIGNATURE/);
    assert.doesNotMatch(result.stdout, /^(PASS|SKIP) /m);
    const json = JSON.parse(readFileSync(path, 'utf8')) as { preflight: { outcome: string } };
    assert.equal(json.preflight.outcome, 'failed');
  });

  test('an endpoint that does not answer exits 2 before any case', async () => {
    const result = await runWagerlink(target('http://127.0.0.1:9'));
    assert.equal(result.code, 2, result.stdout);
    assert.match(result.stderr, /^wagerlink: could not reach http:\/\/127\.0\.0\.1:9 \(connection refused\): check the endpoint$/m);
    assert.doesNotMatch(result.stdout, /PASS|FAIL/);
  });

  test('the secret and the next secret come from files or the environment, without a warning, and the rotation cases run', async () => {
    const file = (name: string, secret: string) => {
      const path = join(dir, name);
      writeFileSync(path, `${secret}\n`, { mode: 0o600 });
      return path;
    };
    const rest = ['--operator-id', OPERATOR_ID, '--wallet-id', WALLET_ID, '--game', 'dice', '--only', 'auth'];
    const fromFiles = await runWagerlink(
      [
        'conformance',
        'provider',
        '--endpoint',
        server.origin,
        '--secret-file',
        file('secret', SECRET),
        '--next-secret-file',
        file('next', NEXT_SECRET),
        ...rest,
      ],
      { timeoutMs: RUN_MS_MAX },
    );
    assert.equal(fromFiles.code, 0, `${fromFiles.stdout}${fromFiles.stderr}`);
    assert.match(fromFiles.stdout, /^PASS .* auth\.next-secret-/m);
    assert.doesNotMatch(fromFiles.stderr, /warning/);
    const fromEnv = await runWagerlink(['conformance', 'provider', '--endpoint', server.origin, ...rest], {
      env: cleanEnv({ WAGERLINK_CONFORMANCE_SECRET: SECRET, WAGERLINK_CONFORMANCE_NEXT_SECRET: NEXT_SECRET }),
      timeoutMs: RUN_MS_MAX,
    });
    assert.equal(fromEnv.code, 0, `${fromEnv.stdout}${fromEnv.stderr}`);
    assert.match(fromEnv.stdout, /^PASS .* auth\.next-secret-/m);
    assert.doesNotMatch(fromEnv.stderr, /warning/);
    const onCommandLine = await runWagerlink([...target(server.origin), '--only', 'auth'], { timeoutMs: RUN_MS_MAX });
    assert.equal(onCommandLine.code, 0, `${onCommandLine.stdout}${onCommandLine.stderr}`);
    assert.match(onCommandLine.stderr, /^wagerlink: warning: --secret on the command line can be read by other users/m);
  });

  test('a passing run exits 0 and writes its reports', async () => {
    const paths = ['run.json', 'run.xml', 'run.html'].map((name) => join(dir, name));
    const args = [
      ...target(server.origin),
      '--currency',
      'EUR,JPY',
      '--currency',
      'BTC',
      '--next-secret',
      NEXT_SECRET,
      ...paths.flatMap((path) => ['--report', path]),
    ];
    const result = await runWagerlink(args, { timeoutMs: RUN_MS_MAX });
    assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
    assert.match(result.stdout, /^PASS \[ *1\/\d+\] auth\./m);
    // Only a run from outside the whitelist (--outside-whitelist) judges its refusal.
    assert.deepEqual(
      [...result.stdout.matchAll(/^SKIP \[ *\d+\/\d+\] (\S+)/gm)].map((match) => match[1]),
      OUTSIDE_WHITELIST_CASES,
    );
    const json = JSON.parse(readFileSync(paths[0]!, 'utf8')) as { side: string; summary: { failed: number; skipped: number } };
    assert.equal(json.side, 'provider');
    assert.equal(json.summary.failed, 0);
    assert.match(readFileSync(paths[1]!, 'utf8'), /^<\?xml/);
    assert.match(readFileSync(paths[2]!, 'utf8'), /^<!DOCTYPE html>/);
  });

  test('a run that finds a fault exits 1, shows the curl command, and --bail stops at the first failure', async () => {
    const proxy = await faultyProvider(server.origin, 'signature-unchecked');
    try {
      const result = await runWagerlink([...target(proxy.origin), '--only', 'auth', '--bail'], { timeoutMs: RUN_MS_MAX });
      assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
      assert.match(result.stdout, /^FAIL .* auth\.signature-missing-launch /m);
      assert.match(result.stdout, /expected 401 INVALID_SIGNATURE, got 200/);
      assert.match(result.stdout, /curl -sS -i '[^']+\/generate-launch-url'/);
      assert.match(result.stdout, /not run: --bail stopped the run at the first failure/);
      assert.equal(result.stdout.match(/^FAIL /gm)?.length, 1);
    } finally {
      await proxy.close();
    }
  });
});
