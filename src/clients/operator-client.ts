/**
 * The provider's client of an operator endpoint: /authenticate (docs/protocol.md
 * §5), /transaction (docs/protocol.md §6) and /payout (§7). Each call carries the
 * HMAC of its exact body and the bearer token, waits at most `answerMsMax`
 * for one answer, and is resent with the same body under the retry policy.
 *
 * Balances come back as exact decimal text ("101.5"): an answer whose
 * number a double may have rounded is an invalid answer, never a guess.
 */
import type { Dispatcher } from 'undici';
import { stringify } from '../protocol/json.js';
import { AuthenticateResponse, type AuthenticateRequest, type PayoutRequest, type TransactionRequest } from '../protocol/schemas.js';
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

export interface OperatorClientOptions {
  /** The operator endpoint's base URL, e.g. http://127.0.0.1:8080. */
  endpoint: string;
  secret: string;
  accessToken: string;
  answerMsMax?: number;
  retry?: RetryPolicy;
  world?: ClientWorld;
  /** A dispatcher of the caller's (a mock in tests); the client then leaves closing it to the caller. */
  dispatcher?: Dispatcher;
}

export interface SessionAnswer {
  sessionId: string;
  playerId: string;
  currency: string;
  /** Exact decimal text. */
  balance: string;
  country: string;
}

export interface BalanceAnswer {
  /** Exact decimal text. */
  balance: string;
}

/** A body is an object (serialised with exact raw numbers) or the exact JSON text to send. */
export type Body<T> = T | string;

export interface OperatorClient {
  /** Outcomes: session | refused (INVALID_LAUNCH_KEY, SESSION_MISMATCH, PLAYER_BLOCKED, ...) | unavailable | invalid-answer */
  authenticate(body: Body<AuthenticateRequest>, retry?: RetryPolicy): Promise<CallOutcome<SessionAnswer>>;
  /** Outcomes: balance | refused (INSUFFICIENT_FUNDS, SESSION_EXPIRED, ROUND_CLOSED, ...) | unavailable | invalid-answer */
  transaction(body: Body<TransactionRequest>, retry?: RetryPolicy): Promise<CallOutcome<BalanceAnswer>>;
  /** Outcomes: balance | refused (SESSION_NOT_FOUND, DUPLICATE_CONFLICT, ...) | unavailable | invalid-answer */
  payout(body: Body<PayoutRequest>, retry?: RetryPolicy): Promise<CallOutcome<BalanceAnswer>>;
  close(): Promise<void>;
}

const sessionCheck = compile(AuthenticateResponse);

/** A /transaction or /payout answer's balance, exact. */
export const readBalance: Interpret<BalanceAnswer> = (text) => {
  const parsed = parseAnswer(text);
  if (!parsed.ok) return parsed;
  const balance = exactNumberText(parsed.value.balance, parsed.inexact);
  if (balance === undefined) return { ok: false, detail: 'the answer has no exact, non-negative balance' };
  return { ok: true, value: { balance } };
};

const readSession: Interpret<SessionAnswer> = (text) => {
  const parsed = parseAnswer(text);
  if (!parsed.ok) return parsed;
  const checked = sessionCheck.check(parsed.value);
  if (!checked.ok) return { ok: false, detail: `the session answer is not docs/protocol.md §5: ${checked.detail}` };
  const balance = exactNumberText(checked.value.balance, parsed.inexact);
  if (balance === undefined) return { ok: false, detail: 'the answer has no exact, non-negative balance' };
  const { sessionId, playerId, currency, country } = checked.value;
  return { ok: true, value: { sessionId, playerId, currency, balance, country } };
};

export function createOperatorClient(options: OperatorClientOptions): OperatorClient {
  const answerMsMax = options.answerMsMax ?? ANSWER_MS_MAX;
  const ownDispatcher = options.dispatcher === undefined;
  const transport: Transport = {
    dispatcher: options.dispatcher ?? defaultDispatcher(answerMsMax),
    answerMsMax,
    world: options.world ?? REAL_CLIENT_WORLD,
    retry: options.retry ?? PROTOCOL_RETRY,
  };
  const base = options.endpoint.replace(/\/+$/, '');
  const bearer = { authorization: `Bearer ${options.accessToken}` };
  const text = (body: unknown) => (typeof body === 'string' ? body : stringify(body));

  return {
    authenticate: (body, retry) => signedCall(transport, `${base}/authenticate`, text(body), options.secret, bearer, readSession, retry),
    transaction: (body, retry) => signedCall(transport, `${base}/transaction`, text(body), options.secret, bearer, readBalance, retry),
    payout: (body, retry) => signedCall(transport, `${base}/payout`, text(body), options.secret, bearer, readBalance, retry),
    close: async () => {
      if (ownDispatcher) await transport.dispatcher.close();
    },
  };
}
