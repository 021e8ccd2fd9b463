/**
 * Proves request validation: refusals name the field, unknown members are
 * ignored, `__proto__` is plain data, and numbers a double cannot hold are
 * refused before any rule sees them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TransactionRequest } from '../../src/protocol/schemas.js';
import { compile, compileBody, fieldName, parseJsonObject } from '../../src/protocol/validate.js';

const validator = compile(TransactionRequest);
const valid = () => ({
  sessionId: randomUUID(),
  playerId: 'p1',
  game: 'dice',
  transactions: [{ id: randomUUID(), type: 'bet', amount: 1 }],
  round: { id: randomUUID(), finished: true },
});

test('field names read like code', () => {
  assert.equal(fieldName('/transactions/0/amount'), 'transactions[0].amount');
  assert.equal(fieldName(''), 'body');
  assert.equal(fieldName('/round/id'), 'round.id');
});

test('a valid request passes, with unknown members ignored', () => {
  const body = { ...valid(), somethingNew: { nested: true } };
  assert.ok(validator.check(body).ok);
});

test('refusals name the field', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...valid(), sessionId: 'nope' }, /^sessionId: /],
    [{ ...valid(), transactions: [{ id: randomUUID(), type: 'bet', amount: '10' }] }, /^transactions\[0\]\.amount: /],
    [{ ...valid(), transactions: [{ id: randomUUID(), type: 'refund', amount: 1 }] }, /^transactions\[0\]\.type: /],
    [{ ...valid(), transactions: [{ id: randomUUID(), type: 'bet', amount: -1 }] }, /^transactions\[0\]\.amount: /],
    [{ ...valid(), transactions: [] }, /^transactions: /],
    [{ ...valid(), round: { id: randomUUID() } }, /^round\.finished: is required/],
  ];
  for (const [body, detail] of cases) {
    const checked = validator.check(body);
    assert.ok(!checked.ok);
    assert.equal(checked.code, 'INVALID_REQUEST');
    assert.match(checked.detail, detail);
  }
  const missing = { ...valid() } as Record<string, unknown>;
  delete missing.playerId;
  const checked = validator.check(missing);
  assert.ok(!checked.ok && /^playerId: is required/.test(checked.detail));
});

test('JSON bodies: objects only, exact numbers only, __proto__ is data', () => {
  assert.ok(!parseJsonObject('{').ok);
  assert.ok(!parseJsonObject('[]').ok);
  assert.ok(!parseJsonObject('null').ok);
  assert.ok(!parseJsonObject('"x"').ok);
  assert.deepEqual((parseJsonObject('{"amount":0.30000000000000001}') as { inexact: readonly number[] }).inexact, [0.3]);
  const parsed = parseJsonObject('{"__proto__":{"polluted":true},"a":1}');
  assert.ok(parsed.ok);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(parsed.value), Object.prototype);
});

test('a money member that a double cannot hold exactly is refused, other members are not', () => {
  const body = compileBody(TransactionRequest, (value) => value.transactions.map((t, i): [string, number] => [`transactions[${i}].amount`, t.amount]));
  const base = valid();
  const text = JSON.stringify(base);
  assert.ok(body.read(text).ok);
  const long = text.replace('"amount":1', '"amount":1.0000000000000001');
  const refused = body.read(long);
  assert.ok(!refused.ok && /^transactions\[0\]\.amount: has more than 15 significant digits/.test(refused.detail));
  const elsewhere = text.replace('{"sessionId"', '{"timestampNs":1732190000123456789,"sessionId"');
  assert.ok(body.read(elsewhere).ok, 'unknown members are ignored, long numbers included');
});
