/**
 * Proves what importing the package's index (src/index.ts) brings in: the
 * exact list of public names, and no server code. In a child process the
 * index is imported with better-sqlite3, postgres, fastify, pino and our
 * own server folders (operator, provider, stores, http, cli) made
 * unresolvable by a module resolve hook, and the CommonJS modules loaded
 * along the way (which such a hook does not see) are listed from the
 * require cache. Two controls show that the harness catches what it looks
 * for: the operator app fails under the hook, and without it the list
 * shows the fastify it loads.
 */
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { promisify } from 'node:util';

const run = promisify(execFile);

const INDEX_URL = new URL('../../src/index.js', import.meta.url).href;
const OPERATOR_APP_URL = new URL('../../src/operator/operator-app.js', import.meta.url).href;

/** The packages only the servers and stores use. */
const SERVER_PACKAGES = ['better-sqlite3', 'postgres', 'fastify', 'pino'];

/**
 * Resolve hook: a server package named by any module, or a server folder of
 * ours imported by our code, cannot be resolved. The entry module itself,
 * imported by the child's script, is let through so that a control can
 * start from the operator app.
 */
const HOOKS = `
const PACKAGE = /^(?:better-sqlite3|postgres|fastify|@fastify\\/[^/]+|pino)(?:\\/|$)/;
const SERVER_FILE = /\\/dist\\/src\\/(?:operator|provider|stores|http|cli)\\/|\\/node_modules\\/(?:better-sqlite3|postgres|fastify|@fastify\\/[^/]+|pino)\\//;
export async function resolve(specifier, context, next) {
  if (PACKAGE.test(specifier)) throw new Error('unresolvable here: ' + specifier + ', imported by ' + context.parentURL);
  const resolved = await next(specifier, context);
  const byOurCode = context.parentURL !== undefined && context.parentURL.includes('/dist/src/');
  if (SERVER_FILE.test(resolved.url) && (byOurCode || resolved.url.includes('/node_modules/'))) {
    throw new Error('unresolvable here: ' + resolved.url + ', imported by ' + context.parentURL);
  }
  return resolved;
}
`;

/** The child: optionally registers the hook, imports the entry, prints its exports and the CommonJS packages loaded. */
const CHILD = `
import { createRequire, register } from 'node:module';
const [entry, guard] = process.argv.slice(1);
if (guard === 'guard') register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));
const loaded = await import(entry);
const packages = new Set();
for (const file of Object.keys(createRequire(import.meta.url).cache)) {
  const name = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file)?.[1];
  if (name !== undefined) packages.add(name);
}
console.log(JSON.stringify({ exports: Object.keys(loaded).sort(), packages: [...packages].sort() }));
`;

async function importInChild(entry: string, guard: boolean): Promise<{ exports: string[]; packages: string[] }> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD, entry, guard ? 'guard' : 'open']);
  return JSON.parse(stdout) as { exports: string[]; packages: string[] };
}

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('the package index', () => {
  test('loads no server package and no server code, even through CommonJS', async () => {
    const { packages } = await importInChild(INDEX_URL, true);
    for (const name of SERVER_PACKAGES) assert.ok(!packages.includes(name), `${name} was loaded: ${packages.join(', ')}`);
    assert.ok(!packages.some((name) => name.startsWith('@fastify/')), packages.join(', '));
  });

  test('exports exactly the public names: a new one is a decision, made here', async () => {
    const { exports } = await importInChild(INDEX_URL, true);
    assert.deepEqual(exports, [
      'AMOUNT_MAJOR_MAX',
      'ANSWER_MS_MAX',
      'AuthenticateRequest',
      'AuthenticateResponse',
      'BalanceNumber',
      'BalanceResponse',
      'CURRENCIES',
      'CountryCode',
      'CurrencyCode',
      'DEFAULT_CRYPTO_DECIMALS',
      'ERRORS',
      'ERROR_CODES',
      'GameBetsRequest',
      'GameBetsResponse',
      'GameSlug',
      'GenerateLaunchUrlRequest',
      'GenerateLaunchUrlResponse',
      'LaunchUrls',
      'Money',
      'NO_RETRY',
      'PROTOCOL_RETRY',
      'PayoutRequest',
      'PlayerId',
      'ProblemResponse',
      'REGULATORY_LENGTH_MAX',
      'RETRY_STATUSES',
      'Round',
      'RunNotStarted',
      'SIGNATURE_HEADER',
      'SIGNIFICANT_DIGITS_MAX',
      'TRANSACTIONS_PER_REQUEST_MAX',
      'TransactionCampaign',
      'TransactionRequest',
      'Uuid',
      'WalletTransaction',
      'amountToMinor',
      'createCurrencies',
      'createOperatorClient',
      'createProviderClient',
      'decimalFromNumber',
      'decimalFromString',
      'errorType',
      'formatMinor',
      'isRetryableStatus',
      'raw',
      'runFailed',
      'runOperatorConformance',
      'runProviderConformance',
      'sign',
      'signingSecrets',
      'stringify',
      'toMinor',
      'verifySignature',
      'writeReport',
    ]);
  });

  test('control: the operator app cannot be imported under the hook', async () => {
    await assert.rejects(importInChild(OPERATOR_APP_URL, true), (error: Error & { stderr?: string }) => {
      assert.match(error.stderr ?? '', /unresolvable here: /);
      return true;
    });
  });

  test('control: without the hook, the operator app loads fastify, and the list shows it', async () => {
    const { packages } = await importInChild(OPERATOR_APP_URL, false);
    assert.ok(packages.includes('fastify'), packages.join(', '));
  });
});
