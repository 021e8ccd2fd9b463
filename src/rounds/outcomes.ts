/**
 * What an operator's final answer means for the request it answers: a
 * round's /transaction (settled or refused, and the balance after) or a
 * prize's /payout (paid or refused). The outbox (src/dispatch) decides when
 * an answer is final; this decides what it says. The stores apply the
 * outcome in the same database transaction that records the answer.
 *
 * It reads the answer as facts, the shape of the outbox's final event,
 * without the outbox: this layer imports only the protocol and the games.
 */
import { ERRORS, refuse, type ErrorCode, type Refusal } from '../protocol/errors.js';
import { decimalFromString, formatMinor, toMinor, type Currencies } from '../protocol/money.js';
import type { RoundFacts } from './facts.js';

/** How an outbox item ended; the outbox's FinalEvent is one. */
export interface FinalAnswerFacts {
  outcome: 'sent' | 'refused' | 'skipped' | 'resolved';
  /**
   * `sent`, `refused`: the operator's answer. `skipped`: why it was never
   * sent. `resolved`: the operator's reference, in the detail.
   */
  answer: {
    /** The HTTP status; absent after a network error or time-out. */
    status?: number;
    /** The problem's registry code, when the answer was one. */
    code?: string;
    detail: string;
    /**
     * The player's balance the answer carried, exact decimal text: a 200's
     * (the outbox reads it once, as it is answered) or a problem's. Absent
     * when the answer had none that reads exactly.
     */
    balance?: string;
  };
}

/** What a final answer says of a request, for a round and a payout alike. */
export type FinalAnswer =
  { status: 'accepted'; balanceAfterMinor: bigint | null } | { status: 'refused'; code: string; detail: string; balanceAfterMinor: bigint | null };

/** How a real round ended, as its outbox item's final outcome says. */
export type RoundOutcome =
  { status: 'settled'; balanceAfterMinor: bigint | null } | { status: 'refused'; code: string; detail: string; balanceAfterMinor: bigint | null };

/** How a payout ended: paid, with the balance of the operator's 200 (null for one resolved by hand or unreadable), or refused. */
export type PayoutOutcome =
  { status: 'paid'; balanceAfterMinor: bigint | null } | { status: 'refused'; code: string; detail: string; balanceAfterMinor: bigint | null };

/** The minor units of an amount text in `currency`; an amount the currency cannot hold exactly is not believed: null, as if none was given. */
export function minorOf(text: string | undefined, currency: string, currencies: Currencies): bigint | null {
  const decimals = currencies.decimals(currency);
  if (text === undefined || decimals === undefined) return null;
  const decimal = decimalFromString(text);
  return decimal === undefined ? null : (toMinor(decimal, decimals) ?? null);
}

/** The code a refusal is recorded with: the operator's, else HTTP_<status> when the answer was no problem+json. */
function refusalCodeOf(answer: FinalAnswerFacts['answer']): string {
  return answer.code ?? (answer.status === undefined ? 'REFUSED' : `HTTP_${answer.status}`);
}

/**
 * What an item's final outcome says of the request, for a round and a
 * payout alike: accepted (`sent`, with the balance of the operator's 200
 * when it reads exactly; `resolved` by hand, balance unknown), or refused
 * (`refused` with the operator's code, detail and balance; `skipped`).
 */
export function finalAnswerOf({ outcome, answer }: FinalAnswerFacts, currency: string, currencies: Currencies): FinalAnswer {
  switch (outcome) {
    case 'sent':
      return { status: 'accepted', balanceAfterMinor: minorOf(answer.balance, currency, currencies) };
    case 'resolved':
      return { status: 'accepted', balanceAfterMinor: null };
    case 'refused':
      return { status: 'refused', code: refusalCodeOf(answer), detail: answer.detail, balanceAfterMinor: minorOf(answer.balance, currency, currencies) };
    case 'skipped':
      return { status: 'refused', code: 'SKIPPED', detail: answer.detail, balanceAfterMinor: null };
  }
}

/**
 * How a round's request ended, as its item's final outcome says. `sent`:
 * settled, with the balance of the operator's 200 (null if it cannot be
 * read exactly: the round was booked all the same). `refused`: refused
 * with the operator's code and detail. `resolved` (settled by hand):
 * settled, balance unknown. `skipped`: refused, never sent (a round has
 * one item, so this comes only from an earlier item of its key).
 */
export function roundOutcomeOf(event: FinalAnswerFacts, currency: string, currencies: Currencies): RoundOutcome {
  const final = finalAnswerOf(event, currency, currencies);
  return final.status === 'accepted' ? { status: 'settled', balanceAfterMinor: final.balanceAfterMinor } : final;
}

/**
 * How a payout's request ended: `sent` pays it, with the balance of the
 * operator's 200; `refused` refuses it with the operator's code and
 * detail; `resolved` (settled by hand) pays it, balance unknown. A
 * payout's key holds one item, so `skipped` never comes; it would refuse it.
 */
export function payoutOutcomeOf(event: FinalAnswerFacts, currency: string, currencies: Currencies): PayoutOutcome {
  const final = finalAnswerOf(event, currency, currencies);
  return final.status === 'accepted' ? { status: 'paid', balanceAfterMinor: final.balanceAfterMinor } : final;
}

/** A refused round as the page gets it: the operator's code when it is one of the registry, with the balance its problem carried. */
export function roundRefusal(round: Pick<RoundFacts, 'refusalCode' | 'refusalDetail' | 'balanceAfterMinor'>, decimals: number): Refusal {
  const code = round.refusalCode ?? '';
  const known = Object.hasOwn(ERRORS, code) ? (code as ErrorCode) : 'SERVICE_UNAVAILABLE';
  const balance = round.balanceAfterMinor === null ? undefined : formatMinor(round.balanceAfterMinor, decimals);
  return refuse(known, `the casino refused: ${round.refusalDetail ?? code}`, balance);
}
