/**
 * The signed interface operators call (docs/protocol.md §8.1, §8.2, §2):
 * /generate-launch-url and /game-bets, as one Fastify plugin.
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
 *
 * The signature is checked in each handler on the raw body the app's JSON
 * parser keeps (src/http/json-api.ts): no hook of this plugin applies
 * outside it, so it needs no skip-override.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bodyBytes, readBody, sendProblem } from '../../http/json-api.js';
import { raw, stringify } from '../../protocol/json.js';
import { formatMinor } from '../../protocol/money.js';
import { isCountryCode, isLanguageTag } from '../../protocol/regions.js';
import { GameBetsRequest, GenerateLaunchUrlRequest } from '../../protocol/schemas.js';
import { SIGNATURE_HEADER, signingSecrets, verifySignature } from '../../protocol/signing.js';
import { compileBody } from '../../protocol/validate.js';
import { funPlay, noLadderDetail, type Catalog, type PlayMoney } from '../catalog.js';
import type { GameService } from '../game-service.js';
import { addressSet, callerAddress, type AddressSet } from '../../access/address-ranges.js';
import type { GameSettings } from '../config-games.js';
import type { OperatorSettings } from '../config-operators.js';
import type { ProviderConfig } from '../provider-config.js';
import { sendJson } from './send-json.js';

export interface SignedRoutesOptions {
  config: ProviderConfig;
  games: GameService;
}

const bodies = {
  launch: compileBody(GenerateLaunchUrlRequest),
  bets: compileBody(GameBetsRequest),
};

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
 * currency the launch names, or the play-money currency (funPlay); real
 * mode in the player's, which the operator may name in `currency` (the
 * provider learns it for certain only at /authenticate, when the page
 * opens, and checks it again there).
 */
function launchCurrencyProblem(
  input: GenerateLaunchUrlRequest,
  operator: OperatorSettings,
  catalog: Catalog<GameSettings>,
  fun: PlayMoney,
): string | undefined {
  if (input.mode === 'fun') {
    const play = funPlay(catalog, fun, operator, input.game, input.currency);
    return typeof play === 'string' ? play : undefined;
  }
  if (input.currency === undefined) return undefined;
  return catalog.offeredLadder(input.game, input.currency, operator) ? undefined : noLadderDetail(input.game, input.currency, operator.operatorId);
}

/** The signed interface's routes: /generate-launch-url and /game-bets. */
export async function signedRoutes(app: FastifyInstance, options: SignedRoutesOptions): Promise<void> {
  const { config, games } = options;
  const operators: OperatorEntry[] = config.operators.map((settings) => ({
    settings,
    secrets: signingSecrets(settings.secrets),
    whitelist: addressSet(settings.ipWhitelist),
    trustedProxies: addressSet(settings.trustedProxies),
  }));
  launchUrlRoute(app, options, operators);
  gameBetsRoute(app, games.catalog, operators);
}

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

/** POST /generate-launch-url, its checks in the order the file's opening comment gives. */
function launchUrlRoute(app: FastifyInstance, { config, games }: SignedRoutesOptions, operators: readonly OperatorEntry[]): void {
  const catalog: Catalog<GameSettings> = games.catalog;
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
    const unplayable = launchCurrencyProblem(input, operator.settings, catalog, config.fun);
    if (unplayable) return sendProblem(reply, 'UNSUPPORTED_CURRENCY', unplayable);
    const url = games.launchUrl({
      mode: input.mode,
      game: input.game,
      operatorId: operator.settings.operatorId,
      ...(input.walletId === undefined ? {} : { walletId: input.walletId }),
      ...(input.mode === 'real' && input.key !== undefined ? { key: input.key } : {}),
      // A fun launch plays in the currency it names; a real one in the player's, which /authenticate tells.
      ...(input.mode === 'fun' && input.currency !== undefined ? { currency: input.currency } : {}),
      ...(input.country === undefined ? {} : { country: input.country }),
      language: input.language,
      urls: { ...(input.urls ?? {}) },
    });
    return sendJson(reply, 200, JSON.stringify({ url }));
  });
}

/** POST /game-bets, its checks in the order the file's opening comment gives. */
function gameBetsRoute(app: FastifyInstance, catalog: Catalog<GameSettings>, operators: readonly OperatorEntry[]): void {
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
}
