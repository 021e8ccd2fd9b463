// Runs the compiled test files with node's test runner. Tests that need
// PostgreSQL read DATABASE_URL; without it they skip, and this says so.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

if (!process.env.DATABASE_URL) {
  console.log('notice: DATABASE_URL is not set: PostgreSQL tests are skipped.');
}
const filter = process.argv.slice(2);
const files = testFiles('dist/test').filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)));
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
