/**
 * How calls ({op, args}) and replies cross between the HTTP thread and the
 * SQLite writer thread. postMessage copies objects with the structured-clone
 * algorithm, whose reading side is slow: about 4 µs per transaction call and
 * 2 µs per reply, measured on this stack. A batch whose calls and answers
 * are plain JSON crosses as one JSON string instead: a copy of the text, and
 * V8's JSON parser and serializer on either side, about half the CPU in all.
 *
 * Each operation declares how it crosses, next to its handler
 * (sqlite-operations.ts): whether JSON carries it exactly (a page cursor is
 * a bigint, which JSON cannot carry: a batch holding such a call crosses as
 * objects), and optionally a packed codec for its arguments or its outcome,
 * which writes them as a flat array within the JSON (packed-codecs.ts; the
 * codecs' contract is handoff-codec.ts).
 * Everything else crosses as its object. This file knows no operation and
 * no member of one. Pure: no I/O.
 */
import { OPERATION_NAMES, type OperationName } from '../operations.js';
import type { Packed } from './handoff-codec.js';
import { SQLITE_OPERATIONS, type Call, type CallOf, type Reply, type ReplyOf } from './sqlite-operations.js';

/** Each operation's place in the table, which names it in a packed item. */
const OPERATION_INDEX = Object.fromEntries(OPERATION_NAMES.map((name, index) => [name, index])) as Record<OperationName, number>;

/** A batch as it crosses: JSON text of an array, or the objects themselves (never a control message such as 'close'). */
export type Crossing<T> = string | T[];

export function crossesAsJson(calls: readonly Call[]): boolean {
  for (const call of calls) if (!SQLITE_OPERATIONS[call.op].handoff.json) return false;
  return true;
}

export function encodeCalls(calls: Call[]): Crossing<Call> {
  return crossesAsJson(calls) ? JSON.stringify(calls.map(packCall)) : calls;
}

export function decodeCalls(message: Crossing<Call>): Call[] {
  return typeof message === 'string' ? (JSON.parse(message) as (Call | Packed)[]).map(unpackCall) : message;
}

function packCall<K extends OperationName>(call: CallOf<K>): CallOf<K> | Packed {
  const codec = SQLITE_OPERATIONS[call.op].handoff.args;
  return codec !== undefined && codec.packs(call.args) ? codec.pack(call.args, OPERATION_INDEX[call.op], call.id) : call;
}

function unpackCall(item: Call | Packed): Call {
  if (!Array.isArray(item)) return item;
  const op = OPERATION_NAMES[item[0] as number]!;
  return { id: item[1] as number, op, args: SQLITE_OPERATIONS[op].handoff.args!.unpack(item) } as Call;
}

function packReply<K extends OperationName>(reply: ReplyOf<K>): ReplyOf<K> | Packed {
  if ('failed' in reply) return reply;
  const codec = SQLITE_OPERATIONS[reply.op].handoff.outcome;
  return codec !== undefined && codec.packs(reply.result) ? codec.pack(reply.result, OPERATION_INDEX[reply.op], reply.id) : reply;
}

function unpackReply(item: Reply | Packed): Reply {
  if (!Array.isArray(item)) return item;
  const op = OPERATION_NAMES[item[0] as number]!;
  return { id: item[1] as number, op, result: SQLITE_OPERATIONS[op].handoff.outcome!.unpack(item) } as Reply;
}

/** What the writer sends back for a batch: its replies, and how long its commit took (batch-writer.ts). */
export interface Answered {
  replies: Crossing<Reply>;
  commitSeconds: number | undefined;
}

/** `asJson`: every call answered crossed as JSON, so every result is JSON too. */
export function encodeReplies(replies: Reply[], asJson: boolean): Crossing<Reply> {
  return asJson ? JSON.stringify(replies.map(packReply)) : replies;
}

export function decodeReplies(message: Crossing<Reply>): Reply[] {
  return typeof message === 'string' ? (JSON.parse(message) as (Reply | Packed)[]).map(unpackReply) : message;
}
