/**
 * Every request body the provider sends an operator, built here and only
 * here: a round's /transaction requests (docs/protocol.md §6) and a
 * prize's /payout (§7). Each is built as the protocol's own type
 * (`TransactionRequest`, `PayoutRequest` of src/protocol/schemas.ts), so a
 * field the protocol renames or a member it adds fails to compile here
 * instead of reaching an operator, and then serialised once.
 *
 * Amounts are written as exact decimal text in major units (RawJsonNumber):
 * a double could round an amount of many digits or write a small one as
 * `1e-8`, and the body's bytes are what is signed, stored in the outbox and
 * resent unchanged. `OnWire<T>` is the protocol's type with its amounts so.
 */
import assert from 'node:assert/strict';
import type { CallTransaction, RoundCall } from '../game/reels-calls.js';
import { refuse, type Refusal } from '../protocol/errors.js';
import { raw, stringify, type RawJsonNumber } from '../protocol/json.js';
import { formatMinor, type Currencies } from '../protocol/money.js';
import type { PayoutRequest, TransactionRequest } from '../protocol/schemas.js';
import type { PayoutTerms, PlannedRound, SessionFacts } from './facts.js';

/** A request type as it goes on the wire: every number in it (each one an amount) exact text, never a double. */
export type OnWire<T> = T extends number
  ? RawJsonNumber
  : T extends readonly (infer U)[]
    ? OnWire<U>[]
    : T extends object
      ? { [K in keyof T]: OnWire<T[K]> }
      : T;

/** The request of a real round, as it is enqueued. */
export const ROUND_REQUEST = { kind: 'bet', path: '/transaction' } as const;

/** The request of a payout, as it is enqueued; its ordering key is the payout id. */
export const PAYOUT_REQUEST = { kind: 'payout', path: '/payout' } as const;

/** What one /transaction request says, in minor units: whose session, which round, what it books. */
export interface TransactionFacts {
  session: Pick<SessionFacts, 'operatorSessionId' | 'playerId' | 'game'>;
  roundId: string;
  /** round.finished: the request closes the round. */
  finished: boolean;
  transactions: readonly CallTransaction[];
  /** A free-bets campaign's round (§6.6). */
  campaign?: { id: string; type: 'freeBets'; finished: boolean };
}

/** The /transaction request of `facts`, amounts in the currency's major units. Only a real session's rounds are sent. */
export function transactionBody(facts: TransactionFacts, decimals: number): OnWire<TransactionRequest> {
  const { session } = facts;
  assert.ok(
    session.operatorSessionId !== null && session.playerId !== null,
    "a round's request is of a real session, which has the operator's session and player",
  );
  const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
  return {
    sessionId: session.operatorSessionId,
    playerId: session.playerId,
    game: session.game,
    transactions: facts.transactions.map((tx) => ({
      id: tx.id,
      type: tx.type,
      amount: amount(tx.amountMinor),
      ...(tx.jpAmountMinor === undefined ? {} : { jpAmount: amount(tx.jpAmountMinor) }),
    })),
    round: { id: facts.roundId, finished: facts.finished },
    ...(facts.campaign === undefined ? {} : { campaign: facts.campaign }),
  };
}

/** The one serialisation of a body: the exact bytes signed, stored and sent. */
export function bodyText(body: OnWire<TransactionRequest> | OnWire<PayoutRequest>): string {
  return stringify(body);
}

/**
 * A dice round's one request: its bet and its win together, finishing the
 * round (docs/protocol.md §6: a one-step game), with its campaign when it
 * is a free round.
 */
export function diceRoundBody(
  round: Pick<PlannedRound, 'roundId' | 'betTxId' | 'winTxId' | 'betMinor' | 'winMinor' | 'campaignId' | 'campaignFinished'>,
  session: TransactionFacts['session'],
  decimals: number,
): string {
  assert.ok(round.betTxId !== null && round.winTxId !== null, `real round ${round.roundId} has its transaction ids`);
  return bodyText(
    transactionBody(
      {
        session,
        roundId: round.roundId,
        finished: true,
        transactions: [
          { id: round.betTxId, type: 'bet', amountMinor: round.betMinor },
          { id: round.winTxId, type: 'win', amountMinor: round.winMinor },
        ],
        ...(round.campaignId === null ? {} : { campaign: { id: round.campaignId, type: 'freeBets', finished: round.campaignFinished === true } }),
      },
      decimals,
    ),
  );
}

/** One call of a reels round (src/game/reels-calls.ts) as its request. */
export function reelsCallBody(call: RoundCall, roundId: string, session: TransactionFacts['session'], decimals: number): string {
  return bodyText(
    transactionBody(
      { session, roundId, finished: call.finished, transactions: call.transactions, ...(call.campaign === undefined ? {} : { campaign: call.campaign }) },
      decimals,
    ),
  );
}

/** The /payout request of a tournament prize on the player's session at the operator. */
export function payoutBody(
  payout: Pick<PayoutTerms, 'payoutId' | 'amountMinor' | 'campaignId'>,
  operatorSessionId: string,
  decimals: number,
): OnWire<PayoutRequest> {
  return {
    sessionId: operatorSessionId,
    payoutId: payout.payoutId,
    amount: raw(formatMinor(payout.amountMinor, decimals)),
    campaign: { id: payout.campaignId, type: 'tournament' },
  };
}

/**
 * A payout's /payout request, checked against the session it names (the
 * player's latest real session at the operator, undefined if none):
 * refused with nothing to write when the currency is unknown, the amount
 * not positive, the player has no such session or plays in another
 * currency.
 */
export function payoutRequest(
  asked: PayoutTerms,
  session: Pick<SessionFacts, 'operatorSessionId' | 'currency'> | undefined,
  currencies: Currencies,
): { ok: true; operatorSessionId: string; body: string } | Refusal {
  const decimals = currencies.decimals(asked.currency);
  if (decimals === undefined) return refuse('INVALID_REQUEST', `currency: ${asked.currency} is not a currency this provider knows`);
  if (asked.amountMinor <= 0n) return refuse('INVALID_REQUEST', 'amount: must be greater than 0');
  if (session === undefined || session.operatorSessionId === null) {
    return refuse(
      'SESSION_NOT_FOUND',
      `player ${asked.playerId} has no real game session at operator ${asked.operatorId}: a prize is paid on a session of the player's, so the player must have played here at that operator first`,
    );
  }
  if (session.currency !== asked.currency) {
    return refuse('INVALID_REQUEST', `currency: player ${asked.playerId} plays in ${session.currency} at operator ${asked.operatorId}, not ${asked.currency}`);
  }
  const operatorSessionId = session.operatorSessionId;
  return { ok: true, operatorSessionId, body: bodyText(payoutBody(asked, operatorSessionId, decimals)) };
}
