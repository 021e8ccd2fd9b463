/**
 * The chart of accounts and how each kind of transfer moves money between
 * them. Every movement is one transfer: one amount, debited from one account
 * and credited to another of the same currency, so every entry balances by
 * construction (the TigerBeetle model of double entry).
 *
 * An account's balance is its credits minus its debits. Player wallets keep
 * that balance in a column, updated in the same database transaction as the
 * transfer, because bets are checked against it; the operator's own accounts
 * are derived by summing transfers, so no request ever waits on a hot row.
 */
import { ENV_INTEGRATION_ID } from '../protocol/integration-id.js';

export type AccountKind = 'player' | 'game' | 'campaign' | 'tournament' | 'cash';

export interface AccountRef {
  kind: AccountKind;
  /** playerId, game slug, campaign id (each as studioRef qualifies it), or CASH_REF. */
  ref: string;
  currency: string;
}

/** One text per account, for the maps that remember accounts by what names them (no part holds U+0000: ids are refused with it). */
export function accountKey(ref: AccountRef): string {
  return `${ref.kind}\u0000${ref.ref}\u0000${ref.currency}`;
}

export type TransferKind = 'bet' | 'win' | 'payout' | 'deposit' | 'withdrawal';

export const TRANSFER_KINDS: readonly TransferKind[] = ['bet', 'win', 'payout', 'deposit', 'withdrawal'];

/** The world outside the ledger that deposits come from and withdrawals go to. */
export const CASH_REF = 'external';
/** Free bets of a campaign that named no id are booked here. */
export const UNNAMED_CAMPAIGN_REF = 'unnamed';

export interface TransferLegs {
  debit: AccountRef;
  credit: AccountRef;
}

export interface LegInput {
  kind: TransferKind;
  playerId: string;
  currency: string;
  /** The integration whose call books it (docs/protocol.md §2.6): its games and campaigns are its own. */
  integrationId?: string;
  /** The game of a bet or win. */
  game?: string;
  /** A bet paid by the operator's free-bets campaign instead of the player. */
  freeBet?: boolean;
  campaignId?: string;
}

/**
 * The account name of a studio's game or campaign: the same game slug, or
 * campaign id, at two studios is two accounts (docs/protocol.md §2.6). The
 * environment's integration keeps the bare name, the only one there was
 * before the wallet served several, so its books read as they always did;
 * another's is prefixed with its id and a `/`, which neither a game slug
 * nor a campaign id may hold, so no two studios' names can meet.
 */
export function studioRef(integrationId: string | undefined, ref: string): string {
  return integrationId === undefined || integrationId === ENV_INTEGRATION_ID ? ref : `${integrationId}/${ref}`;
}

/** The integration whose game or campaign an account name (studioRef) belongs to. */
export function studioOfRef(ref: string): string {
  const slash = ref.indexOf('/');
  return slash < 0 ? ENV_INTEGRATION_ID : ref.slice(0, slash);
}

export function legsOf(input: LegInput): TransferLegs {
  const { currency, integrationId } = input;
  const player: AccountRef = { kind: 'player', ref: input.playerId, currency };
  const campaign = studioRef(integrationId, input.campaignId ?? UNNAMED_CAMPAIGN_REF);
  switch (input.kind) {
    case 'bet': {
      const game: AccountRef = { kind: 'game', ref: studioRef(integrationId, requireGame(input)), currency };
      const payer: AccountRef = input.freeBet ? { kind: 'campaign', ref: campaign, currency } : player;
      return { debit: payer, credit: game };
    }
    case 'win':
      return { debit: { kind: 'game', ref: studioRef(integrationId, requireGame(input)), currency }, credit: player };
    case 'payout':
      return { debit: { kind: 'tournament', ref: campaign, currency }, credit: player };
    case 'deposit':
      return { debit: { kind: 'cash', ref: CASH_REF, currency }, credit: player };
    case 'withdrawal':
      return { debit: player, credit: { kind: 'cash', ref: CASH_REF, currency } };
  }
}

function requireGame(input: LegInput): string {
  if (input.game === undefined) throw new Error(`a ${input.kind} needs a game`);
  return input.game;
}
