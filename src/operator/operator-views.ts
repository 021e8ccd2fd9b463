/**
 * The JSON shapes of the back office, shared by the HTTP API and the CLI so
 * both print the same thing. Amounts stay exact (RawJsonNumber).
 */
import { raw } from '../protocol/json.js';
import type { GgrReport, PageOf, PlayersPage, PlayerView, RoundView, TransferView } from '../stores/store.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function playerBody(player: PlayerView) {
  return { playerId: player.playerId, currency: player.currency, balance: raw(player.balance), blocked: player.blocked, country: player.country };
}

export function playersBody(page: PlayersPage) {
  return { items: page.items.map(playerBody), nextCursor: page.next };
}

/** `from` and `to` as the request named them (or the defaults), both days included. */
export function ggrBody(report: GgrReport, from: string, to: string) {
  return {
    from,
    to,
    rows: report.rows.map((row) => ({ ...row, bets: raw(row.bets), freeBets: raw(row.freeBets), wins: raw(row.wins), ggr: raw(row.ggr) })),
  };
}

export function roundsBody(page: PageOf<RoundView>) {
  return {
    items: page.items.map((round) => ({
      ...round,
      createdAt: iso(round.createdAt),
      finishedAt: round.finishedAt === null ? null : iso(round.finishedAt),
    })),
    nextCursor: page.next === null ? null : String(page.next),
  };
}

export function transfersBody(page: PageOf<TransferView>) {
  return {
    items: page.items.map((transfer) => ({
      ...transfer,
      amount: raw(transfer.amount),
      jpAmount: raw(transfer.jpAmount),
      createdAt: iso(transfer.createdAt),
    })),
    nextCursor: page.next === null ? null : String(page.next),
  };
}

export function launchKeyBody(key: { key: string; expiresAt: number }) {
  return { key: key.key, expiresAt: iso(key.expiresAt) };
}

export function adjustmentBody(id: string, balance: string) {
  return { id, balance: raw(balance) };
}
