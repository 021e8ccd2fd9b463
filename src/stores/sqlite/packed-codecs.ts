/**
 * The packed forms of the call nearly every request makes (a transaction)
 * and of its answer (a balance), for the hand-off between the HTTP thread
 * and the SQLite writer (handoff.ts), which uses them for the operations
 * that declare them (sqlite-operations.ts).
 *
 * Within the hand-off's JSON they cross as flat arrays in a fixed order
 * rather than as nested objects: JSON.parse builds an array of strings and
 * numbers for less than half of what it spends building objects whose
 * members it must name, and the writer parses every call of every batch.
 * Under the bench's single-bet load its JSON took about 30% of the writer
 * thread's time as objects (docs/performance.md). A call or answer holding
 * any member that is not listed below (a campaign, an extra member a
 * provider sent) crosses as its object, so nothing is ever dropped on the
 * way. Pure: no I/O.
 */
import type { Refusal } from '../../protocol/errors.js';
import type { TransactionRequest } from '../../protocol/schemas.js';
import type { BalanceOutcome, Booked, TransactionCommand } from '../store.js';
import type { Packed, PackedCodec } from './handoff-codec.js';

/** The members a packed transaction call and a packed balance carry, each in its place below; tests hold these to the schemas. */
export const PACKED_MEMBERS = {
  command: ['request', 'now'],
  request: ['sessionId', 'playerId', 'game', 'transactions', 'round', 'regulatory'],
  round: ['id', 'finished'],
  transaction: ['id', 'type', 'amount', 'jpAmount'],
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

const COMMAND_FIELDS = 7;
const TRANSACTION_FIELDS = 4;

/**
 * [op, call id, sessionId, playerId, game, round id, round finished,
 * regulatory or null, now, then per transaction: id, type, amount, jpAmount
 * or null].
 */
export const PACKED_TRANSACTION_COMMAND: PackedCodec<TransactionCommand> = {
  packs(command): command is TransactionCommand {
    const { request } = command;
    return (
      holdsOnly(command, PACKED_MEMBERS.command) &&
      holdsOnly(request, PACKED_MEMBERS.request) &&
      holdsOnly(request.round, PACKED_MEMBERS.round) &&
      request.transactions.every((tx) => holdsOnly(tx, PACKED_MEMBERS.transaction))
    );
  },
  pack(command, op, id) {
    const { request } = command;
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
    ];
    for (const tx of request.transactions) packed.push(tx.id, tx.type, tx.amount, tx.jpAmount ?? null);
    return packed;
  },
  unpack(packed) {
    const transactions: TransactionRequest['transactions'] = [];
    for (let at = HEAD + COMMAND_FIELDS; at < packed.length; at += TRANSACTION_FIELDS) {
      const id = packed[at] as string;
      const type = packed[at + 1] as 'bet' | 'win';
      const amount = packed[at + 2] as number;
      const jpAmount = packed[at + 3] as number | null;
      transactions.push(jpAmount === null ? { id, type, amount } : { id, type, amount, jpAmount });
    }
    const request: TransactionRequest = {
      sessionId: packed[HEAD] as string,
      playerId: packed[HEAD + 1] as string,
      game: packed[HEAD + 2] as string,
      transactions,
      round: { id: packed[HEAD + 3] as string, finished: packed[HEAD + 4] as boolean },
    };
    const regulatory = packed[HEAD + 5] as string | null;
    if (regulatory !== null) request.regulatory = regulatory;
    return { request, now: packed[HEAD + 6] as number };
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
