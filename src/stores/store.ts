/**
 * The storage contract every backend implements, and that the contract suite
 * in test/stores runs against each of them. Each write method is one atomic
 * database transaction (or one savepoint inside a group commit).
 *
 * Outcomes are values: every method resolves with a success or a Refusal
 * carrying a stable code. It rejects only for operational failures, with an
 * UnavailableError (storage down, overloaded), which the HTTP layer answers
 * with 503 and which callers may retry.
 *
 * Commands carry `now` (epoch ms) and any ids to create, so that a store is
 * deterministic: the clock and the id source are injected by its caller.
 */
import type { Refusal } from '../protocol/errors.js';
import type { AdjustmentRequest, PayoutRequest, TransactionRequest } from '../protocol/schemas.js';
import type { TransferKind } from '../ledger/accounts.js';
import type { BooksReport } from '../ledger/books.js';

export interface TransactionCommand {
  request: TransactionRequest;
  now: number;
}

export interface PayoutCommand {
  request: PayoutRequest;
  now: number;
}

export interface AuthenticateCommand {
  key: string;
  game: string;
  now: number;
  /** Used if the key opens a new session. */
  newSessionId: string;
}

export interface CreatePlayerCommand {
  playerId: string;
  currency: string;
  balance: number;
  country?: string | undefined;
  /** Idempotency id of the opening deposit that books `balance`. */
  depositId: string;
  now: number;
}

export interface AdjustCommand extends AdjustmentRequest {
  playerId: string;
  now: number;
}

export interface LaunchKeyCommand {
  playerId: string;
  game: string;
  key: string;
  now: number;
}

export interface BlockCommand {
  playerId: string;
  blocked: boolean;
  reason?: string | undefined;
  now: number;
}

export interface PageRequest {
  playerId: string;
  limit: number;
  /**
   * The `next` of the previous page: the page goes on after that row. It must
   * name one of this player's rows, or lie past the player's newest row (the
   * first page); anything else is refused INVALID_REQUEST.
   */
  before?: bigint | undefined;
}

/** Money leaves a store as exact JSON number text, ready for the wire. */
export interface BalanceOutcome {
  ok: true;
  balance: string;
  currency: string;
  /** What this call booked (empty for an idempotent replay), for metrics. */
  booked: Booked[];
}

export interface Booked {
  kind: TransferKind;
  /** Major units, exact JSON number text. */
  amount: string;
}

export interface SessionOutcome {
  ok: true;
  sessionId: string;
  playerId: string;
  currency: string;
  balance: string;
  country: string;
}

export interface PlayerView {
  ok: true;
  playerId: string;
  currency: string;
  balance: string;
  blocked: boolean;
  country: string | null;
}

export interface LaunchKeyView {
  ok: true;
  key: string;
  expiresAt: number;
}

export interface RoundView {
  roundId: string;
  game: string;
  finished: boolean;
  createdAt: number;
  finishedAt: number | null;
}

export interface TransferView {
  id: string;
  kind: TransferKind;
  amount: string;
  jpAmount: string;
  freeBet: boolean;
  roundId: string | null;
  game: string | null;
  campaignId: string | null;
  regulatory: string | null;
  createdAt: number;
}

export interface PageOf<T> {
  ok: true;
  items: T[];
  /** Pass as `before` for the next page; null on the last page. */
  next: bigint | null;
}

export type VerifyReport = BooksReport;

export interface WalletStore {
  readonly backend: string;
  /** Outcomes: balance | SESSION_NOT_FOUND | SESSION_MISMATCH | INVALID_REQUEST (amounts) | DUPLICATE_CONFLICT
   *  | ROUND_MISMATCH | ROUND_CLOSED | SESSION_EXPIRED | PLAYER_BLOCKED | CAMPAIGN_FINISHED | INSUFFICIENT_FUNDS.
   *  A refusal of FINAL_REFUSAL_CODES (rules.ts) is kept in the same database transaction, with the request's
   *  new ids: those ids answer it again ever after (PROTOCOL.md §6.4). */
  transact(command: TransactionCommand): Promise<BalanceOutcome | Refusal>;
  /** Outcomes: balance | SESSION_NOT_FOUND | INVALID_REQUEST | DUPLICATE_CONFLICT */
  payout(command: PayoutCommand): Promise<BalanceOutcome | Refusal>;
  /** Outcomes: session | INVALID_LAUNCH_KEY | SESSION_MISMATCH | PLAYER_BLOCKED */
  authenticate(command: AuthenticateCommand): Promise<SessionOutcome | Refusal>;
  /** Outcomes: player | PLAYER_EXISTS | UNSUPPORTED_CURRENCY | INVALID_REQUEST */
  createPlayer(command: CreatePlayerCommand): Promise<PlayerView | Refusal>;
  /** Outcomes: player | PLAYER_NOT_FOUND */
  getPlayer(playerId: string): Promise<PlayerView | Refusal>;
  /** Outcomes: key | PLAYER_NOT_FOUND */
  createLaunchKey(command: LaunchKeyCommand): Promise<LaunchKeyView | Refusal>;
  /** Outcomes: balance | PLAYER_NOT_FOUND | INVALID_REQUEST | DUPLICATE_CONFLICT | INSUFFICIENT_FUNDS */
  adjust(command: AdjustCommand): Promise<BalanceOutcome | Refusal>;
  /** Outcomes: player | PLAYER_NOT_FOUND */
  setBlocked(command: BlockCommand): Promise<PlayerView | Refusal>;
  /** Outcomes: page | PLAYER_NOT_FOUND | INVALID_REQUEST (a cursor that is not one of this player's; newest first) */
  listRounds(page: PageRequest): Promise<PageOf<RoundView> | Refusal>;
  /** Outcomes: page | PLAYER_NOT_FOUND | INVALID_REQUEST (a cursor that is not one of this player's; newest first) */
  listTransfers(page: PageRequest): Promise<PageOf<TransferView> | Refusal>;
  /**
   * Proves that every transfer balances and every kept balance equals the
   * sum of its postings, with sums exact at any size. Rejects with an
   * UnavailableError naming why when the proof cannot be finished.
   */
  verify(): Promise<VerifyReport>;
  /**
   * Resolves when the database answers and takes writes; rejects with an
   * UnavailableError naming why otherwise (/health's 503). It only reads,
   * unless the last call failed for a reason that stops writes (a full
   * disk, an I/O error, a read-only standby): then it tries a small write
   * of its own, which leaves nothing behind, and resolves once one commits,
   * so that health comes back without other traffic.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Called after each batch that committed, with the seconds from its
   * COMMIT until it was durable: the disk's share of every answer in it, and
   * the first place to look when the tail latency rises. Stores that do not
   * time their commits leave it out.
   */
  onCommit?(listener: (seconds: number) => void): void;
}

/** Pages hold at most this many items: bounds one admin query's work. */
export const PAGE_LIMIT_MAX = 500;
export const PAGE_LIMIT_DEFAULT = 50;
