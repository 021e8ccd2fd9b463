/**
 * Proves that every test file is in exactly one tier of
 * scripts/test-tiers.js (the table `npm run test:unit`, `test:contract` and
 * `test:system` run from), that the table names no file that does not exist,
 * and that each file does what its tier allows, read from its source:
 * - a unit file starts no child process, browser, server or database;
 * - a contract file starts a server or a database, and no child process or
 *   browser;
 * - a system file starts a child process or a browser.
 * A control checks that a table with a file left out, or put in two tiers,
 * is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The project's root, from dist/test/architecture/. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface TierTable {
  TIERS: Record<string, string[]>;
  TIER_NAMES: string[];
  tierKey(path: string): string;
  tierProblems(files: readonly string[]): string[];
}

const tiers = (await import(pathToFileURL(join(ROOT, 'scripts', 'test-tiers.js')).href)) as TierTable;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const FILES = testFiles(join(ROOT, 'test'));

// Each pattern is written so that it does not match its own source (a
// bracketed letter), since this file is read too.
/** What starts a process or a browser. */
const PROCESS = /child-proces[s]\.js'|node:child_proces[s]|playwright-cor[e]/;
/** What starts a server or opens a database in the test's own process. */
const SERVER_OR_DATABASE = new RegExp(
  [
    String.raw`\.liste[n]\(`,
    String.raw`\.injec[t]\(`,
    String.raw`\bmak[e](?:Operator|Provider)\(`,
    String.raw`\blistenin[g]\w*\(`,
    String.raw`\bbuil[d](?:Operator|Provider)App\(`,
    String.raw`\bcreateServe[r]\(`,
    String.raw`\bBACKEND[S]\b|[A-Z]_BACKEND[S]\b`,
    String.raw`\bope[n]\w*(?:Database|Stores?)\(`,
    String.raw`Stor[e]\.open\(`,
    'better-sqlit[e]3',
    "from 'postgre[s]'",
  ].join('|'),
);

test('every test file is in exactly one tier, and every entry names a file', () => {
  assert.ok(FILES.length > 100, `found ${FILES.length} test files`);
  assert.deepEqual(tiers.tierProblems(FILES), []);
  assert.deepEqual(tiers.TIER_NAMES, ['unit', 'contract', 'system']);
});

test('each file does what its tier allows', () => {
  const wrong: string[] = [];
  for (const file of FILES) {
    const key = tiers.tierKey(file);
    const text = readFileSync(file, 'utf8');
    const tier = tiers.TIER_NAMES.find((name) => tiers.TIERS[name]!.includes(key));
    const process = PROCESS.test(text);
    const serverOrDatabase = SERVER_OR_DATABASE.test(text);
    if (tier === 'unit' && (process || serverOrDatabase)) wrong.push(`${key} is unit but starts a ${process ? 'process' : 'server or database'}`);
    if (tier === 'contract' && process) wrong.push(`${key} is contract but starts a process`);
    if (tier === 'contract' && !serverOrDatabase) wrong.push(`${key} is contract but starts no server or database: it is unit`);
    if (tier === 'system' && !process) wrong.push(`${key} is system but starts no process: it is contract or unit`);
  }
  assert.deepEqual(wrong, []);
});

test('control: a file left out of the table, or put in two tiers, is refused', () => {
  const unit = tiers.TIERS.unit!;
  const moved = unit[0]!;
  unit.shift();
  try {
    assert.deepEqual(tiers.tierProblems(FILES), [`test/${moved}.test.ts is in no tier of scripts/test-tiers.js`]);
    tiers.TIERS.system!.push(moved);
    tiers.TIERS.contract!.push(moved);
    assert.deepEqual(tiers.tierProblems(FILES), [`test/${moved}.test.ts is in more than one tier: contract, system`]);
    tiers.TIERS.system!.pop();
    tiers.TIERS.contract!.pop();
    unit.push('nowhere/missing');
    assert.deepEqual(tiers.tierProblems(FILES), [
      `test/${moved}.test.ts is in no tier of scripts/test-tiers.js`,
      'unit names test/nowhere/missing.test.ts, which does not exist',
    ]);
    unit.pop();
  } finally {
    unit.unshift(moved);
  }
  assert.deepEqual(tiers.tierProblems(FILES), []);
});
