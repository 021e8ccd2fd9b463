/**
 * What a player's browser calls: the game pages and their files, and the
 * pages' JSON API (open, play, free spin, state), as one Fastify plugin.
 * The launch token in a call's body is its credential (no cookies, so no
 * CSRF); anyone may call, so each address, and each launch's rounds, are
 * limited (docs/provider.md, "Limits of the page's API"), and bodies are
 * held to what a page sends. The limits' plugin (@fastify/rate-limit) is
 * registered inside this one: its limiters serve these routes only.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { addressKey, callLimiter, enableCallLimits } from '../../http/call-limits.js';
import { bodyBytes, readBody, sendProblem, sendRefusal } from '../../http/json-api.js';
import { PLAYER_BODY_BYTES_MAX } from '../../http/limits.js';
import { compileBody, type BodyReader } from '../../protocol/validate.js';
import { answeredPending, type GameService } from '../game-service.js';
import { addressSet, callerAddress } from '../../access/address-ranges.js';
import type { OperatorSettings } from '../config-operators.js';
import { GAME_KINDS, type GameKind } from '../config-schema.js';
import type { ProviderConfig } from '../provider-config.js';
import { FreeSpinRequest, OpenGameRequest, PlayRequest, ReelsPlayRequest } from '../provider-schemas.js';
import { sendJson } from './send-json.js';

export interface GameRoutesOptions {
  config: ProviderConfig;
  games: GameService;
  /** Where the game page's files are; by default the project's web/ folder. */
  webDir?: string;
}

const bodies = {
  open: compileBody(OpenGameRequest),
  play: compileBody(PlayRequest),
  reelsPlay: compileBody(ReelsPlayRequest),
  freeSpin: compileBody(FreeSpinRequest),
};

/**
 * The manifest of the pages' files, in the pages' own folder: the server
 * knows no file of web/ by name, so a file the pages add changes web/ alone.
 */
const WEB_MANIFEST = 'files.json';

/** What web/files.json lists: each kind of game's page, and the files the pages fetch, by name, with their content types. */
export interface WebManifest {
  pages: Readonly<Record<GameKind, string>>;
  /** Nothing else under /game/assets is served. */
  assets: ReadonlyMap<string, string>;
}

/** A name the manifest may give: a file of the pages' folder itself, never a path out of it. */
const WEB_FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Reads `webDir`'s manifest. The manifest ships with the server: one that
 * is broken (a kind without a page, a name with a path) is a bug, and the
 * server stops at start rather than serve what it names.
 */
export function readWebManifest(webDir: string): WebManifest {
  const manifest = JSON.parse(readFileSync(`${webDir}/${WEB_MANIFEST}`, 'utf8')) as { pages?: Record<string, unknown>; assets?: Record<string, unknown> };
  const fileName = (name: unknown, what: string): string => {
    assert.ok(typeof name === 'string' && WEB_FILE_NAME.test(name), `${WEB_MANIFEST}: ${what} is not a file name of the pages' folder: ${String(name)}`);
    return name;
  };
  const pages = Object.fromEntries(GAME_KINDS.map((kind) => [kind, fileName(manifest.pages?.[kind], `the page of ${kind}`)]));
  const assets = new Map(
    Object.entries(manifest.assets ?? {}).map(([name, type]) => {
      assert.ok(typeof type === 'string' && type !== '', `${WEB_MANIFEST}: ${name} has no content type`);
      return [fileName(name, 'an asset'), type];
    }),
  );
  return { pages: pages as Record<GameKind, string>, assets };
}

/**
 * The game page's Content-Security-Policy: it loads only its own files and
 * calls only its own provider's API, plus the operators' own pages
 * (`pageOrigins`): they, and only they, may frame it (docs/protocol.md §8.1:
 * an iframe src), and it calls their urls.refresh. A script injected into
 * the page cannot send the launch token anywhere else. One policy for every
 * operator: the page learns which launch it plays only from its fragment,
 * which never reaches the server.
 */
export function gamePagePolicy(operators: readonly Pick<OperatorSettings, 'pageOrigins'>[]): string {
  const origins = [...new Set(operators.flatMap((op) => op.pageOrigins))];
  const ancestors = origins.length === 0 ? "'none'" : origins.join(' ');
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src ${["'self'", ...origins].join(' ')}; frame-ancestors ${ancestors}; base-uri 'none'; form-action 'none'`;
}

/** The game pages, their files and their API. */
export async function gameRoutes(app: FastifyInstance, options: GameRoutesOptions): Promise<void> {
  gamePageRoutes(app, options);
  // Anyone may call the page's API, `open` without a launch: each address, and each launch's rounds, are
  // limited (docs/provider.md, "Limits of the page's API"), and bodies are held to what a page sends.
  await enableCallLimits(app);
  gameApiRoutes(app, options.games, playerLimits(app, options));
}

/** GET /game/:slug (the page of the game's kind) and GET /game/assets/:file. */
function gamePageRoutes(app: FastifyInstance, options: GameRoutesOptions): void {
  const catalog = options.games.catalog;
  const pagePolicy = gamePagePolicy(options.config.operators);
  const webDir = options.webDir ?? fileURLToPath(new URL('../../../../web/', import.meta.url));
  // Each kind of game has its page; they share the assets. All are read once, at start.
  const manifest = readWebManifest(webDir);
  const pages = Object.fromEntries(GAME_KINDS.map((kind) => [kind, readFileSync(`${webDir}/${manifest.pages[kind]}`)])) as Record<GameKind, Buffer>;
  const assets = new Map([...manifest.assets].map(([name, type]) => [name, { type, bytes: readFileSync(`${webDir}/${name}`) }]));

  app.get('/game/:slug', async (request, reply) => {
    const { slug } = request.params as { slug: string };
    const game = catalog.game(slug);
    if (!game) return sendProblem(reply, 'GAME_NOT_FOUND', `unknown game ${slug}`);
    return reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', pagePolicy)
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .send(pages[game.kind]);
  });

  app.get('/game/assets/:file', async (request, reply) => {
    const { file } = request.params as { file: string };
    const asset = assets.get(file);
    if (!asset) return sendProblem(reply, 'NOT_FOUND', `no asset ${file}`);
    return reply
      .code(200)
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(asset.bytes);
  });
}

/** The limits of the page's API, once the limits' plugin is registered. */
interface PlayerLimits {
  /** The options of each route of the page's API: its body limit, and its calls counted per address. */
  playerRoute: Pick<RouteShorthandOptions, 'bodyLimit' | 'onRequest'>;
  /** Counts a round-playing call against its launch's limit; false once the 429 is sent. A token of no launch is refused by the call itself. */
  launchAllowed(request: FastifyRequest, reply: FastifyReply, token: string): Promise<boolean>;
}

/** The page API's limiters, per address and per launch, made on the limits' plugin. */
function playerLimits(app: FastifyInstance, { config, games }: GameRoutesOptions): PlayerLimits {
  const windowMs = config.limits.playerRateWindowMs;
  const perAddress = callLimiter(app, { callsMax: config.limits.playerCallsPerAddressMax, windowMs }, 'from this address');
  const perLaunch = callLimiter(app, { callsMax: config.limits.roundCallsPerLaunchMax, windowMs }, 'of this launch');
  // A proxy trusted to name an operator's address stands in front of this server: it names a player's too.
  const playerProxies = addressSet(config.operators.flatMap((entry) => entry.trustedProxies));
  return {
    playerRoute: {
      bodyLimit: PLAYER_BODY_BYTES_MAX,
      onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
        const caller = callerAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], playerProxies);
        if (!(await perAddress(request, reply, addressKey(caller?.toString())))) return reply;
      },
    },
    launchAllowed: (request, reply, token) => {
      const launchId = games.launchIdOf(token);
      return launchId === undefined ? Promise.resolve(true) : perLaunch(request, reply, launchId);
    },
  };
}

/** The game's slug and the checked body of a call of the page's API; undefined once the refusal is sent. */
function pageCall<T extends TSchema>(request: FastifyRequest, reply: FastifyReply, reader: BodyReader<T>) {
  const bytes = bodyBytes(request, reply);
  const input = bytes && readBody(reply, bytes, reader);
  return input && { slug: (request.params as { slug: string }).slug, input };
}

/**
 * The page's own API: open, play, free spin, state. The launch token in the
 * body is the credential (no cookies, so no CSRF).
 */
function gameApiRoutes(app: FastifyInstance, games: GameService, { playerRoute, launchAllowed }: PlayerLimits): void {
  const catalog = games.catalog;
  app.post('/game/:slug/api/open', playerRoute, async (request, reply) => {
    const call = pageCall(request, reply, bodies.open);
    if (!call) return reply;
    const outcome = await games.open(call.input.token, call.slug);
    if ('ok' in outcome) return sendRefusal(reply, outcome);
    return sendJson(reply, 200, JSON.stringify(outcome));
  });

  app.post('/game/:slug/api/play', playerRoute, async (request, reply) => {
    // Each game kind has its own play body: a reels spin has no chance to pick.
    if (catalog.game((request.params as { slug: string }).slug)?.kind === 'reels') {
      const call = pageCall(request, reply, bodies.reelsPlay);
      if (!call) return reply;
      if (!(await launchAllowed(request, reply, call.input.token))) return reply;
      const outcome = await games.play(call.input.token, call.slug, call.input);
      if ('ok' in outcome) return sendRefusal(reply, outcome);
      return sendJson(reply, answeredPending(outcome) ? 202 : 200, JSON.stringify(outcome));
    }
    const call = pageCall(request, reply, bodies.play);
    if (!call) return reply;
    if (!(await launchAllowed(request, reply, call.input.token))) return reply;
    const outcome = await games.play(call.input.token, call.slug, call.input);
    if ('ok' in outcome) return sendRefusal(reply, outcome);
    // 202: the round is accepted and kept, its final answer not in yet (docs/provider.md).
    return sendJson(reply, answeredPending(outcome) ? 202 : 200, JSON.stringify(outcome));
  });

  // A reels round's next free spin; after the last, its wins' answer is waited for as a play's (202 while on its way).
  app.post('/game/:slug/api/free-spin', playerRoute, async (request, reply) => {
    const call = pageCall(request, reply, bodies.freeSpin);
    if (!call) return reply;
    if (!(await launchAllowed(request, reply, call.input.token))) return reply;
    const outcome = await games.freeSpin(call.input.token, call.slug, call.input.roundId.toLowerCase());
    if ('ok' in outcome) return sendRefusal(reply, outcome);
    return sendJson(reply, answeredPending(outcome) ? 202 : 200, JSON.stringify(outcome));
  });

  // What the page polls while a round is pending: the stored launch, with no call to the casino.
  app.post('/game/:slug/api/state', playerRoute, async (request, reply) => {
    const call = pageCall(request, reply, bodies.open);
    if (!call) return reply;
    const outcome = await games.state(call.input.token, call.slug);
    return 'ok' in outcome ? sendRefusal(reply, outcome) : sendJson(reply, 200, JSON.stringify(outcome));
  });
}
