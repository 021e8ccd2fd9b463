/**
 * Proves the rule of a player id (docs/protocol.md §5.4) as the schemas
 * check it: ids that read as another on a screen (bidi controls, zero-width
 * and other format characters, invisible fillers, spaces at either end or
 * other than U+0020, a second spelling of the same text, Cyrillic letters
 * among Latin ones) are refused with a reason in words that shows each
 * invisible character as \uXXXX; ids of one script (or Latin with Han,
 * Kana, Bopomofo or Hangul) are accepted; the list of scripts covers every
 * assigned character this runtime knows; and the ids stored before the rule
 * still pass the schema that names stored players.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { playerIdProblem, withInvisibleEscaped } from '../../src/protocol/player-id.js';
import { CreatePlayerRequest, StoredPlayerId } from '../../src/protocol/schemas.js';
import { compile } from '../../src/protocol/validate.js';

const REFUSED: readonly [string, RegExp][] = [
  ['x\u202eevil', /U\+202E, a control, format or invisible character/],
  ['\u202aalice', /U\+202A/],
  ['ali\u2066ce', /U\+2066/],
  ['ali\u200bce', /U\+200B/],
  ['ali\u200cce', /U\+200C/],
  ['ali\u200dce', /U\+200D/],
  ['\ufeffalice', /U\+FEFF/],
  ['ali\u2060ce', /U\+2060/],
  ['ali\u00adce', /U\+00AD/],
  ['ali\u0085ce', /U\+0085/],
  ['alice\u00a0', /U\+00A0/],
  ['ali\u3000ce', /U\+3000/],
  ['alice\u2028', /U\+2028/],
  ['\u3164', /U\+3164/],
  ['alice\ufe0f', /U\+FE0F/],
  ['ali\ue000ce', /U\+E000/],
  ['alice ', /starts or ends with a space/],
  [' alice', /starts or ends with a space/],
  [' ', /starts or ends with a space/],
  ['   ', /starts or ends with a space/],
  ['e\u0301', /not in Unicode Normalization Form C/],
  ['Zoe\u0308', /not in Unicode Normalization Form C/],
  ['\u0430lice', /mixes letters of scripts/],
  ['p\u0430yp\u0430l', /mixes letters of scripts/],
  ['\u0391LICE', /mixes letters of scripts/],
  ['\u0430\u0431\u0432abc', /mixes letters of scripts/],
  ['\u0905\u092C\u0938abc', /mixes letters of scripts/],
];

const ACCEPTED = [
  'alice',
  'player-42',
  'user 42',
  'a',
  "Alice_O'Neil.1990",
  'Zo\u00eb',
  '\u0430\u043b\u0438\u0441\u0430', // алиса, all Cyrillic
  '\u03b1\u03bb\u03af\u03ba\u03b7', // αλίκη, all Greek
  '\u7530\u4e2d\u305f\u308d\u3046', // 田中たろう: Han and Hiragana, as Japanese is written
  '\u7530\u4e2d taro', // Japanese with Latin
  '\uae40\ubbfc\uc900 kim', // Hangul with Latin
  '\u30b3\u30fc\u30d2\u30fc', // コーヒー: the prolonged sound mark is Hiragana and Katakana
  '\u05d3\u05d5\u05d3-7', // Hebrew with digits and punctuation
  '\u0e2a\u0e21\u0e0a\u0e32\u0e22',
  '\u{1f600}',
  '\uff46\uff55\uff4c\uff4c', // ｆｕｌｌ: fullwidth Latin is Latin, and a spelling of its own
];

test('ids that read as another on a screen are refused, each with its reason', () => {
  for (const [id, reason] of REFUSED) {
    const problem = playerIdProblem(id);
    assert.ok(problem !== undefined, `${JSON.stringify(id)} is refused`);
    assert.match(problem, reason, JSON.stringify(id));
  }
});

test('ids of one script, or Latin with the scripts of Japanese, Chinese and Korean, are accepted', () => {
  for (const id of ACCEPTED) assert.equal(playerIdProblem(id), undefined, JSON.stringify(id));
  // Compared exactly: the same letters in another case or form are another id, and both are valid.
  assert.equal(playerIdProblem('Alice'), undefined);
  assert.equal(playerIdProblem('\u00e9'), undefined);
});

test('the refusal names the member, the rule and the reason, and shows invisible characters escaped', () => {
  const check = compile(CreatePlayerRequest);
  const refused = check.check({ playerId: 'x\u202eevil', currency: 'EUR', balance: 0 });
  assert.ok(!refused.ok);
  assert.equal(
    refused.detail,
    'playerId: must be a player id as docs/protocol.md §5.4 defines it, got "x\\u202eevil": it holds U+202E, a control, format or invisible character',
  );
  const mixed = check.check({ playerId: '\u0430lice', currency: 'EUR', balance: 0 });
  assert.ok(
    !mixed.ok && mixed.detail.endsWith('it mixes letters of scripts that do not belong together, such as Latin with Cyrillic or Greek'),
    JSON.stringify(mixed),
  );
  assert.equal(withInvisibleEscaped('a\u200bb\u{e0001}c'), 'a\\u200bb\\udb40\\udc01c');
});

test('every assigned character outside Common and Inherited is of a script the rule knows', () => {
  // A character of a script missing from the list would refuse every id it is in, as "mixed".
  const lonely: string[] = [];
  for (let code = 0x80; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const char = String.fromCodePoint(code);
    if (!/^\p{L}$/u.test(char)) continue;
    // Invisible, or not NFC on its own (U+0958 DEVANAGARI LETTER QA is written as KA and a nukta): refused for that.
    if (/^[\p{Cn}\p{Default_Ignorable_Code_Point}]$/u.test(char) || char.normalize('NFC') !== char) continue;
    if (playerIdProblem(char) !== undefined) lonely.push(`U+${code.toString(16).toUpperCase()}`);
  }
  assert.deepEqual(lonely.slice(0, 20), [], `${lonely.length} letters are refused on their own`);
});

test('ids stored before the rule still name their player where stored players are named', () => {
  const stored = compile(StoredPlayerId);
  for (const [id] of REFUSED.filter(([id]) => !/[\u0080-\u009f]/.test(id))) assert.ok(stored.check(id).ok, JSON.stringify(id));
  assert.ok(!stored.check('a\u0001b').ok);
});
