/**
 * The operator's client of a provider endpoint: /generate-launch-url
 * (docs/protocol.md §8.1) and /game-bets (§8.2). Each call carries the HMAC of its
 * exact body (no bearer token: docs/protocol.md §2), waits at most `answerMsMax`
 * for one answer, and is resent with the same body under the retry policy.
 *
 * Bet amounts come back as exact decimal text, in the order received.
 */
import type { Dispatcher } from 'undici';
import { stringify } from '../protocol/json.js';
import { GameBetsResponse, GenerateLaunchUrlResponse, type GameBetsRequest, type GenerateLaunchUrlRequest } from '../protocol/schemas.js';
import { compile } from '../protocol/validate.js';
import {
  ANSWER_MS_MAX,
  defaultDispatcher,
  exactNumberText,
  parseAnswer,
  PROTOCOL_RETRY,
  REAL_CLIENT_WORLD,
  signedCall,
  type CallOutcome,
  type ClientWorld,
  type Interpret,
  type RetryPolicy,
  type Transport,
} from './http-call.js';
import type { Body } from './operator-client.js';

export interface ProviderClientOptions {
  /** The provider endpoint's base URL, e.g. http://127.0.0.1:8090. */
  endpoint: string;
  secret: string;
  answerMsMax?: number;
  retry?: RetryPolicy;
  world?: ClientWorld;
  dispatcher?: Dispatcher;
}

/** game slug -> currency -> ascending amounts as exact decimal text. */
export type GameBets = Record<string, Record<string, string[]>>;

export interface ProviderClient {
  /** Outcomes: url | refused (IP_NOT_ALLOWED, GAME_NOT_FOUND, WALLET_NOT_FOUND, INVALID_REQUEST, ...) | unavailable | invalid-answer */
  generateLaunchUrl(body: Body<GenerateLaunchUrlRequest>, retry?: RetryPolicy): Promise<CallOutcome<{ url: string }>>;
  /** Outcomes: bets | refused (GAME_NOT_FOUND, UNSUPPORTED_CURRENCY, WALLET_NOT_FOUND, ...) | unavailable | invalid-answer */
  gameBets(body: Body<GameBetsRequest>, retry?: RetryPolicy): Promise<CallOutcome<GameBets>>;
  close(): Promise<void>;
}

const urlCheck = compile(GenerateLaunchUrlResponse);
const betsCheck = compile(GameBetsResponse);

const readUrl: Interpret<{ url: string }> = (text) => {
  const parsed = parseAnswer(text);
  if (!parsed.ok) return parsed;
  const checked = urlCheck.check(parsed.value);
  if (!checked.ok) return { ok: false, detail: `the answer is not what docs/protocol.md §8.1 says: ${checked.detail}` };
  return { ok: true, value: { url: checked.value.url } };
};

const readBets: Interpret<GameBets> = (text) => {
  const parsed = parseAnswer(text);
  if (!parsed.ok) return parsed;
  const checked = betsCheck.check(parsed.value);
  if (!checked.ok) return { ok: false, detail: `the answer is not what docs/protocol.md §8.2 says: ${checked.detail}` };
  const bets: GameBets = {};
  for (const [game, byCurrency] of Object.entries(checked.value)) {
    const out: Record<string, string[]> = {};
    for (const [currency, amounts] of Object.entries(byCurrency)) {
      const exact: string[] = [];
      for (const amount of amounts) {
        const decimal = exactNumberText(amount, parsed.inexact);
        if (decimal === undefined) return { ok: false, detail: `${game}.${currency}: ${amount} is not an exact, non-negative amount` };
        exact.push(decimal);
      }
      out[currency] = exact;
    }
    bets[game] = out;
  }
  return { ok: true, value: bets };
};

export function createProviderClient(options: ProviderClientOptions): ProviderClient {
  const answerMsMax = options.answerMsMax ?? ANSWER_MS_MAX;
  const ownDispatcher = options.dispatcher === undefined;
  const transport: Transport = {
    dispatcher: options.dispatcher ?? defaultDispatcher(answerMsMax),
    answerMsMax,
    world: options.world ?? REAL_CLIENT_WORLD,
    retry: options.retry ?? PROTOCOL_RETRY,
  };
  const base = options.endpoint.replace(/\/+$/, '');
  const text = (body: unknown) => (typeof body === 'string' ? body : stringify(body));

  return {
    generateLaunchUrl: (body, retry) => signedCall(transport, `${base}/generate-launch-url`, text(body), options.secret, {}, readUrl, retry),
    gameBets: (body, retry) => signedCall(transport, `${base}/game-bets`, text(body), options.secret, {}, readBets, retry),
    close: async () => {
      if (ownDispatcher) await transport.dispatcher.close();
    },
  };
}
