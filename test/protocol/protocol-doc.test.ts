/**
 * Keeps docs/protocol.md, the interface's normative text, true to the code:
 * its signature test vectors recompute with `sign`; every JSON block parses,
 * and every example matches the schema of the endpoint it illustrates, with
 * no member the schema lacks; its error table agrees with the error
 * registry, and every "status `CODE`" it writes agrees with that table; and
 * every section that the code, the tests and the docs cite ("docs/protocol.md §6.4",
 * "protocol.md §3"), or that the document cites itself, exists and keeps its
 * subject.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import { ERROR_CODES, ERRORS, errorType, type ErrorCode } from '../../src/protocol/errors.js';
import {
  AuthenticateRequest,
  AuthenticateResponse,
  BalanceResponse,
  CreateLaunchKeyRequest,
  CreatePlayerRequest,
  GameBetsRequest,
  GameBetsResponse,
  GenerateLaunchUrlRequest,
  GenerateLaunchUrlResponse,
  LaunchKeyResponse,
  PayoutRequest,
  PlayerResponse,
  ProblemResponse,
  TransactionRequest,
} from '../../src/protocol/schemas.js';
import { sign, verifySignature } from '../../src/protocol/signing.js';
import { compile, compileBody } from '../../src/protocol/validate.js';

const ROOT = new URL('../../../', import.meta.url);
const DOC = readFileSync(new URL('docs/protocol.md', ROOT), 'utf8');

interface CodeBlock {
  /** The fence's info string: `json`, `sh`, `text`. */
  info: string;
  /** The lines between the fences, joined by line feeds, without a final one. */
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The last non-empty line before the block. */
  label: string;
  /** The nearest heading above the block. */
  heading: string;
}

function codeBlocks(text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line;
    if (!line.startsWith('```')) continue;
    const close = lines.findIndex((candidate, j) => j > i && candidate === '```');
    assert.ok(close > i, `the block opened on line ${i + 1} is closed`);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    blocks.push({ info: line.slice(3).trim(), body: lines.slice(i + 1, close).join('\n'), line: i + 1, label: lines[before] ?? '', heading });
    i = close;
  }
  return blocks;
}

const BLOCKS = codeBlocks(DOC);
const inAppendix = (block: CodeBlock) => /^### A\.\d+ /.test(block.heading);

// --------------------------------------------------------- test vectors

interface Vector {
  name: string;
  secret: string;
  bytes: number;
  signature: string;
  body: string;
}

function vectors(): Vector[] {
  const start = DOC.indexOf('\n## Appendix A.');
  assert.ok(start >= 0, 'docs/protocol.md has Appendix A');
  const appendix = DOC.slice(start);
  return appendix
    .split(/^(?=### A\.\d+ )/m)
    .slice(1)
    .map((section) => {
      const name = section.split('\n')[0]!;
      const secret = /^\| secret \| `([^`]+)` \|$/m.exec(section)?.[1];
      const bytes = /^\| body \| (\d+) bytes \|$/m.exec(section)?.[1];
      const signature = /^\| X-Server-Authorization \| `([^`]+)` \|$/m.exec(section)?.[1];
      const body = codeBlocks(section).find((block) => block.info === 'json')?.body;
      assert.ok(
        secret !== undefined && bytes !== undefined && signature !== undefined && body !== undefined,
        `${name}: secret, body length, signature and body`,
      );
      return { name, secret, bytes: Number(bytes), signature, body };
    });
}

test('Appendix A: every signature vector recomputes with sign()', () => {
  const all = vectors();
  assert.ok(all.length >= 6, `six vectors or more, found ${all.length}`);
  for (const vector of all) {
    assert.equal(Buffer.byteLength(vector.body, 'utf8'), vector.bytes, `${vector.name}: body length in bytes`);
    assert.match(vector.signature, /^[0-9a-f]{64}$/, `${vector.name}: 64 lowercase hex digits`);
    assert.equal(sign(vector.secret, vector.body), vector.signature, vector.name);
    assert.equal(sign(vector.secret, Buffer.from(vector.body, 'utf8')), vector.signature, `${vector.name}, signed as bytes`);
    assert.ok(verifySignature([vector.secret], vector.signature, Buffer.from(vector.body, 'utf8')), `${vector.name}: verifies`);
  }
});

test('Appendix A: the vectors show what changes a signature', () => {
  const all = vectors();
  assert.equal(new Set(all.map((vector) => vector.signature)).size, all.length, 'every vector has its own signature');
  // The same JSON value in other bytes, and the same bytes under another secret.
  const value = (vector: Vector) => JSON.stringify(JSON.parse(vector.body));
  assert.ok(
    all.some((a) => all.some((b) => a !== b && a.secret === b.secret && a.body !== b.body && value(a) === value(b))),
    'one value written two ways',
  );
  assert.ok(
    all.some((a) => all.some((b) => a.body === b.body && a.secret !== b.secret)),
    'one body under two secrets',
  );
  assert.ok(
    all.some((vector) => Buffer.byteLength(vector.body) > vector.body.length),
    'one body beyond ASCII',
  );
});

// ------------------------------------------------------------- examples

/** Request schemas by endpoint, as the examples' labels name them. */
const REQUESTS: Readonly<Record<string, TSchema>> = {
  'POST /authenticate': AuthenticateRequest,
  'POST /transaction': TransactionRequest,
  'POST /payout': PayoutRequest,
  'POST /generate-launch-url': GenerateLaunchUrlRequest,
  'POST /game-bets': GameBetsRequest,
  'POST /admin/players': CreatePlayerRequest,
  'POST /admin/launch-keys': CreateLaunchKeyRequest,
};

/** Schemas of successful answers by endpoint; refusals are problems. */
const ANSWERS: Readonly<Record<string, TSchema>> = {
  'POST /authenticate': AuthenticateResponse,
  'POST /transaction': BalanceResponse,
  'POST /payout': BalanceResponse,
  'POST /generate-launch-url': GenerateLaunchUrlResponse,
  'POST /game-bets': GameBetsResponse,
  'POST /admin/players': PlayerResponse,
  'GET /admin/players/:playerId': PlayerResponse,
  'POST /admin/launch-keys': LaunchKeyResponse,
};

const INTERFACE = ['POST /authenticate', 'POST /transaction', 'POST /payout', 'POST /generate-launch-url', 'POST /game-bets'];

const LABEL = /^Example (request|answer), `((?:GET|POST) \S+)`(?:, (\d{3}))?:$/;

/**
 * Members of a value that its schema does not name. Schemas allow unknown
 * members (receivers ignore them), so a misspelt member in an example would
 * pass the schema; this finds it.
 */
function strayMembers(schema: TSchema, value: unknown, path: string): string[] {
  if (Array.isArray(value) && schema.type === 'array') {
    return value.flatMap((item, index) => strayMembers(schema.items as TSchema, item, `${path}[${index}]`));
  }
  if (value === null || typeof value !== 'object' || schema.type !== 'object') return [];
  const entries = Object.entries(value);
  if (schema.properties) {
    const properties = schema.properties as Record<string, TSchema>;
    return entries.flatMap(([name, member]) =>
      Object.hasOwn(properties, name) ? strayMembers(properties[name]!, member, `${path}.${name}`) : [`${path}.${name}`],
    );
  }
  // A record (game slug -> currency -> amounts) names its members freely.
  const inner = Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>)[0];
  return inner ? entries.flatMap(([name, member]) => strayMembers(inner, member, `${path}.${name}`)) : [];
}

test('every JSON block of the document parses', () => {
  const json = BLOCKS.filter((block) => block.info === 'json');
  assert.ok(json.length >= 20, `found ${json.length} JSON blocks`);
  for (const block of json) assert.doesNotThrow(() => JSON.parse(block.body), `the JSON block on line ${block.line}`);
});

test('every example matches the schema of its endpoint, and every endpoint has examples', () => {
  const seen = new Set<string>();
  for (const block of BLOCKS.filter((candidate) => candidate.info === 'json' && !inAppendix(candidate))) {
    const where = `the example on line ${block.line}`;
    const label = LABEL.exec(block.label);
    assert.ok(label, `${where} is labelled "Example request|answer, \`METHOD /path\`[, status]:", not "${block.label}"`);
    const [, kind, endpoint, statusText] = label;
    const value = JSON.parse(block.body) as Record<string, unknown>;
    if (kind === 'request') {
      const schema = REQUESTS[endpoint!];
      assert.ok(schema, `${where}: no request schema for ${endpoint}`);
      const read = compileBody(schema).read(block.body);
      assert.ok(read.ok, `${where}: ${read.ok ? '' : read.detail}`);
      assert.deepEqual(strayMembers(schema, value, 'body'), [], `${where}: members the schema lacks`);
      seen.add(`${endpoint} request`);
      continue;
    }
    assert.ok(statusText, `${where}: an answer names its status`);
    const status = Number(statusText);
    if (status === 200 || status === 201) {
      const schema = ANSWERS[endpoint!];
      assert.ok(schema, `${where}: no answer schema for ${endpoint}`);
      const checked = compile(schema).check(value);
      assert.ok(checked.ok, `${where}: ${checked.ok ? '' : checked.detail}`);
      assert.deepEqual(strayMembers(schema, value, 'body'), [], `${where}: members the schema lacks`);
      seen.add(`${endpoint} answer`);
      continue;
    }
    const checked = compile(ProblemResponse).check(value);
    assert.ok(checked.ok, `${where}: ${checked.ok ? '' : checked.detail}`);
    assert.deepEqual(strayMembers(ProblemResponse, value, 'body'), [], `${where}: members a problem lacks`);
    const code = value.code as ErrorCode;
    assert.ok(code in ERRORS, `${where}: ${code} is registered`);
    assert.deepEqual(
      { type: value.type, title: value.title, status: value.status },
      { type: errorType(code), title: ERRORS[code].title, status: ERRORS[code].status },
      `${where}: as the registry builds ${code}`,
    );
    assert.equal(status, ERRORS[code].status, `${where}: the label's status`);
  }
  for (const endpoint of INTERFACE) {
    assert.ok(seen.has(`${endpoint} request`), `${endpoint} has an example request`);
    assert.ok(seen.has(`${endpoint} answer`), `${endpoint} has an example 200 answer`);
  }
});

// ---------------------------------------------------------------- errors

/** The §3.2 table: code -> status. */
function documentedCodes(): Map<string, number> {
  return new Map([...DOC.matchAll(/^\| (\d{3}) \| ([A-Z_]+) \|/gm)].map((row) => [row[2]!, Number(row[1])]));
}

test('the error table holds every registered code with its status', () => {
  const documented = documentedCodes();
  for (const code of ERROR_CODES) assert.equal(documented.get(code), ERRORS[code].status, code);
  // A code may be documented before the registry holds it; once registered, the statuses must agree.
  for (const [code, status] of documented) {
    if (code in ERRORS) assert.equal(status, ERRORS[code as ErrorCode].status, code);
  }
});

test('every code the text names is in the error table, with that status', () => {
  const documented = documentedCodes();
  for (const [, code] of DOC.matchAll(/`([A-Z][A-Z]+(?:_[A-Z]+)+)`/g)) {
    assert.ok(documented.has(code!), `${code} is in the table of §3.2`);
  }
  for (const [text, status, code] of DOC.matchAll(/\b(\d{3}) `([A-Z][A-Z_]+)`/g)) {
    assert.equal(documented.get(code!), Number(status), text);
  }
});

// -------------------------------------------------------------- sections

/** Section numbers of the document's numbered headings: "6", "6.4". */
const SECTIONS = new Map([...DOC.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? (.+)$/gm)].map((match) => [match[1]!, match[2]!]));

/**
 * What the sections that the code cites are about. A renumbering that moved
 * a subject would make every citation of it point elsewhere.
 */
const SUBJECTS: Readonly<Record<string, RegExp>> = {
  '1': /^Transport$/,
  '2': /^Authentication$/,
  '3': /^Errors$/,
  '4': /^Money$/,
  '5': /\/authenticate/,
  '6': /\/transaction/,
  '6.1': /validation/i,
  '6.2': /atomic/i,
  '6.3': /order/i,
  '6.4': /idempotency.*final refusals/i,
  '6.5': /rounds/i,
  '6.6': /free bets/i,
  '6.7': /regulatory/i,
  '6.8': /answer/i,
  '7': /\/payout/,
  '8': /provider endpoints/i,
  '8.1': /\/generate-launch-url/,
  '8.2': /\/game-bets/,
  '9': /limits and time-outs/i,
  '10': /versioning/i,
  '11': /back-office/i,
};

test('the sections keep their numbers and subjects', () => {
  for (const [number, subject] of Object.entries(SUBJECTS)) {
    const title = SECTIONS.get(number);
    assert.ok(title !== undefined, `§${number} exists`);
    assert.match(title, subject, `§${number}`);
  }
});

function repositoryFiles(): { path: string; text: string }[] {
  const files = [{ path: 'README.md', text: readFileSync(new URL('README.md', ROOT), 'utf8') }];
  for (const dir of ['src', 'test', 'bench', 'docs', 'scripts']) {
    for (const name of readdirSync(new URL(`${dir}/`, ROOT), { recursive: true }) as string[]) {
      if (!/\.(ts|js|md|sql)$/.test(name)) continue;
      const path = `${dir}/${name}`;
      files.push({ path, text: readFileSync(new URL(path, ROOT), 'utf8') });
    }
  }
  return files;
}

test('the repository cites its own interface document, never one outside it', () => {
  // The interface lives in docs/protocol.md; a citation of a file the repository does not hold points nowhere.
  const outside = new RegExp(`\\b(?:${['SPEC', 'PROTOCOL'].join('|')})\\.md\\b`);
  for (const { path, text } of [...repositoryFiles(), { path: 'web/game.js', text: readFileSync(new URL('web/game.js', ROOT), 'utf8') }]) {
    assert.doesNotMatch(text, outside, path);
  }
});

test('every section cited in the repository exists', () => {
  // "docs/protocol.md §6.4", "`docs/protocol.md` §5–§7", "docs/protocol.md §6.2–§6.4, §7", "protocol.md §3".
  const citation = /protocol\.md`?(?:'s)? (§\d+(?:\.\d+)*(?:(?:, ?| and | or |–|-)§\d+(?:\.\d+)*)*)/g;
  let cited = 0;
  for (const { path, text } of repositoryFiles()) {
    for (const match of text.matchAll(citation)) {
      for (const [, number] of match[1]!.matchAll(/§(\d+(?:\.\d+)*)/g)) {
        cited++;
        assert.ok(SECTIONS.has(number!), `${path} cites "${match[0]}": §${number} is not a section of docs/protocol.md`);
      }
    }
  }
  assert.ok(cited > 50, `found ${cited} citations`);
  for (const [, number] of DOC.matchAll(/§(\d+(?:\.\d+)*)/g)) {
    assert.ok(SECTIONS.has(number!), `docs/protocol.md cites §${number}, which it does not have`);
  }
});

test('the document stands on its own', () => {
  assert.doesNotMatch(DOC, /SPEC\.md|PROTOCOL\.md/, 'it cites no document outside the repository');
  assert.match(
    DOC.split('\n').slice(0, 12).join('\n'),
    /operator server,\s+the\s+provider server,\s+the\s+clients\s+and\s+the\s+conformance\s+kit/,
    'it says at the top whom it binds',
  );
});
