/**
 * A wallet call's body, checked once at the edge and handed on as a type
 * that says what was checked (docs/protocol.md §6, §7): every id in its
 * canonical form, every amount an exact decimal (never a double), and the
 * rules that need no storage judged (transactions per request, an id twice
 * in one request, `jpAmount` over `amount`, a free-bets campaign without its
 * id). The ledger's rules and the stores take these types and do not check
 * or convert again what they guarantee; what needs the player's currency
 * (decimals, the largest amount) is judged by the rules against the
 * snapshot. Pure: no I/O.
 */
import assert from 'node:assert/strict';
import { refuse } from './errors.js';
import { decimalAtMost, decimalFromNumber, type Decimal } from './money.js';
import type { PayoutRequest, TransactionRequest } from './schemas.js';
import type { Checked } from './validate.js';

/** Idempotency ids (and every UUID) are compared in one canonical form: lower case. */
export function canonicalUuid(id: string): string {
  return id.toLowerCase();
}

/**
 * The ids as the caller wrote them, by canonical id, for refusals to quote
 * them as sent; absent when every id was sent canonical (nearly always: a
 * UUID generator writes lower case).
 */
export type ShownIds = Readonly<Record<string, string>>;

export interface CheckedWalletTransaction {
  /** Canonical. */
  id: string;
  type: 'bet' | 'win';
  amount: Decimal;
  /** At most `amount` (judged here); absent when the request had none. */
  jpAmount?: Decimal | undefined;
}

export interface CheckedTransaction {
  /** Canonical. */
  sessionId: string;
  playerId: string;
  game: string;
  /** At least one, at most the server's limit, no id twice. */
  transactions: CheckedWalletTransaction[];
  /** `id` canonical. */
  round: { id: string; finished: boolean };
  /** `id` canonical; present whenever `type` is freeBets or `finished` is true. */
  campaign?: { id?: string | undefined; type?: 'freeBets' | undefined; finished?: boolean | undefined } | undefined;
  regulatory?: string | undefined;
  shown?: ShownIds | undefined;
}

export interface CheckedPayout {
  /** Canonical. */
  sessionId: string;
  /** Canonical. */
  payoutId: string;
  amount: Decimal;
  /** `id` canonical. */
  campaign: { id: string; type: 'tournament' };
  shown?: ShownIds | undefined;
}

/** An id as the caller sent it, for a refusal's detail. */
export function shownId(request: { shown?: ShownIds | undefined }, id: string): string {
  return request.shown?.[id] ?? id;
}

/** Collects the ids sent in another form than their canonical one. */
class Canonical {
  shown: Record<string, string> | undefined;

  id(sent: string): string {
    const id = canonicalUuid(sent);
    if (id !== sent) (this.shown ??= {})[id] = sent;
    return id;
  }
}

/**
 * An amount of a body that its reader let through (compileBody: the schema's
 * minimum, no -0, no number a double may have rounded), as the decimal it
 * was sent as. A reader that let another through is a programmer's error.
 */
function exact(value: number): Decimal {
  const decimal = decimalFromNumber(value);
  assert.ok(decimal !== undefined, `an amount of ${value} passed the body reader`);
  return decimal;
}

/**
 * A /transaction body that passed its reader (schema, exact money), checked
 * for the rules that need no storage and handed on canonical and exact, or
 * the refusal (400 INVALID_REQUEST).
 */
export function checkTransaction(request: TransactionRequest, transactionsMax: number): Checked<CheckedTransaction> {
  if (request.transactions.length > transactionsMax) {
    return refuse('INVALID_REQUEST', `transactions: at most ${transactionsMax} items are allowed, got ${request.transactions.length}`);
  }
  const canonical = new Canonical();
  const ids = new Set<string>();
  const transactions: CheckedWalletTransaction[] = [];
  for (const [index, tx] of request.transactions.entries()) {
    const id = canonical.id(tx.id);
    if (ids.has(id)) return refuse('INVALID_REQUEST', `transactions[${index}].id: ${tx.id} appears twice in the request`);
    ids.add(id);
    const amount = exact(tx.amount);
    const jpAmount = tx.jpAmount === undefined ? undefined : exact(tx.jpAmount);
    if (jpAmount !== undefined && !decimalAtMost(jpAmount, amount)) {
      return refuse('INVALID_REQUEST', `transactions[${index}].jpAmount: ${tx.jpAmount} is more than amount ${tx.amount}`);
    }
    transactions.push(jpAmount === undefined ? { id, type: tx.type, amount } : { id, type: tx.type, amount, jpAmount });
  }
  // A free bet is booked to its campaign's account and a campaign is closed by its id: without one, the
  // bet would land on an unnamed campaign and `finished` would close nothing (docs/protocol.md §6.6).
  const campaign = request.campaign;
  if (campaign?.id === undefined) {
    if (campaign?.type === 'freeBets') return refuse('INVALID_REQUEST', 'campaign.id: is required for a freeBets campaign');
    if (campaign?.finished === true) return refuse('INVALID_REQUEST', 'campaign.id: is required with campaign.finished');
  }
  const checked: CheckedTransaction = {
    sessionId: canonical.id(request.sessionId),
    playerId: request.playerId,
    game: request.game,
    transactions,
    round: { id: canonical.id(request.round.id), finished: request.round.finished },
  };
  if (campaign !== undefined) {
    checked.campaign = {};
    if (campaign.id !== undefined) checked.campaign.id = canonical.id(campaign.id);
    if (campaign.type !== undefined) checked.campaign.type = campaign.type;
    if (campaign.finished !== undefined) checked.campaign.finished = campaign.finished;
  }
  if (request.regulatory !== undefined) checked.regulatory = request.regulatory;
  if (canonical.shown !== undefined) checked.shown = canonical.shown;
  return { ok: true, value: checked };
}

/** A /payout body that passed its reader, canonical and exact (it has no rule that needs no storage). */
export function checkPayout(request: PayoutRequest): CheckedPayout {
  const canonical = new Canonical();
  const checked: CheckedPayout = {
    sessionId: canonical.id(request.sessionId),
    payoutId: canonical.id(request.payoutId),
    amount: exact(request.amount),
    campaign: { id: canonical.id(request.campaign.id), type: request.campaign.type },
  };
  if (canonical.shown !== undefined) checked.shown = canonical.shown;
  return checked;
}

/**
 * For callers that build a request themselves rather than read one (tests,
 * the bench): the checked form of a request they know to be valid, with no
 * limit of transactions; throws on one the edge would refuse.
 */
export function checkedTransaction(request: TransactionRequest): CheckedTransaction {
  const checked = checkTransaction(request, Number.MAX_SAFE_INTEGER);
  if (!checked.ok) throw new Error(`not a valid transaction request: ${checked.detail}`);
  return checked.value;
}
