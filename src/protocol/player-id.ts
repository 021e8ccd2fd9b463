/**
 * What a player id may hold (docs/protocol.md §5.4): text a person reads as
 * it is stored. Ids are compared exactly, code point by code point, so two
 * ids that look alike on a screen must not both be possible: a character
 * that shows nothing (a format or control character, a zero-width space, a
 * bidi override that turns "x\u202eevil" into "xlive"), a space at either
 * end, a second spelling of the same text (not NFC), or letters of scripts
 * that do not belong together (Cyrillic "а" inside Latin "alice") makes
 * an id refused. Pure: no I/O.
 */

/**
 * Characters that show nothing or stand for something else: controls (Cc),
 * format characters (Cf: bidi controls, zero-width space and joiners, the
 * byte order mark, the soft hyphen...), surrogates (Cs), private use (Co),
 * unassigned code points (Cn: they may become anything), line and
 * paragraph separators, every space but U+0020, and the code points
 * Unicode says to ignore in display (Default_Ignorable_Code_Point: the
 * Hangul fillers, variation selectors, the combining grapheme joiner).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

/** Printable ASCII without a space at either end: almost every id, accepted without the Unicode checks. */
const PLAIN_ASCII = /^[!-~](?:[ -~]*[!-~])?$/;

/** A character of the Common or Inherited script (digits, punctuation, combining accents): it goes with any script. */
const ANY_SCRIPT = /^[\p{scx=Zyyy}\p{scx=Zinh}]$/u;

/**
 * The scripts of Unicode by their ISO 15924 codes (Common, Inherited and
 * Unknown aside). A runtime whose Unicode is older lacks the newest ones;
 * their letters are unassigned there, and INVISIBLE refuses them.
 */
const SCRIPT_CODES = [
  'Adlm',
  'Aghb',
  'Ahom',
  'Arab',
  'Armi',
  'Armn',
  'Avst',
  'Bali',
  'Bamu',
  'Bass',
  'Batk',
  'Beng',
  'Berf',
  'Bhks',
  'Bopo',
  'Brah',
  'Brai',
  'Bugi',
  'Buhd',
  'Cakm',
  'Cans',
  'Cari',
  'Cham',
  'Cher',
  'Chrs',
  'Copt',
  'Cpmn',
  'Cprt',
  'Cyrl',
  'Deva',
  'Diak',
  'Dogr',
  'Dsrt',
  'Dupl',
  'Egyp',
  'Elba',
  'Elym',
  'Ethi',
  'Gara',
  'Geor',
  'Glag',
  'Gong',
  'Gonm',
  'Goth',
  'Gran',
  'Grek',
  'Gujr',
  'Gukh',
  'Guru',
  'Hang',
  'Hani',
  'Hano',
  'Hatr',
  'Hebr',
  'Hira',
  'Hluw',
  'Hmng',
  'Hmnp',
  'Hung',
  'Ital',
  'Java',
  'Kali',
  'Kana',
  'Kawi',
  'Khar',
  'Khmr',
  'Khoj',
  'Kits',
  'Knda',
  'Krai',
  'Kthi',
  'Lana',
  'Laoo',
  'Latn',
  'Lepc',
  'Limb',
  'Lina',
  'Linb',
  'Lisu',
  'Lyci',
  'Lydi',
  'Mahj',
  'Maka',
  'Mand',
  'Mani',
  'Marc',
  'Medf',
  'Mend',
  'Merc',
  'Mero',
  'Mlym',
  'Modi',
  'Mong',
  'Mroo',
  'Mtei',
  'Mult',
  'Mymr',
  'Nagm',
  'Nand',
  'Narb',
  'Nbat',
  'Newa',
  'Nkoo',
  'Nshu',
  'Ogam',
  'Olck',
  'Onao',
  'Orkh',
  'Orya',
  'Osge',
  'Osma',
  'Ougr',
  'Palm',
  'Pauc',
  'Perm',
  'Phag',
  'Phli',
  'Phlp',
  'Phnx',
  'Plrd',
  'Prti',
  'Rjng',
  'Rohg',
  'Runr',
  'Samr',
  'Sarb',
  'Saur',
  'Sgnw',
  'Shaw',
  'Shrd',
  'Sidd',
  'Sidt',
  'Sind',
  'Sinh',
  'Sogd',
  'Sogo',
  'Sora',
  'Soyo',
  'Sund',
  'Sunu',
  'Sylo',
  'Syrc',
  'Tagb',
  'Takr',
  'Tale',
  'Talu',
  'Taml',
  'Tang',
  'Tavt',
  'Tayo',
  'Telu',
  'Tfng',
  'Tglg',
  'Thaa',
  'Thai',
  'Tibt',
  'Tirh',
  'Tnsa',
  'Todr',
  'Tols',
  'Toto',
  'Tutg',
  'Ugar',
  'Vaii',
  'Vith',
  'Wara',
  'Wcho',
  'Xpeo',
  'Xsux',
  'Yezi',
  'Yiii',
  'Zanb',
] as const;

/** Each script this runtime knows, as a test of one character (Script_Extensions: "ー" is Hiragana and Katakana). */
const SCRIPTS = new Map<string, RegExp>(
  SCRIPT_CODES.flatMap((code) => {
    try {
      return [[code, new RegExp(`^\\p{scx=${code}}$`, 'u')] as const];
    } catch {
      return [];
    }
  }),
);

/**
 * The writing systems of UTS #39 §5.1 that mix scripts: Japanese (Han,
 * Hiragana, Katakana), Chinese with Bopomofo, Korean (Han and Hangul).
 * A character of any of their scripts belongs to them too.
 */
const WRITING_SYSTEMS = new Map<string, readonly string[]>([
  ['Jpan', ['Hani', 'Hira', 'Kana']],
  ['Hanb', ['Hani', 'Bopo']],
  ['Kore', ['Hani', 'Hang']],
]);
const EVERY_SCRIPT = [...SCRIPTS.keys(), ...WRITING_SYSTEMS.keys()];

function inScript(char: string, script: string): boolean {
  const parts = WRITING_SYSTEMS.get(script);
  return parts === undefined ? SCRIPTS.get(script)!.test(char) : parts.some((part) => SCRIPTS.get(part)!.test(char));
}

/**
 * The scripts every character of `chars` belongs to (UTS #39 §5.1, the
 * resolved script set): `undefined` when all go with any script, empty
 * when no one script holds them all.
 */
function resolvedScripts(chars: readonly string[]): string[] | undefined {
  let resolved: string[] | undefined;
  for (const char of chars) {
    if (ANY_SCRIPT.test(char)) continue;
    resolved = (resolved ?? EVERY_SCRIPT).filter((script) => inScript(char, script));
    if (resolved.length === 0) return resolved;
  }
  return resolved;
}

/**
 * UTS #39 §5.2 "Highly Restrictive": the id's letters are of one script,
 * or Latin mixed with Japanese, Chinese with Bopomofo, or Korean only (as
 * these are written). Latin with Cyrillic or Greek, whose letters look
 * alike, is refused.
 */
function scriptsBelongTogether(chars: readonly string[]): boolean {
  const all = resolvedScripts(chars);
  if (all === undefined || all.length > 0) return true;
  const notLatin = resolvedScripts(chars.filter((char) => !inScript(char, 'Latn')));
  return notLatin !== undefined && notLatin.some((script) => WRITING_SYSTEMS.has(script));
}

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `id` is not a player id (docs/protocol.md §5.4), in words; undefined when it is one. Its length is the schema's to check. */
export function playerIdProblem(id: string): string | undefined {
  if (PLAIN_ASCII.test(id)) return undefined;
  const invisible = INVISIBLE.exec(id);
  if (invisible) return `it holds ${codePoint(invisible[0])}, a control, format or invisible character`;
  if (id.startsWith(' ') || id.endsWith(' ')) return 'it starts or ends with a space';
  if (id.normalize('NFC') !== id) return 'it is not in Unicode Normalization Form C (NFC)';
  if (!scriptsBelongTogether([...id])) return 'it mixes letters of scripts that do not belong together, such as Latin with Cyrillic or Greek';
  return undefined;
}

/** `text` with every character INVISIBLE refuses written as \uXXXX, so that a message quoting it shows what it holds. */
export function withInvisibleEscaped(text: string): string {
  const unit = (char: string, i: number) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return text.replace(INVISIBLE_ALL, (char) => Array.from({ length: char.length }, (_, i) => unit(char, i)).join(''));
}
