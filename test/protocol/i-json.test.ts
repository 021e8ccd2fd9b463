/**
 * Proves, with fast-check, the I-JSON rule of request bodies (docs/protocol.md §1;
 * src/protocol/i-json.ts) through the body reader both servers use: any JSON
 * text of unique member names and well-formed strings, in any layout, is
 * accepted and parses to the value it was written from; one duplicate member
 * name, unpaired surrogate, U+0000 or number outside a double's range,
 * anywhere in it (nested, in arrays, in members nobody reads), gets it
 * refused with INVALID_REQUEST and a detail that says what and where; bytes
 * that are not UTF-8 are refused; and no string or bytes make the reader
 * throw.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanIJson } from '../../src/protocol/i-json.js';
import { TransactionRequest } from '../../src/protocol/schemas.js';
import { compileBody, parseJsonObject } from '../../src/protocol/validate.js';

type Json = null | boolean | number | string | Json[] | { [name: string]: Json };
type Segment = string | number;

/** Characters of generated strings: any code point but U+0000 and the surrogates, with JSON's own specials often. */
const characterArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: 1, max: 0x10ffff })
      .filter((c) => c < 0xd800 || c > 0xdfff)
      .map((c) => String.fromCodePoint(c)),
  },
  { weight: 1, arbitrary: fc.constantFrom('"', '\\', '/', '\n', '\u0001', '\u001f', '\u007f', '\u2028', '\ufffd', '\u{1f600}', 'e', '-', '0') },
);
const stringArb = fc.string({ unit: characterArb, maxLength: 12 });
/** Values whose member names are unique (they are a JS object's keys) and whose strings are well-formed and free of U+0000. */
const valueArb = fc.jsonValue({ maxDepth: 4, stringUnit: characterArb }) as fc.Arbitrary<Json>;
const bodyArb = fc.dictionary(stringArb, valueArb, { maxKeys: 8 }) as fc.Arbitrary<{ [name: string]: Json }>;
/** Whitespace JSON allows between tokens: a layout. */
const layoutArb = fc.array(fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  '), { minLength: 1, maxLength: 8 });

/** -0 is written "0" by JSON.stringify: the value a text of `value` parses to. */
function withoutNegativeZero(value: Json): Json {
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (value !== null && typeof value === 'object') {
    const copy: { [name: string]: Json } = {};
    for (const [name, member] of Object.entries(value))
      Object.defineProperty(copy, name, { value: withoutNegativeZero(member), enumerable: true, writable: true, configurable: true });
    return copy;
  }
  return value;
}

/** Where an edit goes: a value replaced, or a member added to an object. */
type Edit = { kind: 'value'; path: Segment[]; text: string } | { kind: 'member'; path: Segment[]; text: string; position: number };

/**
 * JSON text of a value, with the layout's whitespace between tokens and an
 * edit's raw text spliced in: the text a sender could write.
 */
function textOf(value: Json, layout: readonly string[], edit?: Edit): string {
  let spaces = 0;
  const space = () => layout[spaces++ % layout.length]!;
  const write = (node: Json, path: Segment[]): string => {
    const here = edit !== undefined && samePath(edit.path, path);
    if (here && edit.kind === 'value') return edit.text;
    if (Array.isArray(node)) return `[${space()}${node.map((child, i) => write(child, [...path, i])).join(`${space()},${space()}`)}${space()}]`;
    if (node !== null && typeof node === 'object') {
      const members = Object.entries(node).map(([name, child]) => `${JSON.stringify(name)}${space()}:${space()}${write(child, [...path, name])}`);
      if (here && edit.kind === 'member') members.splice(edit.position % (members.length + 1), 0, edit.text);
      return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
    }
    return JSON.stringify(node);
  };
  return `${space()}${write(value, [])}${space()}`;
}

function samePath(a: readonly Segment[], b: readonly Segment[]): boolean {
  return a.length === b.length && a.every((segment, i) => segment === b[i]);
}

/** Every path to a value below the top, and every path to an object (the top's included). */
function pathsOf(value: Json): { values: Segment[][]; objects: Segment[][] } {
  const values: Segment[][] = [];
  const objects: Segment[][] = [];
  const walk = (node: Json, path: Segment[]) => {
    if (path.length > 0) values.push(path);
    if (Array.isArray(node)) node.forEach((child, i) => walk(child, [...path, i]));
    else if (node !== null && typeof node === 'object') {
      objects.push(path);
      for (const [name, child] of Object.entries(node)) walk(child, [...path, name]);
    }
  };
  walk(value, []);
  return { values, objects };
}

function objectAt(value: Json, path: readonly Segment[]): { [name: string]: Json } {
  let node = value;
  for (const segment of path) node = (node as Record<string | number, Json>)[segment]!;
  return node as { [name: string]: Json };
}

/** What is wrong, as a value's text (strings, numbers) or a member's text (`"name":value`). */
const VIOLATIONS = {
  'lone surrogate': {
    pattern: /holds an unpaired surrogate/,
    values: ['"\\ud800"', '"a\\udbff"', '"\\udc00b"', '"\\udfff\\ud800"', '"\\ud83d\\ud83d\\ude00"', '"\\ud83dx"'],
    members: ['"\\ud800":1', '"x\\udfff":[]'],
  },
  'U+0000': { pattern: /holds U\+0000/, values: ['"\\u0000"', '"a\\u0000b"', '"\\\\\\u0000"'], members: ['"\\u0000":true', '"ab\\u0000":null'] },
  'number out of range': {
    pattern: /the number .* is outside the range of a double/,
    values: [
      '1e400',
      '-1e400',
      '1E+999',
      '1e-400',
      '-1e-400',
      '2e-324',
      '1.8e308',
      '123e-99999',
      `1${'0'.repeat(309)}`,
      `-0.${'0'.repeat(330)}1`,
      `0.${'0'.repeat(400)}7e2`,
    ],
    members: [],
  },
} as const;
type Violation = keyof typeof VIOLATIONS;

const reader = compileBody(TransactionRequest, (value) => value.transactions.map((t, i): [string, number] => [`transactions[${i}].amount`, t.amount]));

test('property: a JSON text of unique names and well-formed strings, in any layout, is accepted and parses to its value', () => {
  fc.assert(
    fc.property(bodyArb, layoutArb, (body, layout) => {
      const plain = parseJsonObject(JSON.stringify(body));
      assert.ok(plain.ok, plain.ok ? '' : plain.detail);
      assert.deepStrictEqual(plain.value, withoutNegativeZero(body));
      const text = textOf(body, layout);
      const parsed = parseJsonObject(text);
      assert.ok(parsed.ok, `${text}: ${parsed.ok ? '' : parsed.detail}`);
      assert.deepStrictEqual(parsed.value, withoutNegativeZero(body));
      // The same text as bytes: UTF-8 of well-formed text is accepted alike.
      const fromBytes = parseJsonObject(Buffer.from(text, 'utf8'));
      assert.ok(fromBytes.ok);
      assert.deepStrictEqual(fromBytes.value, parsed.value);
    }),
    { numRuns: 1_000 },
  );
});

test('property: one unpaired surrogate, U+0000 or out-of-range number anywhere is refused, and the detail says what and where', () => {
  const caseArb = fc.record({
    body: bodyArb,
    layout: layoutArb,
    violation: fc.constantFrom(...(Object.keys(VIOLATIONS) as Violation[])),
    pick: fc.nat(),
    asMember: fc.boolean(),
    position: fc.nat(),
  });
  fc.assert(
    fc.property(caseArb, ({ body, layout, violation, pick, asMember, position }) => {
      const { values, objects } = pathsOf(body);
      const { pattern, values: valueTexts, members: memberTexts } = VIOLATIONS[violation];
      let edit: Edit;
      let where: string | undefined;
      if (values.length > 0 && !(asMember && memberTexts.length > 0)) {
        const path = values[pick % values.length]!;
        edit = { kind: 'value', path, text: valueTexts[pick % valueTexts.length]! };
        where = fieldOf(path);
      } else {
        const path = objects[pick % objects.length]!;
        const texts = memberTexts.length > 0 ? memberTexts : valueTexts.map((text) => `"added":${text}`);
        const text = texts[pick % texts.length]!;
        // A member added under a name the object has is a duplicate as well: either refusal will do.
        if (Object.hasOwn(objectAt(body, path), 'added')) return;
        edit = { kind: 'member', path, text, position };
      }
      const text = textOf(body, layout, edit);
      const parsed = parseJsonObject(text);
      assert.ok(!parsed.ok, `accepted: ${text}`);
      assert.equal(parsed.code, 'INVALID_REQUEST');
      assert.match(parsed.detail, pattern, text);
      if (where !== undefined) assert.ok(parsed.detail.startsWith(`${where}: `), `${parsed.detail} does not name ${where}`);
    }),
    { numRuns: 2_000 },
  );
});

test('property: a member name twice in any object is refused, however its second spelling is escaped', () => {
  const caseArb = fc.record({ body: bodyArb, layout: layoutArb, pick: fc.nat(), position: fc.nat(), value: valueArb, escape: fc.boolean() });
  fc.assert(
    fc.property(caseArb, ({ body, layout, pick, position, value, escape }) => {
      const { objects } = pathsOf(body);
      const path = objects[pick % objects.length]!;
      const names = Object.keys(objectAt(body, path));
      const name = names.length === 0 ? 'dup' : names[pick % names.length]!;
      // The first character as a \u escape: the same name for JSON, other bytes on the wire.
      const first = name.charCodeAt(0);
      const spelled =
        escape && name.length > 0 && (first < 0xd800 || first > 0xdfff)
          ? `"\\u${first.toString(16).padStart(4, '0')}${JSON.stringify(name.slice(1)).slice(1)}`
          : JSON.stringify(name);
      const member = `${spelled}:${JSON.stringify(value)}`;
      const text = textOf(body, layout, { kind: 'member', path, text: names.length === 0 ? `${member},${member}` : member, position });
      const parsed = parseJsonObject(text);
      assert.ok(!parsed.ok, `accepted: ${text}`);
      assert.match(parsed.detail, /appears twice/, text);
      assert.equal(parsed.detail, `body: member ${JSON.stringify(name)} appears twice${path.length === 0 ? '' : ` in ${fieldOf(path)}`}`);
    }),
    { numRuns: 2_000 },
  );
});

test('details name the member, the array item and the object', () => {
  const detail = (text: string) => {
    const parsed = parseJsonObject(text);
    assert.ok(!parsed.ok, text);
    return parsed.detail;
  };
  assert.equal(detail('{"transactions":[{"id":"x","amount":1,"amount":2}]}'), 'body: member "amount" appears twice in transactions[0]');
  assert.equal(detail('{"a":1,"b":{},"a":2}'), 'body: member "a" appears twice');
  assert.equal(detail('{"regulatory":"x\\u0000"}'), 'regulatory: holds U+0000');
  assert.equal(detail('{"playerId":"crash\\ud800"}'), 'playerId: holds an unpaired surrogate (\\ud800)');
  assert.equal(detail('{"list":[0,{"a b":"\\udc00"}]}'), 'list[1]["a b"]: holds an unpaired surrogate (\\udc00)');
  assert.equal(detail('{"x":{"\\u0000":1}}'), 'body: member name "\\u0000" holds U+0000 in x');
  assert.equal(detail('{"round":{"n":[1e-400]}}'), 'round.n[0]: the number 1e-400 is outside the range of a double');
  assert.equal(detail(`{"n":${'9'.repeat(400)}}`), `n: the number ${'9'.repeat(40)}... is outside the range of a double`);
  // A raw unpaired surrogate can only come from a text, not from UTF-8 bytes.
  assert.equal(detail('{"a":"x\ud800"}'), 'a: holds an unpaired surrogate (U+D800)');
  assert.equal(detail('{"a\udc00":1}'), 'body: member name "a\\udc00" holds an unpaired surrogate (U+DC00)');
});

test('in range, and not refused: zeros with any exponent, the extremes of a double, escaped pairs, -0 outside money', () => {
  for (const text of [
    '{"a":0e400,"b":-0.0e-999,"c":5e-324,"d":1.7976931348623157e308,"e":-2.5e-324,"f":1e308,"g":0.000}',
    `{"n":${'9'.repeat(308)},"m":0.${'0'.repeat(300)}1}`,
    '{"pair":"\\ud83d\\ude00","raw":"\u{1f600}","escaped backslash then u":"\\\\ud800","nul spelled":"\\\\u0000"}',
    '{"a":{"x":1},"b":{"x":1},"list":[{"x":1},{"x":2}],"x":[]}',
    '{"zero":-0}',
  ]) {
    const parsed = parseJsonObject(text);
    assert.ok(parsed.ok, `${text}: ${parsed.ok ? '' : parsed.detail}`);
  }
});

test('large objects: a name twice among thousands is found, and thousands of unique names pass', () => {
  const names = Array.from({ length: 5_000 }, (_, i) => `"m${i}":${i}`);
  assert.ok(parseJsonObject(`{${names.join(',')}}`).ok);
  const refused = parseJsonObject(`{${names.join(',')},"m4321":0}`);
  assert.ok(!refused.ok && refused.detail === 'body: member "m4321" appears twice', JSON.stringify(refused));
  // The same name in sibling objects is not a duplicate.
  assert.ok(parseJsonObject(`{"a":[${Array.from({ length: 100 }, () => `{${names.slice(0, 20).join(',')}}`).join(',')}]}`).ok);
});

test('bytes that are not UTF-8 are refused, naming the first bad byte', () => {
  const bad: number[][] = [
    [0x80],
    [0xff],
    [0xc0, 0xaf],
    [0xc1, 0xbf],
    [0xe0, 0x80, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xed, 0xbf, 0xbf],
    [0xf4, 0x90, 0x80, 0x80],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
    [0xe2, 0x82],
    [0xf0, 0x9f, 0x98],
  ];
  for (const bytes of bad) {
    const head = Buffer.from('{"é€":"\u{1f600}');
    const parsed = parseJsonObject(Buffer.concat([head, Buffer.from(bytes), Buffer.from('"}')]));
    assert.ok(!parsed.ok, bytes.join(' '));
    assert.equal(parsed.detail, `body is not valid UTF-8 (byte ${head.length})`);
  }
  // U+FFFD itself is text like any other.
  assert.ok(parseJsonObject(Buffer.from('{"a":"\ufffd"}')).ok);
});

test('property: UTF-8 bytes are read as their text; other bytes are refused; none make the reader throw', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), fc.string({ unit: characterArb, maxLength: 8 }), (bytes, name) => {
      const body = Buffer.concat([Buffer.from(`{${JSON.stringify(name)}:"`), bytes, Buffer.from('"}')]);
      const decoded = new TextDecoder('utf-8', { fatal: false }).decode(body);
      let utf8 = true;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(body);
      } catch {
        utf8 = false;
      }
      const parsed = parseJsonObject(body);
      if (!utf8) {
        assert.ok(!parsed.ok && /^body is not valid UTF-8 \(byte \d+\)$/.test(parsed.detail));
        return;
      }
      // Valid UTF-8: the answer is the one the decoded text gets.
      assert.deepStrictEqual(parsed, parseJsonObject(decoded));
      reader.read(body);
    }),
    { numRuns: 2_000 },
  );
});

/** Token soup: texts that look like JSON, to reach the scanner's corners. */
const soupArb = fc
  .array(
    fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      '"',
      '\\',
      '\\u',
      'd800',
      'dc00',
      '0000',
      ':',
      ',',
      ' ',
      '-',
      '0',
      '1',
      '.',
      'e',
      'E',
      '+',
      '400',
      '"a"',
      'true',
      'null',
      '\ud800',
      '\u{1f600}',
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

test('property: no string makes the reader or the scan throw', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary-ascii' }), soupArb), (text) => {
      const parsed = parseJsonObject(text);
      assert.equal(typeof parsed.ok, 'boolean');
      const read = reader.read(text);
      if (!read.ok) assert.equal(read.code, 'INVALID_REQUEST');
      // The scan alone, on texts JSON.parse would refuse: it still ends and answers.
      assert.equal(typeof scanIJson(text).ok, 'boolean');
      assert.equal(typeof scanIJson(`{${text}`).ok, 'boolean');
    }),
    { numRuns: 3_000 },
  );
});

/** A path as the reader names it: `a[0].b`, a name that is not plain in quotes. */
function fieldOf(path: readonly Segment[]): string {
  let name = '';
  for (const segment of path) {
    if (typeof segment === 'number') name += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(segment)) name += name === '' ? segment : `.${segment}`;
    else name += `${name === '' ? 'body' : ''}[${JSON.stringify(segment.length > 40 ? `${segment.slice(0, 40)}...` : segment)}]`;
  }
  return name === '' ? 'body' : name;
}
