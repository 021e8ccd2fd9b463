/**
 * The durable outbox's contract: requests to operators (a round's bet and
 * win, a prize payout) written in the same database transaction as the
 * caller's own state, and delivered after it commits, by any number of
 * nodes, each at least until a final answer and in order within its key.
 *
 * Items are grouped by an ordering key (a round id, a payout id) and
 * numbered within it. An item is claimable only when every earlier item of
 * its key is done (sent, refused, skipped or resolved): a win never
 * overtakes its bet, and a key has at most one item in flight. A claim is a
 * lease: a node that dies mid-send leaves its items to others once the
 * lease expires. Each operator has at most a named number of items in
 * flight across all nodes, so one slow operator neither floods nor stalls.
 *
 * The backend-neutral part is here; enqueueing takes the backend's own
 * handle of the caller's database transaction, and the hook of final
 * outcomes and the work a change by hand (`retryNow`, `resolve`) may carry
 * into its transaction are the backend's own (sqlite/outbox.ts,
 * postgres/outbox.ts).
 */
import assert from 'node:assert/strict';
import type { ItemKind } from './retry-schedule.js';

/**
 * - `pending`: waiting for its time, or in flight while a lease is held.
 * - `sent`: the operator answered 200.
 * - `refused`: a final refusal (docs/protocol.md §3.3, §6.4).
 * - `skipped`: never sent, because an earlier item of its key was refused
 *   and that item asked for the rest of its key to be skipped.
 * - `parked`: past its horizon without a final answer; waits for a person.
 * - `resolved`: a person settled it by hand, with the operator's reference.
 */
export type ItemStatus = 'pending' | 'sent' | 'refused' | 'skipped' | 'parked' | 'resolved';
export const ITEM_STATUSES: readonly ItemStatus[] = ['pending', 'sent', 'refused', 'skipped', 'parked', 'resolved'];

/**
 * What a final refusal of an item means for the items after it in its key,
 * decided by whoever enqueues (the game): `skip-rest` (a refused bet ends
 * its round, so its win is never sent) or `continue` (the next items go as
 * if it had been sent).
 */
export type AfterRefusal = 'skip-rest' | 'continue';

export interface NewItem {
  /** The operator's key: limits and listings are per operator. */
  operatorId: string;
  /** A round id or a payout id: items of one key are delivered in the order enqueued. */
  orderingKey: string;
  kind: ItemKind;
  /** The endpoint's path, e.g. /transaction. */
  path: string;
  /** The exact body, UTF-8 JSON, fixed now: every attempt sends these bytes. */
  body: string | Uint8Array;
  /** Default: `skip-rest`. */
  afterRefusal?: AfterRefusal;
}

/**
 * The last answer an item got, or why it got none. The table keeps the
 * status, code and detail; `balance` reaches only the final outcome's hook
 * (`FinalHook`), in the database transaction that applies it, already read
 * from the answer (the sender parses it once), so that the hook never reads
 * HTTP text.
 */
export interface Answer {
  /** The HTTP status; absent after a network error or time-out. */
  status?: number;
  /** The problem's registry code, when the answer was one. */
  code?: string;
  detail: string;
  /**
   * The player's balance the answer carried, exact decimal text: a 200's
   * (what the enqueuer reads its result from) or a problem's. Absent when
   * the answer had none that reads exactly.
   */
  balance?: string;
}

/** The outcomes after which an item is never sent again. */
export type FinalOutcome = 'sent' | 'refused' | 'skipped' | 'resolved';

export interface FinalEvent {
  /** The item as the outcome left it (its status, last answer, resolution, finishedAt). */
  item: OutboxItem;
  outcome: FinalOutcome;
  /**
   * `sent`, `refused`: the operator's answer. `skipped`: why it was never
   * sent. `resolved`: the operator's reference, in the detail.
   */
  answer: Answer;
}

/**
 * Called inside the database transaction that applies a final outcome, so
 * that the enqueuer's own state (a round's settlement) commits with it or
 * not at all. A hook that throws rolls the outcome back: the item stays as
 * it was, and is sent again after its lease. This is SQLite's: it runs
 * synchronously and must not wait for anything. PostgreSQL's
 * (PostgresFinalHook) is async and gets the transaction's handle.
 */
export type FinalHook = (event: FinalEvent) => void;

export interface OutboxItem {
  id: number;
  operatorId: string;
  orderingKey: string;
  /** 1 for a key's first item, then each the one before plus 1. */
  sequence: number;
  kind: ItemKind;
  path: string;
  body: Buffer;
  afterRefusal: AfterRefusal;
  status: ItemStatus;
  /** Attempts claimed so far; a claim counts as one, sent or not. */
  attempts: number;
  /** Epoch ms. */
  nextAttemptAt: number;
  /** Epoch ms: the earliest next attempt an answer's Retry-After allows, if one asked. */
  notBefore: number | undefined;
  lastAnswer: Answer | undefined;
  leaseOwner: string | undefined;
  /** Epoch ms. */
  leaseExpiresAt: number | undefined;
  /** The operator's reference given when resolved by hand. */
  resolution: string | undefined;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms: when it became sent, refused, skipped, parked or resolved. */
  finishedAt: number | undefined;
}

/**
 * How long a claim holds an item unless it is renewed (ms). A live node
 * renews the leases of its sends in flight every HEARTBEAT_MS (the
 * dispatcher's heartbeat), so a lease need not outlast the wait for an
 * answer (docs/protocol.md §9's 5 s, or a config's longer one), only a few
 * renewals that fail or come late (a busy event loop, a slow write). A
 * node that dies stops renewing: its items pass to the others within this,
 * where a fixed lease long enough for a slow answer made them wait half a
 * minute, and a launch's next play with them.
 */
export const LEASE_MS = 6_000;
/**
 * How often a node renews the leases of its sends in flight (ms): a third
 * of LEASE_MS, so that two renewals in a row may fail or come late before
 * another node takes an item that is still being sent (which would send it
 * twice: harmless, every request is idempotent, but wasted).
 */
export const HEARTBEAT_MS = LEASE_MS / 3;

/** What separates a lease owner's lasting name from its run: no host name holds it. */
export const LEASE_OWNER_SEPARATOR = '/';

/**
 * A node's name in leases: the name it keeps across restarts (its host and
 * the port it serves on), then this run's own part. A restarted node knows
 * the leases of its earlier runs by the name (Outbox.releaseEarlierRuns).
 */
export function leaseOwner(lastingName: string, run: string): string {
  assert.ok(lastingName.length > 0 && !lastingName.includes(LEASE_OWNER_SEPARATOR), `a node's lasting name is not empty and has no ${LEASE_OWNER_SEPARATOR}`);
  return `${lastingName}${LEASE_OWNER_SEPARATOR}${run}`;
}

/**
 * Items of one operator in flight across all nodes, by default (the
 * provider's `limits.operatorInFlightMax`). As many as the players one
 * node serves at once: with fewer, rounds queue for a slot while the
 * wallet, which answers each in a few milliseconds, sits idle (the end-to-end
 * bench row, 64 players, read about a third more rounds at 64 than at 16,
 * docs/performance.md). Few enough that an operator coming back from an
 * outage is not hit by the whole backlog at once.
 */
export const OPERATOR_IN_FLIGHT_MAX = 64;
/** Items one claim returns at most: bounds one database transaction's work. */
export const CLAIM_BATCH_MAX = 100;

export interface ClaimLimits {
  /** See CLAIM_BATCH_MAX. */
  batchSizeMax: number;
  /** See OPERATOR_IN_FLIGHT_MAX. */
  operatorInFlightMax: number;
  /** See LEASE_MS. */
  leaseMs: number;
}

export const CLAIM_LIMITS: ClaimLimits = {
  batchSizeMax: CLAIM_BATCH_MAX,
  operatorInFlightMax: OPERATOR_IN_FLIGHT_MAX,
  leaseMs: LEASE_MS,
};

export interface ListFilter {
  status: ItemStatus;
  operatorId?: string;
  /** Only items of these operators (a staff account's scope); left out, every operator's. */
  operatorIds?: readonly string[];
  /** Items after this id (paging). */
  afterId?: number;
  /** At most this many; default and cap LIST_MAX. */
  limit?: number;
}

/** Items one listing returns at most. */
export const LIST_MAX = 1_000;

/**
 * Outcomes are applied by the node that claimed the item. `sent` and
 * `refused` are final answers about the item's bytes and apply while the
 * item is pending, whoever holds the lease (a node whose lease ran out may
 * still have got the answer); `retryLater` and `park` apply only under the
 * node's own lease. Each answers whether it applied.
 */
export interface Outbox {
  /** Due items leased to `node`, within the limits; each claim counts an attempt. */
  claim(now: number, node: string, limits: ClaimLimits): Promise<OutboxItem[]>;
  /**
   * The heartbeat: the leases `node` holds on these items (its sends in
   * flight) now run until `until`. An item no longer pending, or leased to
   * another node since, is left as it is. Answers how many were renewed.
   */
  renew(ids: readonly number[], node: string, until: number): Promise<number>;
  /**
   * A restart: the leases held by earlier runs of this node (owners
   * `leaseOwner(lastingName, run)` for another run than `node`'s) are given
   * up, so that their items are claimed at once instead of once the leases
   * expire; their sends died with the run. Answers how many.
   */
  releaseEarlierRuns(lastingName: string, node: string): Promise<number>;
  sent(id: number, node: string, answer: Answer, now: number): Promise<boolean>;
  /** Final; with `skip-rest` the key's later items become `skipped`. Answers how many were. */
  refused(id: number, node: string, answer: Answer, now: number): Promise<{ applied: boolean; skipped: number }>;
  /** Due again at `at`; `notBefore`: the earliest an answer's Retry-After allows, which `hasten` keeps. */
  retryLater(id: number, node: string, at: number, answer: Answer, notBefore?: number): Promise<boolean>;
  park(id: number, node: string, answer: Answer, now: number): Promise<boolean>;
  item(id: number): Promise<OutboxItem | undefined>;
  /** The operator's view: pending, parked, refused, ... items, oldest first. */
  list(filter: ListFilter): Promise<OutboxItem[]>;
  /**
   * A parked item, or a pending one not in flight, is due at `now`. A parked
   * item past its horizon gets one more attempt, and is parked again if that
   * attempt gets no final answer. Each backend's takes, last, work of the
   * caller's own to run in the same database transaction once the change
   * applied (SqliteAlongside, PostgresAlongside), as `resolve` does.
   */
  retryNow(id: number, now: number): Promise<boolean>;
  /**
   * A parked item, or a pending one not in flight, settled by hand with the
   * operator's reference; its key's later items go on.
   */
  resolve(id: number, reference: string, now: number): Promise<boolean>;
  /**
   * The operator is answering again: up to `limit` of its pending items that
   * wait for a retry, earliest due first, are due at `now` (none that is in
   * flight, none that an answer's Retry-After still holds back). Answers how
   * many. The dispatcher calls it with a limit of 1 to probe an operator
   * that is failing, and without one once the operator answers again.
   */
  hasten(operatorId: string, now: number, limit?: number): Promise<number>;
  /** How many items each operator has waiting (pending or parked), and since when the oldest of each, for metrics. */
  backlog(): Promise<BacklogEntry[]>;
}

/** One operator's items of one waiting status (`pending` or `parked`). */
export interface BacklogEntry {
  operatorId: string;
  status: 'pending' | 'parked';
  count: number;
  /** Epoch ms: when the oldest of them was enqueued. */
  oldestCreatedAt: number;
}
