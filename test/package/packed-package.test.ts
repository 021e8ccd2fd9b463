/**
 * SLOW (10 to 30 s, by the machine's load; it runs npm): proves the
 * package works the way a user of the clients gets it. `npm pack` makes
 * the tarball and `npm install <tarball> --omit=optional` puts it into a
 * fresh project in a temp dir, install scripts on, as the README tells a
 * user who wants the clients and the kit (npm's cache first, the registry
 * only for what the cache lacks). From there:
 * - nothing native was installed or compiled: no better-sqlite3, no `.node`
 *   file, no build folder, and no package left with an install script;
 * - the tarball holds the compiled sources with their declarations, the
 *   command, the OpenAPI document, the game page and the examples, and no
 *   tests, benchmarks or TypeScript sources;
 * - the README's "Use the clients" snippet, run as it stands (only its
 *   endpoint pointed at a tiny node:http operator), imports from
 *   'wagerlink', signs its calls and prints the exact balance;
 * - an ESM script reaches the provider client, signing and money helpers
 *   through the root, reads 'wagerlink/package.json', and is refused a deep
 *   import;
 * - a TypeScript file importing the types from 'wagerlink' type-checks
 *   with this project's TypeScript, its wrong uses rejected (@ts-expect-error);
 * - the installed `wagerlink` command runs, and `wagerlink conformance
 *   operator` judges a case against the tiny operator and writes its report;
 * - a command that needs SQLite says to install better-sqlite3, and makes
 *   no file;
 * - the PostgreSQL driver the installed package loads is the one fixed by
 *   patches/postgres+3.4.9.patch (bundled in the tarball, so that no
 *   install script has to patch it): its code is there in both of the
 *   driver's builds, and with DATABASE_URL a transaction whose socket is
 *   destroyed mid-query settles and the next query answers.
 *
 * The tarball is packed from this checkout's dist/src, compiled by the same
 * build as this test, with scripts off: running `prepare` here would
 * rewrite dist/src under the other test files running beside this one.
 */
import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_URL, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';
import { freePort } from '../harness/child-process.js';

const run = promisify(execFile);

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** npm's own time-outs are long; a stuck install must still end the test (ms). */
const npmMsMax = 120_000;

// The README snippet's endpoint, and the secret and token it reads from WAGERLINK_SECRET and WAGERLINK_ACCESS_TOKENS.
const README_ENDPOINT = 'http://127.0.0.1:8080';
const SECRET = 'local-demo-secret-change-me';
const ACCESS_TOKEN = 'local-demo-access-token';
const LAUNCH_KEY = 'launch-key-of-the-test';
const SESSION_ID = randomUUID();

/** npm's variables of an `npm test` run (its prefix among them) must not steer the npm we start. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

/** The first ```js block of the README's "Use the clients" section. */
function readmeSnippet(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split('\n## Use the clients\n')[1]?.split('\n## ')[0];
  assert.ok(section !== undefined, 'the README has a "Use the clients" section');
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code !== undefined, 'the section has a js snippet');
  return code;
}

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

function problem(response: ServerResponse, status: number, code: string, detail: string): void {
  response.writeHead(status, { 'content-type': 'application/problem+json' });
  response.end(JSON.stringify({ type: `urn:wagerlink:error:${code.toLowerCase().replaceAll('_', '-')}`, title: code, status, code, detail }));
}

/**
 * An operator and a provider in a few lines: checks the signature (with
 * node:crypto, not the package's code), the bearer token of operator
 * calls and the one expected body, and answers as the protocol does.
 */
function tinyServer(seen: Seen[]): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '';
      seen.push({ path, headers: request.headers, body });
      const expected = createHmac('sha256', SECRET).update(body).digest('hex');
      if (request.headers['x-server-authorization'] !== expected) return problem(response, 401, 'INVALID_SIGNATURE', 'bad signature');
      if (path !== '/game-bets' && request.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return problem(response, 401, 'INVALID_TOKEN', 'bad token');
      const json = JSON.parse(body) as Record<string, unknown>;
      response.setHeader('content-type', 'application/json');
      if (path === '/authenticate' && json.key === LAUNCH_KEY && json.game === 'dice') {
        return response.end(`{"sessionId":"${SESSION_ID}","playerId":"alice","currency":"EUR","balance":100,"country":"DE"}`);
      }
      if (path === '/transaction' && json.sessionId === SESSION_ID && json.playerId === 'alice') return response.end('{"balance":101.5}');
      if (path === '/game-bets') return problem(response, 422, 'UNSUPPORTED_CURRENCY', 'no bet ladder for XYZ');
      return problem(response, 400, 'INVALID_REQUEST', `unexpected call ${path}`);
    });
  });
}

const SURFACE_SCRIPT = `
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { CURRENCIES, NO_RETRY, createProviderClient, decimalFromString, formatMinor, sign, toMinor, verifySignature } from 'wagerlink';

const [endpoint, secret] = process.argv.slice(2);
assert.equal(createRequire(import.meta.url)('wagerlink/package.json').name, 'wagerlink');
await assert.rejects(import('wagerlink/dist/src/stores/open-store.js'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
const body = '{"amount":0.1}';
assert.ok(verifySignature([secret], sign(secret, body), body));
assert.equal(formatMinor(toMinor(decimalFromString('0.1'), CURRENCIES.decimals('EUR')) + toMinor(decimalFromString('0.2'), 2), 2), '0.3');
const provider = createProviderClient({ endpoint, secret });
const bets = await provider.gameBets({ walletId: 'w', operatorId: 'o', games: ['dice'], currencies: ['XYZ'] }, NO_RETRY);
await provider.close();
assert.equal(bets.ok, false);
assert.equal(bets.kind, 'refused');
assert.equal(bets.code, 'UNSUPPORTED_CURRENCY');
console.log('surface ok');
`;

/**
 * Run in the consumer's project: loads postgres as the installed wagerlink
 * does (resolved from wagerlink's own folder), destroys the socket of a
 * transaction's query in flight, and prints what became of it and of
 * three queries after it (test/stores/postgres-connection-loss.test.ts,
 * run on the installed driver). The unpatched driver takes a query left
 * over from the dead socket for the remade connection's own, and the next
 * query waits behind it for good: it prints "stuck".
 */
const CONNECTION_LOSS_SCRIPT = `
import { createRequire } from 'node:module';
import net from 'node:net';
import { pathToFileURL } from 'node:url';

const [databaseUrl] = process.argv.slice(2);
const fromWagerlink = createRequire(createRequire(import.meta.url).resolve('wagerlink/package.json'));
const main = fromWagerlink.resolve('postgres');
const driverDir = main.slice(0, main.lastIndexOf('/node_modules/postgres/') + '/node_modules/postgres/'.length);
const { default: postgres } = await import(pathToFileURL(driverDir + 'src/index.js').href);
const target = new URL(databaseUrl);
const sockets = [];
const socket = () => {
  const made = net.connect(Number(target.port || 5432), target.hostname);
  sockets.push(made);
  return made;
};
const sql = postgres(databaseUrl, { max: 1, fetch_types: false, onnotice: () => {}, socket });
await sql\`SELECT 1\`;
const lost = sql.begin(async (tx) => {
  await tx\`SELECT 1\`;
  const inFlight = tx\`SELECT pg_sleep(0.2)\`.execute();
  sockets.at(-1).destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
  await inFlight;
});
// A query that has not settled in this long never will: the connection is stuck (ms).
const within = (promise) => Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve('stuck'), 5000).unref())]);
const outcome = await within(lost.then(() => 'committed', () => 'refused'));
// The remade connection answers, and keeps answering: the unpatched driver answers the first query and hangs on the second.
const answers = [];
for (let i = 0; i < 3; i++) answers.push(await within(sql\`SELECT \${i}::int AS n\`.then(([row]) => row.n)));
console.log(outcome, answers.join(' '));
process.exit(0);
`;

/** Fastify as the installed wagerlink resolves it, answering one request through inject (light-my-request). */
const INJECT_SCRIPT = `
const { createRequire } = require('node:module');
const fromWagerlink = createRequire(require.resolve('wagerlink/package.json'));
const app = fromWagerlink('fastify')();
app.get('/', async () => 'ok');
app.inject('/').then((answer) => console.log(answer.statusCode, answer.body));
`;

const TYPES_FILE = `
import { ERRORS, createOperatorClient, type BalanceAnswer, type CallOutcome, type ErrorCode, type GameBets, type ProblemResponse, type RetryPolicy, type TransactionRequest, type WalletTransaction } from 'wagerlink';
// @ts-expect-error only the root is exported
import type { WalletStore } from 'wagerlink/dist/src/stores/store.js';

const bet: WalletTransaction = { id: '6f1c1a4e-3f43-4a43-9a59-4f3f6f7b0a01', type: 'bet', amount: 1.5 };
const request: TransactionRequest = { sessionId: 's', playerId: 'alice', game: 'dice', transactions: [bet], round: { id: 'r', finished: true } };
// @ts-expect-error an amount is a JSON number, never text
const textAmount: WalletTransaction = { ...bet, amount: '1.5' };
// @ts-expect-error a code not in the registry
const unknownCode: ErrorCode = 'NO_SUCH_CODE';
const status: 402 = ERRORS.INSUFFICIENT_FUNDS.status;
const answer: ProblemResponse = { type: 't', title: 'x', status, code: 'INSUFFICIENT_FUNDS', detail: 'd', balance: 10 };
const policy: RetryPolicy = { retryStatuses: [503], retryDelayMsMin: 1, retryDelayMsMax: 2, attemptsMax: 2, elapsedMsMax: 10 };
const client = createOperatorClient({ endpoint: 'http://127.0.0.1:1', secret: 's', accessToken: 't', retry: policy });
export async function book(): Promise<string | undefined> {
  const outcome: CallOutcome<BalanceAnswer> = await client.transaction(request);
  if (outcome.ok) return outcome.value.balance;
  // @ts-expect-error only a refusal carries a code
  return outcome.code;
}
export const unused: [unknown, unknown, unknown, GameBets | undefined, WalletStore | undefined] = [textAmount, unknownCode, answer, undefined, undefined];
`;

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('the packed package, installed in a fresh project', { timeout: 4 * npmMsMax }, () => {
  let dir: string;
  let app: string;
  let files: string[];
  /** What npm said while installing: its warnings. */
  let installLog: string;
  let server: Server;
  let origin: string;
  const seen: Seen[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wagerlink-package-'));
    const packed = await run('npm', ['pack', '--pack-destination', dir, '--ignore-scripts', '--json'], { cwd: ROOT, env: cleanEnv(), timeout: npmMsMax });
    const [tarball] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    assert.ok(tarball);
    files = tarball.files.map((file) => file.path);
    app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // Scripts on: with the optional SQLite driver left out, nothing is left to run one.
    const installed = await run('npm', ['install', join(dir, tarball.filename), '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: app,
      env: cleanEnv(),
      timeout: npmMsMax,
    });
    installLog = `${installed.stdout}\n${installed.stderr}`;
    server = tinyServer(seen);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the tarball holds what a user needs and no tests, benchmarks or sources', () => {
    for (const needed of [
      'package.json',
      'README.md',
      'bin/wagerlink.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/cli/main.js',
      'openapi/operator.json',
      'web/index.html',
      'examples/operator.env',
    ]) {
      assert.ok(files.includes(needed), `${needed} is missing`);
    }
    // node_modules/postgres: the driver is bundled, patched (see the PostgreSQL driver's tests below).
    const allowed =
      /^(?:package\.json|README\.md|LICENSE|bin\/.+|dist\/src\/.+\.(?:js|d\.ts|js\.map)|dist\/web\/sandbox\/.+\.js|openapi\/.+|web\/.+|examples\/.+|node_modules\/postgres\/.+)$/;
    assert.deepEqual(
      files.filter((path) => !allowed.test(path)),
      [],
    );
  });

  test("the README's snippet books a round through the installed package", async () => {
    const snippet = readmeSnippet();
    assert.ok(snippet.includes(`'${README_ENDPOINT}'`), `the snippet calls ${README_ENDPOINT}`);
    writeFileSync(join(app, 'book.mjs'), snippet.replace(`'${README_ENDPOINT}'`, `'${origin}'`));
    seen.length = 0;
    const { stdout } = await run(process.execPath, ['book.mjs', LAUNCH_KEY], {
      cwd: app,
      env: { ...cleanEnv(), WAGERLINK_SECRET: SECRET, WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN },
    });
    assert.equal(stdout.trim(), '101.5');
    assert.deepEqual(
      seen.map((call) => [call.path, call.headers['content-type']]),
      [
        ['/authenticate', 'application/json'],
        ['/transaction', 'application/json'],
      ],
    );
    const booked = JSON.parse(seen[1]?.body ?? '{}') as { transactions: { type: string; amount: number }[] };
    assert.deepEqual(
      booked.transactions.map(({ type, amount }) => [type, amount]),
      [
        ['bet', 1.5],
        ['win', 3],
      ],
    );
  });

  test('the root exports the provider client, signing and money; deep imports are refused', async () => {
    writeFileSync(join(app, 'surface.mjs'), SURFACE_SCRIPT);
    const { stdout } = await run(process.execPath, ['surface.mjs', origin, SECRET], { cwd: app });
    assert.equal(stdout.trim(), 'surface ok');
  });

  test("a TypeScript user's file type-checks against the shipped declarations", async () => {
    writeFileSync(join(app, 'check.ts'), TYPES_FILE);
    // A user of a Node library has @types/node; this project's copy stands in for it.
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: ['check.ts'],
    };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
    try {
      await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], { cwd: app });
    } catch (error) {
      assert.fail(`tsc found errors:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
    }
  });

  test('the installed wagerlink command runs', async () => {
    const { stdout } = await run(join(app, 'node_modules', '.bin', 'wagerlink'), ['openapi', 'operator'], { cwd: app });
    const shipped = readFileSync(join(app, 'node_modules', 'wagerlink', 'openapi', 'operator.json'), 'utf8');
    assert.deepEqual(JSON.parse(stdout), JSON.parse(shipped));
  });

  test('nothing native was installed: no SQLite driver, no compiled addon, no package with an install script', () => {
    const modules = join(app, 'node_modules');
    assert.equal(existsSync(join(modules, 'better-sqlite3')), false, 'the optional SQLite driver was installed');
    const paths = readdirSync(modules, { recursive: true, encoding: 'utf8' });
    assert.deepEqual(
      paths.filter((path) => path.endsWith('.node') || basename(path) === 'binding.gyp'),
      [],
      'native code in the installed tree',
    );
    // A package's own package.json: NAME/ or @SCOPE/NAME/, and the same again under a package's own node_modules/.
    const manifest = /^(?:(?:@[^/]+\/)?[^/@][^/]*\/node_modules\/)*(?:@[^/]+\/)?[^/@][^/]*\/package\.json$/;
    const manifests = paths.map((path) => path.split(sep).join('/')).filter((path) => manifest.test(path));
    assert.ok(manifests.length > 10, `${manifests.length} packages found`);
    const withScripts = manifests.filter((path) => {
      const scripts = (JSON.parse(readFileSync(join(modules, path), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
      return ['preinstall', 'install', 'postinstall'].some((name) => scripts[name] !== undefined);
    });
    assert.deepEqual(withScripts, []);
    // npm 11 lists install scripts no allowScripts covers: none of a dependency's, and better-sqlite3's least of all.
    // (It lists wagerlink's own `prepare` for a tarball, which builds this repository and which npm does not run for one.)
    for (const line of installLog.split('\n').filter((text) => /^npm warn install-scripts {3}\S/.test(text)))
      assert.match(line, /^npm warn install-scripts {3}wagerlink@/);
  });

  test("no installed package wants a newer Node than the package's, and Fastify's inject runs as Node 20.18 loads modules", async () => {
    assert.doesNotMatch(installLog, /EBADENGINE/);
    // Node 20.18 cannot require an ES module; later Nodes can, unless told not to. A CommonJS dependency that requires
    // one (cookie 2, under light-my-request 6.8) breaks app.inject(), which the sandbox seeds its players with.
    const asNode2018 = process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module') ? ['--no-experimental-require-module'] : [];
    writeFileSync(join(app, 'inject.cjs'), INJECT_SCRIPT);
    const { stdout } = await run(process.execPath, [...asNode2018, 'inject.cjs'], { cwd: app });
    assert.equal(stdout.trim(), '200 ok');
  });

  test('the installed `wagerlink conformance operator` judges a case against an operator and writes its report', async () => {
    // The tiny operator opens alice's session for one key, as often as it is sent: the run's first check and the case's own.
    writeFileSync(
      join(app, 'fixtures.json'),
      JSON.stringify({ games: ['dice'], players: [{ playerId: 'alice', currency: 'EUR', launchKeys: { dice: [LAUNCH_KEY, LAUNCH_KEY] } }] }),
    );
    const env = { ...cleanEnv(), WAGERLINK_CONFORMANCE_SECRET: SECRET, WAGERLINK_CONFORMANCE_TOKEN: ACCESS_TOKEN };
    const args = ['conformance', 'operator', '--endpoint', origin, '--fixtures', 'fixtures.json', '--only', 'auth.token-missing', '--report', 'report.json'];
    const { stdout } = await run(join(app, 'node_modules', '.bin', 'wagerlink'), args, { cwd: app, env });
    assert.match(stdout, /^PASS \[1\/1\] auth\.token-missing /m);
    const report = JSON.parse(readFileSync(join(app, 'report.json'), 'utf8')) as { cases: { id: string; outcome: string }[] };
    assert.deepEqual(
      report.cases.map((each) => [each.id, each.outcome]),
      [['auth.token-missing', 'passed']],
    );
  });

  test('a command on SQLite says to install better-sqlite3, and makes no file', async () => {
    const failed = (await run(join(app, 'node_modules', '.bin', 'wagerlink'), ['operator', 'migrate', '--database', 'wallet.db'], { cwd: app }).then(
      () => assert.fail('migrate ran without the SQLite driver'),
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^wagerlink: better-sqlite3 is not installed: install better-sqlite3 to run the wallet or the provider on SQLite/);
    assert.equal(existsSync(join(app, 'wallet.db')), false);
  });

  test('the sandbox on SQLite says to install better-sqlite3 before it makes its folder or its secrets', async () => {
    const failed = (await run(
      join(app, 'node_modules', '.bin', 'wagerlink'),
      ['sandbox', '--data', 'sandbox-data', '--port', String(await freePort()), '--provider-port', String(await freePort())],
      {
        cwd: app,
      },
    ).then(
      () => assert.fail('the sandbox ran without the SQLite driver'),
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^wagerlink: better-sqlite3 is not installed: install better-sqlite3 to run the wallet or the provider on SQLite/);
    assert.equal(existsSync(join(app, 'sandbox-data')), false, 'the sandbox made its data folder without a driver to open it');
  });

  /** The driver's folder as the installed wagerlink resolves it, not the consumer's own copy, if any. */
  function installedDriver(): string {
    const fromWagerlink = createRequire(join(app, 'node_modules', 'wagerlink', 'package.json'));
    // The driver exports no package.json: its main file names its folder.
    const main = fromWagerlink.resolve('postgres');
    const folder = `${sep}node_modules${sep}postgres${sep}`;
    return main.slice(0, main.lastIndexOf(folder) + folder.length);
  }

  test('the installed PostgreSQL driver carries the fix of patches/postgres+3.4.9.patch', () => {
    const driver = installedDriver();
    assert.equal((JSON.parse(readFileSync(join(driver, 'package.json'), 'utf8')) as { version: string }).version, '3.4.9');
    // The patch's first hunk: a write queued for a socket closed meanwhile settles its queries instead of throwing from a timer.
    const guard = /function nextWrite\(fn\) \{\s*if \(socket === null\) \{/;
    for (const build of ['src/connection.js', 'cjs/src/connection.js']) {
      assert.match(readFileSync(join(driver, build), 'utf8'), guard, `${build} of the installed driver is not patched`);
    }
  });

  test('through the installed driver, a transaction whose socket is destroyed settles and the next query answers', { skip: POSTGRES_UNAVAILABLE }, async () => {
    writeFileSync(join(app, 'connection-loss.mjs'), CONNECTION_LOSS_SCRIPT);
    const { stdout } = await run(process.execPath, ['connection-loss.mjs', DATABASE_URL!], { cwd: app, timeout: npmMsMax });
    assert.equal(stdout.trim(), 'refused 0 1 2');
  });
});
