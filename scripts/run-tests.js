// Runs the compiled test files with node's test runner. Tests that need
// PostgreSQL read DATABASE_URL; without it they skip, and this says so.
//
//   node scripts/run-tests.js [--tier unit|contract|system] [substring...]
//
// With no substring every file runs; with some, the files whose path contains
// any of them. --tier (repeatable) keeps the files of those tiers only; the
// tiers are listed in scripts/test-tiers.js, and a file in no tier or in two
// stops the run before it starts.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TIER_NAMES, TIERS, tierKey, tierProblems } from './test-tiers.js';

function testFiles(dir, suffix) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path, suffix);
    return name.endsWith(suffix) ? [path] : [];
  });
}

const tiers = [];
const filter = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 1) {
  const arg = args[i];
  const tier = arg === '--tier' ? args[++i] : arg.startsWith('--tier=') ? arg.slice('--tier='.length) : undefined;
  if (tier === undefined) {
    filter.push(arg);
  } else if (TIER_NAMES.includes(tier)) {
    tiers.push(tier);
  } else {
    console.error(`unknown tier ${JSON.stringify(tier)}: the tiers are ${TIER_NAMES.join(', ')}`);
    process.exit(2);
  }
}

// The table is checked against the sources, so that a compiled file left
// behind by a deleted source does not stop the run.
const problems = tierProblems(testFiles('test', '.test.ts'));
if (problems.length > 0) {
  for (const problem of problems) console.error(`error: ${problem}`);
    process.exit(1);
}
if (!process.env.DATABASE_URL) {
  console.log('notice: DATABASE_URL is not set: PostgreSQL tests are skipped.');
}
const files = testFiles('dist/test', '.test.js')
  .filter((file) => tiers.length === 0 || tiers.some((tier) => TIERS[tier].includes(tierKey(file))))
  .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)));
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
