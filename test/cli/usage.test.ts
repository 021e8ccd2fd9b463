/**
 * Proves how the command meets a newcomer: `--version` prints the
 * package's version; `--help` and `help` print the usage and succeed, and so
 * does every group's and command's own `--help`, each with its own usage
 * and options; no command at all prints the usage on stderr and exits 2;
 * a usage error (an unknown command or option, a missing argument, option
 * or value, a bad --workers) is one line `wagerlink: ...` followed by the
 * usage of the command it concerns, its usage line from the command table
 * and where its help is, never a whole help text, exit 2; a refusal of the
 * ledger is one line `wagerlink: CODE: detail`, exit 1; a provider that is
 * not there is named in one line; every other failure is one line, exit 1,
 * with no stack trace unless asked for; a back-office
 * command pointed at a database that is not there says so and creates
 * nothing (SQLite, and PostgreSQL when DATABASE_URL is set); serve on a
 * port in use names the port and the setting that changes it, and creates
 * no database file and no table (the operator with one worker or several,
 * and the provider), so that the next start is a first one.
 */
import { test } from 'node:test';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cleanEnv, freePort, runWagerlink, startWagerlink } from '../harness/child-process.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';
import { tempDir } from '../helpers.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const GLOBAL_TITLE = /wagerlink — the game provider <-> operator wallet interface/;

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

test("each group's and command's --help prints its own usage and options, on stdout", async () => {
  const cases: [string[], RegExp[]][] = [
    [
      ['operator', '--help'],
      [/^wagerlink operator — /, /wagerlink operator players add PLAYER --currency C/, /WAGERLINK_DATABASE/],
    ],
    [
      ['operator', 'players', '--help'],
      [/^wagerlink operator players — /, /wagerlink operator players adjust PLAYER --type deposit\|withdrawal --amount A/],
    ],
    [
      ['operator', 'players', 'add', '--help'],
      [/^wagerlink operator players add — /, /Options:\n/, /--currency C +a currency code such as EUR/],
    ],
    [
      ['help', 'operator', 'serve'],
      [/^wagerlink operator serve — /, /--workers N\|auto/],
    ],
    [
      ['provider', '--help'],
      [/^wagerlink provider — /, /wagerlink provider serve --config FILE/],
    ],
    [
      ['provider', 'serve', '--help'],
      [/^wagerlink provider serve — /, /--config FILE +the provider's JSON config/],
    ],
    [
      ['openapi', '--help'],
      [/^wagerlink openapi — /, /wagerlink openapi operator\|provider/],
    ],
    [
      ['sandbox', '--help'],
      [/^wagerlink sandbox — /, /--provider-port P +the provider's port/],
    ],
    [
      ['sandbox', 'env', '--help'],
      [/^wagerlink sandbox env — /, /eval "\$\(npx wagerlink sandbox env\)"/, /It prints\nsecrets/],
    ],
  ];
  for (const [args, patterns] of cases) {
    const run = await runWagerlink(args);
    assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.equal(run.stderr, '');
    for (const pattern of patterns) assert.match(run.stdout, pattern, args.join(' '));
    assert.doesNotMatch(run.stdout, GLOBAL_TITLE, `${args.join(' ')} prints its own usage, not the global one`);
  }
});

test('no command prints the usage on stderr and exits 2', async () => {
  const run = await runWagerlink([]);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, '');
  assert.equal(
    run.stderr,
    'wagerlink: a command is needed\n\nUsage:\n  wagerlink COMMAND ... [--help]\n\nCommands: operator, provider, sandbox, openapi, conformance.\n' +
      'Run "wagerlink --help" for every command, "wagerlink COMMAND --help" for one.\n',
  );
});

test('an unknown command is named in one line before the usage', async () => {
  const run = await runWagerlink(['dance']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^wagerlink: unknown command "dance"\n\n/);
});

test('a usage error is one line, then the usage of the command it concerns, exit 2', async () => {
  const cases: [string[], RegExp, RegExp][] = [
    [
      ['operator', 'players', 'add', 'bob', '--currency', 'EUR', '--colour', 'red'],
      /^wagerlink: unknown option --colour for "operator players add"\n\n/,
      /^Usage:\n  wagerlink operator players add /m,
    ],
    [['operator', 'players', 'add', '--currency', 'EUR'], /^wagerlink: operator players add needs PLAYER\n\n/, /^Usage:\n  wagerlink operator players add /m],
    [['operator', 'players', 'add', 'bob'], /^wagerlink: operator players add needs --currency C\n\n/, /^Usage:\n  wagerlink operator players add /m],
    [
      ['operator', 'players', 'add', 'bob', '--currency'],
      /^wagerlink: --currency needs a value: --currency C\n\n/,
      /^Usage:\n  wagerlink operator players add /m,
    ],
    [
      ['operator', 'players', 'show', 'bob', 'alice'],
      /^wagerlink: operator players show takes PLAYER; "alice" is one too many\n\n/,
      /^Usage:\n  wagerlink operator players show /m,
    ],
    [
      ['operator', 'players', 'fly', 'bob'],
      /^wagerlink: operator players takes: add, show, adjust, block, unblock, rounds, transactions \(got "fly"\)\n\n/,
      /^Usage:\n  wagerlink operator players /m,
    ],
    [['operator', 'serve', '--port', 'x'], /^wagerlink: --port must be a whole number 0\.\.65535, got "x"\n\n/, /^Usage:\n  wagerlink operator serve /m],
    [['provider', 'serve'], /^wagerlink: provider serve needs --config FILE\n\n/, /^Usage:\n  wagerlink provider serve /m],
    // The sandbox parses its own options, in the same words.
    [['sandbox', '--colour', 'red'], /^wagerlink: unknown option --colour for "sandbox"\n\n/, /^Usage:\n  wagerlink sandbox /m],
    [['sandbox', '--port'], /^wagerlink: --port needs a value\n\n/, /^Usage:\n  wagerlink sandbox /m],
    [['sandbox', '--help=yes'], /^wagerlink: --help takes no value\n\n/, /^Usage:\n  wagerlink sandbox /m],
    // So does its env command, with its own usage line.
    [['sandbox', 'env', '--colour', 'red'], /^wagerlink: unknown option --colour for "sandbox env"\n\n/, /^Usage:\n  wagerlink sandbox env \[--data DIR\]/m],
    // Input is checked, in words, before the database is looked for (this one does not exist).
    [
      ['operator', 'players', 'add', 'bob', '--currency', 'eur'],
      /^wagerlink: --currency must be a currency code of 2 to 10 capital letters or digits, got "eur"\n\n/,
      /^Usage:\n  wagerlink operator players add /m,
    ],
    [
      ['operator', 'players', 'rounds', 'bob', '--cursor', 'next'],
      /^wagerlink: --cursor must be the cursor of a previous page, up to 19 digits, got "next"\n\n/,
      /^Usage:\n  wagerlink operator players rounds /m,
    ],
    // A player id that reads as another (docs/protocol.md §5.4), wherever a command makes a player or a launch for one.
    [
      ['operator', 'players', 'add', 'x\u202eevil', '--currency', 'EUR'],
      /^wagerlink: PLAYER must be a player id as docs\/protocol\.md §5\.4 defines it, got "x\\u202eevil": it holds U\+202E/,
      /^Usage:\n  wagerlink operator players add /m,
    ],
    [
      ['operator', 'launch-key', '\u0430lice', '--game', 'dice'],
      /^wagerlink: PLAYER must be a player id .*: it mixes letters of scripts/,
      /^Usage:\n  wagerlink operator launch-key /m,
    ],
    [
      ['operator', 'launch-url', 'alice ', '--game', 'dice'],
      /^wagerlink: PLAYER must be a player id .*: it starts or ends with a space/,
      /^Usage:\n  wagerlink operator launch-url /m,
    ],
  ];
  for (const [args, line, usage] of cases) {
    const run = await runWagerlink(args, { env: cleanEnv({ WAGERLINK_DATABASE: '/nonexistent/never.db' }) });
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, line);
    assert.match(run.stderr, usage);
    assert.doesNotMatch(run.stderr, GLOBAL_TITLE, `${args.join(' ')}: not the global usage`);
    assert.doesNotMatch(run.stderr, /Options:/, `${args.join(' ')}: the usage, not the whole help`);
  }
});

test("a usage error's usage is the command's usage line and where its help is, for every way a command is parsed", async () => {
  const cases: [string[], string, string][] = [
    [['operator', 'players', 'add', 'bob'], 'operator players add needs --currency C', 'operator players add'],
    [['operator', 'serve', '--workers', 'many'], '--workers must be "auto" or a whole number 1..256, got "many"', 'operator serve'],
    [['provider', 'outbox', 'retry', 'x'], 'outbox retry needs an item id (a positive integer), got "x"', 'provider outbox retry'],
    [['sandbox', '--port', '0'], '--port must be a port, 1..65535, got "0"', 'sandbox'],
    [['conformance', 'provider', '--endpoint', 'nowhere'], '--endpoint must be an http(s) URL, got "nowhere"', 'conformance provider'],
    [['conformance', 'operator', '--endpoint', 'nowhere'], '--endpoint must be an http(s) URL, got "nowhere"', 'conformance operator'],
  ];
  for (const [args, line, name] of cases) {
    const run = await runWagerlink(args, { env: cleanEnv({ WAGERLINK_PROVIDER_URL: 'http://127.0.0.1:1', WAGERLINK_PROVIDER_ADMIN_TOKEN: 'a' }) });
    // The global help lists every command's usage line, from the same table.
    const usageLine = (await runWagerlink(['--help'])).stdout.split('\n').find((text) => text.startsWith(`  wagerlink ${name} `));
    assert.ok(usageLine !== undefined, name);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.equal(run.stderr, `wagerlink: ${line}\n\nUsage:\n${usageLine}\n\nRun "wagerlink ${name} --help" for its options.\n`);
  }
  // A group's usage is its commands' lines.
  const group = await runWagerlink(['provider', 'outbox', 'fly']);
  assert.equal(group.code, 2);
  assert.equal(
    group.stderr,
    'wagerlink: provider outbox takes: list, retry, resolve (got "fly")\n\nUsage:\n' +
      '  wagerlink provider outbox list [--status S] [--operator ID] [--limit N] [--provider URL] [--admin-token T] [--admin-token-file FILE]\n' +
      '  wagerlink provider outbox retry ID [--provider URL] [--admin-token T] [--admin-token-file FILE]\n' +
      '  wagerlink provider outbox resolve ID --reference REF [--provider URL] [--admin-token T] [--admin-token-file FILE]\n\n' +
      'Run "wagerlink provider outbox COMMAND --help" for a command\'s options.\n',
  );
});

test('a refusal of the ledger is one line, wagerlink: CODE: detail, exit 1, nothing on stdout', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const database = join(dir, 'operator.db');
    assert.equal((await runWagerlink(['operator', 'migrate', '--database', database])).code, 0);
    const shown = await runWagerlink(['operator', 'players', 'show', 'bob', '--database', database]);
    assert.equal(shown.code, 1);
    assert.equal(shown.stdout, '');
    assert.match(shown.stderr, /^wagerlink: PLAYER_NOT_FOUND: [^\n{]*bob[^\n{]*\n$/);
    assert.equal((await runWagerlink(['operator', 'players', 'add', 'bob', '--currency', 'EUR', '--balance', '5', '--database', database])).code, 0);
    const overdrawn = await runWagerlink(['operator', 'players', 'adjust', 'bob', '--type', 'withdrawal', '--amount', '9', '--database', database]);
    assert.equal(overdrawn.code, 1);
    assert.equal(overdrawn.stdout, '');
    assert.match(overdrawn.stderr, /^wagerlink: INSUFFICIENT_FUNDS: [^\n{]+\n$/);
  } finally {
    cleanup();
  }
});

test("a provider that is not there is one line naming it, for the operator's calls and both sides of the conformance kit", async () => {
  const gone = `http://127.0.0.1:${await freePort()}`;
  const { dir, cleanup } = tempDir();
  try {
    const fixtures = join(dir, 'fixtures.json');
    writeFileSync(fixtures, JSON.stringify({ games: ['dice'], players: [{ playerId: 'p1', currency: 'EUR', launchKeys: { dice: ['k1'] } }] }));
    const env = cleanEnv({ WAGERLINK_SECRET: 's', WAGERLINK_CONFORMANCE_SECRET: 's', WAGERLINK_CONFORMANCE_TOKEN: 't' });
    const cases: [string[], string][] = [
      [['operator', 'game-bets', '--games', 'dice', '--currencies', 'EUR', '--provider', gone, '--operator-id', 'o', '--wallet-id', 'w'], ''],
      [['conformance', 'provider', '--endpoint', gone, '--operator-id', 'o', '--wallet-id', 'w', '--game', 'dice'], ': check the endpoint'],
      [['conformance', 'operator', '--endpoint', gone, '--fixtures', fixtures], ': check the endpoint'],
    ];
    for (const [args, after] of cases) {
      const run = await runWagerlink(args, { env });
      assert.notEqual(run.code, 0);
      assert.equal(run.stderr, `wagerlink: could not reach ${gone} (connection refused)${after}\n`, args.join(' '));
    }
  } finally {
    cleanup();
  }
});

test('a back-office command on a SQLite file that is not there says so, how to create it, and creates nothing', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'typo.db');
    for (const args of [
      ['operator', 'players', 'show', 'bob'],
      ['operator', 'verify'],
      ['operator', 'launch-key', 'bob', '--game', 'dice'],
    ]) {
      const run = await runWagerlink([...args, '--database', path]);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, '');
      assert.equal(
        run.stderr,
        `wagerlink: database file ${path} does not exist; create it with "wagerlink operator migrate --database ${path}" (or start "wagerlink operator serve"), or point --database or WAGERLINK_DATABASE at the existing one\n`,
      );
      assert.equal(existsSync(path), false, 'no database was created');
    }
    // migrate is the explicit way to create it; then the same command works.
    assert.equal((await runWagerlink(['operator', 'migrate', '--database', path])).code, 0);
    const shown = await runWagerlink(['operator', 'players', 'show', 'bob', '--database', path]);
    assert.equal(shown.code, 1);
    assert.match(shown.stderr, /^wagerlink: PLAYER_NOT_FOUND: /);
  } finally {
    cleanup();
  }
});

test(
  'a PostgreSQL database that does not exist is one line naming it and its host, no stack, for serve and the sandbox too',
  { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' },
  async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = '/wagerlink_no_such_database';
    const env = cleanEnv({ WAGERLINK_SECRET: 's', WAGERLINK_ACCESS_TOKENS: 't', WAGERLINK_ADMIN_TOKEN: 'a', WAGERLINK_PORT: String(await freePort()) });
    for (const args of [
      ['operator', 'players', 'show', 'bob'],
      ['operator', 'serve'],
    ]) {
      const run = await runWagerlink([...args, '--database', url.toString()], { env });
      assert.equal(run.code, 1, run.stderr);
      assert.equal(
        run.stderr,
        `wagerlink: database "wagerlink_no_such_database" does not exist on ${url.hostname}:${url.port || '5432'}; create it (createdb wagerlink_no_such_database) or point --database or WAGERLINK_DATABASE at another\n`,
      );
    }
    // The sandbox reads no environment: only its option is named.
    const { dir, cleanup } = tempDir();
    try {
      const ports = ['--port', String(await freePort()), '--provider-port', String(await freePort())];
      const run = await runWagerlink(['sandbox', '--data', dir, '--database', url.toString(), ...ports], { env: cleanEnv() });
      assert.equal(run.code, 1, run.stderr);
      assert.equal(
        run.stderr,
        `wagerlink: database "wagerlink_no_such_database" does not exist on ${url.hostname}:${url.port || '5432'}; create it (createdb wagerlink_no_such_database) or point --database at another\n`,
      );
    } finally {
      cleanup();
    }
  },
);

test('any other failure is one line without a stack, and --verbose adds the stack', async () => {
  const { dir, cleanup } = tempDir();
  try {
    // A directory where the database file should be: SQLite cannot open it.
    const plain = await runWagerlink(['operator', 'migrate', '--database', dir]);
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /^wagerlink: [^\n]+\n$/);
    assert.doesNotMatch(plain.stderr, /\n\s+at /);
    const verbose = await runWagerlink(['operator', 'migrate', '--database', dir, '--verbose']);
    assert.equal(verbose.code, 1);
    assert.match(verbose.stderr, /\n\s+at /);
  } finally {
    cleanup();
  }
});

test('serve on a port in use is one line naming the port and how to choose another', async () => {
  const { dir, cleanup } = tempDir();
  const holder = createServer();
  try {
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as AddressInfo;
    const env = cleanEnv({ WAGERLINK_SECRET: 's', WAGERLINK_ACCESS_TOKENS: 't', WAGERLINK_ADMIN_TOKEN: 'a', WAGERLINK_DATABASE: join(dir, 'operator.db') });
    const run = await runWagerlink(['operator', 'serve', '--port', String(port)], { env });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stderr,
      `wagerlink: port ${port} on 127.0.0.1 is already in use: stop what holds it, or choose another port with --port or WAGERLINK_PORT\n`,
    );
    assert.equal(existsSync(join(dir, 'operator.db')), false, 'the port is found taken before the database is made');
    const provider = await runWagerlink([
      'provider',
      'serve',
      '--config',
      'examples/provider.json',
      '--port',
      String(port),
      '--database',
      join(dir, 'provider.db'),
    ]);
    assert.equal(provider.code, 1, provider.stderr);
    assert.match(
      provider.stderr,
      new RegExp(
        `^wagerlink: port ${port} on 127\\.0\\.0\\.1 is already in use: stop what holds it, or choose another port with --port or the config's "port"\n$`,
      ),
    );
    assert.equal(existsSync(join(dir, 'provider.db')), false, "nor the provider's");
  } finally {
    holder.close();
    cleanup();
  }
});

test(
  'serve on a port in use makes no table on PostgreSQL: the operator (one worker or several) and the provider',
  { skip: POSTGRES_UNAVAILABLE ?? false },
  async (t) => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    t.after(() => holder.close());
    const { port } = holder.address() as AddressInfo;
    const schema = await freshSchema('serve_port');
    t.after(() => schema.drop());
    const tables = async () =>
      (await schema.admin<{ n: number }[]>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = ${schema.name}`)[0]!.n;
    const env = cleanEnv({ WAGERLINK_SECRET: 's', WAGERLINK_ACCESS_TOKENS: 't', WAGERLINK_ADMIN_TOKEN: 'a', WAGERLINK_DATABASE: schema.url() });
    for (const workers of ['1', '2']) {
      const run = await runWagerlink(['operator', 'serve', '--port', String(port), '--workers', workers], { env });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`^wagerlink: port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.equal(await tables(), 0, `no table after the operator's start with ${workers} workers`);
    }
    const provider = await runWagerlink(['provider', 'serve', '--config', 'examples/provider.json', '--port', String(port), '--database', schema.url()]);
    assert.equal(provider.code, 1, provider.stderr);
    assert.match(provider.stderr, new RegExp(`^wagerlink: port ${port} on 127\\.0\\.0\\.1 is already in use`));
    assert.equal(await tables(), 0, "no table after the provider's start");
    // With the port free, the same start makes its tables.
    holder.close();
    await once(holder, 'close');
    const { child } = await startWagerlink(['operator', 'serve', '--port', String(port)], { env, until: t });
    assert.ok((await tables()) > 0);
    assert.equal((await child.stop('SIGTERM')).code, 0);
  },
);
