// The tier of every test file, in one table: the runner picks a tier's files
// from it (`node scripts/run-tests.js --tier unit`), and
// test/architecture/test-tiers.test.ts fails when a test file is in no tier
// or in two, when an entry names no file, and when a file does what its tier
// rules out. Paths are relative to test/, without `.test.ts`.
//
// - unit: the pure layers, run in seconds: no server, no database, no child
//   process, no socket (files in a temporary folder are allowed).
// - contract: the store and outbox contract suites, and everything in one
//   process with a database or an HTTP server (app.inject() or a socket).
// - system: child processes (the CLI, crash and multi-node tests, the
//   sandbox, the package), browsers, and toolchains run as commands.
export const TIERS = {
  unit: [
    'access/address-ranges',
    'access/integrations',
    'architecture/imports',
    'architecture/test-tiers',
    'bench/commit-times',
    'bench/cpu-usage',
    'bench/delivery-times',
    'bench/host-probe',
    'bench/row-filter',
    'bench/steal',
    'bench/targets',
    'cli/leaderboard-csv',
    'conformance/cases',
    'conformance/fixtures',
    'conformance/provider-cases',
    'dispatch/retry-schedule',
    'game/dice',
    'game/fairness',
    'game/ratio',
    'game/reels',
    'game/reels-calls',
    'game/rtp-simulation',
    'http/timeout-config',
    'ledger/books',
    'ledger/rules',
    'ledger/views',
    'operator/postgres-config',
    'platform/postgres/errors',
    'platform/postgres/multi-host-url',
    'protocol/checked-requests',
    'protocol/errors-doc',
    'protocol/errors-registry',
    'protocol/i-json',
    'protocol/money',
    'protocol/nesting',
    'protocol/openapi',
    'protocol/player-id',
    'protocol/protocol-doc',
    'protocol/signing',
    'protocol/validate',
    'provider/ladders',
    'provider/launch-token',
    'provider/provider-config',
    'provider/reels-page',
    'provider/round-completion',
    'provider/seed-keyring',
    'provider/time-ordered-id',
    'rounds/bodies',
    'rounds/books',
    'rounds/completion',
    'rounds/outcomes',
    'rounds/plan',
    'rounds/sameness',
    'rounds/views',
    'sandbox/sandbox-page-data',
    'sandbox/sandbox-secrets',
    'stores/call-deadlines',
    'stores/postgres-hot-batcher',
    'stores/uuid-bytes',
    'stores/wallet-memory-rules',
  ],
  contract: [
    'bench/feature-follower',
    'clients/operator-client',
    'clients/provider-client',
    'conformance/faults',
    'conformance/faulty-providers',
    'conformance/operator-kit',
    'conformance/operator-kit-in-process',
    'conformance/preflight',
    'conformance/provider-kit',
    'dispatch/dispatcher',
    'dispatch/metrics',
    'dispatch/outbox-contract',
    'dispatch/postgres/outbox',
    'dispatch/sqlite/outbox',
    'harness/fault-proxy',
    'http/framing',
    'http/home-and-methods',
    'http/json-api',
    'http/listen',
    'operator/admin-listings',
    'operator/errors',
    'operator/framing-fuzz',
    'operator/fuzz',
    'operator/i-json',
    'operator/integrations',
    'operator/two-studios',
    'operator/lobby-launch',
    'operator/lobby-limits',
    'operator/lobby-players',
    'operator/look-alike-player-ids',
    'operator/player-id-params',
    'operator/postgres-parity',
    'operator/staff',
    'operator/storage-health',
    'operator/wallet-rules',
    'platform/owner-only-files',
    'platform/sqlite/checkpointer',
    'platform/sqlite/migrate',
    'platform/sqlite/wal-flusher',
    'provider/admin',
    'provider/admin-verify',
    'provider/end-to-end',
    'provider/game-bets',
    'provider/game-page',
    'provider/i-json',
    'provider/launch-url',
    'provider/payouts',
    'provider/player-limits',
    'provider/provider-app',
    'provider/provider-nodes',
    'provider/provider-openapi',
    'provider/reels-rounds',
    'provider/round-retry',
    'provider/seed-rotation',
    'provider/seeds-at-rest',
    'provider/staff',
    'provider/storage-outage',
    'provider/store/payout-store',
    'provider/store/provider-store-contract',
    'provider/store/reels-postgres-nodes',
    'provider/store/reels-store-contract',
    'provider/store/request-body-once',
    'provider/store/sealed-seeds-migration',
    'provider/store/verify-store-contract',
    'sandbox/sandbox-pages',
    'stores/postgres-connection-loss',
    'stores/postgres-store',
    'stores/postgres-wallet-memory',
    'stores/sqlite-background-checkpoint',
    'stores/sqlite-handoff',
    'stores/sqlite-id-index',
    'stores/sqlite-migrations',
    'stores/sqlite-verify',
    'stores/sqlite-wallet-memory',
    'stores/store-at-rest',
    'stores/store-contract',
    'stores/store-integrations',
    'stores/store-listings',
    'stores/store-outcomes',
    'stores/verify-sums',
  ],
  system: [
    'cli/database-file',
    'cli/file-modes',
    'cli/operator-integrations',
    'cli/operator-staff',
    'cli/provider-admin',
    'cli/provider-staff',
    'cli/provider-verify',
    'cli/npx-stop',
    'cli/usage',
    'conformance/conformance-cli',
    'conformance/conformance-provider-cli',
    'conformance/reports',
    'docs/doc-commands',
    'examples/signing',
    'harness/child-process',
    'http/shutdown',
    'operator/crash',
    'operator/crypto-decimals-config',
    'operator/multi-node',
    'operator/operator-app',
    'operator/verify-cli',
    'package/packed-package',
    'package/public-api',
    'platform/postgres/failover',
    'platform/sqlite/open-database',
    'provider/browser',
    'provider/crash',
    'provider/exactly-once',
    'provider/reels-browser',
    'provider/serve',
    'provider/store/sqlite-provider-store',
    'sandbox/sandbox-browser',
    'sandbox/sandbox-lobby-browser',
    'sandbox/sandbox-cli',
    'sandbox/sandbox-env',
    'sandbox/sandbox-ports',
    'sandbox/sandbox-guard',
  ],
};

// The names of the tiers, in the order `npm test` lists them.
export const TIER_NAMES = Object.keys(TIERS);

// A test file's path relative to test/ without its suffix, from its source
// (test/a/b.test.ts) or compiled (dist/test/a/b.test.js) path.
export function tierKey(path) {
  return path
    .replace(/\\/g, '/')
    .replace(/^(.*?\/)?test\//, '')
    .replace(/\.test\.[jt]s$/, '');
}

// What is wrong with the table for these test files: each file in no tier or
// in two, and each entry that names no file. Empty when the table is right.
export function tierProblems(files) {
  const keys = new Set(files.map(tierKey));
  const problems = [];
  for (const key of keys) {
    const tiers = TIER_NAMES.filter((tier) => TIERS[tier].includes(key));
    if (tiers.length === 0) problems.push(`test/${key}.test.ts is in no tier of scripts/test-tiers.js`);
    if (tiers.length > 1) problems.push(`test/${key}.test.ts is in more than one tier: ${tiers.join(', ')}`);
  }
  for (const tier of TIER_NAMES) {
    const seen = new Set();
    for (const key of TIERS[tier]) {
      if (!keys.has(key)) problems.push(`${tier} names test/${key}.test.ts, which does not exist`);
      if (seen.has(key)) problems.push(`${tier} names test/${key}.test.ts twice`);
      seen.add(key);
    }
  }
  return problems;
}
