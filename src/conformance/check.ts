/**
 * Judges one answer against what a step expects: its status, the problem
 * body of docs/protocol.md §3.1 on a refusal, the session of an
 * /authenticate, and the balance, read from the answer's number text as an
 * exact decimal (never through a double) and compared in minor units.
 */
import type { Attempt } from '../clients/http-call.js';
import { errorType, type ErrorCode } from '../protocol/errors.js';
import { formatMinor, toMinor } from '../protocol/money.js';
import type { OperatorEndpoint } from './case-model.js';

/** Exponents past this are not a balance anyone writes; they would only make huge powers of ten. */
const EXPONENT_MAX = 400;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** docs/protocol.md §4.4: digits, at most one point, no exponent, no trailing zeros after the point. */
const EXACT_NUMBER = /^(0|[1-9]\d*)(\.\d*[1-9])?$/;

/** The number text of the top-level `balance` member of a JSON answer, as received. */
function balanceToken(text: string): string | undefined {
  // A member name in a string value would be escaped ("\"balance\""), so this finds members only.
  return /"balance"\s*:\s*(-?[0-9][0-9.eE+-]*)/.exec(text)?.[1];
}

/** Minor units of a JSON number token in a currency of `decimals`, exactly; undefined if it is not one or has finer units. */
export function minorOfToken(token: string, decimals: number): bigint | undefined {
  const match = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!match) return undefined;
  const exponent = Number(match[4] ?? '0');
  if (Math.abs(exponent) > EXPONENT_MAX) return undefined;
  const fraction = match[3] ?? '';
  let units = BigInt(`${match[2]}${fraction}`);
  let scale = fraction.length - exponent;
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  const minor = toMinor({ units, scale }, decimals);
  return minor === undefined ? undefined : match[1] === '-' ? -minor : minor;
}

/** What a balance must be: nothing checked, absent, or a value (required, or checked only when present). */
export type BalanceWanted = { kind: 'none' } | { kind: 'absent' } | { kind: 'value'; minor: bigint; required: boolean; exactText: boolean };

export interface Judgement {
  problems: string[];
  /** The balance the answer showed, in minor units, when it showed one that converts. */
  balance?: bigint;
  /** /authenticate: the session answered. */
  sessionId?: string;
}

export interface Expected {
  endpoint: OperatorEndpoint;
  status: number;
  code?: ErrorCode;
  balance: BalanceWanted;
  player: { playerId: string; currency: string; decimals: number };
}

function shown(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A short account of an answer: `402 INSUFFICIENT_FUNDS (bet 12.50 exceeds balance 10.00)`, or `200 {"balance":1}`. */
function describeAnswer(attempt: Attempt): string {
  if (attempt.kind === 'failed') return `no answer (${attempt.detail})`;
  const body = parseObject(attempt.text);
  if (attempt.status !== 200 && typeof body?.code === 'string') {
    return `${attempt.status} ${body.code}${typeof body.detail === 'string' ? ` (${shown(body.detail)})` : ''}`;
  }
  return `${attempt.status} ${shown(attempt.text)}`;
}

/** What every answer is judged on, whichever side sent it: the status, its content type, and on a refusal the problem body (docs/protocol.md §1.4, §3.1). */
export interface Shape {
  problems: string[];
  /** The answer's JSON object; undefined when there is none to judge further (the problems say why). */
  body?: Record<string, unknown>;
}

export function judgeShape(attempt: Attempt, status: number, code?: ErrorCode): Shape {
  if (attempt.kind === 'failed') return { problems: [`no answer: ${attempt.detail}`] };
  const want = `${status}${code === undefined ? '' : ` ${code}`}`;
  if (attempt.status !== status) return { problems: [`expected ${want}, got ${describeAnswer(attempt)}`] };
  const problems: string[] = [];
  const body = parseObject(attempt.text);
  if (status === 200) {
    if (!/^application\/json(;|$)/i.test(attempt.contentType))
      problems.push(`a 200 answer must be application/json, got Content-Type "${attempt.contentType}" (docs/protocol.md §1.4)`);
    if (body === undefined) return { problems: [...problems, `the 200 answer is not a JSON object: ${shown(attempt.text)}`] };
  } else {
    if (!/^application\/problem\+json(;|$)/i.test(attempt.contentType))
      problems.push(`a refusal must be application/problem+json, got Content-Type "${attempt.contentType}" (docs/protocol.md §3.1)`);
    if (body === undefined) return { problems: [...problems, `the refusal is not a JSON object: ${shown(attempt.text)}`] };
    if (body.code !== code)
      problems.push(`expected ${want}, got ${attempt.status} ${String(body.code)}${typeof body.detail === 'string' ? ` (${shown(body.detail)})` : ''}`);
    else {
      if (body.status !== attempt.status)
        problems.push(`the problem's status member is ${JSON.stringify(body.status)}, not ${attempt.status} (docs/protocol.md §3.1)`);
      if (body.type !== errorType(code!))
        problems.push(`the problem's type is ${JSON.stringify(body.type)}, not "${errorType(code!)}" (docs/protocol.md §3.1)`);
      if (typeof body.title !== 'string' || body.title.length === 0) problems.push('the problem has no title (docs/protocol.md §3.1)');
      if (typeof body.detail !== 'string') problems.push('the problem has no detail (docs/protocol.md §3.1)');
    }
  }
  return { problems, body };
}

export function judge(attempt: Attempt, expected: Expected): Judgement {
  const shape = judgeShape(attempt, expected.status, expected.code);
  const { problems, body } = shape;
  if (body === undefined || attempt.kind === 'failed') return { problems };
  const judgement: Judgement = { problems };
  if (expected.endpoint === '/authenticate' && expected.status === 200) checkSession(body, expected, judgement);
  checkBalance(attempt.text, body, expected, judgement);
  return judgement;
}

function checkSession(body: Record<string, unknown>, expected: Expected, judgement: Judgement): void {
  const { player } = expected;
  const { problems } = judgement;
  // A member missing is said so: "answered no sessionId" reads better than a JSON undefined.
  const has = (name: string, more = ''): boolean => {
    if (name in body) return true;
    problems.push(`/authenticate answered no ${name}${more} (docs/protocol.md §5)`);
    return false;
  };
  if (has('sessionId')) {
    if (typeof body.sessionId !== 'string' || !UUID.test(body.sessionId))
      problems.push(`sessionId ${JSON.stringify(body.sessionId)} is not a UUID (docs/protocol.md §5)`);
    else judgement.sessionId = body.sessionId;
  }
  if (has('playerId', `; the key's player is ${JSON.stringify(player.playerId)}`) && body.playerId !== player.playerId) {
    problems.push(`playerId is ${JSON.stringify(body.playerId)}, not the key's player ${JSON.stringify(player.playerId)} (docs/protocol.md §5)`);
  }
  if (has('currency', `; the player holds ${player.currency}`) && body.currency !== player.currency) {
    problems.push(`currency is ${JSON.stringify(body.currency)}, not the player's ${player.currency} (docs/protocol.md §5)`);
  }
  if (has('country') && typeof body.country !== 'string') problems.push(`country is ${JSON.stringify(body.country)}, not a string (docs/protocol.md §5)`);
}

function checkBalance(text: string, body: Record<string, unknown>, expected: Expected, judgement: Judgement): void {
  const { decimals, currency } = expected.player;
  const present = 'balance' in body;
  const token = present ? balanceToken(text) : undefined;
  if (present && token === undefined) {
    judgement.problems.push(`balance is ${JSON.stringify(body.balance)}, not a JSON number (docs/protocol.md §4.1)`);
    return;
  }
  const minor = token === undefined ? undefined : minorOfToken(token, decimals);
  if (minor !== undefined) judgement.balance = minor;
  const wanted = expected.balance;
  if (wanted.kind === 'none') return;
  if (wanted.kind === 'absent') {
    if (present) judgement.problems.push(`the answer shows a balance (${token}) to a caller that did not authenticate (docs/protocol.md §2)`);
    return;
  }
  const text_ = formatMinor(wanted.minor, decimals);
  if (token === undefined) {
    if (wanted.required) judgement.problems.push(`the answer has no balance; expected ${text_} ${currency}`);
    return;
  }
  if (minor === undefined) judgement.problems.push(`balance ${token} is not an amount of ${currency} (${decimals} decimals); expected ${text_}`);
  else if (minor !== wanted.minor) judgement.problems.push(`balance ${token}, expected ${text_} ${currency}`);
  else if (wanted.exactText && !(EXACT_NUMBER.test(token) && token === text_)) {
    judgement.problems.push(
      `balance written ${token}, expected exactly ${text_}: digits, one point at most, no exponent, no trailing zeros (docs/protocol.md §4.4)`,
    );
  }
}
