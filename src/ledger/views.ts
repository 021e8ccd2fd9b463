/**
 * What the wallet shows of what it holds: players, balances after a call,
 * pages of rounds and transfers, and the refusals that name a missing or
 * existing player. Written once here so that every backend answers in the
 * same words and the same shapes; a store reads its rows into the plain
 * facts below and hands them over. Pure: no I/O.
 */
import { formatMinor, type Currencies } from '../protocol/money.js';
import { refuse, type Refusal } from '../protocol/errors.js';
import { studioOfRef, type TransferKind } from './accounts.js';
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
  /** The studio whose call opened it (docs/protocol.md §2.6), `default` for the environment's. */
  integration: string;
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
  /** The studio whose call booked it (docs/protocol.md §2.6): a bet's or win's round's, a payout's tournament's; null for an adjustment. */
  integration: string | null;
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

/** A page of players (store.ts, PlayersRequest). */
export interface PlayersPage {
  ok: true;
  items: PlayerView[];
  /** Pass as `after` for the next page: the last item's id; null on the last page. */
  next: string | null;
}

/** One game's bets and wins in one currency on one day, in major units as exact JSON number text. */
export interface GgrRow {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** The studio whose game it is (docs/protocol.md §2.6): the same slug at two studios is two games, two rows. */
  integration: string;
  game: string;
  currency: string;
  /** Bets the players paid; bets paid by a free-bet campaign are in `freeBets`, not here. */
  bets: string;
  freeBets: string;
  /** Every win, of free bets too: the casino pays them. */
  wins: string;
  /** bets − wins: what the games kept of the players' money. */
  ggr: string;
  rounds: number;
}

export interface GgrReport {
  ok: true;
  rows: GgrRow[];
}

/** One game's sums on one day in one currency, as a store reads them, in minor units. */
export interface StoredGgr {
  /** Days since 1970-01-01 (UTC). */
  day: number;
  integration: string;
  game: string;
  currency: string;
  bets: bigint;
  freeBets: bigint;
  wins: bigint;
  rounds: number;
}

/** The report from a store's sums, ordered by day, integration, game, currency (the stores sort alike; sorted again here, so the order is the ledger's). */
export function ggrReport(sums: readonly StoredGgr[], currencies: Currencies): GgrReport {
  const rows = [...sums]
    .sort(
      (a, b) =>
        a.day - b.day || compareCodePoints(a.integration, b.integration) || compareCodePoints(a.game, b.game) || compareCodePoints(a.currency, b.currency),
    )
    .map((sum) => {
      const decimals = storedDecimals(currencies, sum.currency);
      return {
        day: new Date(sum.day * 86_400_000).toISOString().slice(0, 10),
        integration: sum.integration,
        game: sum.game,
        currency: sum.currency,
        bets: formatMinor(sum.bets, decimals),
        freeBets: formatMinor(sum.freeBets, decimals),
        wins: formatMinor(sum.wins, decimals),
        ggr: formatMinor(sum.bets - sum.wins, decimals),
        rounds: sum.rounds,
      };
    });
  return { ok: true, rows };
}

/** Orders texts by code point, as SQLite's BINARY and PostgreSQL's "C" collation do over UTF-8. */
export function compareCodePoints(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return Buffer.compare(x, y);
}

/** A page of players from up to limit + 1 of them, in id order: the extra one only tells that a next page exists. */
export function playersPage(players: readonly StoredPlayer[], limit: number, currencies: Currencies): PlayersPage {
  const items = players.slice(0, limit).map((player) => playerView(player, currencies));
  return { ok: true, items, next: players.length > limit ? items[items.length - 1]!.playerId : null };
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
export type StoredTransfer = Omit<TransferView, 'amount' | 'jpAmount' | 'integration'> & {
  amount: bigint;
  jpAmount: bigint;
  /** A bet's or win's round's integration. */
  roundIntegration: string | null;
  /** A payout's tournament account's name, which says whose tournament it is (accounts.ts, studioRef). */
  tournamentRef: string | null;
};

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
    integration: transfer.roundIntegration ?? (transfer.tournamentRef === null ? null : studioOfRef(transfer.tournamentRef)),
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
