/**
 * One signed JSON call over undici, and the retry rule of docs/protocol.md §3
 * around it. Shared by the operator client and the provider client.
 *
 * A retry policy is data (which statuses, back-off bounds, an attempt limit,
 * a time budget); the clock, the sleep and the randomness of the jitter are
 * injected so that tests can run a schedule without waiting for it.
 *
 * Outcomes are values: `ok` with the checked answer; `refused`, a final
 * problem+json answer (never resent); `unavailable`, when the policy ran out
 * on network errors, time-outs or retryable statuses; `invalid-answer`, when
 * the peer answered 200 with something that is not the protocol. Only a bug
 * (a bad argument to undici) throws.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { ERRORS, isRetryableStatus, type ErrorCode } from '../protocol/errors.js';
import { nestingRefusal } from '../protocol/i-json.js';
import { decimalFromNumber, formatMinor, inexactNumbers } from '../protocol/money.js';
import { backoffMs, retryAfterMs, type RetryPolicy } from '../protocol/retry-policy.js';
import { SIGNATURE_HEADER, sign } from '../protocol/signing.js';

// The retry rule is data and pure functions of the protocol's, which the
// outbox's schedule reads too; the clients' callers find it here as before.
export { backoffMs, NO_RETRY, PROTOCOL_RETRY, RETRY_STATUSES, retryAfterMs, type RetryPolicy } from '../protocol/retry-policy.js';

/** docs/protocol.md §9: the wait for one answer (ms). */
export const ANSWER_MS_MAX = 5_000;
/** Answers are a few hundred bytes; anything far larger is not the protocol (bytes). */
const ANSWER_BYTES_MAX = 1024 * 1024;

export interface ClientWorld {
  /** Epoch ms. */
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1): the jitter. */
  random: () => number;
}

export const REAL_CLIENT_WORLD: ClientWorld = {
  clock: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

export type CallOutcome<T> =
  | { ok: true; value: T; attempts: number }
  | {
      ok: false;
      kind: 'refused';
      status: number;
      /** The registry code of a problem+json answer; undefined if the answer was not one. */
      code: ErrorCode | undefined;
      detail: string;
      /** The player's balance, exact decimal text, when the problem carried one. */
      balance?: string;
      attempts: number;
    }
  | {
      ok: false;
      kind: 'unavailable';
      status?: number;
      code?: ErrorCode;
      detail: string;
      attempts: number;
      /** The last answer's Retry-After (ms): the least wait before the next attempt. */
      retryAfterMs?: number;
    }
  | { ok: false; kind: 'invalid-answer'; status: number; detail: string; attempts: number };

export type Refused = Extract<CallOutcome<unknown>, { kind: 'refused' }>;

/** What one attempt got back: the answer as it came, or why none came. */
export type Attempt =
  { kind: 'answer'; status: number; contentType: string; text: string; retryAfterMs: number | undefined } | { kind: 'failed'; detail: string };

export interface Transport {
  dispatcher: Dispatcher;
  answerMsMax: number;
  world: ClientWorld;
  retry: RetryPolicy;
}

export function defaultDispatcher(answerMsMax: number): Dispatcher {
  return new Agent({ connect: { timeout: answerMsMax }, headersTimeout: answerMsMax, bodyTimeout: answerMsMax });
}

/** A JSON number of an answer as exact decimal text, or undefined if a double may have rounded it. */
export function exactNumberText(value: unknown, inexact: readonly number[]): string | undefined {
  if (typeof value !== 'number' || inexact.includes(value)) return undefined;
  const decimal = decimalFromNumber(value);
  return decimal === undefined ? undefined : formatMinor(decimal.units, decimal.scale);
}

async function readText(body: Dispatcher.ResponseData['body'], bytesMax: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    total += bytes.length;
    if (total > bytesMax) {
      body.destroy();
      return undefined;
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * One POST of exactly these bytes with exactly these headers: no signature
 * added, no retry, the answer kept as it came. signedCall makes its attempts
 * with it; a caller that must see what a peer answers to a request of its
 * own making (a conformance check, a wrong signature on purpose) uses it
 * directly.
 */
export async function postOnce(
  transport: Pick<Transport, 'dispatcher' | 'answerMsMax' | 'world'>,
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
): Promise<Attempt> {
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher: transport.dispatcher,
      headersTimeout: transport.answerMsMax,
      bodyTimeout: transport.answerMsMax,
      signal: AbortSignal.timeout(transport.answerMsMax),
    });
  } catch (error) {
    const err = error as Error & { code?: string };
    if (err.code === 'UND_ERR_INVALID_ARG') throw error; // a bug, not the network
    return { kind: 'failed', detail: `${err.code ?? err.name}: ${err.message}` };
  }
  let text: string | undefined;
  try {
    text = await readText(response.body, ANSWER_BYTES_MAX);
  } catch (error) {
    return { kind: 'failed', detail: `reading the answer failed: ${(error as Error).message}` };
  }
  if (text === undefined) return { kind: 'failed', detail: `the answer is over ${ANSWER_BYTES_MAX} bytes` };
  return {
    kind: 'answer',
    status: response.statusCode,
    contentType: String(response.headers['content-type'] ?? ''),
    text,
    // A date is relative to the client world's clock, as every wait of the call is.
    retryAfterMs: retryAfterMs(firstHeader(response.headers['retry-after']), transport.world.clock()),
  };
}

/** A non-200 answer read as a problem: its registry code, detail and balance when it is one. */
function problemOf(status: number, contentType: string, text: string): { code: ErrorCode | undefined; detail: string; balance?: string } {
  if (!/^application\/problem\+json/i.test(contentType)) return { code: undefined, detail: `HTTP ${status}: ${text.slice(0, 200)}` };
  // An answer is read as a request body is: nesting over the limit is not parsed (docs/protocol.md §1.2).
  if (nestingRefusal(text)) return { code: undefined, detail: `HTTP ${status}: the problem body nests too deep to read` };
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { code: undefined, detail: `HTTP ${status}: the problem body is not JSON` };
  }
  const code = typeof body.code === 'string' && Object.hasOwn(ERRORS, body.code) ? (body.code as ErrorCode) : undefined;
  const detail = typeof body.detail === 'string' ? body.detail : `HTTP ${status}`;
  const balance = exactNumberText(body.balance, inexactNumbers(text));
  return balance === undefined ? { code, detail } : { code, detail, balance };
}

export type Interpret<T> = (text: string) => { ok: true; value: T } | { ok: false; detail: string };

/**
 * Posts `bodyText` (sent byte for byte, signed as such) and resends the same
 * bytes under the policy until a final answer or the policy's end.
 */
export async function signedCall<T>(
  transport: Transport,
  url: string,
  bodyText: string,
  secret: string,
  extraHeaders: Record<string, string>,
  interpret: Interpret<T>,
  policy: RetryPolicy = transport.retry,
): Promise<CallOutcome<T>> {
  const headers = { 'content-type': 'application/json', [SIGNATURE_HEADER]: sign(secret, bodyText), ...extraHeaders };
  const { world } = transport;
  const started = world.clock();
  let last: { status?: number; code?: ErrorCode; detail: string; retryAfterMs?: number } = { detail: 'no attempt was made' };
  let made = 0;
  for (let attempt = 1; attempt <= policy.attemptsMax; attempt++) {
    made = attempt;
    const result = await postOnce(transport, url, headers, bodyText);
    let wait: number | undefined;
    if (result.kind === 'failed') {
      last = { detail: result.detail };
    } else if (result.status === 200) {
      const read = interpret(result.text);
      if (read.ok) return { ok: true, value: read.value, attempts: attempt };
      return { ok: false, kind: 'invalid-answer', status: 200, detail: read.detail, attempts: attempt };
    } else if (policy.retryStatuses.includes(result.status) && isRetryableStatus(result.status)) {
      const problem = problemOf(result.status, result.contentType, result.text);
      wait = result.retryAfterMs;
      last = {
        status: result.status,
        ...(problem.code === undefined ? {} : { code: problem.code }),
        detail: problem.detail,
        ...(wait === undefined ? {} : { retryAfterMs: wait }),
      };
    } else {
      const problem = problemOf(result.status, result.contentType, result.text);
      return { ok: false, kind: 'refused', status: result.status, ...problem, attempts: attempt };
    }
    if (attempt === policy.attemptsMax) break;
    const delay = Math.min(policy.retryDelayMsMax, Math.max(backoffMs(policy, attempt, world.random), wait ?? 0));
    if (world.clock() + delay - started > policy.elapsedMsMax) break;
    await world.sleep(delay);
  }
  return { ok: false, kind: 'unavailable', ...last, attempts: made };
}

/** JSON.parse of an answer, with the numbers a double may have rounded. */
export function parseAnswer(text: string): { ok: true; value: Record<string, unknown>; inexact: number[] } | { ok: false; detail: string } {
  const tooDeep = nestingRefusal(text);
  if (tooDeep) return { ok: false, detail: `the answer is refused unread: ${tooDeep.detail}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, detail: 'the answer is not JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, detail: 'the answer is not a JSON object' };
  return { ok: true, value: value as Record<string, unknown>, inexact: inexactNumbers(text) };
}
