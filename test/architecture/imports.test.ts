/**
 * Proves that the layout's boundaries hold, by reading every import of
 * src/ and bench/:
 * - nothing outside src/stores reaches into a backend's folder
 *   (src/stores/sqlite, src/stores/postgres): callers go through
 *   src/stores/open-store.ts, src/stores/settings.ts or src/stores/store.ts;
 * - the provider and the outbox import nothing of the wallet's store
 *   (src/stores): what both sides share is src/platform;
 * - the outbox's retry schedule (pure) and the provider's store contract
 *   import no client: the back-off is the protocol's, and an operator's
 *   answer reaches a store already read;
 * - src/platform, the plumbing shared by the wallet's store and the
 *   provider's, imports nothing of ours from outside src/platform;
 * - a config module (src/operator/operator-config.ts,
 *   src/provider/provider-config.ts) imports no app and no server: only the
 *   protocol, the ledger's and the game's rules, PostgreSQL's settings
 *   (src/platform/postgres/settings.ts), the HTTP limits, and its own
 *   folder's plain modules;
 * - the access rules (src/access) import only the protocol, and the staff
 *   stores both servers share (src/staff) only the protocol and the access
 *   rules;
 * - the rules of rounds (src/rounds) import only the protocol and the
 *   games, as the wallet's rules (src/ledger) import only the protocol;
 * - the conformance kit (src/conformance) imports only the protocol and the
 *   clients, so that it judges an operator by its behaviour, never through
 *   our server's code.
 * A control checks that the reader finds the imports it judges.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root, from dist/test/architecture/. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** `import ... from '...'`, `export ... from '...'`, `import('...')` and worker modules (`new URL('...', import.meta.url)`). */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)'(\.{1,2}\/[^']+)'/g;

/** The files of ours that `file` imports, as paths from the root with their .ts name (compiled .js names are mapped back). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => relative(ROOT, resolve(dirname(file), match[1]!)).replace(/\.js$/, '.ts'));
}

interface Edge {
  from: string;
  to: string;
}

function edges(folders: readonly string[]): Edge[] {
  return folders.flatMap((folder) =>
    sourceFiles(join(ROOT, folder)).flatMap((file) => importsOf(file).map((to) => ({ from: relative(ROOT, file), to }))),
  );
}

const ALL = edges(['src', 'bench']);
const show = (found: readonly Edge[]) => found.map((edge) => `${edge.from} -> ${edge.to}`).join('\n');

test('control: the reader finds the imports of a known file', () => {
  const ofServe = ALL.filter((edge) => edge.from === 'src/operator/serve-operator.ts').map((edge) => edge.to);
  assert.ok(ofServe.includes('src/stores/open-store.ts'), ofServe.join(', '));
  assert.ok(ofServe.includes('src/operator/operator-app.ts'), ofServe.join(', '));
});

test("nothing outside src/stores reaches into a backend's folder", () => {
  const backend = /^src\/stores\/(?:sqlite|postgres)\//;
  const found = ALL.filter((edge) => !edge.from.startsWith('src/stores/') && backend.test(edge.to));
  assert.deepEqual(found, [], show(found));
});

test("the provider and the outbox import nothing of the wallet's store", () => {
  const found = ALL.filter((edge) => /^src\/(?:provider|dispatch)\//.test(edge.from) && edge.to.startsWith('src/stores/'));
  assert.deepEqual(found, [], show(found));
});

test("the retry schedule and the provider's store contract import no client", () => {
  const pure = ['src/dispatch/retry-schedule.ts', 'src/provider/store/provider-store.ts'];
  const found = ALL.filter((edge) => pure.includes(edge.from) && edge.to.startsWith('src/clients/'));
  assert.deepEqual(found, [], show(found));
  for (const file of pure) assert.ok(ALL.some((edge) => edge.from === file), `${file} was read`);
});

test('src/platform imports nothing of ours from outside src/platform', () => {
  const found = ALL.filter((edge) => edge.from.startsWith('src/platform/') && !edge.to.startsWith('src/platform/'));
  assert.deepEqual(found, [], show(found));
  assert.ok(
    ALL.some((edge) => edge.from.startsWith('src/platform/')),
    'src/platform holds modules that import each other',
  );
});

test('a config imports no app and no server, only rules, settings and limits', () => {
  const configs = ['src/operator/operator-config.ts', 'src/provider/provider-config.ts'];
  const allowed = (edge: Edge): boolean => {
    const folder = dirname(edge.from);
    if (/^src\/(?:protocol|ledger|game|access)\//.test(edge.to)) return true;
    if (edge.to === 'src/platform/postgres/settings.ts' || edge.to === 'src/http/limits.ts') return true;
    // Its own folder's plain modules (the catalog, the ladders, the schemas), but no app and no server.
    return dirname(edge.to) === folder && !/-app\.ts$|\/serve-[^/]*\.ts$/.test(edge.to);
  };
  const found = ALL.filter((edge) => configs.includes(edge.from) && !allowed(edge));
  assert.deepEqual(found, [], show(found));
  for (const config of configs) assert.ok(ALL.some((edge) => edge.from === config), `${config} was read`);
});

test('the access rules (src/access) import only the protocol and each other, and the staff stores (src/staff) only those', () => {
  const access = ALL.filter((edge) => edge.from.startsWith('src/access/'));
  const found = access.filter((edge) => !/^src\/(?:protocol|access)\//.test(edge.to));
  assert.deepEqual(found, [], show(found));
  const staff = ALL.filter((edge) => edge.from.startsWith('src/staff/'));
  const fromStaff = staff.filter((edge) => !/^src\/(?:protocol|access|staff)\//.test(edge.to));
  assert.deepEqual(fromStaff, [], show(fromStaff));
  assert.ok(access.some((edge) => edge.to.startsWith('src/protocol/')), 'src/access was read');
  assert.ok(staff.some((edge) => edge.to.startsWith('src/access/')), 'src/staff was read');
});

test('the conformance kit imports only the protocol and the clients', () => {
  const kit = ALL.filter((edge) => edge.from.startsWith('src/conformance/'));
  const found = kit.filter((edge) => !/^src\/(?:protocol|clients|conformance)\//.test(edge.to));
  assert.deepEqual(found, [], show(found));
  // Read, and reaching both: a rule over no imports would pass whatever the kit did.
  assert.ok(kit.some((edge) => edge.to.startsWith('src/protocol/')), 'the kit imports the protocol');
  assert.ok(kit.some((edge) => edge.to.startsWith('src/clients/')), 'the kit imports the clients');
});

test('the rules of rounds (src/rounds) import only the protocol, the games and each other', () => {
  const rounds = ALL.filter((edge) => edge.from.startsWith('src/rounds/'));
  const found = rounds.filter((edge) => !/^src\/(?:protocol|game|rounds)\//.test(edge.to));
  assert.deepEqual(found, [], show(found));
  assert.ok(rounds.some((edge) => edge.to.startsWith('src/protocol/')), 'src/rounds was read');
  assert.ok(rounds.some((edge) => edge.to.startsWith('src/game/')), 'src/rounds imports the games');
});
