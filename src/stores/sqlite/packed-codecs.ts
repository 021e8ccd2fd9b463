/**
 * The packed forms of the calls nearly every request makes (a transaction,
 * a payout) and of their answer (a balance), for the hand-off between the HTTP thread
 * and the SQLite writer (handoff.ts), which uses them for the operations
 * that declare them (sqlite-operations.ts).
 *
 * Within the hand-off's JSON they cross as flat arrays in a fixed order
 * rather than as nested objects: JSON.parse builds an array of strings and
 * numbers for less than half of what it spends building objects whose
 * members it must name, and the writer parses every call of every batch.
 * Under the bench's single-bet load its JSON took about 30% of the writer
 * thread's time as objects (docs/performance.md). An answer holding any
 * member that is not listed below crosses as its object, so nothing is ever
 * dropped on the way. Pure: no I/O.
 *
 * Every amount crosses exactly: a transaction's as its decimal (units as
 * text, scale), a balance's as the exact text the ledger formatted.
 */
import type { Refusal } from '../../protocol/errors.js';
import type { CheckedPayout, CheckedTransaction, CheckedWalletTransaction, ShownIds } from '../../protocol/checked-requests.js';
import type { BalanceOutcome, Booked, PayoutCommand, TransactionCommand } from '../store.js';
import type { Packed, PackedCodec } from './handoff-codec.js';

/** The members a packed transaction call and a packed balance carry, each in its place below; tests hold these to the checked types. */
export const PACKED_MEMBERS = {
  command: ['request', 'now', 'betsPaused', 'integrationId'],
  request: ['sessionId', 'playerId', 'game', 'transactions', 'round', 'campaign', 'regulatory', 'shown'],
  round: ['id', 'finished'],
  campaign: ['id', 'type', 'finished'],
  transaction: ['id', 'type', 'amount', 'jpAmount'],
  amount: ['units', 'scale'],
  payoutCommand: ['request', 'now', 'integrationId'],
  payout: ['sessionId', 'payoutId', 'amount', 'campaign', 'shown'],
  payoutCampaign: ['id', 'type'],
  balance: ['ok', 'balance', 'currency', 'booked'],
  booked: ['kind', 'amount'],
} as const satisfies Record<string, readonly string[]>;

/** Items 0 and 1 of every packed item are the hand-off's own (the operation and the call id); the fields follow. */
const HEAD = 2;

/** True if every own member of `value` is one of `members` (members left out are allowed: optional ones). */
function holdsOnly(value: object, members: readonly string[]): boolean {
  for (const key in value) if (!members.includes(key)) return false;
  return true;
}

const COMMAND_FIELDS = 14;
const TRANSACTION_FIELDS = 6;

/**
 * [op, call id, sessionId, playerId, game, round id, round finished,
 * regulatory or null, now, campaign given, campaign id, type and finished
 * (each or null), the ids as sent (JSON text) or null, whether the
 * integration's bets are paused, the calling integration's id or null
 * (the environment's), then per
 * transaction: id, type, amount's units and scale, jpAmount's units and
 * scale or nulls]. An amount crosses as its exact decimal: its units as
 * decimal text (a bigint, which JSON cannot carry as a number without
 * rounding past 2^53) and its scale. A checked transaction
 * (src/protocol/checked-requests.ts) holds no member but these, so every
 * one packs.
 */
export const PACKED_TRANSACTION_COMMAND: PackedCodec<TransactionCommand> = {
  packs(command): command is TransactionCommand {
    const { request } = command;
    return (
      holdsOnly(command, PACKED_MEMBERS.command) &&
      holdsOnly(request, PACKED_MEMBERS.request) &&
      holdsOnly(request.round, PACKED_MEMBERS.round) &&
      (request.campaign === undefined || holdsOnly(request.campaign, PACKED_MEMBERS.campaign)) &&
      request.transactions.every(
        (tx) =>
          holdsOnly(tx, PACKED_MEMBERS.transaction) &&
          holdsOnly(tx.amount, PACKED_MEMBERS.amount) &&
          (tx.jpAmount === undefined || holdsOnly(tx.jpAmount, PACKED_MEMBERS.amount)),
      )
    );
  },
  pack(command, op, id) {
    const { request } = command;
    const { campaign } = request;
    const packed: Packed = [
      op,
      id,
      request.sessionId,
      request.playerId,
      request.game,
      request.round.id,
      request.round.finished,
      request.regulatory ?? null,
      command.now,
      campaign !== undefined,
      campaign?.id ?? null,
      campaign?.type ?? null,
      campaign?.finished ?? null,
      request.shown === undefined ? null : JSON.stringify(request.shown),
      command.betsPaused === true,
      command.integrationId ?? null,
    ];
    for (const tx of request.transactions) {
      packed.push(tx.id, tx.type, tx.amount.units.toString(), tx.amount.scale);
      if (tx.jpAmount === undefined) packed.push(null, null);
      else packed.push(tx.jpAmount.units.toString(), tx.jpAmount.scale);
    }
    return packed;
  },
  unpack(packed) {
    const transactions: CheckedWalletTransaction[] = [];
    for (let at = HEAD + COMMAND_FIELDS; at < packed.length; at += TRANSACTION_FIELDS) {
      const id = packed[at] as string;
      const type = packed[at + 1] as 'bet' | 'win';
      const amount = { units: BigInt(packed[at + 2] as string), scale: packed[at + 3] as number };
      const jpUnits = packed[at + 4] as string | null;
      transactions.push(jpUnits === null ? { id, type, amount } : { id, type, amount, jpAmount: { units: BigInt(jpUnits), scale: packed[at + 5] as number } });
    }
    const request: CheckedTransaction = {
      sessionId: packed[HEAD] as string,
      playerId: packed[HEAD + 1] as string,
      game: packed[HEAD + 2] as string,
      transactions,
      round: { id: packed[HEAD + 3] as string, finished: packed[HEAD + 4] as boolean },
    };
    if (packed[HEAD + 7] === true) {
      const campaign: NonNullable<CheckedTransaction['campaign']> = {};
      if (packed[HEAD + 8] !== null) campaign.id = packed[HEAD + 8] as string;
      if (packed[HEAD + 9] !== null) campaign.type = packed[HEAD + 9] as 'freeBets';
      if (packed[HEAD + 10] !== null) campaign.finished = packed[HEAD + 10] as boolean;
      request.campaign = campaign;
    }
    const regulatory = packed[HEAD + 5] as string | null;
    if (regulatory !== null) request.regulatory = regulatory;
    if (packed[HEAD + 11] !== null) request.shown = JSON.parse(packed[HEAD + 11] as string) as ShownIds;
    const now = packed[HEAD + 6] as number;
    const command: TransactionCommand = { request, now };
    if (packed[HEAD + 12] === true) command.betsPaused = true;
    if (packed[HEAD + 13] !== null) command.integrationId = packed[HEAD + 13] as string;
    return command;
  },
};

/**
 * [op, call id, sessionId, payoutId, amount's units and scale, campaign id,
 * campaign type, now, the ids as sent (JSON text) or null, the calling
 * integration's id or null]: a payout's amount crosses as its exact
 * decimal too.
 */
export const PACKED_PAYOUT_COMMAND: PackedCodec<PayoutCommand> = {
  packs(command): command is PayoutCommand {
    const { request } = command;
    return (
      holdsOnly(command, PACKED_MEMBERS.payoutCommand) &&
      holdsOnly(request, PACKED_MEMBERS.payout) &&
      holdsOnly(request.amount, PACKED_MEMBERS.amount) &&
      holdsOnly(request.campaign, PACKED_MEMBERS.payoutCampaign)
    );
  },
  pack({ request, now, integrationId }, op, id) {
    return [
      op,
      id,
      request.sessionId,
      request.payoutId,
      request.amount.units.toString(),
      request.amount.scale,
      request.campaign.id,
      request.campaign.type,
      now,
      request.shown === undefined ? null : JSON.stringify(request.shown),
      integrationId ?? null,
    ];
  },
  unpack(packed) {
    const request: CheckedPayout = {
      sessionId: packed[HEAD] as string,
      payoutId: packed[HEAD + 1] as string,
      amount: { units: BigInt(packed[HEAD + 2] as string), scale: packed[HEAD + 3] as number },
      campaign: { id: packed[HEAD + 4] as string, type: packed[HEAD + 5] as 'tournament' },
    };
    if (packed[HEAD + 7] !== null) request.shown = JSON.parse(packed[HEAD + 7] as string) as ShownIds;
    const command: PayoutCommand = { request, now: packed[HEAD + 6] as number };
    if (packed[HEAD + 8] !== null) command.integrationId = packed[HEAD + 8] as string;
    return command;
  },
};

const BALANCE_FIELDS = 2;
const BOOKING_FIELDS = 2;

/** [op, call id, balance, currency, then per booking: kind, amount]. A refusal crosses as its object. */
export const PACKED_BALANCE: PackedCodec<BalanceOutcome | Refusal, BalanceOutcome> = {
  packs(outcome): outcome is BalanceOutcome {
    return (
      typeof outcome === 'object' &&
      outcome !== null &&
      outcome.ok === true &&
      holdsOnly(outcome, PACKED_MEMBERS.balance) &&
      Array.isArray(outcome.booked) &&
      outcome.booked.every((booked) => holdsOnly(booked, PACKED_MEMBERS.booked))
    );
  },
  pack(outcome, op, id) {
    const packed: Packed = [op, id, outcome.balance, outcome.currency];
    for (const booked of outcome.booked) packed.push(booked.kind, booked.amount);
    return packed;
  },
  unpack(packed) {
    const booked: Booked[] = [];
    for (let at = HEAD + BALANCE_FIELDS; at < packed.length; at += BOOKING_FIELDS) {
      booked.push({ kind: packed[at] as Booked['kind'], amount: packed[at + 1] as string });
    }
    return { ok: true, balance: packed[HEAD] as string, currency: packed[HEAD + 1] as string, booked };
  },
};
