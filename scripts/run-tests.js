// Runs the compiled test files with node's test runner. Tests that need
// PostgreSQL read DATABASE_URL; without it they skip, and this says so.
//
//   node scripts/run-tests.js [--tier unit|contract|system] [substring...]
//
// With no substring every file runs; with some, the files whose path contains
// any of them. --tier (repeatable) keeps the files of those tiers only; the
// tiers are listed in scripts/test-tiers.js, and a file in no tier or in two
// stops the run before it starts. Files run two at a time, each in a process
// of its own, except the unit tier's when it runs alone: they share a process
// per core.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/** Test files run at once: two, so that tests with servers and processes of their own do not starve each other. */
const FILES_AT_ONCE = 2;

/**
 * The unit tier's files are pure (no server, no database, no process: the
 * tier's rules, checked by test/architecture/test-tiers.test.ts), so they
 * share processes: one per core, each importing its share of the files.
 * A process per file spent more of the tier's CPU starting node and loading
 * modules than running tests (59 s against 25 s in one process, measured in
 * November 2026). A failure still names its file in its location.
 */
function sharedProcesses(unitFiles) {
  const groups = Math.max(1, Math.min(availableParallelism(), unitFiles.length));
  const dir = mkdtempSync(join(tmpdir(), 'wagerlink-unit-'));
  const entries = Array.from({ length: groups }, (_, group) => {
    const mine = unitFiles.filter((_, i) => i % groups === group);
    const entry = join(dir, `unit-${group + 1}-of-${groups}.mjs`);
    writeFileSync(entry, mine.map((file) => `await import(${JSON.stringify(pathToFileURL(resolve(file)).href)});\n`).join(''));
    return entry;
  });
  return { entries, concurrency: groups, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const unitOnly = tiers.length > 0 && tiers.every((tier) => tier === 'unit');
const run = unitOnly ? sharedProcesses(files) : { entries: files, concurrency: FILES_AT_ONCE, cleanup: () => {} };
const result = spawnSync(process.execPath, ['--test', `--test-concurrency=${run.concurrency}`, ...run.entries], { stdio: 'inherit' });
run.cleanup();
process.exit(result.status ?? 1);
