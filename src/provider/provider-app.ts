/**
 * The provider's HTTP server (docs/protocol.md §8.1, §8.2, §2), the
 * game page and its JSON API, and a small back office for free-bet
 * campaigns. `buildProviderApp` returns the app without listening: tests
 * call `app.inject()`, `serve` listens. Building has no side effects: it
 * writes nothing to the store and starts no timer. The server
 * (serve-provider.ts) writes the config's campaigns (config-campaigns.ts)
 * and runs the outbox (outbox.ts).
 *
 * A caller that cannot prove it holds an operator's secret learns nothing,
 * not even which operator ids exist (docs/protocol.md §2): the signature is
 * judged before the body is parsed, and a body naming an operator whose
 * secret did not sign it gets the very answer an unsigned call gets (401
 * INVALID_SIGNATURE, one detail). Only then can an answer speak of wallets.
 *
 * /generate-launch-url checks, in order: content type and size; the
 * caller's address against the whitelists (403 IP_NOT_ALLOWED, for an
 * address no operator admits); the signature under the secrets of every
 * operator (401); JSON and schema (400); that the operatorId named, if any,
 * is one of those that signed (401, as above; a fun launch without one
 * belongs to the operator that signed); that this operator admits the
 * address (403: it has shown its secret, so it may be told); the fields'
 * meaning (400); the game (404 GAME_NOT_FOUND); and a walletId not
 * registered to that operator (404 WALLET_NOT_FOUND).
 *
 * /game-bets carries no IP rule, so the signature is tried under the secrets
 * of every operator (401); then JSON and schema (400); that operatorId is
 * one of the operators that signed (401, as above); a walletId not
 * registered to it (404 WALLET_NOT_FOUND); unknown games (404
 * GAME_NOT_FOUND); currencies without a ladder (422 UNSUPPORTED_CURRENCY).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bodyBytes, createJsonApi, readBody, sendJson as sendJsonAnswer, sendProblem, sendRefusal } from '../http/json-api.js';
import { addressKey, callLimiter, enableCallLimits } from '../http/call-limits.js';
import { PLAYER_BODY_BYTES_MAX } from '../http/limits.js';
import { raw, stringify } from '../protocol/json.js';
import { amountToMinor, decimalFromNumber, decimalFromString, displayMinor, formatMinor, toMinor } from '../protocol/money.js';
import { isCountryCode, isLanguageTag } from '../protocol/regions.js';
import { GameBetsRequest, GenerateLaunchUrlRequest, PageQuery } from '../protocol/schemas.js';
import { bearerToken, SIGNATURE_HEADER, signingSecrets, tokenAccepted, verifySignature } from '../protocol/signing.js';
import { compile, compileBody, type BodyReader } from '../protocol/validate.js';
import { noLadderDetail, offLadderDetail, type Catalog } from './catalog.js';
import { answeredPending, REAL_PROVIDER_WORLD, type GameService, type ProviderWorld, type RoundDelivery } from './game-service.js';
import { LIST_MAX, type OutboxItem } from '../dispatch/outbox.js';
import { derivedPayoutId } from './payout-id.js';
import { addressSet, callerAddress, type AddressSet } from './ip-whitelist.js';
import type { GameKind, OperatorSettings, ProviderConfig } from './provider-config.js';
import {
  CampaignRequest,
  FreeSpinRequest,
  OpenGameRequest,
  OutboxQuery,
  OutboxResolveRequest,
  PayoutRequest,
  PayoutsQuery,
  PlayRequest,
  ReelsPlayRequest,
} from './provider-schemas.js';
import type { CampaignRow, PayoutRow, ProviderStore, RoundCallRow, RoundRow } from './store/provider-store.js';
import { exposeMetrics } from '../http/request-metrics.js';
import { serveHomePage } from '../http/home-page.js';
import { providerHomeSections } from './provider-home.js';
import { ProviderMetrics } from './metrics.js';
import { providerOpenApi } from './provider-openapi.js';
import { installStaffGuard, type StaffGuard } from '../http/staff-guard.js';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX } from '../access/staff.js';
import { checkStaffName, newStaffToken, tokenExpiresAt } from '../access/staff-token.js';
import { AuditQuery, CreateStaffRequest } from '../access/staff-schemas.js';

export interface ProviderAppOptions {
  config: ProviderConfig;
  /** Hands over the back office's guard once built: its route table, for tests that walk every route. */
  onGuard?: (guard: StaffGuard) => void;
  store: ProviderStore;
  /**
   * The use-cases behind the game page (createGameService). The outbox
   * shares it, so that a launch's rounds run one at a time whoever plays
   * them; whoever created it closes it, after the app.
   */
  games: GameService;
  /** The clock of campaigns created through the back office; default REAL_PROVIDER_WORLD. */
  world?: ProviderWorld;
  logger?: FastifyBaseLogger | boolean;
  /** Where the game page's files are; by default the project's web/ folder. */
  webDir?: string;
  /**
   * Served at /metrics. Default: the app's own series (its requests, the
   * outbox's backlog), without the process metrics, whose sampling would
   * outlive the app; the server passes metrics with them, which its round
   * delivery also counts attempts in.
   */
  metrics?: ProviderMetrics;
  /** The authorities (host:port) it answers for, others refused (json-api.ts); default any: the sandbox sets its own. */
  allowedHosts?: readonly string[];
  /** The outbox's dispatcher, woken once a payout or a retried item is durable (round-delivery.ts). */
  delivery?: RoundDelivery;
}

/**
 * The Retry-After (s) of a 503 for the provider's database failing (down,
 * stuck, out of connections, a statement timed out). A second: an operator's
 * call or a player's click comes back soon after a restart or a fail-over,
 * without resending at once into the outage; each call answers within its
 * deadline (store/postgres/provider-store.ts), so the waits do not pile up.
 */
export const STORAGE_RETRY_AFTER_S = 1;

/** Admin listing pages hold at most this many rounds. */
const ROUNDS_PAGE_MAX = 500;
const ROUNDS_PAGE_DEFAULT = 50;
/** Admin pages of payouts and outbox items: the rounds' default; at most the outbox's own listing cap. */
const PAYOUTS_PAGE_MAX = 500;
const OUTBOX_PAGE_MAX = LIST_MAX;

const bodies = {
  launch: compileBody(GenerateLaunchUrlRequest),
  bets: compileBody(GameBetsRequest),
  open: compileBody(OpenGameRequest),
  play: compileBody(PlayRequest),
  reelsPlay: compileBody(ReelsPlayRequest),
  freeSpin: compileBody(FreeSpinRequest),
  campaign: compileBody(CampaignRequest, (value) => [['betAmount', typeof value.betAmount === 'number' ? value.betAmount : undefined]]),
  payout: compileBody(PayoutRequest, (value) => [['amount', typeof value.amount === 'number' ? value.amount : undefined]]),
  resolve: compileBody(OutboxResolveRequest),
  createStaff: compileBody(CreateStaffRequest),
};
/** Read routes' options: every role may read (within its scope). */
const READ = { config: { action: 'read' } } as const;
const auditQuery = compile(AuditQuery);
const pageQuery = compile(PageQuery);
const payoutsQuery = compile(PayoutsQuery);
const outboxQuery = compile(OutboxQuery);

/** An outbox item's id in a path: a positive integer. */
const ITEM_ID_PATTERN = /^[1-9][0-9]{0,14}$/;

const iso = (ms: number | undefined | null) => (ms === undefined || ms === null ? null : new Date(ms).toISOString());

function payoutItem(payout: PayoutRow, decimals: number) {
  const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
  return {
    payoutId: payout.payoutId,
    status: payout.status,
    operatorId: payout.operatorId,
    playerId: payout.playerId,
    currency: payout.currency,
    amount: amount(payout.amountMinor),
    campaignId: payout.campaignId,
    sessionId: payout.operatorSessionId,
    outboxItemId: payout.dispatchItemId,
    attempts: payout.attempts,
    balanceAfter: payout.balanceAfterMinor === null ? null : amount(payout.balanceAfterMinor),
    refusalCode: payout.refusalCode,
    refusalDetail: payout.refusalDetail,
    createdAt: iso(payout.createdAt),
    settledAt: iso(payout.settledAt),
  };
}

/** An item as the back office lists it; its body only when asked for. */
function outboxItemView(item: OutboxItem, now: number, withBody: boolean) {
  return {
    id: item.id,
    operatorId: item.operatorId,
    orderingKey: item.orderingKey,
    sequence: item.sequence,
    kind: item.kind,
    path: item.path,
    status: item.status,
    inFlight: inFlight(item, now),
    attempts: item.attempts,
    nextAttemptAt: item.status === 'pending' ? iso(item.nextAttemptAt) : null,
    lastAnswer: item.lastAnswer ?? null,
    resolution: item.resolution ?? null,
    createdAt: iso(item.createdAt),
    finishedAt: iso(item.finishedAt),
    ...(withBody ? { body: item.body.toString('utf8') } : {}),
  };
}

function inFlight(item: OutboxItem, now: number): boolean {
  return item.status === 'pending' && item.leaseExpiresAt !== undefined && item.leaseExpiresAt > now;
}

/** Why retry or resolve did not apply to an item, for the person who asked. */
function stateDetail(item: OutboxItem, action: string, now: number): string {
  if (inFlight(item, now)) {
    return `item ${item.id} is in flight (leased to ${item.leaseOwner} until ${iso(item.leaseExpiresAt)}); ${action} it once that attempt has its answer`;
  }
  return `item ${item.id} is ${item.status}; only a parked item, or a pending one not in flight, can be ${action === 'retry' ? 'retried' : 'resolved'}`;
}

/** The files of the game page, by URL name; nothing else under /game/assets is served. */
const WEB_FILES: Readonly<Record<string, string>> = {
  'game.css': 'text/css; charset=utf-8',
  'page.js': 'text/javascript; charset=utf-8',
  'game.js': 'text/javascript; charset=utf-8',
  'reels-page.js': 'text/javascript; charset=utf-8',
  'reels-api.js': 'text/javascript; charset=utf-8',
  'strings.json': 'application/json; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

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

interface OperatorEntry {
  settings: OperatorSettings;
  /** The operator's secrets as bytes: /game-bets tries every operator's on every call. */
  secrets: readonly Uint8Array[];
  whitelist: AddressSet;
  trustedProxies: AddressSet;
}

/**
 * The one detail of every 401 INVALID_SIGNATURE of the interface endpoints:
 * a wrong signature, a missing one, and a body naming an operator (known
 * or not) whose secret did not sign it must read the same.
 */
const SIGNATURE_DETAIL = "X-Server-Authorization must be the hex HMAC-SHA256 of the body under the calling operator's secret";

/** Answers of the game page's API are never cached. */
function sendJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return sendJsonAnswer(reply.header('cache-control', 'no-store'), status, body);
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The field-level rules of docs/protocol.md §8.1 that a schema cannot say. */
function launchProblem(input: GenerateLaunchUrlRequest): string | undefined {
  if (input.mode === 'real') {
    for (const field of ['walletId', 'operatorId', 'key', 'country'] as const) {
      if (input[field] === undefined) return `${field}: is required in real mode`;
    }
  }
  if (!isLanguageTag(input.language)) return `language: ${input.language} is not a well-formed BCP 47 language tag`;
  if (input.country !== undefined && !isCountryCode(input.country)) return `country: ${input.country} is not an assigned ISO 3166-1 alpha-2 code`;
  for (const name of ['lobby', 'refresh', 'deposit'] as const) {
    const url = input.urls?.[name];
    if (url !== undefined && !isHttpUrl(url)) return `urls.${name}: must be an absolute http(s) URL`;
  }
  return undefined;
}

/**
 * Why a launch could not be played, if it could not: fun mode plays in the
 * play-money currency, real mode in the player's, which the operator may
 * name in `currency` (the provider learns it for certain only at
 * /authenticate, when the page opens, and checks it again there).
 */
function launchCurrencyProblem(
  input: GenerateLaunchUrlRequest,
  operator: OperatorSettings,
  catalog: Pick<Catalog, 'ladder' | 'offeredLadder'>,
  funCurrency: string,
): string | undefined {
  if (input.mode === 'fun') {
    return catalog.ladder(input.game, funCurrency) ? undefined : `game ${input.game} has no bet ladder for the play-money currency ${funCurrency}`;
  }
  if (input.currency === undefined) return undefined;
  return catalog.offeredLadder(input.game, input.currency, operator) ? undefined : noLadderDetail(input.game, input.currency, operator.operatorId);
}

/**
 * The transactions of a request body with their amounts as the body spells
 * them: JSON.parse would read them as doubles. The body is ours
 * (reels-rounds.ts): each transaction's members in the order id, type,
 * amount, jpAmount, and no other member named amount.
 */
function transactionsOf(body: string) {
  const parsed = JSON.parse(body) as { transactions: { id: string; type: string; jpAmount?: number }[] };
  const amounts = [...body.matchAll(/"(amount|jpAmount)":(-?[0-9.eE+]+)/g)];
  let next = 0;
  const take = (name: string) => {
    const found = amounts[next++];
    assert.ok(found && found[1] === name, `the body spells ${name} where expected`);
    return raw(found[2]!);
  };
  return parsed.transactions.map((tx) => ({ id: tx.id, type: tx.type, amount: take('amount'), ...(tx.jpAmount === undefined ? {} : { jpAmount: take('jpAmount') }) }));
}

/** A reels round's part of the back office's round: its progress and its calls, each with the transactions it books (the exact body's). */
function reelsItem(round: RoundRow, calls: RoundCallRow[], decimals: number) {
  const reels = round.reels!;
  const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
  return {
    freeSpins: reels.freeSpins,
    freeSpinsPlayed: reels.freeSpinsPlayed,
    jackpotContribution: amount(reels.jackpotContributionMinor),
    jackpotWin: reels.jackpotWinMinor === null ? null : amount(reels.jackpotWinMinor),
    completedAt: iso(reels.completedAt),
    calls: calls.map((call) => ({
      index: call.index,
      status: call.status,
      refusalCode: call.refusalCode,
      transactions: transactionsOf(call.body),
      finishedAt: iso(call.finishedAt),
    })),
  };
}

function roundItem(round: RoundRow, decimals: number, calls: RoundCallRow[] = []) {
  const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
  return {
    roundId: round.roundId,
    kind: round.kind,
    status: round.status,
    mode: round.mode,
    operatorId: round.operatorId,
    playerId: round.playerId,
    game: round.game,
    currency: round.currency,
    bet: amount(round.betMinor),
    win: amount(round.winMinor),
    betTransactionId: round.betTxId,
    winTransactionId: round.winTxId,
    campaignId: round.campaignId,
    campaignFinished: round.campaignFinished,
    chancePct: round.chancePct,
    threshold: round.threshold,
    roll: round.roll,
    nonce: round.nonce,
    serverSeedHash: round.serverSeedHash,
    // A refused round never happened for the player; its seed stays unrevealed. A seed not yet revealed (a reels round's free spins
    // still to play) is null in the store itself: only its commitment is shown.
    serverSeed: round.status === 'refused' ? null : round.serverSeed,
    clientSeed: round.clientSeed,
    refusalCode: round.refusalCode,
    balanceAfter: round.balanceAfterMinor === null ? null : amount(round.balanceAfterMinor),
    attempts: round.attempts,
    createdAt: new Date(round.createdAt).toISOString(),
    settledAt: iso(round.settledAt),
    ...(round.reels === null ? {} : { reels: reelsItem(round, calls, decimals) }),
  };
}

export async function buildProviderApp(options: ProviderAppOptions): Promise<FastifyInstance> {
  const { config, store, games } = options;
  const world = options.world ?? REAL_PROVIDER_WORLD;
  const catalog = games.catalog;
  const operators: OperatorEntry[] = config.operators.map((settings) => ({
    settings,
    secrets: signingSecrets(settings.secrets),
    whitelist: addressSet(settings.ipWhitelist),
    trustedProxies: addressSet(settings.trustedProxies),
  }));
  const operatorsById = new Map(operators.map((entry) => [entry.settings.operatorId, entry]));
  /** Every operator's trusted proxies: the back office's caller is judged as the IP whitelists judge one. */
  const trustedProxies = addressSet(config.operators.flatMap((settings) => settings.trustedProxies));

  const pagePolicy = gamePagePolicy(config.operators);
  const webDir = options.webDir ?? fileURLToPath(new URL('../../../web/', import.meta.url));
  // Each kind of game has its page (index.html is dice's); they share the assets.
  const pages: Readonly<Record<GameKind, Buffer>> = { dice: readFileSync(`${webDir}/index.html`), reels: readFileSync(`${webDir}/reels.html`) };
  const assets = new Map(Object.entries(WEB_FILES).map(([name, type]) => [name, { type, bytes: readFileSync(`${webDir}/${name}`) }]));

  const app = createJsonApi({
    bodyBytesMax: config.limits.bodyBytesMax,
    requestTimeoutMs: config.limits.requestTimeoutMs,
    logger: options.logger,
    storageRetryAfterS: STORAGE_RETRY_AFTER_S,
    allowedHosts: options.allowedHosts,
  });
  const metrics = options.metrics ?? new ProviderMetrics({ outbox: store.outbox, clock: world.clock });

  const signature = (request: FastifyRequest) => request.headers[SIGNATURE_HEADER];
  /**
   * The operators among `candidates` whose secrets signed the body. Every
   * candidate's secrets are tried, so the time taken does not tell which
   * one matched, or whether any did. The work grows with the number of
   * secrets: about 0.14 ms each for a body of the full 256 KiB, 2 µs for a
   * typical few hundred bytes.
   */
  const signersOf = (candidates: readonly OperatorEntry[], request: FastifyRequest, bytes: Buffer) =>
    candidates.filter((entry) => verifySignature(entry.secrets, signature(request), bytes));
  /** The operator a body names, if its secret is among those that signed; none for a stranger or another operator. */
  const namedSigner = (signers: readonly OperatorEntry[], operatorId: string) => signers.find((entry) => entry.settings.operatorId === operatorId);

  // ------------------------------------------------------------ interface

  app.post('/generate-launch-url', async (request, reply) => {
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const admitting = operators.filter((entry) =>
      entry.whitelist.has(callerAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], entry.trustedProxies)),
    );
    if (admitting.length === 0) {
      return sendProblem(reply, 'IP_NOT_ALLOWED', `caller ${request.socket.remoteAddress ?? 'unknown'} is not whitelisted`);
    }
    // Every operator's secrets are tried, as on /game-bets: an operator that signed is known, and is told
    // when its own whitelist does not admit the address it calls from (403), which says nothing of others.
    const signers = signersOf(operators, request, bytes);
    if (signers.length === 0) return sendProblem(reply, 'INVALID_SIGNATURE', SIGNATURE_DETAIL);
    const input = readBody(reply, bytes, bodies.launch);
    if (!input) return reply;
    // A fun launch without an operatorId belongs to whoever signed from an address it admits (docs/protocol.md
    // §2). An operator named that did not sign is answered like a stranger: nothing tells whether it exists.
    const operator =
      input.operatorId === undefined ? (signers.find((entry) => admitting.includes(entry)) ?? signers[0]) : namedSigner(signers, input.operatorId);
    if (!operator) return sendProblem(reply, 'INVALID_SIGNATURE', SIGNATURE_DETAIL);
    if (!admitting.includes(operator)) {
      return sendProblem(reply, 'IP_NOT_ALLOWED', `caller is not whitelisted for operator ${operator.settings.operatorId}`);
    }
    const problem = launchProblem(input);
    if (problem) return sendProblem(reply, 'INVALID_REQUEST', problem);
    if (!catalog.game(input.game)) {
      return sendProblem(reply, 'GAME_NOT_FOUND', `unknown game ${input.game}; games: ${catalog.slugs().join(', ')}`);
    }
    if (input.walletId !== undefined && !operator.settings.walletIds.includes(input.walletId)) {
      return sendProblem(reply, 'WALLET_NOT_FOUND', `walletId ${input.walletId} is not registered for operator ${operator.settings.operatorId}`);
    }
    // A launch the game could not be played in is refused now, not once the player has opened the page.
    const unplayable = launchCurrencyProblem(input, operator.settings, catalog, config.fun.currency);
    if (unplayable) return sendProblem(reply, 'UNSUPPORTED_CURRENCY', unplayable);
    const url = games.launchUrl({
      mode: input.mode,
      game: input.game,
      operatorId: operator.settings.operatorId,
      ...(input.walletId === undefined ? {} : { walletId: input.walletId }),
      ...(input.mode === 'real' && input.key !== undefined ? { key: input.key } : {}),
      ...(input.country === undefined ? {} : { country: input.country }),
      language: input.language,
      urls: { ...(input.urls ?? {}) },
    });
    return sendJson(reply, 200, JSON.stringify({ url }));
  });

  app.post('/game-bets', async (request, reply) => {
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    // The body names its operator, but is not read before some operator's secret is shown to have signed it.
    const signers = signersOf(operators, request, bytes);
    if (signers.length === 0) return sendProblem(reply, 'INVALID_SIGNATURE', SIGNATURE_DETAIL);
    const input = readBody(reply, bytes, bodies.bets);
    if (!input) return reply;
    const operator = namedSigner(signers, input.operatorId);
    if (!operator) return sendProblem(reply, 'INVALID_SIGNATURE', SIGNATURE_DETAIL);
    if (!operator.settings.walletIds.includes(input.walletId)) {
      return sendProblem(reply, 'WALLET_NOT_FOUND', `walletId ${input.walletId} is not registered for operator ${input.operatorId}`);
    }
    const unknown = [...new Set(input.games.filter((slug) => !catalog.game(slug)))];
    if (unknown.length > 0) {
      return sendProblem(reply, 'GAME_NOT_FOUND', `unknown games: ${unknown.join(', ')}; games: ${catalog.slugs().join(', ')}`);
    }
    const out: Record<string, Record<string, unknown[]>> = {};
    const missing: string[] = [];
    for (const slug of input.games) {
      out[slug] ??= {};
      for (const currency of input.currencies) {
        const ladder = catalog.offeredLadder(slug, currency, operator.settings);
        if (!ladder) {
          missing.push(`${slug}: ${currency}`);
          continue;
        }
        const decimals = catalog.decimals(currency)!;
        out[slug][currency] = ladder.map((amount) => raw(formatMinor(amount, decimals)));
      }
    }
    if (missing.length > 0) {
      return sendProblem(reply, 'UNSUPPORTED_CURRENCY', `no bet ladder for ${[...new Set(missing)].join(', ')}`);
    }
    return sendJson(reply, 200, stringify(out));
  });

  // -------------------------------------------------------- the game page

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
    const asset = Object.hasOwn(WEB_FILES, file) ? assets.get(file) : undefined;
    if (!asset) return sendProblem(reply, 'NOT_FOUND', `no asset ${file}`);
    return reply
      .code(200)
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(asset.bytes);
  });

  // The page's own API: the launch token in the body is the credential (no cookies, so no CSRF).
  /** The game's slug and the checked body of a call of the page's API; undefined once the refusal is sent. */
  const pageCall = <T extends TSchema>(request: FastifyRequest, reply: FastifyReply, reader: BodyReader<T>) => {
    const bytes = bodyBytes(request, reply);
    const input = bytes && readBody(reply, bytes, reader);
    return input && { slug: (request.params as { slug: string }).slug, input };
  };

  // Anyone may call the page's API, `open` without a launch: each address, and each launch's rounds, are
  // limited (docs/provider.md, "Limits of the page's API"), and bodies are held to what a page sends.
  await enableCallLimits(app);
  const windowMs = config.limits.playerRateWindowMs;
  const perAddress = callLimiter(app, { callsMax: config.limits.playerCallsPerAddressMax, windowMs }, 'from this address');
  const perLaunch = callLimiter(app, { callsMax: config.limits.roundCallsPerLaunchMax, windowMs }, 'of this launch');
  // A proxy trusted to name an operator's address stands in front of this server: it names a player's too.
  const playerProxies = addressSet(config.operators.flatMap((entry) => entry.trustedProxies));
  const playerRoute = {
    bodyLimit: PLAYER_BODY_BYTES_MAX,
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      const caller = callerAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], playerProxies);
      if (!(await perAddress(request, reply, addressKey(caller?.toString())))) return reply;
    },
  };
  /** Counts a round-playing call against its launch's limit; false once the 429 is sent. A token of no launch is refused by the call itself. */
  const launchAllowed = (request: FastifyRequest, reply: FastifyReply, token: string) => {
    const launchId = games.launchIdOf(token);
    return launchId === undefined ? Promise.resolve(true) : perLaunch(request, reply, launchId);
  };

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

  // ----------------------------------------------------------- operations

  app.get('/health', async (_request, reply) => sendJson(reply, 200, '{"status":"ok"}'));
  exposeMetrics(app, metrics.requests, metrics.registry, [config.metricsToken ?? '', config.adminToken ?? '']);
  const openApiText = JSON.stringify(providerOpenApi(), null, 2);
  app.get('/openapi.json', async (_request, reply) => sendJson(reply, 200, openApiText));
  serveHomePage(app, 'Wagerlink provider', providerHomeSections(config));

  // ---------------------------------------------------------- back office

  if (config.adminToken !== undefined) {
    await app.register(
      async (admin) => {
        // Who calls and whether their role holds the route's action; the audit row of each state-changing call.
        const guard = installStaffGuard(admin, {
          adminToken: config.adminToken!,
          findToken: (tokenHash) => store.findStaffToken(tokenHash),
          appendAudit: async (entry) => {
            await store.appendAudit(entry);
            await store.durable();
          },
          clock: world.clock,
          // The address the IP whitelists judge: through trusted proxies, as configured for any operator.
          address: (request) => (callerAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], trustedProxies) ?? request.ip).toString(),
          limits: config.staffLimits,
        });
        options.onGuard?.(guard);
        /** The operators the caller may see and act on; null is all. */
        const scopeOf = (request: FastifyRequest) => request.staff!.operators;
        const inScope = (request: FastifyRequest, operatorId: string) => {
          const scope = scopeOf(request);
          return scope === null || scope.includes(operatorId);
        };
        /** An operator the caller named outside their scope: 403, whether or not it is configured, so that nothing leaks. */
        const outOfScope = (request: FastifyRequest, reply: FastifyReply, operatorId: string) =>
          sendProblem(reply, 'FORBIDDEN', `operator ${operatorId} is outside ${request.staff!.name}'s scope`);

        admin.post('/campaigns', { config: { action: 'campaigns.manage' } }, async (request, reply) => {
          const bytes = bodyBytes(request, reply);
          if (!bytes) return reply;
          const input = readBody(reply, bytes, bodies.campaign);
          if (!input) return reply;
          request.auditFacts = { target: `campaign=${input.id}`, operatorId: input.operatorId, currency: input.currency };
          if (!inScope(request, input.operatorId)) return outOfScope(request, reply, input.operatorId);
          const operator = operatorsById.get(input.operatorId);
          if (!operator) return sendProblem(reply, 'WALLET_NOT_FOUND', `operator ${input.operatorId} is not configured`);
          if (!catalog.game(input.game)) return sendProblem(reply, 'GAME_NOT_FOUND', `unknown game ${input.game}`);
          // A free round is a bet the player could have made: on the game's ladder in a currency the
          // operator offers. Another amount would be played (the dice quote any bet of one minor unit
          // or more), but as a bet the game does not offer: above its largest, or none of the amounts
          // /game-bets told the operator.
          const ladder = catalog.offeredLadder(input.game, input.currency, operator.settings);
          if (!ladder) return sendProblem(reply, 'UNSUPPORTED_CURRENCY', noLadderDetail(input.game, input.currency, input.operatorId));
          const decimals = catalog.decimals(input.currency)!;
          const decimal = typeof input.betAmount === 'string' ? decimalFromString(input.betAmount) : decimalFromNumber(input.betAmount);
          const betMinor = decimal === undefined ? undefined : toMinor(decimal, decimals);
          if (betMinor === undefined || betMinor === 0n) {
            return sendProblem(reply, 'INVALID_REQUEST', `betAmount: must be greater than 0 with at most ${decimals} decimals`);
          }
          if (!ladder.includes(betMinor)) {
            return sendProblem(reply, 'INVALID_REQUEST', `betAmount: ${offLadderDetail(String(input.betAmount), input.game, input.currency, ladder, decimals)}`);
          }
          const campaignId = input.id.toLowerCase();
          const written = await store.putCampaign(
            {
              campaignId,
              operatorId: input.operatorId,
              game: input.game,
              currency: input.currency,
              betMinor,
              rounds: input.rounds,
              expiresAt: input.expiresAt === undefined ? null : Date.parse(input.expiresAt),
              createdAt: world.clock(),
            },
            [...new Set(input.players)],
            (kind) => guard.auditEntry(request, kind === 'created' ? 201 : 200),
          );
          if (written === 'conflict') return sendProblem(reply, 'DUPLICATE_CONFLICT', `campaign ${input.id} exists with other content`);
          request.audited = true;
          await store.durable();
          return sendJson(reply, written === 'created' ? 201 : 200, await campaignBody((await store.campaign(campaignId))!));
        });

        admin.get('/campaigns/:id', READ, async (request, reply) => {
          const { id } = request.params as { id: string };
          const campaign = await store.campaign(id.toLowerCase());
          // Another operator's campaign is not found: its existence is not the caller's to know.
          if (!campaign || !inScope(request, campaign.operatorId)) return sendProblem(reply, 'NOT_FOUND', `no campaign ${id}`);
          return sendJson(reply, 200, await campaignBody(campaign));
        });

        admin.post('/payouts', { config: { action: 'money.move' } }, async (request, reply) => {
          const bytes = bodyBytes(request, reply);
          if (!bytes) return reply;
          const input = readBody(reply, bytes, bodies.payout);
          if (!input) return reply;
          request.auditFacts = { target: `player=${input.playerId} campaign=${input.campaignId}`, operatorId: input.operatorId, currency: input.currency };
          if (!inScope(request, input.operatorId)) return outOfScope(request, reply, input.operatorId);
          if (!operatorsById.has(input.operatorId)) return sendProblem(reply, 'WALLET_NOT_FOUND', `operator ${input.operatorId} is not configured`);
          const decimals = catalog.decimals(input.currency);
          if (decimals === undefined) return sendProblem(reply, 'INVALID_REQUEST', `currency: ${input.currency} is not a currency this provider knows`);
          const decimal = typeof input.amount === 'string' ? decimalFromString(input.amount) : decimalFromNumber(input.amount);
          const amountMinor = decimal === undefined ? 'too-many-decimals' : amountToMinor(decimal, decimals);
          if (amountMinor === 'too-large') return sendProblem(reply, 'INVALID_REQUEST', `amount: is over the largest amount ${input.currency} can book`);
          if (amountMinor === 'too-many-decimals' || amountMinor === 0n) {
            return sendProblem(reply, 'INVALID_REQUEST', `amount: must be greater than 0 with at most ${decimals} decimals for ${input.currency}`);
          }
          request.auditFacts.amount = displayMinor(amountMinor, decimals);
          if (!guard.moneyAllowed(request, reply, input.currency, decimal!)) return reply;
          const campaignId = input.campaignId.toLowerCase();
          const payoutId = input.payoutId?.toLowerCase() ?? derivedPayoutId(input.operatorId, campaignId, input.playerId);
          request.auditFacts.target = `player=${input.playerId} payout=${payoutId}`;
          const written = await store.createPayout({
            payoutId,
            operatorId: input.operatorId,
            playerId: input.playerId,
            currency: input.currency,
            amountMinor,
            campaignId,
            createdAt: world.clock(),
          }, (kind) => guard.auditEntry(request, kind === 'created' ? 202 : 200));
          if (!written.ok) return sendRefusal(reply, written);
          if (written.kind !== 'conflict') request.audited = true;
          if (written.kind === 'conflict') {
            return sendProblem(reply, 'DUPLICATE_CONFLICT', `payout ${payoutId} exists with other content (${describePayout(written.payout)})`);
          }
          await store.durable();
          // Sent only once durable: the dispatcher claims nothing a power cut could take back.
          if (written.kind === 'created') options.delivery?.poke();
          const payout = (await store.payout(payoutId))!;
          reply.header('location', `/admin/payouts/${payoutId}`);
          return sendJson(reply, written.kind === 'created' ? 202 : 200, stringify(payoutItem(payout, decimals)));
        });

        admin.get('/payouts/:payoutId', READ, async (request, reply) => {
          const { payoutId } = request.params as { payoutId: string };
          const payout = await store.payout(payoutId.toLowerCase());
          if (!payout || !inScope(request, payout.operatorId)) return sendProblem(reply, 'NOT_FOUND', `no payout ${payoutId}`);
          return sendJson(reply, 200, stringify(payoutItem(payout, catalog.decimals(payout.currency) ?? 0)));
        });

        admin.get('/payouts', READ, async (request, reply) => {
          const checked = payoutsQuery.check({ ...(request.query as object) });
          if (!checked.ok) return sendRefusal(reply, checked);
          const limit = checked.value.limit === undefined ? ROUNDS_PAGE_DEFAULT : Number(checked.value.limit);
          if (limit < 1 || limit > PAYOUTS_PAGE_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${PAYOUTS_PAGE_MAX}`);
          const before = checked.value.cursor === undefined ? undefined : Number(checked.value.cursor);
          if (before !== undefined && !Number.isSafeInteger(before)) return sendProblem(reply, 'INVALID_REQUEST', 'cursor: must be a nextCursor');
          const page = await store.listPayouts(limit, {
            ...(checked.value.status === undefined ? {} : { status: checked.value.status }),
            ...(before === undefined ? {} : { before }),
            operators: scopeOf(request),
          });
          const items = page.payouts.map((payout) => payoutItem(payout, catalog.decimals(payout.currency) ?? 0));
          const nextCursor = page.payouts.length === limit ? String(page.cursors[page.cursors.length - 1]) : null;
          return sendJson(reply, 200, stringify({ items, nextCursor }));
        });

        admin.get('/outbox', READ, async (request, reply) => {
          const checked = outboxQuery.check({ ...(request.query as object) });
          if (!checked.ok) return sendRefusal(reply, checked);
          const { status = 'pending', operatorId, after } = checked.value;
          if (operatorId !== undefined && !inScope(request, operatorId)) return outOfScope(request, reply, operatorId);
          const scope = scopeOf(request);
          const limit = checked.value.limit === undefined ? ROUNDS_PAGE_DEFAULT : Number(checked.value.limit);
          if (limit < 1 || limit > OUTBOX_PAGE_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${OUTBOX_PAGE_MAX}`);
          const items = await store.outbox.list({
            status,
            limit,
            ...(operatorId === undefined ? {} : { operatorId }),
            ...(scope === null ? {} : { operatorIds: scope }),
            ...(after === undefined ? {} : { afterId: Number(after) }),
          });
          const now = world.clock();
          const withBody = checked.value.body === '1';
          const nextCursor = items.length === limit ? String(items[items.length - 1]!.id) : null;
          return sendJson(reply, 200, stringify({ items: items.map((item) => outboxItemView(item, now, withBody)), nextCursor }));
        });

        /** The item of a path's id, or a problem sent. */
        const itemOf = async (request: FastifyRequest, reply: FastifyReply, id: string): Promise<OutboxItem | undefined> => {
          request.auditFacts = { target: `outbox=${id}` };
          if (!ITEM_ID_PATTERN.test(id)) {
            sendProblem(reply, 'INVALID_REQUEST', `id: ${id} is not an outbox item id (a positive integer)`);
            return undefined;
          }
          const found = await store.outbox.item(Number(id));
          // Another operator's item is not found: its existence is not the caller's to know.
          const item = found && inScope(request, found.operatorId) ? found : undefined;
          if (!item) sendProblem(reply, 'NOT_FOUND', `no outbox item ${id}`);
          else request.auditFacts.operatorId = item.operatorId;
          return item;
        };

        admin.post('/outbox/:id/retry', { config: { action: 'outbox.retry' } }, async (request, reply) => {
          const item = await itemOf(request, reply, (request.params as { id: string }).id);
          if (!item) return reply;
          const now = world.clock();
          // The retry and its audit row commit together; a refusal's row is the guard's.
          if (!(await store.outbox.retryNow(item.id, now, guard.auditEntry(request, 200)))) {
            return sendProblem(reply, 'STATE_CONFLICT', stateDetail((await store.outbox.item(item.id))!, 'retry', now));
          }
          request.audited = true;
          await store.durable();
          options.delivery?.poke();
          return sendJson(reply, 200, stringify(outboxItemView((await store.outbox.item(item.id))!, now, false)));
        });

        admin.post('/outbox/:id/resolve', { config: { action: 'outbox.resolve' } }, async (request, reply) => {
          const item = await itemOf(request, reply, (request.params as { id: string }).id);
          if (!item) return reply;
          const bytes = bodyBytes(request, reply);
          if (!bytes) return reply;
          const input = readBody(reply, bytes, bodies.resolve);
          if (!input) return reply;
          const now = world.clock();
          // The resolve (and the round or payout it settles) and its audit row commit together; a refusal's row is the guard's.
          if (!(await store.outbox.resolve(item.id, input.reference.trim(), now, guard.auditEntry(request, 200)))) {
            return sendProblem(reply, 'STATE_CONFLICT', stateDetail((await store.outbox.item(item.id))!, 'resolve', now));
          }
          request.audited = true;
          await store.durable();
          // A key's later items wait for this one: they may go now.
          options.delivery?.poke();
          return sendJson(reply, 200, stringify(outboxItemView((await store.outbox.item(item.id))!, now, false)));
        });

        admin.get('/rounds', READ, async (request, reply) => {
          const checked = pageQuery.check({ ...(request.query as object) });
          if (!checked.ok) return sendRefusal(reply, checked);
          const limit = checked.value.limit === undefined ? ROUNDS_PAGE_DEFAULT : Number(checked.value.limit);
          if (limit < 1 || limit > ROUNDS_PAGE_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${ROUNDS_PAGE_MAX}`);
          const before = checked.value.cursor === undefined ? undefined : Number(checked.value.cursor);
          if (before !== undefined && !Number.isSafeInteger(before)) return sendProblem(reply, 'INVALID_REQUEST', 'cursor: must be a nextCursor');
          const rounds = await store.listRounds(limit, before, scopeOf(request));
          const items = await Promise.all(
            rounds.map(async (round) => roundItem(round, catalog.decimals(round.currency) ?? 0, round.kind === 'reels' ? await store.roundCalls(round.pk) : [])),
          );
          const nextCursor = rounds.length === limit ? String(rounds[rounds.length - 1]!.pk) : null;
          return sendJson(reply, 200, stringify({ items, nextCursor }));
        });

        // ----------------------------------------------- staff and audit

        /**
         * Staff are managed by unscoped admins only: an account scoped to
         * some operators could otherwise make one that sees them all.
         */
        const unscoped = (request: FastifyRequest, reply: FastifyReply): boolean => {
          if (scopeOf(request) === null) return true;
          sendProblem(reply, 'FORBIDDEN', `staff.manage: takes an admin of every operator; ${request.staff!.name} is scoped`);
          return false;
        };

        admin.get('/staff', { config: { action: 'staff.manage' } }, async (request, reply) => {
          if (!unscoped(request, reply)) return reply;
          return sendJson(reply, 200, stringify({ items: await store.listStaff() }));
        });

        admin.post('/staff', { config: { action: 'staff.manage' } }, async (request, reply) => {
          if (!unscoped(request, reply)) return reply;
          const bytes = bodyBytes(request, reply);
          if (!bytes) return reply;
          const input = readBody(reply, bytes, bodies.createStaff);
          if (!input) return reply;
          request.auditFacts = { target: `staff=${input.name}` };
          const refused = checkStaffName(input.name);
          if (refused) return sendProblem(reply, 'INVALID_REQUEST', refused);
          const unknown = (input.operators ?? []).find((operatorId) => !operatorsById.has(operatorId));
          if (unknown !== undefined) return sendProblem(reply, 'WALLET_NOT_FOUND', `operators: ${unknown} is not configured`);
          const made = newStaffToken(world.randomBytes);
          const now = world.clock();
          const outcome = await store.addStaff({
            name: input.name,
            role: input.role,
            operators: input.operators === undefined ? null : [...new Set(input.operators)],
            tokenId: made.tokenId,
            tokenHash: made.tokenHash,
            expiresAt: tokenExpiresAt(now, input.expiresDays),
            now,
            audit: { ...guard.auditEntry(request, 201), target: `staff=${input.name} token=${made.tokenId}` },
          });
          if (!outcome.ok) return sendRefusal(reply, outcome);
          request.audited = true;
          await store.durable();
          return sendJson(reply, 201, stringify({ ...outcome.staff, token: made.token }));
        });

        admin.post('/staff/:nameOrTokenId/revoke', { config: { action: 'staff.manage' } }, async (request, reply) => {
          if (!unscoped(request, reply)) return reply;
          const { nameOrTokenId } = request.params as { nameOrTokenId: string };
          request.auditFacts = { target: `staff=${nameOrTokenId}` };
          const outcome = await store.revokeStaff({ nameOrTokenId, now: world.clock(), audit: guard.auditEntry(request, 200) });
          if (!outcome.ok) return sendRefusal(reply, outcome);
          request.audited = true;
          await store.durable();
          return sendJson(reply, 200, stringify({ name: outcome.name, revokedTokenIds: outcome.tokenIds }));
        });

        admin.get('/audit', { config: { action: 'audit.read' } }, async (request, reply) => {
          const checked = auditQuery.check({ ...(request.query as object) });
          if (!checked.ok) return sendRefusal(reply, checked);
          const limit = checked.value.limit === undefined ? AUDIT_PAGE_DEFAULT : Number(checked.value.limit);
          if (limit < 1 || limit > AUDIT_PAGE_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${AUDIT_PAGE_MAX}`);
          const before = checked.value.cursor === undefined ? undefined : Number(checked.value.cursor);
          // A scoped admin reads the rows of its operators only.
          return sendJson(reply, 200, stringify(await store.listAudit({ limit, before }, scopeOf(request))));
        });
      },
      { prefix: '/admin' },
    );
  }

  function describePayout(payout: PayoutRow): string {
    const decimals = catalog.decimals(payout.currency) ?? 0;
    return `operator ${payout.operatorId}, player ${payout.playerId}, ${formatMinor(payout.amountMinor, decimals)} ${payout.currency}, campaign ${payout.campaignId}`;
  }

  async function campaignBody(campaign: CampaignRow & { players: string[] }): Promise<string> {
    const decimals = catalog.decimals(campaign.currency) ?? 0;
    return stringify({
      id: campaign.campaignId,
      operatorId: campaign.operatorId,
      game: campaign.game,
      currency: campaign.currency,
      betAmount: raw(formatMinor(campaign.betMinor, decimals)),
      rounds: campaign.rounds,
      expiresAt: campaign.expiresAt === null ? null : new Date(campaign.expiresAt).toISOString(),
      players: await Promise.all(
        campaign.players.map(async (playerId) => ({
          playerId,
          roundsUsed: await store.campaignRoundsUsed(campaign.campaignId, campaign.operatorId, playerId),
        })),
      ),
    });
  }

  return app;
}
