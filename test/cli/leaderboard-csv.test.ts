/**
 * The leaderboard file of `provider payouts import`: RFC 4180 records
 * (quoted fields holding commas, quotes and line breaks, CRLF or LF, a byte
 * order mark), each with the line it starts on; then the leaderboard's own
 * rules, every bad line reported with its number.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseCsv, readLeaderboard } from '../../src/cli/leaderboard-csv.js';

const fieldsOf = (text: string) => {
  const read = parseCsv(text);
  assert.ok(read.ok, JSON.stringify(read));
  return read.records.map((record) => [record.line, ...record.fields]);
};

test('plain records, LF or CRLF, with or without a last line break, and a byte order mark', () => {
  assert.deepEqual(fieldsOf('a,b\n1,2\n'), [
    [1, 'a', 'b'],
    [2, '1', '2'],
  ]);
  assert.deepEqual(fieldsOf('a,b\r\n1,2'), [
    [1, 'a', 'b'],
    [2, '1', '2'],
  ]);
  assert.deepEqual(fieldsOf('\uFEFFa,b\r\n1,2\r\n'), [
    [1, 'a', 'b'],
    [2, '1', '2'],
  ]);
  assert.deepEqual(fieldsOf('a,,\n'), [[1, 'a', '', '']]);
});

test('quoted fields hold commas, doubled quotes and line breaks; records keep the line they start on', () => {
  assert.deepEqual(fieldsOf('"x, y","say ""hi""",""\r\n"two\r\nlines",z\r\nlast,1\r\n'), [
    [1, 'x, y', 'say "hi"', ''],
    [2, 'two\r\nlines', 'z'],
    [4, 'last', '1'],
  ]);
  // A carriage return alone is text, not a record's end.
  assert.deepEqual(fieldsOf('a\rb,c\n'), [[1, 'a\rb', 'c']]);
});

test('malformed quotes are refused on their line', () => {
  assert.deepEqual(parseCsv('a,b\n"open,1\n2\n'), { ok: false, line: 2, problem: 'a quoted field is never closed' });
  assert.deepEqual(parseCsv('a,b\n1,ab"c\n'), { ok: false, line: 2, problem: 'a quote inside an unquoted field (quote the whole field and double the quote)' });
  assert.deepEqual(parseCsv('a,b\n"1"x,2\n'), { ok: false, line: 2, problem: 'text after a closing quote (a field is quoted whole)' });
});

test('a leaderboard: columns in any order, an optional payoutId, amounts kept as written', () => {
  const read = readLeaderboard('\uFEFFamount,playerId,currency,payoutId\r\n50.00,alice,EUR,\r\n"1,5",bob,EUR,x\r\n');
  assert.ok(!read.ok);
  assert.deepEqual(read.problems, [{ line: 3, problem: 'amount: "1,5" must be decimal text such as 50.00; payoutId: "x" must be a UUID' }]);
  const good = readLeaderboard('playerId,currency,amount,payoutId\nalice,EUR,50.00,\n"bob, jr",EUR,0.5,E4B1C2D3-5F6A-4B7C-8D9E-0F1A2B3C4D5E\n\n');
  assert.ok(good.ok, JSON.stringify(good));
  assert.deepEqual(good.rows, [
    { line: 2, playerId: 'alice', currency: 'EUR', amount: '50.00' },
    { line: 3, playerId: 'bob, jr', currency: 'EUR', amount: '0.5', payoutId: 'e4b1c2d3-5f6a-4b7c-8d9e-0f1a2b3c4d5e' },
  ]);
});

test('every bad line is reported with its number, and no row is returned', () => {
  const text = [
    'playerId,currency,amount',
    'alice,EUR,10',
    'bob,eur,10',
    'carol,EUR,0',
    'dave,EUR,1.005',
    'erin,JPY,1.5',
    'alice,EUR,20',
    'frank,EUR',
    'gina,BTC,0.00000001',
    'hank,XYZ1,1.123456',
  ].join('\n');
  const read = readLeaderboard(text);
  assert.ok(!read.ok);
  assert.deepEqual(read.problems, [
    { line: 3, problem: 'currency: "eur" must be a currency code such as EUR' },
    { line: 4, problem: 'amount: must be greater than 0' },
    { line: 5, problem: 'amount: 1.005 has more than 2 decimals for EUR' },
    { line: 6, problem: 'amount: 1.5 has more than 0 decimals for JPY' },
    { line: 7, problem: 'player alice is also on line 2' },
    { line: 8, problem: '2 fields, the header has 3' },
  ]);
});

test('a player id that reads as another is refused on its line (docs/protocol.md §5.4), never tidied into one', () => {
  const text = [
    'playerId,currency,amount',
    'x\u202eevil,EUR,1',
    'ali\u200bce,EUR,1',
    '\u0430lice,EUR,1',
    'alice\u00a0,EUR,1',
    'alic\u0065\u0301,EUR,1',
    ' bob ,EUR,1',
  ].join('\n');
  const read = readLeaderboard(text);
  assert.ok(!read.ok);
  assert.deepEqual(read.problems, [
    { line: 2, problem: 'playerId: "x\\u202eevil" must be a player id (docs/protocol.md §5.4): it holds U+202E, a control, format or invisible character' },
    { line: 3, problem: 'playerId: "ali\\u200bce" must be a player id (docs/protocol.md §5.4): it holds U+200B, a control, format or invisible character' },
    {
      line: 4,
      problem:
        'playerId: "\u0430lice" must be a player id (docs/protocol.md §5.4): it mixes letters of scripts that do not belong together, such as Latin with Cyrillic or Greek',
    },
    { line: 5, problem: 'playerId: "alice\\u00a0" must be a player id (docs/protocol.md §5.4): it holds U+00A0, a control, format or invisible character' },
    { line: 6, problem: 'playerId: "alic\u0065\u0301" must be a player id (docs/protocol.md §5.4): it is not in Unicode Normalization Form C (NFC)' },
  ]);
});

test('a header that is missing a column, names an unknown one or repeats one is refused; so is a file with no rows', () => {
  assert.deepEqual(readLeaderboard('player,currency,amount\nalice,EUR,1\n'), {
    ok: false,
    problems: [{ line: 1, problem: 'header: missing playerId; unknown player (columns: playerId,currency,amount[,payoutId])' }],
  });
  assert.deepEqual(readLeaderboard('playerId,currency,amount,amount\n'), {
    ok: false,
    problems: [{ line: 1, problem: 'header: repeated amount (columns: playerId,currency,amount[,payoutId])' }],
  });
  assert.deepEqual(readLeaderboard('playerId,currency,amount\n'), { ok: false, problems: [{ line: 1, problem: 'no rows after the header' }] });
  assert.equal(readLeaderboard('').ok, false);
});

test('the example leaderboard reads, and docs/provider.md shows it as it is', () => {
  const root = new URL('../../../', import.meta.url);
  const example = readFileSync(new URL('examples/leaderboard.csv', root), 'utf8');
  const read = readLeaderboard(example);
  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.rows.length, 4);
  assert.ok(readFileSync(new URL('docs/provider.md', root), 'utf8').includes(`\`\`\`csv\n${example}\`\`\``));
});
