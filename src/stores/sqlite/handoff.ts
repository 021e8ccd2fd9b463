/**
 * How calls and replies cross between the HTTP thread and the SQLite writer
 * thread. postMessage copies objects with the structured-clone algorithm,
 * whose reading side is slow: about 4 µs per transaction call and 2 µs per
 * reply, measured on this stack. A batch whose calls and answers are plain
 * JSON crosses as one JSON string instead: a copy of the text, and V8's JSON
 * parser and serializer on either side, about half the CPU in all.
 *
 * Page cursors (`before`, `next`) are bigints, which JSON cannot carry: a
 * batch holding a page call crosses as objects. So does one holding a
 * verify, which reaches the writer only for an in-memory database (a file's
 * books are proved beside it, verify-worker.ts). Pure: no I/O.
 *
 * Within the JSON, the call nearly every request makes (a transaction) and
 * its answer (a balance) cross as flat arrays in a fixed order rather than
 * as nested objects: JSON.parse builds an array of strings and numbers for
 * less than half of what it spends building objects whose members it must
 * name, and the writer parses every call of every batch. Under the bench's
 * single-bet load its JSON took about 30% of the writer thread's time as
 * objects (docs/performance.md). A call or answer holding any member that
 * is not listed below (a campaign, an extra member a provider sent) crosses
 * as its object, so nothing is ever dropped on the way.
 */
import type { BalanceOutcome, Booked, TransactionCommand } from '../store.js';
import type { TransactionRequest } from '../../protocol/schemas.js';
import type { Call, Op, Reply } from './group-committer.js';

/**
 * Ops whose arguments and results hold only strings, finite numbers,
 * booleans, null, arrays and plain objects, so that JSON carries them exactly
 * (a double's shortest text parses back to the same double). An op left off
 * this list still works; its batch is cloned.
 */
const JSON_OPS: ReadonlySet<Op> = new Set<Op>([
  'transact',
  'payout',
  'authenticate',
  'createPlayer',
  'getPlayer',
  'createLaunchKey',
  'adjust',
  'setBlocked',
  'ping',
]);

/** A batch as it crosses: JSON text of an array, or the objects themselves (never a control message such as 'close'). */
export type Crossing<T> = string | T[];

export function crossesAsJson(calls: readonly Call[]): boolean {
  for (const call of calls) if (!JSON_OPS.has(call.op)) return false;
  return true;
}

export function encodeCalls(calls: Call[]): Crossing<Call> {
  return crossesAsJson(calls) ? JSON.stringify(calls.map(packCall)) : calls;
}

export function decodeCalls(message: Crossing<Call>): Call[] {
  return typeof message === 'string' ? (JSON.parse(message) as (Call | PackedCall)[]).map(unpackCall) : message;
}

/** The members a packed transaction call carries, each in its place below; tests hold these to the schemas. */
export const PACKED_MEMBERS = {
  command: ['request', 'now'],
  request: ['sessionId', 'playerId', 'game', 'transactions', 'round', 'regulatory'],
  round: ['id', 'finished'],
  transaction: ['id', 'type', 'amount', 'jpAmount'],
  balance: ['ok', 'balance', 'currency', 'booked'],
  booked: ['kind', 'amount'],
} as const satisfies Record<string, readonly string[]>;

/**
 * [call id, sessionId, playerId, game, round id, round finished, regulatory
 * or null, now, then per transaction: id, type, amount, jpAmount or null].
 */
type PackedCall = (string | number | boolean | null)[];
/** [call id, balance, currency, then per booking: kind, amount]. */
type PackedReply = (string | number)[];

/** True if every own member of `value` is one of `members` (members left out are allowed: optional ones). */
function holdsOnly(value: object, members: readonly string[]): boolean {
  for (const key in value) if (!members.includes(key)) return false;
  return true;
}

function packCall(call: Call): Call | PackedCall {
  if (call.op !== 'transact') return call;
  const command = call.args as TransactionCommand;
  const { request } = command;
  if (
    !holdsOnly(command, PACKED_MEMBERS.command) ||
    !holdsOnly(request, PACKED_MEMBERS.request) ||
    !holdsOnly(request.round, PACKED_MEMBERS.round) ||
    !request.transactions.every((tx) => holdsOnly(tx, PACKED_MEMBERS.transaction))
  ) {
    return call;
  }
  const packed: PackedCall = [
    call.id,
    request.sessionId,
    request.playerId,
    request.game,
    request.round.id,
    request.round.finished,
    request.regulatory ?? null,
    command.now,
  ];
  for (const tx of request.transactions) packed.push(tx.id, tx.type, tx.amount, tx.jpAmount ?? null);
  return packed;
}

const PACKED_CALL_HEAD = 8;
const PACKED_TRANSACTION = 4;

function unpackCall(item: Call | PackedCall): Call {
  if (!Array.isArray(item)) return item;
  const transactions: TransactionRequest['transactions'] = [];
  for (let at = PACKED_CALL_HEAD; at < item.length; at += PACKED_TRANSACTION) {
    const id = item[at] as string;
    const type = item[at + 1] as 'bet' | 'win';
    const amount = item[at + 2] as number;
    const jpAmount = item[at + 3] as number | null;
    transactions.push(jpAmount === null ? { id, type, amount } : { id, type, amount, jpAmount });
  }
  const [id, sessionId, playerId, game, roundId, finished, regulatory, now] = item as [
    number,
    string,
    string,
    string,
    string,
    boolean,
    string | null,
    number,
  ];
  const request: TransactionRequest = { sessionId, playerId, game, transactions, round: { id: roundId, finished } };
  if (regulatory !== null) request.regulatory = regulatory;
  return { id, op: 'transact', args: { request, now } satisfies TransactionCommand };
}

function packReply(reply: Reply): Reply | PackedReply {
  const result = reply.result as BalanceOutcome;
  if (
    typeof result !== 'object' ||
    result === null ||
    result.ok !== true ||
    !holdsOnly(result, PACKED_MEMBERS.balance) ||
    !Array.isArray(result.booked) ||
    !result.booked.every((booked) => holdsOnly(booked, PACKED_MEMBERS.booked))
  ) {
    return reply;
  }
  const packed: PackedReply = [reply.id, result.balance, result.currency];
  for (const booked of result.booked) packed.push(booked.kind, booked.amount);
  return packed;
}

const PACKED_REPLY_HEAD = 3;
const PACKED_BOOKING = 2;

function unpackReply(item: Reply | PackedReply): Reply {
  if (!Array.isArray(item)) return item;
  const booked: Booked[] = [];
  for (let at = PACKED_REPLY_HEAD; at < item.length; at += PACKED_BOOKING) booked.push({ kind: item[at] as Booked['kind'], amount: item[at + 1] as string });
  return { id: item[0] as number, result: { ok: true, balance: item[1] as string, currency: item[2] as string, booked } satisfies BalanceOutcome };
}

/** What the writer sends back for a batch: its replies, and how long its commit took (group-committer.ts). */
export interface Answered {
  replies: Crossing<Reply>;
  commitSeconds: number | undefined;
}

/** `asJson`: every call answered crossed as JSON, so every result is JSON too. */
export function encodeReplies(replies: Reply[], asJson: boolean): Crossing<Reply> {
  return asJson ? JSON.stringify(replies.map(packReply)) : replies;
}

export function decodeReplies(message: Crossing<Reply>): Reply[] {
  return typeof message === 'string' ? (JSON.parse(message) as (Reply | PackedReply)[]).map(unpackReply) : message;
}
