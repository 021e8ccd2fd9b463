/**
 * Proves request validation: refusals name the field, unknown members are
 * ignored, `__proto__` is plain data, and numbers a double cannot hold are
 * refused before any rule sees them; a value of the wrong form is told in
 * words (what is expected, and what came), never as a regular expression,
 * for every pattern-constrained field of both servers' requests, and a
 * schema whose pattern has no words is refused when it is compiled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { AdjustmentRequest, CreatePlayerRequest, PageQuery, TransactionRequest } from '../../src/protocol/schemas.js';
import { CampaignRequest, OutboxQuery, OutboxResolveRequest, PlayRequest } from '../../src/provider/provider-schemas.js';
import { compile, compileBody, fieldName, inWords, parseJsonObject } from '../../src/protocol/validate.js';

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

test('a value of the wrong form is told in words, with what came, never as a regular expression', () => {
  const uuid = randomUUID();
  const cases: [ReturnType<typeof compile>, unknown, string][] = [
    [
      compile(CreatePlayerRequest),
      { playerId: 'bob', currency: 'eur', balance: 0 },
      'currency: must be a currency code of 2 to 10 capital letters or digits, got "eur"',
    ],
    [
      compile(CreatePlayerRequest),
      { playerId: 'bob', currency: 'EUR', balance: 0, country: 'deu' },
      'country: must be a country code of 2 capital letters (ISO 3166-1 alpha-2), got "deu"',
    ],
    [
      compile(CreatePlayerRequest),
      { playerId: 'bo\u0001b', currency: 'EUR', balance: 0 },
      'playerId: must be text without control characters, got "bo\\u0001b"',
    ],
    [validator, { ...valid(), game: '-dice' }, 'game: must be a game slug of letters, digits and . _ : -, starting with a letter or digit, got "-dice"'],
    [validator, { ...valid(), sessionId: 'abc' }, 'sessionId: must be a UUID in its 8-4-4-4-12 hexadecimal form, got "abc"'],
    [validator, { ...valid(), transactions: [{ id: uuid, type: 'bet', amount: '1' }] }, 'transactions[0].amount: expected number'],
    [compile(AdjustmentRequest), { id: uuid, type: 'gift', amount: 1 }, 'type: must be "deposit" or "withdrawal", got "gift"'],
    [compile(PageQuery), { limit: 'ten' }, 'limit: must be a whole number of 1 to 4 digits, got "ten"'],
    [compile(PageQuery), { cursor: '-1' }, 'cursor: must be the cursor of a previous page, up to 19 digits, got "-1"'],
    [compile(PlayRequest), { token: 't', bet: '1,5', chancePct: 50, clientSeed: 'a' }, 'bet: must be decimal text such as "0.50", got "1,5"'],
    [
      compile(PlayRequest),
      { token: 't', bet: '1', chancePct: 50, clientSeed: 'a b' },
      'clientSeed: must be a client seed of 1 to 64 letters, digits, _ or -, got "a b"',
    ],
    [compile(OutboxQuery), { after: 'x' }, 'after: must be an outbox item id of up to 15 digits, got "x"'],
    [compile(OutboxResolveRequest), { reference: '   ' }, 'reference: must be text that is not only spaces, got "   "'],
    [
      compile(CampaignRequest),
      { id: uuid, operatorId: 'op', game: 'dice', currency: 'EUR', betAmount: 'half', rounds: 1, players: ['bob'] },
      'betAmount: must be decimal text such as "0.50" or a number, 0 or more, got "half"',
    ],
  ];
  for (const [check, value, detail] of cases) {
    const checked = check.check(value);
    assert.ok(!checked.ok, detail);
    assert.equal(checked.detail, detail);
    assert.doesNotMatch(checked.detail, /\^|\$'|\\d|\[A-Z/, 'no regular expression');
  }
});

test('a long value is not quoted back', () => {
  const checked = compile(CreatePlayerRequest).check({ playerId: 'bob', currency: 'E'.repeat(100), balance: 0 });
  assert.ok(!checked.ok);
  assert.equal(checked.detail, 'currency: must be a currency code of 2 to 10 capital letters or digits');
});

test('a schema with a pattern that has no words is refused when compiled, and words are given once', () => {
  assert.throws(() => compile(Type.Object({ code: Type.String({ pattern: '^[a-z]{3}$' }) })), /no words for \^\[a-z\]\{3\}\$/);
  assert.equal(inWords('^[a-z]{4}$', 'four small letters'), '^[a-z]{4}$');
  assert.ok(compile(Type.Object({ code: Type.String({ pattern: '^[a-z]{4}$' }) })).check({ code: 'abcd' }).ok);
  assert.throws(() => inWords('^[a-z]{4}$', 'something else'), /described twice/);
});
