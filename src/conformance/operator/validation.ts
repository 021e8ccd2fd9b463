/**
 * Bad input (docs/protocol.md §1, §4.3, §5.4, §6.1): bodies that are not JSON,
 * not I-JSON, of another media type, or that break a member's rule are
 * refused whole with a 4xx and apply nothing. Each refusal is followed by a
 * look at the balance.
 */
import type { CaseContext, Headers } from '../case-model.js';
import { writeJson } from '../json-text.js';
import { call, operatorCases, probe, refusal, transaction, tx, type TransactionSpec } from './define.js';

const WIN_1: TransactionSpec = { transactions: [{ type: 'win', amount: '1' }] };
const REFUSED = refusal('INVALID_REQUEST');

/** A win of 1 whose body text has `insert` written just before its last `}`: a member the builders cannot make. */
function winWith(insert: string): (ctx: CaseContext) => string {
  return (ctx) => `${writeJson(transaction(ctx, WIN_1)).slice(0, -1)},${insert}}`;
}

function contentType(value: string | undefined): (headers: Headers) => Headers {
  return (headers) => {
    const { 'content-type': _type, ...rest } = headers;
    return value === undefined ? rest : { ...rest, 'content-type': value };
  };
}

/** Latin letters and the Cyrillic letters drawn the same (а е о р с х). */
const CYRILLIC_TWINS: Record<string, string> = { a: '\u0430', e: '\u0435', o: '\u043e', p: '\u0440', c: '\u0441', x: '\u0445' };

/** `id` with its first Latin letter that has a Cyrillic twin replaced by it; an id without one gets a Cyrillic а and a Latin a in front. */
function withCyrillicTwin(id: string): string {
  const at = [...id].findIndex((char) => char in CYRILLIC_TWINS);
  if (at < 0) return `\u0430a${id}`;
  const chars = [...id];
  chars[at] = CYRILLIC_TWINS[chars[at]!]!;
  return chars.join('');
}

/**
 * Player ids that read as the session's own on a screen (docs/protocol.md
 * §5.4), as [case id, what it is, how it is made from the session's id]. A
 * receiver that cleans an id up before it looks the player up books them
 * to that player; one that compares them as they are answers 403
 * SESSION_MISMATCH: both break the rule, which asks for 400 first.
 */
const LOOK_ALIKE_IDS: readonly [string, string, (id: string) => string][] = [
  ['bidi-override', 'with a right-to-left override (U+202E) inside', (id) => `${id.slice(0, 1)}\u202e${id.slice(1)}`],
  ['zero-width-space', 'with a zero-width space (U+200B) inside', (id) => `${id.slice(0, 1)}\u200b${id.slice(1)}`],
  ['byte-order-mark', 'with a byte order mark (U+FEFF) in front', (id) => `\ufeff${id}`],
  ['soft-hyphen', 'with a soft hyphen (U+00AD) inside', (id) => `${id.slice(0, 1)}\u00ad${id.slice(1)}`],
  ['trailing-space', 'with a space after it', (id) => `${id} `],
  ['leading-space', 'with a space in front', (id) => ` ${id}`],
  ['no-break-space', 'with a no-break space (U+00A0) after it', (id) => `${id}\u00a0`],
  ['only-space', 'of one space', () => ' '],
  ['not-nfc', 'followed by e and a combining acute accent (not NFC)', (id) => `${id}e\u0301`],
  ['mixed-scripts', 'with a Latin letter replaced by its Cyrillic twin', withCyrillicTwin],
];

export const VALIDATION_CASES = operatorCases('validation', [
  {
    id: 'not-json',
    title: 'a signed body that is not JSON is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §3.2',
    steps: [call({ say: 'send a body cut off in the middle', endpoint: '/transaction', body: () => '{"sessionId": "unfinished', expect: REFUSED }), probe()],
  },
  {
    id: 'not-an-object',
    title: 'a JSON body whose top level is not an object is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.1',
    steps: [call({ say: 'send the body []', endpoint: '/transaction', body: () => '[]', expect: REFUSED }), probe()],
  },
  {
    id: 'content-type-text',
    title: 'a well-signed JSON body sent as text/plain is refused with 415 UNSUPPORTED_MEDIA_TYPE',
    clause: 'docs/protocol.md §1.1',
    steps: [tx('win 1 as text/plain', WIN_1, { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }, { headers: contentType('text/plain') }), probe()],
  },
  {
    id: 'content-type-missing',
    title: 'a well-signed JSON body without Content-Type is refused with 415 UNSUPPORTED_MEDIA_TYPE',
    clause: 'docs/protocol.md §1.1',
    steps: [tx('win 1 with no Content-Type', WIN_1, { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }, { headers: contentType(undefined) }), probe()],
  },
  {
    id: 'charset-other',
    title: 'a body declared in another charset than UTF-8 is refused with 415 UNSUPPORTED_MEDIA_TYPE',
    clause: 'docs/protocol.md §1.1',
    steps: [
      tx(
        'win 1 as application/json; charset=iso-8859-1',
        WIN_1,
        { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
        {
          headers: contentType('application/json; charset=iso-8859-1'),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'charset-utf-8',
    title: 'a body declared charset=UTF-8, in any case, is accepted',
    clause: 'docs/protocol.md §1.1',
    steps: [tx('win 1 as application/json; charset=UTF-8', WIN_1, { status: 200, balance: '+1' }, { headers: contentType('application/json; charset=UTF-8') })],
  },
  {
    id: 'empty-body',
    title: 'a request with no body is refused with 415 UNSUPPORTED_MEDIA_TYPE',
    clause: 'docs/protocol.md §1.1',
    steps: [
      call({
        say: 'send application/json with an empty body, signed',
        endpoint: '/transaction',
        body: () => '',
        expect: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      }),
      probe(),
    ],
  },
  {
    id: 'duplicate-member',
    title: 'a member name twice in one object is refused with 400 INVALID_REQUEST, whichever value a parser keeps',
    clause: 'docs/protocol.md §1.2',
    steps: [
      call({
        say: 'win with "amount":1,"amount":2 in one transaction',
        endpoint: '/transaction',
        body: (ctx) => writeJson(transaction(ctx, WIN_1)).replace('"amount":1', '"amount":1,"amount":2'),
        expect: REFUSED,
      }),
      probe(),
    ],
  },
  {
    id: 'unpaired-surrogate',
    title: 'an unpaired surrogate in a string is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.2',
    steps: [call({ say: 'win 1 with regulatory "\\ud800"', endpoint: '/transaction', body: winWith('"regulatory":"\\ud800"'), expect: REFUSED }), probe()],
  },
  {
    id: 'nul-character',
    title: 'U+0000 in a string is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.2',
    steps: [call({ say: 'win 1 with regulatory "a\\u0000b"', endpoint: '/transaction', body: winWith('"regulatory":"a\\u0000b"'), expect: REFUSED }), probe()],
  },
  {
    id: 'number-out-of-range',
    title: "a number outside a double's range is refused with 400 INVALID_REQUEST, in an unknown member too",
    clause: 'docs/protocol.md §1.2',
    steps: [call({ say: 'win 1 with an unknown member "x-note":1e400', endpoint: '/transaction', body: winWith('"x-note":1e400'), expect: REFUSED }), probe()],
  },
  {
    id: 'not-utf-8',
    title: 'bytes that are not UTF-8 are refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.2',
    steps: [
      call({
        say: 'win 1 with the bytes C3 28 inside regulatory',
        endpoint: '/transaction',
        body: (ctx) => {
          const text = winWith('"regulatory":"ab"')(ctx);
          const bytes = Buffer.from(text, 'utf8');
          const at = bytes.indexOf('"ab"') + 1;
          bytes[at] = 0xc3;
          bytes[at + 1] = 0x28;
          return new Uint8Array(bytes);
        },
        expect: REFUSED,
      }),
      probe(),
    ],
  },
  {
    id: 'uuid-malformed',
    title: 'a sessionId that is not a UUID is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6',
    steps: [tx('win 1 with sessionId "not-a-uuid"', { ...WIN_1, override: { sessionId: 'not-a-uuid' } }, REFUSED), probe()],
  },
  {
    id: 'member-missing',
    title: 'a /transaction without its round is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6',
    steps: [tx('win 1 with no round member', { ...WIN_1, override: { round: undefined } }, REFUSED), probe()],
  },
  {
    id: 'amount-as-string',
    title: 'an amount written as a string is refused with 400 INVALID_REQUEST: amounts are JSON numbers',
    clause: 'docs/protocol.md §4.1',
    steps: [call({ say: 'win with amount "1"', endpoint: '/transaction', body: stringAmount, expect: REFUSED }), probe()],
  },
  {
    id: 'type-unknown',
    title: 'a transaction type other than bet or win is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6',
    steps: [tx('a transaction of type "refund"', { transactions: [{ type: 'refund', amount: '1' }] }, REFUSED), probe()],
  },
  {
    id: 'null-member',
    title: 'null for an optional member is refused with 400 INVALID_REQUEST: null is never a valid value',
    clause: 'docs/protocol.md §6',
    steps: [tx('win 1 with "regulatory": null', { ...WIN_1, extra: { regulatory: null } }, REFUSED), probe()],
  },
  {
    id: 'finished-not-boolean',
    title: 'round.finished written as a string is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6',
    steps: [tx('win 1 with round.finished "true"', { ...WIN_1, round: { finished: 'true' } }, REFUSED), probe()],
  },
  {
    id: 'player-id-control-character',
    title: 'a playerId with a control character is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §9',
    steps: [tx('win 1 with playerId "a\\u0001b"', { ...WIN_1, override: { playerId: 'a\u0001b' } }, REFUSED), probe()],
  },
  ...LOOK_ALIKE_IDS.map(([id, what, alike]) => ({
    id: `player-id-${id}`,
    title: `a playerId ${what} is refused with 400 INVALID_REQUEST, not booked to the player it looks like`,
    clause: 'docs/protocol.md §5.4',
    steps: [
      tx(`win 1 with the session's playerId ${what}`, { ...WIN_1, override: (ctx: CaseContext) => ({ playerId: alike(ctx.player().playerId) }) }, REFUSED),
      probe(),
    ],
  })),
  {
    id: 'amount-negative',
    title: 'a negative amount is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §4.3',
    steps: [tx('bet -1', { transactions: [{ type: 'bet', amount: '-1' }] }, REFUSED), probe()],
  },
  {
    id: 'amount-negative-zero',
    title: 'an amount of -0 is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §4.3',
    steps: [tx('win -0', { transactions: [{ type: 'win', amount: '-0' }] }, REFUSED), probe()],
  },
  {
    id: 'transactions-empty',
    title: 'an empty transactions array is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6.1',
    steps: [tx('a /transaction with transactions []', { transactions: [] }, REFUSED), probe()],
  },
  {
    id: 'ids-repeated',
    title: 'the same transaction id twice in one request is refused with 400 INVALID_REQUEST and applies neither',
    clause: 'docs/protocol.md §6.1',
    steps: [
      tx(
        'bet 1 and win 1 under one id',
        {
          transactions: [
            { id: 'a', type: 'bet', amount: '1' },
            { id: 'a', type: 'win', amount: '1' },
          ],
        },
        REFUSED,
      ),
      probe(),
    ],
  },
  {
    id: 'ids-repeated-any-case',
    title: 'an id repeated in another letter case is the same id: refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6.1',
    steps: [
      call({
        say: 'win 1 under an id and win 2 under the same id in upper case',
        endpoint: '/transaction',
        body: (ctx) => {
          const body = transaction(ctx, {
            transactions: [
              { id: 'a', type: 'win', amount: '1' },
              { id: 'a', type: 'win', amount: '2' },
            ],
          });
          const [first, second] = body.transactions as Record<string, unknown>[];
          return { ...body, transactions: [first, { ...second, id: String(second!.id).toUpperCase() }] };
        },
        expect: REFUSED,
      }),
      probe(),
    ],
  },
  {
    id: 'jp-amount-over-amount',
    title: 'a jpAmount over its amount is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6.1',
    steps: [tx('bet 1 with jpAmount 1.01', { transactions: [{ type: 'bet', amount: '1', jpAmount: '1.01' }] }, REFUSED), probe()],
  },
  {
    id: 'free-bets-without-id',
    title: 'a freeBets campaign without an id is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6.6',
    steps: [tx('a freeBets bet of 1 with no campaign.id', { transactions: [{ type: 'bet', amount: '1' }], campaign: { type: 'freeBets' } }, REFUSED), probe()],
  },
  {
    id: 'campaign-finished-without-id',
    title: 'campaign.finished without a campaign id is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §6.1',
    steps: [tx('win 1 with campaign {finished: true} and no id', { ...WIN_1, campaign: { finished: true } }, REFUSED), probe()],
  },
  {
    id: 'validation-first',
    title: 'a bad second transaction refuses the whole request before the first is applied',
    clause: 'docs/protocol.md §6.1',
    steps: [
      tx(
        'win 5, then a transaction of type "refund"',
        {
          transactions: [
            { type: 'win', amount: '5' },
            { type: 'refund', amount: '1' },
          ],
        },
        REFUSED,
      ),
      probe(),
    ],
  },
]);

/** A win whose amount is the string "1". */
function stringAmount(ctx: CaseContext): Record<string, unknown> {
  const body = transaction(ctx, WIN_1);
  const [first] = body.transactions as Record<string, unknown>[];
  return { ...body, transactions: [{ ...first, amount: '1' }] };
}
