/**
 * The lobby's API (/lobby/api/*): what a player-facing lobby page needs from
 * the operator — its players and balances, the provider's games with their
 * bet ladders (through the provider's /game-bets) and launch URLs (through
 * /generate-launch-url). Registered by `wagerlink sandbox` only, which listens
 * on 127.0.0.1: these routes take no token, as a casino's own lobby would sit
 * behind the casino's player login, which the sandbox does not have
 * (docs/sandbox.md#who-may-call-what), and answer only requests addressed to
 * the sandbox's own loopback names (json-api.ts's allowedHosts), so that no
 * web page reaches them through DNS rebinding. A player made here starts at
 * 0: money comes in only as deposits, which, with everything else about a
 * player, stay behind the back office's admin token.
 *
 * Being open, the lobby's API is held as a game page's is: bodies up to
 * PLAYER_BODY_BYTES_MAX (413 beyond), and so many calls per address per
 * window (429 RATE_LIMITED with Retry-After beyond; docs/sandbox.md).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { bodyBytes, readBody, sendJson, sendProblem, sendRefusal } from '../http/json-api.js';
import { addressKey, callLimiter, enableCallLimits } from '../http/call-limits.js';
import { PLAYER_BODY_BYTES_MAX, PLAYER_CALLS_PER_ADDRESS_MAX, PLAYER_RATE_WINDOW_S } from '../http/limits.js';
import type { CallOutcome } from '../clients/http-call.js';
import { ERRORS, type ErrorCode } from '../protocol/errors.js';
import { stringify } from '../protocol/json.js';
import { isCountryCode } from '../protocol/regions.js';
import { CurrencyCode, LIMIT_PATTERN, StoredPlayerId } from '../protocol/schemas.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, type PlayersPage, type PlayerView } from '../stores/store.js';
import { LaunchRequest, LobbyCreatePlayerRequest } from './lobby-openapi.js';
import { compile, compileBody } from '../protocol/validate.js';
import type { OperatorService } from './operator-service.js';
import { playerBody, playersBody } from './operator-views.js';
import { requestGameBets, requestLaunchUrl, type ProviderLink } from './provider-link.js';

export interface LobbyOptions {
  service: OperatorService;
  /** Where the provider is, and who this operator is to it. */
  link: ProviderLink;
  /** The provider's catalog: the games the lobby offers, in order. */
  games: readonly { slug: string; title: string; kind: string }[];
  /** The lobby page's URL: a game's lobby and deposit buttons lead back to it. */
  lobbyUrl: string;
  /**
   * Calls of the lobby's API one address may make per window; default
   * PLAYER_CALLS_PER_ADDRESS_MAX per PLAYER_RATE_WINDOW_S (the game pages'
   * defaults). The sandbox passes its provider config's.
   */
  limits?: { callsPerAddressMax: number; windowMs: number };
  /**
   * Players whose ids start with one of these are not players to the
   * lobby: its list leaves them out (the picker never shows them), though
   * any of them opens by its id. The sandbox passes the conformance kit's
   * prefix, whose runs make a few hundred players each (docs/sandbox.md).
   */
  hiddenPlayerPrefixes?: readonly string[];
}

/**
 * Reads of the wallet, each of the page's size, that one call of the
 * lobby's list may make to fill its page past hidden players: a run of the
 * conformance kit leaves about 170, so a page of 100 passes ten runs' in
 * one call. Past it the page is answered short, with its cursor, and the
 * picker reads on from there.
 */
const LIST_READS_MAX = 20;

/**
 * A page of the players the lobby shows, in id order: those no hidden
 * prefix names, read past the hidden ones. The cursor is the last id read,
 * hidden or not, so the next page never reads them again.
 */
async function shownPlayers(service: OperatorService, limit: number, after: string | undefined, hidden: readonly string[]): Promise<PlayersPage> {
  const items: PlayerView[] = [];
  let cursor = after;
  for (let read = 0; read < LIST_READS_MAX; read++) {
    const page = await service.listPlayers({ limit, after: cursor });
    for (const [index, player] of page.items.entries()) {
      cursor = player.playerId;
      if (hidden.some((prefix) => player.playerId.startsWith(prefix))) continue;
      items.push(player);
      if (items.length === limit) return { ok: true, items, next: index < page.items.length - 1 || page.next !== null ? cursor : null };
    }
    if (page.next === null) return { ok: true, items, next: null };
  }
  return { ok: true, items, next: cursor ?? null };
}

const bodies = {
  createPlayer: compileBody(LobbyCreatePlayerRequest),
  launch: compileBody(LaunchRequest),
};
/** A player the wallet holds, by its id as stored (docs/protocol.md §5.4: older ids are kept as they were). */
const playerParams = compile(Type.Object({ playerId: StoredPlayerId }));
const gamesQuery = compile(Type.Object({ currency: CurrencyCode }));
const playersQuery = compile(Type.Object({ limit: Type.Optional(Type.String({ pattern: LIMIT_PATTERN })), cursor: Type.Optional(StoredPlayerId) }));

/** A provider's answer passed on: its refusal keeps its code; no answer is 503, the provider being this operator's dependency. */
function sendProviderFailure(reply: FastifyReply, outcome: Exclude<CallOutcome<unknown>, { ok: true }>): FastifyReply {
  if (outcome.kind === 'refused' && outcome.code !== undefined && Object.hasOwn(ERRORS, outcome.code)) {
    return sendProblem(reply, outcome.code as ErrorCode, `the provider refused: ${outcome.detail}`);
  }
  return sendProblem(reply, 'SERVICE_UNAVAILABLE', `the provider did not answer usefully: ${outcome.detail}`);
}

// eslint-disable-next-line max-lines-per-function -- the lobby API's routes, each short, registered in one plugin
export async function registerLobby(app: FastifyInstance, options: LobbyOptions): Promise<void> {
  const { service, link } = options;
  const limits = options.limits ?? { callsPerAddressMax: PLAYER_CALLS_PER_ADDRESS_MAX, windowMs: PLAYER_RATE_WINDOW_S * 1000 };
  await enableCallLimits(app);
  const perAddress = callLimiter(app, { callsMax: limits.callsPerAddressMax, windowMs: limits.windowMs }, 'from this address');
  // The sandbox listens on the loopback interface, with no proxy before it: the caller is the socket's peer.
  const lobbyRoute = {
    bodyLimit: PLAYER_BODY_BYTES_MAX,
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      if (!(await perAddress(request, reply, addressKey(request.socket.remoteAddress)))) return reply;
    },
  };

  app.get('/lobby/api/players', lobbyRoute, async (request, reply) => {
    const checked = playersQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const limit = checked.value.limit === undefined ? PAGE_LIMIT_DEFAULT : Number(checked.value.limit);
    if (limit < 1 || limit > PAGE_LIMIT_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${PAGE_LIMIT_MAX}`);
    const page = await shownPlayers(service, limit, checked.value.cursor, options.hiddenPlayerPrefixes ?? []);
    return sendJson(reply, 200, stringify(playersBody(page)));
  });

  app.post('/lobby/api/players', lobbyRoute, async (request, reply) => {
    const bytes = bodyBytes(request, reply);
    const input = bytes && readBody(reply, bytes, bodies.createPlayer);
    if (!input) return reply;
    // Refused rather than ignored as an unknown member: a caller that sends a balance expects money, and gets none.
    if (Object.hasOwn(input, 'balance')) {
      return sendProblem(
        reply,
        'INVALID_REQUEST',
        'balance: the lobby opens a player at 0; deposits are made in the back office (POST /admin/players/{playerId}/adjustments)',
      );
    }
    if (input.country !== undefined && !isCountryCode(input.country)) {
      return sendProblem(reply, 'INVALID_REQUEST', `country: ${input.country} is not an assigned ISO 3166-1 alpha-2 code`);
    }
    const outcome = await service.createPlayer({ ...input, balance: 0 });
    if (!outcome.ok) return sendRefusal(reply, outcome);
    return sendJson(reply, 201, stringify(playerBody(outcome)));
  });

  app.get('/lobby/api/players/:playerId', lobbyRoute, async (request, reply) => {
    const checked = playerParams.check({ ...(request.params as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const outcome = await service.getPlayer(checked.value.playerId);
    if (!outcome.ok) return sendRefusal(reply, outcome);
    return sendJson(reply, 200, stringify(playerBody(outcome)));
  });

  app.get('/lobby/api/games', lobbyRoute, async (request, reply) => {
    const checked = gamesQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const { currency } = checked.value;
    const slugs = options.games.map((game) => game.slug);
    const bets = await requestGameBets(link, slugs, [currency]);
    if (!bets.ok) return sendProviderFailure(reply, bets);
    // Ladders stay the provider's exact decimal text, written as JSON numbers unchanged.
    const items = options.games.map(
      (game) =>
        `{"slug":${JSON.stringify(game.slug)},"title":${JSON.stringify(game.title)},"kind":${JSON.stringify(game.kind)},"ladder":[${(bets.value[game.slug]?.[currency] ?? []).join(',')}]}`,
    );
    return sendJson(reply, 200, `{"currency":${JSON.stringify(currency)},"items":[${items.join(',')}]}`);
  });

  app.post('/lobby/api/launch', lobbyRoute, async (request, reply) => {
    const bytes = bodyBytes(request, reply);
    const input = bytes && readBody(reply, bytes, bodies.launch);
    if (!input) return reply;
    const language = input.language ?? 'en';
    const player = input.playerId === undefined ? undefined : await service.getPlayer(input.playerId);
    if (player !== undefined && !player.ok) return sendRefusal(reply, player);
    // A player plays in their own currency, for fun as for real money: another one named is a mistake, said so.
    if (player !== undefined && input.currency !== undefined && input.currency !== player.currency) {
      return sendProblem(reply, 'INVALID_REQUEST', `currency: player ${player.playerId} plays in ${player.currency}, not ${input.currency}`);
    }
    if (input.mode === 'fun') {
      // The play money is in the currency named or the player's; the provider refuses one the game has no bets in (422).
      const currency = input.currency ?? player?.currency;
      const outcome = await requestLaunchUrl(link, {
        mode: 'fun',
        game: input.game,
        language,
        ...(currency === undefined ? {} : { currency }),
        urls: { lobby: options.lobbyUrl },
      });
      if (!outcome.ok) return sendProviderFailure(reply, outcome);
      return sendJson(reply, 200, stringify({ url: outcome.value.url }));
    }
    if (player === undefined) return sendProblem(reply, 'INVALID_REQUEST', 'playerId: a real-money launch needs a player');
    const key = await service.createLaunchKey(player.playerId, input.game);
    if (!key.ok) return sendRefusal(reply, key);
    const back = new URL(options.lobbyUrl);
    back.searchParams.set('player', player.playerId);
    const deposit = new URL(back);
    deposit.searchParams.set('deposit', '1');
    const outcome = await requestLaunchUrl(link, {
      mode: 'real',
      game: input.game,
      language,
      key: key.key,
      ...(player.country === undefined || player.country === null ? {} : { country: player.country }),
      // The player's currency goes along: a game with no bets in it is refused now, not when the page opens.
      currency: player.currency,
      urls: { lobby: back.toString(), deposit: deposit.toString() },
    });
    if (!outcome.ok) return sendProviderFailure(reply, outcome);
    return sendJson(reply, 200, stringify({ url: outcome.value.url }));
  });
}
