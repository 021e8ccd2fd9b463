/**
 * The back office's items: a payout, an outbox item, a round (a reels
 * round with its calls, each with the transactions its exact body books),
 * as the admin routes answer them, amounts as exact JSON numbers.
 */
import assert from 'node:assert/strict';
import type { OutboxItem } from '../../../dispatch/outbox.js';
import { raw } from '../../../protocol/json.js';
import { formatMinor } from '../../../protocol/money.js';
import type { PayoutRow, RoundCallRow, RoundRow } from '../../store/provider-store.js';

const iso = (ms: number | undefined | null) => (ms === undefined || ms === null ? null : new Date(ms).toISOString());

export function payoutItem(payout: PayoutRow, decimals: number) {
  const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
  return {
    payoutId: payout.payoutId,
    status: payout.status,
    operatorId: payout.operatorId,
    playerId: payout.playerId,
    currency: payout.currency,
    amount: amount(payout.amountMinor),
    campaignId: payout.campaignId,
    sessionId: payout.operatorSessionId,
    outboxItemId: payout.dispatchItemId,
    attempts: payout.attempts,
    balanceAfter: payout.balanceAfterMinor === null ? null : amount(payout.balanceAfterMinor),
    refusalCode: payout.refusalCode,
    refusalDetail: payout.refusalDetail,
    createdAt: iso(payout.createdAt),
    settledAt: iso(payout.settledAt),
  };
}

/** An item as the back office lists it; its body only when asked for. */
export function outboxItemView(item: OutboxItem, now: number, withBody: boolean) {
  return {
    id: item.id,
    operatorId: item.operatorId,
    orderingKey: item.orderingKey,
    sequence: item.sequence,
    kind: item.kind,
    path: item.path,
    status: item.status,
    inFlight: inFlight(item, now),
    attempts: item.attempts,
    nextAttemptAt: item.status === 'pending' ? iso(item.nextAttemptAt) : null,
    lastAnswer: item.lastAnswer ?? null,
    resolution: item.resolution ?? null,
    createdAt: iso(item.createdAt),
    finishedAt: iso(item.finishedAt),
    ...(withBody ? { body: item.body.toString('utf8') } : {}),
  };
}

function inFlight(item: OutboxItem, now: number): boolean {
  return item.status === 'pending' && item.leaseExpiresAt !== undefined && item.leaseExpiresAt > now;
}

/** Why retry or resolve did not apply to an item, for the person who asked. */
export function stateDetail(item: OutboxItem, action: string, now: number): string {
  if (inFlight(item, now)) {
    return `item ${item.id} is in flight (leased to ${item.leaseOwner} until ${iso(item.leaseExpiresAt)}); ${action} it once that attempt has its answer`;
  }
  return `item ${item.id} is ${item.status}; only a parked item, or a pending one not in flight, can be ${action === 'retry' ? 'retried' : 'resolved'}`;
}

/**
 * The transactions of a request body with their amounts as the body spells
 * them: JSON.parse would read them as doubles. The body is ours
 * (src/rounds/bodies.ts): each transaction's members in the order id, type,
 * amount, jpAmount, and no other member named amount.
 */
function transactionsOf(body: string) {
  const parsed = JSON.parse(body) as { transactions: { id: string; type: string; jpAmount?: number }[] };
  const amounts = [...body.matchAll(/"(amount|jpAmount)":(-?[0-9.eE+]+)/g)];
  let next = 0;
  const take = (name: string) => {
    const found = amounts[next++];
    assert.ok(found && found[1] === name, `the body spells ${name} where expected`);
    return raw(found[2]!);
  };
  return parsed.transactions.map((tx) => ({
    id: tx.id,
    type: tx.type,
    amount: take('amount'),
    ...(tx.jpAmount === undefined ? {} : { jpAmount: take('jpAmount') }),
  }));
}

/** A reels round's part of the back office's round: its progress and its calls, each with the transactions it books (the exact body's). */
function reelsItem(round: RoundRow, calls: RoundCallRow[], decimals: number) {
  const reels = round.reels!;
  const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
  return {
    freeSpins: reels.freeSpins,
    freeSpinsPlayed: reels.freeSpinsPlayed,
    jackpotContribution: amount(reels.jackpotContributionMinor),
    jackpotWin: reels.jackpotWinMinor === null ? null : amount(reels.jackpotWinMinor),
    completedAt: iso(reels.completedAt),
    calls: calls.map((call) => ({
      index: call.index,
      status: call.status,
      refusalCode: call.refusalCode,
      transactions: transactionsOf(call.body),
      finishedAt: iso(call.finishedAt),
    })),
  };
}

export function roundItem(round: RoundRow, decimals: number, calls: RoundCallRow[] = []) {
  const amount = (minor: bigint) => raw(formatMinor(minor, decimals));
  return {
    roundId: round.roundId,
    kind: round.kind,
    status: round.status,
    mode: round.mode,
    operatorId: round.operatorId,
    playerId: round.playerId,
    game: round.game,
    currency: round.currency,
    bet: amount(round.betMinor),
    win: amount(round.winMinor),
    betTransactionId: round.betTxId,
    winTransactionId: round.winTxId,
    campaignId: round.campaignId,
    campaignFinished: round.campaignFinished,
    chancePct: round.chancePct,
    threshold: round.threshold,
    roll: round.roll,
    nonce: round.nonce,
    serverSeedHash: round.serverSeedHash,
    // A refused round never happened for the player; its seed stays unrevealed. A seed not yet revealed (a reels round's free spins
    // still to play) is null in the store itself: only its commitment is shown.
    serverSeed: round.status === 'refused' ? null : round.serverSeed,
    clientSeed: round.clientSeed,
    refusalCode: round.refusalCode,
    balanceAfter: round.balanceAfterMinor === null ? null : amount(round.balanceAfterMinor),
    attempts: round.attempts,
    createdAt: new Date(round.createdAt).toISOString(),
    settledAt: iso(round.settledAt),
    ...(round.reels === null ? {} : { reels: reelsItem(round, calls, decimals) }),
  };
}
