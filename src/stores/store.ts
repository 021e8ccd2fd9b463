/**
 * The storage contract every backend implements, and that the contract suite
 * in test/stores runs against each of them. Each write method is one atomic
 * database transaction (or one savepoint inside a group commit).
 *
 * The operations, each with its outcomes, are listed once, in
 * operations.ts, with the WalletStore interface derived from them; this
 * file holds the types they take and answer.
 *
 * Outcomes are values: every method resolves with a success or a Refusal
 * carrying a stable code. It rejects only for operational failures, with an
 * UnavailableError (storage down, full or failing, overloaded), which the
 * HTTP layer answers with 503 and which callers may retry. Every backend
 * reports a failure of storage so, never as a refusal.
 *
 * Commands carry `now` (epoch ms) and any ids to create, so that a store is
 * deterministic: the clock and the id source are injected by its caller.
 */
import type { CheckedPayout, CheckedTransaction } from '../protocol/checked-requests.js';
import type { AdjustmentRequest } from '../protocol/schemas.js';
import type { BooksReport } from '../ledger/books.js';
import type { Audited } from '../staff/staff-commands.js';
import type { IntegrationChanges, StoredIntegration } from '../access/integrations.js';

export type { Audited };

/**
 * A /transaction as the edge checked it (src/protocol/checked-requests.ts):
 * ids canonical, amounts exact decimals, the rules that need no storage
 * judged. A store neither checks nor converts again what the type says.
 */
export interface TransactionCommand {
  request: CheckedTransaction;
  now: number;
  /**
   * The calling integration's bets are paused (access/integrations.ts): a
   * bet not booked before is refused INTEGRATION_PAUSED (rules.ts). Absent
   * when they are not, which is nearly always.
   */
  betsPaused?: true;
  /**
   * The calling integration's id (docs/protocol.md §2.6): a session another
   * opened is refused INTEGRATION_MISMATCH (rules.ts). Absent: the
   * environment's integration, `default`.
   */
  integrationId?: string;
}

/** A /payout as the edge checked it: ids canonical, the amount an exact decimal. */
export interface PayoutCommand {
  request: CheckedPayout;
  now: number;
  /**
   * The calling integration's id: a session another opened is refused
   * INTEGRATION_MISMATCH, and the prize is booked from this studio's
   * tournament account (rules.ts). Absent: the environment's integration.
   */
  integrationId?: string;
}

export interface AuthenticateCommand {
  key: string;
  game: string;
  now: number;
  /** Used if the key opens a new session. */
  newSessionId: string;
  /** The calling integration's bets are paused: no game is opened (rules.ts, planAuthenticate). */
  betsPaused?: true;
  /**
   * The calling integration's id: a new session is opened for it, and a key
   * whose session another opened is refused INTEGRATION_MISMATCH. Absent:
   * the environment's integration, `default`.
   */
  integrationId?: string;
}

export interface CreatePlayerCommand extends Audited {
  playerId: string;
  currency: string;
  balance: number;
  country?: string | undefined;
  /** Idempotency id of the opening deposit that books `balance`. */
  depositId: string;
  now: number;
}

export interface AdjustCommand extends AdjustmentRequest, Audited {
  playerId: string;
  now: number;
}

export interface LaunchKeyCommand extends Audited {
  playerId: string;
  game: string;
  key: string;
  now: number;
  /**
   * The integration whose game it launches (docs/protocol.md §2.6): only its /authenticate opens the key. A
   * stored one must exist (INTEGRATION_NOT_FOUND). Absent: any integration may open it.
   */
  integration?: string;
}

export interface BlockCommand extends Audited {
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

/**
 * A page of all players, in the order of their ids (by code point, the same
 * on every backend). Every filter is optional, and together they narrow.
 */
export interface PlayersRequest {
  limit: number;
  /** The `next` of the previous page: the page starts after this id. Any id may be given; none need exist. */
  after?: string | undefined;
  currency?: string | undefined;
  blocked?: boolean | undefined;
  /** Only ids that start with this text. */
  prefix?: string | undefined;
}

/**
 * Gross gaming revenue per game per day (UTC) per currency, from the ledger's
 * bets and wins booked in [from, to). Days are whole days: from and to are
 * midnights (UTC), in epoch ms.
 */
export interface GgrRequest {
  from: number;
  to: number;
  /** One studio's games only (docs/protocol.md §2.6); absent: every studio's. */
  integration?: string;
}

/** What a call answers: money as exact JSON number text, ready for the wire. The ledger shapes each (views.ts). */
export type { BalanceOutcome, Booked, GgrReport, GgrRow, PageOf, PlayersPage, PlayerView, RoundView, SessionOutcome, TransferView } from '../ledger/views.js';

export interface LaunchKeyView {
  ok: true;
  key: string;
  expiresAt: number;
}

export type VerifyReport = BooksReport;

export type { AddStaffCommand, AuditPage, AuditPageRequest, RevokeStaffCommand, StaffAdded, StaffRevoked } from '../staff/staff-commands.js';

/** The stored integrations, and the version of the set they were read at. */
export interface IntegrationsListing {
  /** Moves on every change of any integration, in the change's database transaction: what nodes poll. */
  version: number;
  integrations: StoredIntegration[];
}

/** A new integration: its secret already sealed and its first token already hashed by the caller (the store sees neither). */
export interface AddIntegrationCommand extends Audited {
  integration: Omit<StoredIntegration, 'createdAt' | 'updatedAt' | 'revision'>;
  now: number;
}

/**
 * Changes an integration as of the revision its maker read: a concurrent
 * change in between refuses it STATE_CONFLICT, so that a rotation is never
 * made from a token list another change has moved on from.
 */
export interface UpdateIntegrationCommand extends Audited {
  id: string;
  revision: number;
  changes: IntegrationChanges;
  now: number;
}

export interface RemoveIntegrationCommand extends Audited {
  id: string;
  now: number;
}

export interface IntegrationChanged {
  ok: true;
  integration: StoredIntegration;
}

export interface IntegrationRemoved {
  ok: true;
  id: string;
}

/** Pages hold at most this many items: bounds one admin query's work. */
export const PAGE_LIMIT_MAX = 500;
export const PAGE_LIMIT_DEFAULT = 50;
/**
 * A GGR report spans at most this many days: one row per game and currency
 * per day, so this bounds its rows and the ledger rows it sums.
 */
export const GGR_DAYS_MAX = 92;
export const DAY_MS = 86_400_000;
