/**
 * What a conformance case is: data that names the rule it checks (its
 * clause of docs/protocol.md), what it needs from the fixtures, the players
 * it starts from, and its steps: requests with the status, code and balance
 * each must be answered, and the checks between them. A case says nothing
 * of how requests travel or where fixtures come from: the runner
 * (runner.ts, with the operator's side in operator-runner.ts) sends them
 * over HTTP, or to an app in-process through a transport a test gives.
 *
 * Values that exist only once a case runs (session ids, fresh UUIDs, the
 * balance a player holds) reach a step through its CaseContext, so that
 * bodies are written as small functions of it; everything else is plain
 * data.
 */
import type { ErrorCode } from '../protocol/errors.js';
import type { RawJsonNumber } from '../protocol/json.js';

/** The side of the interface a case checks: the operator's endpoints (docs/protocol.md §5–§7) or the provider's (§8). */
export type Side = 'operator' | 'provider';

/** The areas of the operator's cases, in the order a run takes them. */
export const OPERATOR_AREAS = [
  'auth',
  'validation',
  'bets-wins',
  'idempotency',
  'atomicity-order',
  'rounds',
  'free-bets',
  'payouts',
  'sessions',
  'precision',
  'limits',
  'concurrency',
  'replay',
] as const;
export type OperatorArea = (typeof OPERATOR_AREAS)[number];

/**
 * What a case needs beyond a player and a session, which not every set of
 * fixtures gives: a case whose needs are not met is skipped, saying why.
 * - `clock`: the fixtures say how long launch keys and idle sessions live,
 *   short enough to wait for (expiry);
 * - `second-game`: a second game the operator issues launch keys for;
 * - `block`: a way to block and unblock a player.
 */
export type Need = 'clock' | 'second-game' | 'block';

/** The players of a case: every case has `main`; some need a second player. */
export type Role = 'main' | 'other';

export interface PlayerNeed {
  /** The player's currency (docs/protocol.md §4.2). */
  currency: string;
  /** The balance the case starts from, decimal text in major units. */
  balance: string;
}

export type OperatorEndpoint = '/authenticate' | '/transaction' | '/payout';

/** A body: a value (serialised with exact numbers, protocol/json.ts), or the exact text or bytes to send. */
export type Body = object | string | Uint8Array;

/** The headers of a request, lower-case names. */
export type Headers = Record<string, string>;

/** What a step learns from a run: ids, players, sessions, balances and earlier answers. */
export interface CaseContext {
  /** A fresh UUID for `name`, the same one for every use of `name` within the case. */
  id(name: string): string;
  /** A UUID no other step uses. */
  fresh(): string;
  player(role?: Role): { playerId: string; currency: string; decimals: number };
  /** The session opened under `name` (each role opens one under its own name when the case starts). */
  session(name?: string): { sessionId: string; key: string; role: Role; game: string };
  /** A launch key minted under `name` by a `key` step. */
  key(name: string): string;
  /** The game slug: `main` is every case's, `other` the fixtures' second game. */
  game(which?: 'main' | 'other'): string;
  /** The balance the kit knows the player holds, in minor units. */
  balance(role?: Role): bigint;
  /** An amount in the role's currency, from minor units: exact JSON number text. */
  amount(minor: bigint, role?: Role): RawJsonNumber;
  /** Minor units of a decimal text in the role's currency ("1.5" in EUR is 150n). */
  minor(text: string, role?: Role): bigint;
  /** X-Server-Authorization of these bytes under the integration's secret (docs/protocol.md §2.1). */
  sign(body: string | Uint8Array): string;
}

/**
 * The balance an answer must show, as a change from the balance the kit
 * knows the player held before the step: a signed decimal text in major
 * units ("-1", "+25.5"), or minor units computed from the context.
 * `unchanged` is a change of 0; `absent`: the answer must carry no balance
 * (an unauthenticated caller learns nothing, docs/protocol.md §2); `any`:
 * not checked (the answer names no player the case knows).
 */
export type BalanceExpectation = 'unchanged' | 'absent' | 'any' | string | ((ctx: CaseContext) => bigint);

export interface Expect {
  status: number;
  /** The problem's code; required whenever status is not 200. */
  code?: ErrorCode;
  /** Whose balance the answer shows; default the step's session's player. */
  player?: Role;
  /**
   * The balance the answer must show. Every 200 of /transaction and /payout
   * states one. Left out on a refusal, a balance the answer carries must be
   * the one the player held: a refusal changes nothing (docs/protocol.md §3.1).
   */
  balance?: BalanceExpectation;
  /** The balance is spelt as docs/protocol.md §4.4 writes amounts: digits, one point at most, no exponent, no trailing zeros. */
  exactText?: boolean;
  /** /authenticate: the session answered is the one opened under this name, or a new one. */
  session?: { sameAs: string } | 'new';
}

export interface CallStep {
  kind: 'call';
  /** What the step does, for people: "bet 1 in a finished round". */
  say: string;
  endpoint: OperatorEndpoint;
  /** The session whose player and game the body names; default `main`. */
  session?: string;
  body?: (ctx: CaseContext) => Body;
  /** Changes the headers of a well-formed signed call (content type, bearer token, signature). */
  headers?: (headers: Headers, bytes: Uint8Array, ctx: CaseContext) => Headers;
  /** Keeps the request under this name, for a later step to resend byte for byte. */
  keep?: string;
  /** Sends the request kept under this name again: the same bytes and headers (a replay). */
  resend?: string;
  /** With `resend`: changes the kept bytes, and keeps their signature (a tampered capture). */
  tamper?: (bytes: Uint8Array) => Uint8Array;
  expect: Expect;
}

/** A request of a parallel step. */
interface ParallelRequest {
  endpoint: OperatorEndpoint;
  body: Body;
}

/** What a request of a parallel step was answered: the status, and the balance it showed, in minor units, if any. */
export interface ParallelAnswer {
  status: number;
  code: string | undefined;
  balance: bigint | undefined;
}

export interface ParallelStep {
  kind: 'parallel';
  say: string;
  /** Sent all at once, each on a connection of its own. */
  requests: (ctx: CaseContext) => ParallelRequest[];
  /** Why the answers break the rule (one line each), or nothing when they keep it. */
  check: (answers: readonly ParallelAnswer[], ctx: CaseContext) => string[];
  /**
   * How the answers moved the main player's balance, in minor units, once
   * `check` found nothing wrong: a step after it (a probe) then checks the
   * balance against it. Left out, the step moved nothing.
   */
  change?: (answers: readonly ParallelAnswer[], ctx: CaseContext) => bigint;
}

/** Reads the player's balance by reloading a session (docs/protocol.md §5.1): it must be the known one, changed by `change`. */
export interface ProbeStep {
  kind: 'probe';
  say: string;
  player?: Role;
  change?: BalanceExpectation;
  /** Opens a new session with a new key instead of reloading (the old one may have expired). */
  fresh?: boolean;
}

/** Mints a launch key and, unless `open` is false, opens a session with it under `name`. */
export interface SessionStep {
  kind: 'session';
  say: string;
  name: string;
  player?: Role;
  game?: 'main' | 'other';
  open?: boolean;
}

/** Waits until launch keys minted before it, or sessions idle since the last step, have expired; or a fraction of that. */
export interface WaitStep {
  kind: 'wait';
  say: string;
  until: 'launch-key-expired' | 'session-expired';
  /** Wait only this fraction of the life, with no margin (a session kept alive by activity). */
  fraction?: number;
}

/** Blocks or unblocks a player through the fixtures (a player left blocked is unblocked when the case ends). */
interface BlockStep {
  kind: 'block' | 'unblock';
  say: string;
  player?: Role;
}

export type Step = CallStep | ParallelStep | ProbeStep | SessionStep | WaitStep | BlockStep;

interface ConformanceCase<A extends string = OperatorArea> {
  /** `area.slug`, stable across versions: reports and --only name cases by it. */
  id: string;
  side: Side;
  area: A;
  title: string;
  /** The rule checked: `docs/protocol.md §N.N`. */
  clause: string;
  needs: readonly Need[];
  /** The players the case starts from; default one EUR player with 100. */
  players: Partial<Record<Role, PlayerNeed>> & { main: PlayerNeed };
  steps: readonly Step[];
}

export type OperatorCase = ConformanceCase<OperatorArea>;

/** The player every case has unless it says otherwise. */
export const DEFAULT_PLAYER: PlayerNeed = { currency: 'EUR', balance: '100' };
