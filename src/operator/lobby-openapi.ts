/**
 * The lobby API's part of the operator's OpenAPI document (lobby-routes.ts),
 * and the schemas its routes check bodies with. The routes are served by
 * `wagerlink sandbox` only, without a token, on 127.0.0.1.
 */
import { Type } from '@sinclair/typebox';
import { body, ok, plain, problems } from '../protocol/openapi-parts.js';
import * as S from '../protocol/schemas.js';

/**
 * A launch from the lobby: real money needs the player; fun takes the
 * player's currency, or the `currency` named, else the provider's
 * play-money currency. With a player, a currency named must be theirs.
 */
export const LaunchRequest = Type.Object({
  game: S.GameSlug,
  mode: Type.Union([Type.Literal('real'), Type.Literal('fun')]),
  playerId: Type.Optional(S.PlayerId),
  currency: Type.Optional(S.CurrencyCode),
  language: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'BCP 47 language tag (default en).' })),
});

/**
 * A player made from the lobby: no balance, as a casino's sign-up page
 * takes none; money comes in as deposits, which are the back office's
 * (POST /admin/players/{playerId}/adjustments). A lobby that took an opening
 * balance would let any page that reaches it mint money.
 */
export const LobbyCreatePlayerRequest = Type.Object({
  playerId: S.PlayerId,
  currency: S.CurrencyCode,
  country: Type.Optional(S.CountryCode),
});

const LobbyGame = Type.Object({
  slug: S.GameSlug,
  title: Type.String(),
  kind: Type.String({ description: 'Which game it is: dice or reels (its page differs).' }),
  ladder: Type.Array(Type.Number(), { description: 'The bet ladder in the currency asked for, major units; empty when the game has none in it.' }),
});

/**
 * Every lobby route: the sandbox answers only its own loopback names, and a POST only from its own pages
 * (HOST_NOT_ALLOWED); each address's calls are limited, and a body to PLAYER_BODY_BYTES_MAX (docs/sandbox.md).
 */
const LOBBY = ['INVALID_REQUEST', 'HOST_NOT_ALLOWED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'] as const;
const sandboxOnly =
  'Served by `wagerlink sandbox` only (on 127.0.0.1, without a token, to requests addressed to 127.0.0.1, localhost or [::1] and, for a POST, from a page of one of them: docs/sandbox.md#who-may-call-what).';

const LobbyGames = Type.Object({ currency: S.CurrencyCode, items: Type.Array(LobbyGame) });

export function lobbyOpenApiPaths() {
  return {
    '/lobby/api/players': {
      get: {
        summary:
          "Every player but the conformance kit's (ids starting conformance-), for the lobby's picker: in the order of their ids, 50 a page by default (GET /admin/players without its filters). A page may hold fewer than the limit and still have a nextCursor: read on.",
        description: sandboxOnly,
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'string', pattern: '^[0-9]{1,4}$' },
            description: 'Items per page, 1..500 (default 50).',
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            schema: plain(S.StoredPlayerId),
            description: 'nextCursor of the previous page: the last id it listed.',
          },
        ],
        responses: { ...ok('200', 'A page', S.Page(S.PlayerItem)), ...problems(LOBBY) },
      },
      post: {
        summary:
          'Create a player, with a balance of 0: deposits are made in the back office (POST /admin/players/{playerId}/adjustments). A body with `balance` is refused 400.',
        description: sandboxOnly,
        requestBody: body(LobbyCreatePlayerRequest),
        responses: { ...ok('201', 'The player', S.PlayerResponse), ...problems([...LOBBY, 'PLAYER_EXISTS', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']) },
      },
    },
    '/lobby/api/players/{playerId}': {
      get: {
        summary: 'A player and its balance.',
        description: sandboxOnly,
        parameters: [{ name: 'playerId', in: 'path', required: true, schema: plain(S.StoredPlayerId) }],
        responses: { ...ok('200', 'The player', S.PlayerResponse), ...problems([...LOBBY, 'PLAYER_NOT_FOUND']) },
      },
    },
    '/lobby/api/games': {
      get: {
        summary: "The provider's games with their bet ladders in one currency (through the provider's /game-bets).",
        description: sandboxOnly,
        parameters: [{ name: 'currency', in: 'query', required: true, schema: plain(S.CurrencyCode) }],
        responses: { ...ok('200', 'The games', LobbyGames), ...problems([...LOBBY, 'UNSUPPORTED_CURRENCY']) },
      },
    },
    '/lobby/api/launch': {
      post: {
        summary:
          "A launch URL from the provider's /generate-launch-url: real money for a player (a fresh launch key), or fun: play money in the player's currency, or in `currency` without a player, else in the provider's play-money currency (422 UNSUPPORTED_CURRENCY when the game has no bets in it). A `currency` other than the player's is refused 400.",
        description: sandboxOnly,
        requestBody: body(LaunchRequest),
        responses: {
          ...ok('200', 'The URL', S.GenerateLaunchUrlResponse),
          ...problems([...LOBBY, 'PLAYER_NOT_FOUND', 'GAME_NOT_FOUND', 'UNSUPPORTED_CURRENCY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']),
        },
      },
    },
  };
}
