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
 */
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
  return crossesAsJson(calls) ? JSON.stringify(calls) : calls;
}

export function decodeCalls(message: Crossing<Call>): Call[] {
  return typeof message === 'string' ? (JSON.parse(message) as Call[]) : message;
}

/** What the writer sends back for a batch: its replies, and how long its commit took (group-committer.ts). */
export interface Answered {
  replies: Crossing<Reply>;
  commitSeconds: number | undefined;
}

/** `asJson`: every call answered crossed as JSON, so every result is JSON too. */
export function encodeReplies(replies: Reply[], asJson: boolean): Crossing<Reply> {
  return asJson ? JSON.stringify(replies) : replies;
}

export function decodeReplies(message: Crossing<Reply>): Reply[] {
  return typeof message === 'string' ? (JSON.parse(message) as Reply[]) : message;
}
