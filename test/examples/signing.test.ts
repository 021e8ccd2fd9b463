/**
 * Proves the signing snippets of examples/signing/ (docs/signing.md):
 * vectors.json holds exactly the vectors of docs/protocol.md Appendix A,
 * and each snippet whose toolchain is on this machine computes every one
 * of them, and fails on a vector whose signature is wrong (so that its
 * "ok" means something). Node's runs always; Python, Java, PHP, Go and C#
 * (Mono) run where installed and are skipped, saying so, where not.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DIR = join(ROOT, 'examples/signing');
const VECTORS = join(DIR, 'vectors.json');
/** Compiling a snippet (Go's standard library the first time) can take a while on a loaded machine (ms). */
const RUN_MS_MAX = 300_000;

interface Vector {
  name: string;
  secret: string;
  body: string;
  signature: string;
}

/** The vectors as docs/protocol.md Appendix A gives them. */
function appendixVectors(): Vector[] {
  const doc = readFileSync(join(ROOT, 'docs/protocol.md'), 'utf8');
  const appendix = doc.slice(doc.indexOf('\n## Appendix A.'));
  return appendix
    .split(/^(?=### A\.\d+ )/m)
    .slice(1)
    .map((section) => ({
      name: section.split('\n')[0]!.replace(/^### /, ''),
      secret: /^\| secret \| `([^`]+)` \|$/m.exec(section)![1]!,
      body: /```json\n([\s\S]*?)\n```/.exec(section)![1]!,
      signature: /^\| X-Server-Authorization \| `([^`]+)` \|$/m.exec(section)![1]!,
    }));
}

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

interface Snippet {
  language: string;
  /** The commands that must be present. */
  tools: string[];
  /** Builds the snippet, if it needs it, in `work`; returns the argv that runs it on a vectors file. */
  prepare: (work: string) => (vectors: string) => string[];
}

const SNIPPETS: Snippet[] = [
  { language: 'Node.js', tools: ['node'], prepare: () => (vectors) => [process.execPath, join(DIR, 'sign.mjs'), vectors] },
  { language: 'Python', tools: ['python3'], prepare: () => (vectors) => ['python3', join(DIR, 'sign.py'), vectors] },
  { language: 'PHP', tools: ['php'], prepare: () => (vectors) => ['php', join(DIR, 'sign.php'), vectors] },
  { language: 'Java', tools: ['java'], prepare: () => (vectors) => ['java', join(DIR, 'Sign.java'), vectors] },
  {
    language: 'Go',
    tools: ['go'],
    prepare: (work) => {
      run(['go', 'build', '-o', join(work, 'sign'), join(DIR, 'sign.go')], {
        GOCACHE: join(work, 'gocache'),
        GOPATH: join(work, 'gopath'),
        GO111MODULE: 'off',
      });
      return (vectors) => [join(work, 'sign'), vectors];
    },
  },
  {
    language: 'C# (Mono)',
    tools: ['mcs', 'mono'],
    prepare: (work) => {
      run(['mcs', `-out:${join(work, 'Sign.exe')}`, join(DIR, 'Sign.cs')]);
      return (vectors) => ['mono', join(work, 'Sign.exe'), vectors];
    },
  },
];

function run(argv: string[], env: Record<string, string> = {}) {
  const result = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: RUN_MS_MAX, env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return result;
}

test('examples/signing/vectors.json holds exactly the vectors of docs/protocol.md Appendix A', () => {
  const file = JSON.parse(readFileSync(VECTORS, 'utf8')) as { vectors: Vector[] };
  const appendix = appendixVectors();
  assert.ok(appendix.length >= 6, `${appendix.length} vectors`);
  assert.deepEqual(file.vectors, appendix);
});

test("docs/signing.md shows each file's snippet as it is in the file", () => {
  const doc = readFileSync(join(ROOT, 'docs/signing.md'), 'utf8');
  for (const file of ['sign.mjs', 'sign.py', 'sign.php', 'Sign.java', 'sign.go', 'Sign.cs']) {
    const lines = readFileSync(join(DIR, file), 'utf8').split('\n');
    const start = lines.findIndex((line) => line.includes('--- the snippet'));
    const end = lines.findIndex((line, i) => i > start && /-{20,}\s*$/.test(line));
    assert.ok(start >= 0 && end > start, `${file} marks its snippet`);
    const body = lines.slice(start + 1, end);
    const indent = Math.min(...body.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length));
    const snippet = body
      .map((line) => line.slice(indent))
      .join('\n')
      .replace(/^\n+|\n+$/g, '');
    assert.ok(doc.includes(snippet), `docs/signing.md shows the snippet of ${file} as it is`);
    assert.ok(doc.includes(`\`examples/signing/${file}\``), `docs/signing.md names ${file}`);
  }
});

describe('each signing snippet computes every vector', () => {
  for (const snippet of SNIPPETS) {
    const missing = snippet.tools.filter((tool) => !has(tool));
    const skip = missing.length === 0 ? false : `${missing.join(', ')} not installed: the ${snippet.language} snippet is not run`;
    if (skip) console.log(`notice: ${skip}`);
    test(snippet.language, { skip }, () => {
      const { dir, cleanup } = tempDir('wagerlink-signing-');
      try {
        const command = snippet.prepare(dir);
        const good = run(command(VECTORS));
        assert.equal(good.status, 0, `${good.stdout}${good.stderr}`);
        const names = appendixVectors().map((vector) => vector.name);
        assert.deepEqual(
          good.stdout.trim().split('\n'),
          names.map((name) => `ok ${name}`),
        );

        // One signature off by a digit: the snippet must say so and fail.
        const file = JSON.parse(readFileSync(VECTORS, 'utf8')) as { vectors: Vector[] };
        const last = file.vectors[file.vectors.length - 1]!;
        last.signature = `${last.signature.slice(0, -1)}${last.signature.endsWith('0') ? '1' : '0'}`;
        const wrong = join(dir, 'wrong.json');
        writeFileSync(wrong, JSON.stringify(file));
        const bad = run(command(wrong));
        assert.equal(bad.status, 1, `${bad.stdout}${bad.stderr}`);
        assert.match(bad.stdout, new RegExp(`^FAILED ${last.name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
      } finally {
        cleanup();
      }
    });
  }
});
