/**
 * What the wallet shows of what it holds: players, balances after a call,
 * pages of rounds and transfers, and the refusals that name a missing or
 * existing player. Written once here so that every backend answers in the
 * same words and the same shapes; a store reads its rows into the plain
 * facts below and hands them over. Pure: no I/O.
 */
import { formatMinor, type Currencies } from '../protocol/money.js';
import { refuse, type Refusal } from '../protocol/errors.js';
import type { TransferKind } from './accounts.js';
import { balanceText, type PlayerState } from './rules.js';

/** Money leaves the ledger as exact JSON number text, ready for the wire. */
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

/** The answer to /authenticate (docs/protocol.md §5). */
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

/** A player as a store reads it, in plain values. */
export interface StoredPlayer {
  playerId: string;
  currency: string;
  /** Minor units. */
  balance: bigint;
  blocked: boolean;
  country: string | null;
}

/** A transfer as a store reads it for a page: the view's facts, with its money in minor units. */
export type StoredTransfer = Omit<TransferView, 'amount' | 'jpAmount'> & { amount: bigint; jpAmount: bigint };

export function playerNotFound(playerId: string): Refusal {
  return refuse('PLAYER_NOT_FOUND', `player ${playerId} is not known`);
}

export function playerExists(playerId: string): Refusal {
  return refuse('PLAYER_EXISTS', `player ${playerId} exists`);
}

/** The decimals of a stored player's currency: start-up refuses a configuration that drops a currency in use. */
export function storedDecimals(currencies: Currencies, currency: string): number {
  const decimals = currencies.decimals(currency);
  if (decimals === undefined) throw new Error(`currency ${currency} of a stored player must stay configured`);
  return decimals;
}

export function playerStateOf(player: StoredPlayer, currencies: Currencies): PlayerState {
  return {
    playerId: player.playerId,
    currency: player.currency,
    decimals: storedDecimals(currencies, player.currency),
    balance: player.balance,
    blocked: player.blocked,
  };
}

export function playerView(player: StoredPlayer, currencies: Currencies): PlayerView {
  return {
    ok: true,
    playerId: player.playerId,
    currency: player.currency,
    balance: formatMinor(player.balance, storedDecimals(currencies, player.currency)),
    blocked: player.blocked,
    country: player.country,
  };
}

/** The session a launch key opened (or reopened) for a player; `country` empty when the operator holds none. */
export function sessionOutcome(sessionId: string, player: PlayerState, country: string | null): SessionOutcome {
  return { ok: true, sessionId, playerId: player.playerId, currency: player.currency, balance: balanceText(player), country: country ?? '' };
}

/** A transfer booked by a call, as its answer lists it. */
export function bookedOf(kind: TransferKind, amount: bigint, player: PlayerState): Booked {
  return { kind, amount: formatMinor(amount, player.decimals) };
}

/** The answer to a call that moved (or, replayed, would have moved) a player's balance. */
export function balanceOutcome(player: PlayerState, balanceAfter: bigint, booked: Booked[]): BalanceOutcome {
  return { ok: true, balance: formatMinor(balanceAfter, player.decimals), currency: player.currency, booked };
}

export function transferView(transfer: StoredTransfer, decimals: number): TransferView {
  return {
    id: transfer.id,
    kind: transfer.kind,
    amount: formatMinor(transfer.amount, decimals),
    jpAmount: formatMinor(transfer.jpAmount, decimals),
    freeBet: transfer.freeBet,
    roundId: transfer.roundId,
    game: transfer.game,
    campaignId: transfer.campaignId,
    regulatory: transfer.regulatory,
    createdAt: transfer.createdAt,
  };
}

/**
 * A page from up to limit + 1 rows, newest first: the extra row only tells
 * that a next page exists, whose cursor is the id of the page's last row
 * (a bigint, or its decimal text as PostgreSQL's driver reads an int8).
 */
export function pageOf<R extends { id: bigint | string }, T>(rows: readonly R[], limit: number, item: (row: R) => T): PageOf<T> {
  return { ok: true, items: rows.slice(0, limit).map(item), next: rows.length > limit ? BigInt(rows[limit - 1]!.id) : null };
}
