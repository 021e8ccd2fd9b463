/**
 * Proves `wagerlink conformance operator` as a command, run as a process
 * against our operator listening in this test: --help; exit 2 for usage,
 * a fixtures file that is wrong, and an endpoint that does not answer;
 * exit 1 for fixtures that open no session (a wrong secret), said in words
 * with every report asked for written; exit 0 for a passing run, with its
 * JSON, JUnit and HTML reports written; exit 1 for a run that finds a fault, with the curl
 * command in its output and --bail stopping it; the secret, token and
 * admin token taken from files and from the kit's variables without a
 * warning, warned about on the command line and in a file others can read,
 * and refused from a missing, empty or two-line file; and the expiry cases
 * on a real clock, waiting as long as the fixtures file says.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, tempDir } from '../helpers.js';
import { cleanEnv, runWagerlink } from '../harness/child-process.js';
import { faultyProxy } from './faulty-operators.js';
import { listeningOperator, type ListeningOperator } from './kit-helpers.js';

/** A run of a few areas in a child process takes seconds; on a loaded machine, more (ms). */
const RUN_MS_MAX = 120_000;

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('wagerlink conformance operator', () => {
  let server: ListeningOperator;
  let dir: string;
  let cleanup: () => void;
  const base = () => ['conformance', 'operator', '--endpoint', server.origin, '--secret', SECRET, '--token', ACCESS_TOKEN];

  before(async () => {
    server = await listeningOperator('sqlite');
    ({ dir, cleanup } = tempDir('wagerlink-conformance-cli-'));
  });
  after(async () => {
    cleanup?.();
    await server?.close();
  });

  test('--help tells the options, the areas and the exit codes', async () => {
    const result = await runWagerlink(['conformance', '--help']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /--endpoint URL/);
    assert.match(result.stdout, /Areas: auth, validation, bets-wins/);
    assert.match(result.stdout, /Exit codes: 0 every case judged passed, 1 a case failed, or the check before any case did [^]*, 2 usage/);
    const general = await runWagerlink(['--help']);
    assert.match(general.stdout, /wagerlink conformance operator --endpoint URL/);
  });

  test('usage errors exit 2 and say what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['conformance', 'operator', '--secret', SECRET, '--token', ACCESS_TOKEN, '--admin-token', ADMIN_TOKEN], /needs --endpoint/],
      [
        ['conformance', 'operator', '--endpoint', 'ftp://example', '--secret', SECRET, '--token', ACCESS_TOKEN, '--admin-token', ADMIN_TOKEN],
        /must be an http\(s\) URL/,
      ],
      [[...base()], /needs --fixtures FILE or the admin token/],
      [[...base(), '--admin-token', ADMIN_TOKEN, '--report', join(dir, 'out.txt')], /ends in \.json, \.xml or \.html/],
      [[...base(), '--admin-token', ADMIN_TOKEN, '--only', 'auth,no-such-area'], /--only no-such-area: no such area or case/],
      [['conformance', 'nothing'], /conformance takes: operator, provider/],
      [['conformance', 'provider'], /conformance provider needs --endpoint/],
    ];
    for (const [args, message] of cases) {
      const result = await runWagerlink(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });

  test('a fixtures file that is wrong, or an endpoint that does not answer, exits 2 before any case', async () => {
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ games: 'dice', players: [] }));
    const badFile = await runWagerlink([...base(), '--fixtures', wrong]);
    assert.equal(badFile.code, 2, badFile.stdout);
    assert.match(badFile.stderr, /wrong\.json: games/);

    const nowhere = await runWagerlink([
      'conformance',
      'operator',
      '--endpoint',
      'http://127.0.0.1:9',
      '--secret',
      SECRET,
      '--token',
      ACCESS_TOKEN,
      '--admin-token',
      ADMIN_TOKEN,
    ]);
    assert.equal(nowhere.code, 2, nowhere.stdout);
    assert.match(nowhere.stderr, /^wagerlink: the fixtures give no player to start with: .*: check the endpoint$/m);
    assert.doesNotMatch(nowhere.stdout, /PASS|FAIL/);
  });

  test('fixtures that open no session are a finding: exit 1, in words, with every report asked for written', async () => {
    const paths = ['wrong-secret.json', 'wrong-secret.xml', 'wrong-secret.html'].map((name) => join(dir, name));
    const wrongSecret = await runWagerlink([
      ...['conformance', 'operator', '--endpoint', server.origin, '--secret', 'not-the-secret', '--token', ACCESS_TOKEN, '--admin-token', ADMIN_TOKEN],
      ...paths.flatMap((path) => ['--report', path]),
    ]);
    assert.equal(wrongSecret.code, 1, `${wrongSecret.stdout}${wrongSecret.stderr}`);
    assert.match(wrongSecret.stdout, /^Conformance of the operator at /);
    assert.match(wrongSecret.stdout, /^FAIL before any case: open a session for each player of the fixtures/m);
    assert.match(wrongSecret.stdout, /- conformance-[0-9a-f]{8}-1: expected 200, got 401 INVALID_SIGNATURE/);
    assert.match(wrongSecret.stdout, /FAILED before any case: none of \d+ cases was run/);
    assert.doesNotMatch(wrongSecret.stdout, /^(PASS|SKIP) /m);
    const json = JSON.parse(readFileSync(paths[0]!, 'utf8')) as { preflight: { outcome: string }; summary: { skipped: number; total: number } };
    assert.equal(json.preflight.outcome, 'failed');
    assert.equal(json.summary.skipped, json.summary.total);
    assert.match(readFileSync(paths[1]!, 'utf8'), /<testcase classname="operator\.preflight"/);
    assert.match(readFileSync(paths[2]!, 'utf8'), /Not conformant: the check before any case failed/);
  });

  test('a passing run exits 0 and writes its reports', async () => {
    const paths = ['run.json', 'run.xml', 'run.html'].map((name) => join(dir, name));
    const result = await runWagerlink(
      [...base(), '--admin-token', ADMIN_TOKEN, '--only', 'auth', '--only', 'replay', ...paths.flatMap((path) => ['--report', path])],
      { timeoutMs: RUN_MS_MAX },
    );
    assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
    assert.match(result.stdout, /^PASS \[ *1\/\d+\] auth\./m);
    assert.match(result.stdout, /PASSED: \d+ of \d+ cases/);
    assert.doesNotMatch(result.stdout, /\u001b/, 'no colour when the output is not a terminal');
    const json = JSON.parse(readFileSync(paths[0]!, 'utf8')) as { summary: { failed: number; total: number }; only: string[] };
    assert.equal(json.summary.failed, 0);
    assert.deepEqual(json.only, ['auth', 'replay']);
    assert.match(readFileSync(paths[1]!, 'utf8'), /^<\?xml/);
    assert.match(readFileSync(paths[2]!, 'utf8'), /^<!DOCTYPE html>/);
  });

  /** A file holding one secret, readable by its owner only unless `mode` says otherwise. */
  function secretFile(name: string, secret: string, mode = 0o600): string {
    const path = join(dir, name);
    writeFileSync(path, `${secret}\n`, { mode });
    chmodSync(path, mode);
    return path;
  }

  test('the secrets come from files or the environment, without a warning; on the command line they work and are warned about', async () => {
    const endpoint = ['conformance', 'operator', '--endpoint', server.origin, '--only', 'replay'];
    const files = [
      '--secret-file',
      secretFile('secret', SECRET),
      '--token-file',
      secretFile('token', ACCESS_TOKEN),
      '--admin-token-file',
      secretFile('admin', ADMIN_TOKEN),
    ];
    const fromFiles = await runWagerlink([...endpoint, ...files], { timeoutMs: RUN_MS_MAX });
    assert.equal(fromFiles.code, 0, `${fromFiles.stdout}${fromFiles.stderr}`);
    assert.match(fromFiles.stdout, /^PASS .* replay\./m);
    assert.doesNotMatch(fromFiles.stderr, /warning/);

    const env = cleanEnv({ WAGERLINK_CONFORMANCE_SECRET: SECRET, WAGERLINK_CONFORMANCE_TOKEN: ACCESS_TOKEN, WAGERLINK_CONFORMANCE_ADMIN_TOKEN: ADMIN_TOKEN });
    const fromEnv = await runWagerlink(endpoint, { env, timeoutMs: RUN_MS_MAX });
    assert.equal(fromEnv.code, 0, `${fromEnv.stdout}${fromEnv.stderr}`);
    assert.doesNotMatch(fromEnv.stderr, /warning/);
    // The server's own variables are not the kit's: its admin token is never sent to the endpoint under test.
    const serverEnv = await runWagerlink([...endpoint, '--secret-file', files[1]!, '--token-file', files[3]!], {
      env: cleanEnv({ WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN }),
    });
    assert.equal(serverEnv.code, 2, serverEnv.stdout);
    assert.match(serverEnv.stderr, /needs --fixtures FILE or the admin token/);

    const onCommandLine = await runWagerlink([...base(), '--admin-token', ADMIN_TOKEN, '--only', 'replay'], { timeoutMs: RUN_MS_MAX });
    assert.equal(onCommandLine.code, 0, `${onCommandLine.stdout}${onCommandLine.stderr}`);
    for (const option of ['--secret', '--token', '--admin-token']) {
      assert.match(
        onCommandLine.stderr,
        new RegExp(
          `^wagerlink: warning: ${option} on the command line can be read by other users \\(ps, /proc\\) and stays in shell history; use ${option}-file FILE or WAGERLINK_CONFORMANCE_`,
          'm',
        ),
      );
    }
  });

  test('a secret file readable by others is warned about; a missing, empty or two-line file, or a secret given twice, is a usage error', async () => {
    const shared = secretFile('shared-secret', SECRET, 0o644);
    const rest = ['--token-file', secretFile('token-2', ACCESS_TOKEN), '--admin-token-file', secretFile('admin-2', ADMIN_TOKEN), '--only', 'replay'];
    const open = await runWagerlink(['conformance', 'operator', '--endpoint', server.origin, '--secret-file', shared, ...rest], { timeoutMs: RUN_MS_MAX });
    assert.equal(open.code, 0, `${open.stdout}${open.stderr}`);
    assert.match(open.stderr, new RegExp(`^wagerlink: warning: --secret-file ${shared} can be read by other users \\(mode 0644\\); chmod 600 `, 'm'));

    const empty = secretFile('empty', '');
    const twoLines = join(dir, 'two-lines');
    writeFileSync(twoLines, `${SECRET}\nmore\n`, { mode: 0o600 });
    const refused: [string[], RegExp][] = [
      [['--secret-file', join(dir, 'no-such-file')], /--secret-file \S+no-such-file: no such file/],
      [['--secret-file', empty], /--secret-file \S+empty: the file is empty/],
      [['--secret-file', twoLines], /--secret-file \S+two-lines: the file must hold the secret on one line/],
      [['--secret-file', shared, '--secret', SECRET], /--secret and --secret-file both give --secret: give one/],
    ];
    for (const [secret, message] of refused) {
      const result = await runWagerlink(['conformance', 'operator', '--endpoint', server.origin, ...secret, ...rest]);
      assert.equal(result.code, 2, `${secret.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });

  test('a run that finds a fault exits 1, shows the curl command, and --bail stops at the first failure', async () => {
    const proxy = await faultyProxy(server.origin, 'conflict-200');
    try {
      const args = [
        'conformance',
        'operator',
        '--endpoint',
        proxy.origin,
        '--secret',
        SECRET,
        '--token',
        ACCESS_TOKEN,
        '--admin-token',
        ADMIN_TOKEN,
        '--only',
        'idempotency',
        '--bail',
      ];
      const result = await runWagerlink(args, { timeoutMs: RUN_MS_MAX });
      assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
      assert.match(result.stdout, /^FAIL .* idempotency\.conflict-amount /m);
      assert.match(result.stdout, /expected 409 DUPLICATE_CONFLICT, got 200/);
      assert.match(result.stdout, /curl -sS -i '[^']+\/transaction'/);
      assert.match(result.stdout, /not run: --bail stopped the run at the first failure/);
      assert.equal(result.stdout.match(/^FAIL /gm)?.length, 1);
    } finally {
      await proxy.close();
    }
  });
});

describe('wagerlink conformance operator on a real clock', () => {
  test('the expiry cases wait as long as the fixtures say keys and sessions live, and pass', async () => {
    // Lives short enough to wait for, long enough for a loaded machine to use a key it just minted: the
    // operator's rules and the fixtures file say the same.
    const server = await listeningOperator('sqlite', { realClock: () => Date.now(), rules: { launchKeyTtlMs: 2_000, sessionIdleMs: 3_000 } });
    const { dir, cleanup } = tempDir('wagerlink-conformance-clock-');
    try {
      const fixtures = join(dir, 'fixtures.json');
      writeFileSync(fixtures, JSON.stringify({ games: ['dice'], expiry: { launchKeySeconds: 2, sessionIdleSeconds: 3 } }));
      const started = Date.now();
      const result = await runWagerlink(
        [
          'conformance',
          'operator',
          '--endpoint',
          server.origin,
          '--secret',
          SECRET,
          '--token',
          ACCESS_TOKEN,
          '--admin-token',
          ADMIN_TOKEN,
          '--fixtures',
          fixtures,
          '--only',
          'sessions.launch-key-expires,sessions.expired-reload-refused',
        ],
        { timeoutMs: RUN_MS_MAX },
      );
      assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
      assert.match(result.stdout, /^PASS .* sessions\.launch-key-expires /m);
      assert.match(result.stdout, /^PASS .* sessions\.expired-reload-refused /m);
      // Waited each life and its margin, one after the other: not a timing assertion, a proof that it waited at all.
      assert.ok(Date.now() - started >= 2_000 + 3_000, 'the kit waited for the lives to end');
    } finally {
      cleanup();
      await server.close();
    }
  });
});
