/**
 * Proves the nesting limit of request bodies (docs/protocol.md §1.2;
 * NESTING_DEPTH_MAX in src/protocol/i-json.ts), through the scan and the body
 * reader both servers use: a body nested exactly to the limit passes the
 * scan and is read; one level more is refused with 400 INVALID_REQUEST and a
 * detail naming the limit; the refusal comes before JSON.parse (a deep text
 * that is not even JSON gets the nesting refusal, not JSON.parse's); brackets
 * inside strings, escaped quotes included, are not nesting; and, with
 * fast-check, the scan agrees with the true depth of any JSON value and never
 * throws on any string.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NESTING_DEPTH_MAX, nestingRefusal } from '../../src/protocol/i-json.js';
import { parseJsonObject } from '../../src/protocol/validate.js';

/** An object whose member `a` holds arrays nested so that the whole text is `depth` levels deep. */
function nested(depth: number): string {
  return `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + members.reduce<number>((deepest, member) => Math.max(deepest, depthOf(member)), 0);
}

test('a body nested exactly to the limit is read; one level more is refused naming the limit', () => {
  assert.equal(NESTING_DEPTH_MAX, 16);
  const atLimit = parseJsonObject(nested(NESTING_DEPTH_MAX));
  assert.ok(atLimit.ok, JSON.stringify(atLimit));
  const over = parseJsonObject(nested(NESTING_DEPTH_MAX + 1));
  assert.equal(over.ok, false);
  assert.deepEqual(over, {
    ok: false,
    code: 'INVALID_REQUEST',
    detail: `body: arrays and objects nest deeper than ${NESTING_DEPTH_MAX} levels, the limit of docs/protocol.md §1.2`,
  });
});

test('100,000 levels are refused before JSON.parse: a text that is not JSON gets the nesting refusal, not a syntax error', () => {
  for (const text of ['['.repeat(100_000), `{"token":${'['.repeat(100_000)}`, '{"a":'.repeat(100_000), `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`]) {
    const read = parseJsonObject(Buffer.from(text));
    assert.equal(read.ok, false);
    assert.match((read as { detail: string }).detail, /nest deeper than 16 levels/);
  }
  // Without the limit, JSON.parse would have had the first of them, and said so.
  assert.throws(() => JSON.parse('['.repeat(100_000)), SyntaxError);
});

test('brackets inside strings are not nesting, escaped quotes and backslashes included', () => {
  const deepText = '['.repeat(100);
  for (const text of [
    `{"a":"${deepText}"}`,
    `{"${deepText}":1}`,
    `{"a":"\\"${deepText}"}`,
    `{"a":"\\\\","b":"${deepText}"}`,
    `{"a":"\\\\\\"${deepText}\\\\"}`,
  ]) {
    assert.equal(nestingRefusal(text), undefined, text);
    assert.ok(parseJsonObject(text).ok, text);
  }
  // A quote after an even run of backslashes ends its string: what follows nests.
  assert.notEqual(nestingRefusal(`{"a":"\\\\",${'['.repeat(NESTING_DEPTH_MAX)}`), undefined);
});

test('property: the scan refuses a JSON text exactly when its value nests deeper than the limit', () => {
  const deepArb = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(null, true, 1, '[', '{', '"\\"[', '\\'),
      fc.array(tie('value'), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom('a', '[', '"{', '\\'), tie('value'), { maxKeys: 2 }),
    ),
  })).value;
  fc.assert(
    fc.property(deepArb, fc.integer({ min: 1, max: 8 }), (value, limit) => {
      const text = JSON.stringify(value);
      assert.equal(nestingRefusal(text, limit) !== undefined, depthOf(value) > limit, text);
    }),
    { numRuns: 2_000 },
  );
});

test('property: no string makes the scan throw', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ':', ',') }), (text) => {
      const refusal = nestingRefusal(text, 3);
      assert.ok(refusal === undefined || refusal.code === 'INVALID_REQUEST');
    }),
    { numRuns: 2_000 },
  );
});
