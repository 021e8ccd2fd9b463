/**
 * What the provider refuses before it reads a body's meaning, and how
 * (docs/protocol.md §1.1–§1.3, §8, §9): the content type and size, JSON
 * that is not I-JSON, wrong types and missing members, formats and lengths
 * over the limits of §9; and unknown members, which change nothing. Every
 * body here is signed as it is sent, so that what is refused is the body.
 */
import { writeJson } from '../json-text.js';
import { bets, detailNames, funLaunch, gameBets, LAUNCHED, launch, onBoth, providerCases, realLaunch, refusal, call } from './define.js';

/** The protocol's default body limit (docs/protocol.md §9, bytes): a body one byte over it is refused by every provider that keeps the default. */
const BODY_BYTES_MAX = 256 * 1024;

/** A well-formed /game-bets padded with an unknown member to exactly `size` bytes. */
function paddedTo(text: string, size: number): string {
  const open = `${text.slice(0, -1)},"padding":"`;
  return `${open}${'x'.repeat(size - open.length - 2)}"}`;
}

const invalid = (member: string) =>
  refusal(
    'INVALID_REQUEST',
    detailNames(() => member, 'docs/protocol.md §3.2: detail names the member'),
  );

export const VALIDATION_CASES = providerCases('validation', [
  {
    id: 'content-type-text',
    title: 'a body sent as text/plain is refused with 415 UNSUPPORTED_MEDIA_TYPE',
    clause: 'docs/protocol.md §1.1',
    steps: [
      bets('send a signed /game-bets as text/plain', (ctx) => gameBets(ctx), refusal('UNSUPPORTED_MEDIA_TYPE'), {
        headers: (h) => ({ ...h, 'content-type': 'text/plain' }),
      }),
    ],
  },
  {
    id: 'charset-latin1',
    title: 'a body declared in a charset other than UTF-8 is refused with 415 UNSUPPORTED_MEDIA_TYPE',
    clause: 'docs/protocol.md §1.1',
    steps: [
      launch('send a signed launch as application/json; charset=iso-8859-1', (ctx) => realLaunch(ctx), refusal('UNSUPPORTED_MEDIA_TYPE'), {
        headers: (h) => ({ ...h, 'content-type': 'application/json; charset=iso-8859-1' }),
      }),
    ],
  },
  {
    id: 'charset-utf8-upper',
    title: 'application/json; charset=UTF-8 is accepted: the charset is utf-8 in any case',
    clause: 'docs/protocol.md §1.1',
    steps: [
      bets(
        'send a signed /game-bets as application/json; charset=UTF-8',
        (ctx) => gameBets(ctx),
        { status: 200 },
        { headers: (h) => ({ ...h, 'content-type': 'application/json; charset=UTF-8' }) },
      ),
    ],
  },
  {
    id: 'empty-body',
    title: 'a request with no body is refused with 415 UNSUPPORTED_MEDIA_TYPE',
    clause: 'docs/protocol.md §1.1',
    steps: [bets('send application/json with an empty body, signed', () => '', refusal('UNSUPPORTED_MEDIA_TYPE'))],
  },
  {
    id: 'too-large',
    title: 'a body one byte over the default limit of 256 KiB is refused with 413 PAYLOAD_TOO_LARGE',
    clause: 'docs/protocol.md §9',
    steps: [
      bets(
        `send a signed /game-bets of ${BODY_BYTES_MAX + 1} bytes`,
        (ctx) => paddedTo(writeJson(gameBets(ctx)), BODY_BYTES_MAX + 1),
        refusal('PAYLOAD_TOO_LARGE'),
      ),
    ],
  },
  {
    id: 'at-the-limit',
    title: 'a body of exactly 256 KiB, padded with an unknown member, is accepted',
    clause: 'docs/protocol.md §9',
    steps: [bets(`send a signed /game-bets of ${BODY_BYTES_MAX} bytes`, (ctx) => paddedTo(writeJson(gameBets(ctx)), BODY_BYTES_MAX), { status: 200 })],
  },
  ...onBoth((endpoint, _body, name) => ({
    id: `not-json-${name}`,
    title: `a signed ${endpoint} body that is not JSON is refused with 400 INVALID_REQUEST`,
    clause: 'docs/protocol.md §3.2',
    steps: [call('send a signed body that is not JSON', endpoint, () => '{"mode": "real", "game": ', refusal('INVALID_REQUEST'))],
  })),
  {
    id: 'top-level-array',
    title: 'a body whose top level is not an object is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.1',
    steps: [bets('send a signed JSON array', (ctx) => [gameBets(ctx)], refusal('INVALID_REQUEST'))],
  },
  {
    id: 'duplicate-member',
    title: 'a member name twice in one object is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.2',
    steps: [
      bets(
        'send a /game-bets with "walletId" twice',
        (ctx) => `{"walletId":"${ctx.walletId()}",${writeJson(gameBets(ctx)).slice(1)}`,
        refusal('INVALID_REQUEST'),
      ),
    ],
  },
  {
    id: 'lone-surrogate',
    title: 'an unpaired surrogate, even in an unknown member, is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.2',
    steps: [launch('send a launch with "note":"\\ud800"', (ctx) => `${writeJson(realLaunch(ctx)).slice(0, -1)},"note":"\\ud800"}`, refusal('INVALID_REQUEST'))],
  },
  {
    id: 'nul-in-string',
    title: 'U+0000 in a string is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.2',
    steps: [launch('send a launch whose language is "en\\u0000"', (ctx) => writeJson(realLaunch(ctx, { language: 'en\u0000' })), refusal('INVALID_REQUEST'))],
  },
  {
    id: 'number-out-of-range',
    title: "a number outside a double's range, in an unknown member, is refused with 400 INVALID_REQUEST",
    clause: 'docs/protocol.md §1.2',
    steps: [bets('send a /game-bets with "extra":1e400', (ctx) => `${writeJson(gameBets(ctx)).slice(0, -1)},"extra":1e400}`, refusal('INVALID_REQUEST'))],
  },
  {
    id: 'not-utf8',
    title: 'bytes that are not UTF-8 are refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §1.2',
    steps: [
      bets(
        'send a /game-bets with the bytes C3 28 in an unknown member',
        (ctx) => {
          const text = Buffer.from(`${writeJson(gameBets(ctx)).slice(0, -1)},"note":"`, 'utf8');
          return new Uint8Array(Buffer.concat([text, Buffer.from([0xc3, 0x28]), Buffer.from('"}')]));
        },
        refusal('INVALID_REQUEST'),
      ),
    ],
  },
  {
    id: 'unknown-members',
    title: 'unknown members, __proto__ and constructor among them, are ignored',
    clause: 'docs/protocol.md §1.3',
    steps: [
      bets(
        'send a /game-bets with unknown members',
        (ctx) => `${writeJson(gameBets(ctx)).slice(0, -1)},"__proto__":{"games":[]},"constructor":1,"futureMember":{"a":[1,2]}}`,
        { status: 200 },
      ),
      launch('send a launch with unknown members', (ctx) => realLaunch(ctx, { futureMember: 'x', constructor: { prototype: 1 } }), LAUNCHED),
    ],
  },
  {
    id: 'games-wrong-type',
    title: 'games as a string instead of an array is refused with 400 INVALID_REQUEST naming the member',
    clause: 'docs/protocol.md §8.2',
    steps: [bets('send games as a string', (ctx) => gameBets(ctx, { games: ctx.game() }), invalid('games'))],
  },
  {
    id: 'currencies-missing',
    title: 'a /game-bets without currencies is refused with 400 INVALID_REQUEST naming the member',
    clause: 'docs/protocol.md §8.2',
    steps: [bets('send a /game-bets without currencies', (ctx) => gameBets(ctx, { currencies: undefined }), invalid('currencies'))],
  },
  {
    id: 'currency-lower-case',
    title: 'a currency code in lower case is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §8.2',
    steps: [bets('ask for "eur"', (ctx) => gameBets(ctx, { currencies: ['eur'] }), invalid('currencies'))],
  },
  {
    id: 'currencies-over-limit',
    title: 'more than 200 currencies are refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §9',
    steps: [
      bets('ask for 201 currencies', (ctx) => gameBets(ctx, { currencies: Array.from({ length: 201 }, () => ctx.currencies()[0]) }), invalid('currencies')),
    ],
  },
  {
    id: 'games-empty',
    title: 'an empty list of games is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §8.2',
    steps: [bets('ask for no games', (ctx) => gameBets(ctx, { games: [] }), invalid('games'))],
  },
  {
    id: 'wallet-id-too-long',
    title: 'a walletId of 129 characters is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §9',
    steps: [bets('send a walletId of 129 characters', (ctx) => gameBets(ctx, { walletId: 'w'.repeat(129) }), invalid('walletId'))],
  },
  {
    id: 'mode-unknown',
    title: 'a mode other than real or fun is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch in mode "demo"', (ctx) => realLaunch(ctx, { mode: 'demo' }), invalid('mode'))],
  },
  {
    id: 'real-without-key',
    title: 'a real-mode launch without a key is refused with 400 INVALID_REQUEST naming key',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch in real mode without key', (ctx) => realLaunch(ctx, { key: undefined }), invalid('key'))],
  },
  {
    id: 'key-too-long',
    title: 'a launch key of 257 characters is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §9',
    steps: [launch('launch with a key of 257 characters', (ctx) => realLaunch(ctx, { key: 'k'.repeat(257) }), invalid('key'))],
  },
  {
    id: 'language-malformed',
    title: 'a language that is not a well-formed BCP 47 tag is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch with language "en_GB!"', (ctx) => funLaunch(ctx, { language: 'en_GB!' }), invalid('language'))],
  },
  {
    id: 'country-lower-case',
    title: 'a country in lower case is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch with country "de"', (ctx) => realLaunch(ctx, { country: 'de' }), invalid('country'))],
  },
  {
    id: 'country-unassigned',
    title: 'a country code that ISO 3166-1 does not assign is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch with country "XX"', (ctx) => realLaunch(ctx, { country: 'XX' }), invalid('country'))],
  },
  {
    id: 'url-relative',
    title: 'a urls.lobby that is not an absolute http(s) URL is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch with urls.lobby "/lobby"', (ctx) => realLaunch(ctx, { urls: { lobby: '/lobby' } }), invalid('lobby'))],
  },
  {
    id: 'url-too-long',
    title: 'a urls.deposit of 2,049 characters is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §9',
    steps: [
      launch(
        'launch with a urls.deposit of 2,049 characters',
        (ctx) => realLaunch(ctx, { urls: { deposit: `https://casino.example/${'d'.repeat(2049 - 23)}` } }),
        invalid('deposit'),
      ),
    ],
  },
]);
