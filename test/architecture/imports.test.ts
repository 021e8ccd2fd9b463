/**
 * Proves that the layout's boundaries hold, by reading every import of src/,
 * web/ and bench/:
 * - every row of the layer table of docs/architecture.md ("The layers") holds,
 *   read from the doc itself (test/architecture/layer-table.ts says how a row
 *   is read): each file of src/ and web/ imports from src/ only what the most
 *   specific row holding it allows, or its own layer; every file of src/ has
 *   a row, and every folder and file the table names exists;
 * - rules finer than the table:
 *   - nothing outside src/stores reaches into a backend's folder
 *     (src/stores/sqlite, src/stores/postgres): callers go through
 *     src/stores/open-store.ts, src/stores/settings.ts or src/stores/store.ts;
 *   - a config module (src/operator/operator-config.ts,
 *     src/provider/provider-config.ts and the steps it is split into,
 *     src/provider/config-*.ts but the campaigns', which also writes them to
 *     the store at start) imports no app and no server: only the
 *     protocol, the ledger's and the game's rules, PostgreSQL's settings
 *     (src/platform/postgres/settings.ts), the HTTP limits, and its own
 *     folder's plain modules;
 *   - no store imports a client (src/stores, src/provider/store): a store
 *     is handed answers already read; nor does the outbox's retry schedule
 *     (src/dispatch/retry-schedule.ts), pure data and functions (the
 *     dispatcher beside it sends through the client, as the table allows);
 * - the known violations (KNOWN below, empty when none is known), which
 *   other work is removing, still exist: when one is fixed, this test says
 *   to remove its entry.
 * Controls check that the table's reader finds its rows in a small table and
 * in the doc, and that the import reader finds the imports of a known file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allows, missingNames, parseLayerTable, rowOf, type LayerRow } from './layer-table.js';

/** The project's root, from dist/test/architecture/. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(dir: string, extensions: readonly string[]): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path, extensions);
    return extensions.some((extension) => name.endsWith(extension)) ? [path] : [];
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

function edges(folder: string, extensions: readonly string[]): Edge[] {
  return sourceFiles(join(ROOT, folder), extensions).flatMap((file) => importsOf(file).map((to) => ({ from: relative(ROOT, file), to })));
}

const SRC = edges('src', ['.ts']);
// web/'s pages are plain JavaScript beside the sandbox's TypeScript; none may import src/.
const WEB = edges('web', ['.ts', '.js']);
const ALL = [...SRC, ...WEB, ...edges('bench', ['.ts'])];
const ROWS = parseLayerTable(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));

/**
 * Imports the rules forbid that are being removed. Each entry is
 * `from -> to`, `from` a file or a folder (ending in `/`: every file under
 * it); the test fails while an import it names is not in the list, and
 * fails when an entry matches no import any more, so that the list shrinks
 * with the code.
 */
const KNOWN: readonly Edge[] = [
  // None today. An entry reads, with a comment on why and what removes it:
  // { from: 'src/provider/', to: 'src/stores/settings.ts' },
];

const matches = (known: Edge, edge: Edge): boolean =>
  (known.from.endsWith('/') ? edge.from.startsWith(known.from) : edge.from === known.from) && edge.to === known.to;
const isKnown = (edge: Edge): boolean => KNOWN.some((known) => matches(known, edge));
const show = (found: readonly Edge[]) => found.map((edge) => `${edge.from} -> ${edge.to}`).join('\n');

/** The imports of `edges` that the layer table forbids. */
function againstTable(rows: readonly LayerRow[], found: readonly Edge[]): Edge[] {
  return found.filter((edge) => {
    const row = rowOf(rows, edge.from);
    return row !== undefined && !allows(row, edge.from, edge.to);
  });
}

/** The stores (the wallet's, the provider's) and the outbox's pure schedule read no HTTP answer and send nothing. */
function storageToClients(found: readonly Edge[]): Edge[] {
  const storage = /^src\/(?:stores\/|provider\/store\/|dispatch\/retry-schedule\.ts$)/;
  return found.filter((edge) => storage.test(edge.from) && edge.to.startsWith('src/clients/'));
}

test('control: the table reader finds the rows of a small table, and what each allows', () => {
  const rows = parseLayerTable(
    [
      '## The layers',
      '',
      '| folder | what | imports from `src/` |',
      '|---|---|---|',
      '| `src/a` | the a | nothing |',
      '| `src/b` | the b (`x.ts`) | `a` |',
      '| `src/b/c.ts` | one file | nothing of ours |',
      '| `src/d` | the d | `a` (`one.ts`, `two.ts`), `b` (its `why`) |',
      '| `test/` | the tests | |',
      '',
      '## Next',
      '| `src/z` | not the table | nothing |',
    ].join('\n'),
  );
  assert.deepEqual(
    rows.map((row) => [row.scope, row.allowed]),
    [
      ['src/a', []],
      ['src/b', [{ folder: 'src/a', files: [] }]],
      ['src/b/c.ts', []],
      [
        'src/d',
        [
          { folder: 'src/a', files: ['src/a/one.ts', 'src/a/two.ts'] },
          { folder: 'src/b', files: [] },
        ],
      ],
      ['test', undefined],
    ],
  );
  const row = (path: string) => rowOf(rows, path)!;
  assert.equal(row('src/b/c.ts').scope, 'src/b/c.ts', 'a file row is more specific than its folder');
  assert.equal(row('src/b/e/f.ts').scope, 'src/b');
  assert.equal(allows(row('src/b/e.ts'), 'src/b/e.ts', 'src/a/x.ts'), true);
  assert.equal(allows(row('src/b/c.ts'), 'src/b/c.ts', 'src/a/x.ts'), false, 'the file row, not the folder, judges');
  assert.equal(allows(row('src/b/c.ts'), 'src/b/c.ts', 'src/b/e.ts'), true, 'its own layer is allowed');
  assert.equal(allows(row('src/d/x.ts'), 'src/d/x.ts', 'src/a/one.ts'), true);
  assert.equal(allows(row('src/d/x.ts'), 'src/d/x.ts', 'src/a/three.ts'), false, 'parentheses with files narrow');
  assert.equal(allows(row('src/d/x.ts'), 'src/d/x.ts', 'src/b/why.ts'), true, 'parentheses without files do not');
  assert.equal(allows(row('test/x.ts'), 'test/x.ts', 'src/a/x.ts'), true, 'an empty column states no rule');
  assert.throws(() => parseLayerTable('## The layers\n| `src/a` | a | `b`, and more |\n| `src/c` | c | some words |'), /lists no folder/);
});

test("control: the doc's table is read, every name in it exists, and the reader finds the imports of a known file", () => {
  const scopes = ROWS.map((row) => row.scope);
  for (const scope of ['src/protocol', 'src/ledger', 'src/stores', 'src/platform/owner-only-files.ts', 'src/index.ts', 'web', 'test']) {
    assert.ok(scopes.includes(scope), `the table has a row for ${scope}: ${scopes.join(', ')}`);
  }
  assert.ok(ROWS.length >= 20, `${ROWS.length} rows read`);
  assert.deepEqual(rowOf(ROWS, 'src/protocol/money.ts')?.allowed, []);
  assert.deepEqual(
    rowOf(ROWS, 'src/conformance/runner.ts')?.allowed?.map((allowed) => allowed.folder),
    ['src/protocol', 'src/clients'],
  );
  assert.deepEqual(missingNames(ROWS, ROOT), []);

  const ofServe = ALL.filter((edge) => edge.from === 'src/operator/serve-operator.ts').map((edge) => edge.to);
  assert.ok(ofServe.includes('src/stores/open-store.ts'), ofServe.join(', '));
  assert.ok(ofServe.includes('src/operator/operator-app.ts'), ofServe.join(', '));
  assert.ok(
    WEB.some((edge) => edge.to === 'web/sandbox/api.ts'),
    'the pages of web/sandbox import each other',
  );
});

test('every file of src/ has a row in the layer table', () => {
  const files = sourceFiles(join(ROOT, 'src'), ['.ts']).map((file) => relative(ROOT, file));
  const without = files.filter((file) => rowOf(ROWS, file) === undefined);
  assert.deepEqual(without, []);
});

test('every import of src/ and web/ is allowed by the layer table', () => {
  const found = againstTable(ROWS, [...SRC, ...WEB]).filter((edge) => !isKnown(edge));
  assert.deepEqual(found, [], `imports the rows of docs/architecture.md do not allow:\n${show(found)}`);
  // Judged across layers, not only within one: a rule over no imports would pass whatever the code did.
  const across = SRC.filter((edge) => edge.to.startsWith('src/') && edge.from.split('/')[1] !== edge.to.split('/')[1]);
  assert.ok(across.length > 100, `${across.length} imports across layers`);
});

test("nothing outside src/stores reaches into a backend's folder", () => {
  const backend = /^src\/stores\/(?:sqlite|postgres)\//;
  const found = ALL.filter((edge) => !edge.from.startsWith('src/stores/') && backend.test(edge.to));
  assert.deepEqual(found, [], show(found));
});

test('a config imports no app and no server, only rules, settings and limits', () => {
  const configs = [
    'src/operator/operator-config.ts',
    'src/provider/provider-config.ts',
    ...['schema', 'values', 'limits', 'operators', 'games'].map((part) => `src/provider/config-${part}.ts`),
  ];
  const allowed = (edge: Edge): boolean => {
    const folder = dirname(edge.from);
    if (/^src\/(?:protocol|ledger|game|access)\//.test(edge.to)) return true;
    if (edge.to === 'src/platform/postgres/settings.ts' || edge.to === 'src/http/limits.ts') return true;
    // Its own folder's plain modules (the catalog, the ladders, the schemas), but no app and no server.
    return dirname(edge.to) === folder && !/-app\.ts$|\/serve-[^/]*\.ts$/.test(edge.to);
  };
  const found = ALL.filter((edge) => configs.includes(edge.from) && !allowed(edge));
  assert.deepEqual(found, [], show(found));
  for (const config of configs)
    assert.ok(
      ALL.some((edge) => edge.from === config),
      `${config} was read`,
    );
});

test("no store and not the outbox's schedule imports a client", () => {
  const found = storageToClients(SRC).filter((edge) => !isKnown(edge));
  assert.deepEqual(found, [], show(found));
});

test('each known violation still exists (remove its entry from KNOWN when it is fixed)', () => {
  const violations = [...againstTable(ROWS, SRC), ...storageToClients(SRC)];
  const gone = KNOWN.filter((known) => !violations.some((edge) => matches(known, edge)));
  assert.deepEqual(gone, [], `fixed, so to be removed from KNOWN:\n${show(gone)}`);
});
