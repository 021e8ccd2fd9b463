/**
 * Proves that a reels round becomes /transaction requests the interface
 * accepts (src/game/reels-calls.ts): each body, written as the provider
 * writes it, passes the protocol's schema and prechecks, and the wallet's
 * own rules (src/ledger/rules.ts) book the requests in order: the first
 * opens the round, every later one finds it open, the last closes it; the
 * balance moves by the wins less the bet, or by the wins alone for a free
 * bet; jpAmount is booked with the bet and the jackpot win.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { drawSource } from '../../src/game/fairness.js';
import { FREE_SPINS_AWARD, FREE_SPINS_MAX, playRound, type ReelsRound, type ReelsRules } from '../../src/game/reels.js';
import { roundCalls, type RoundCall, type TransactionSlot } from '../../src/game/reels-calls.js';
import { DEFAULT_RULES, planTransaction, type PlannedTransfer, type RoundState, type SeenTransfer } from '../../src/ledger/rules.js';
import { canonicalUuid, checkTransaction } from '../../src/protocol/checked-requests.js';
import { formatMinor } from '../../src/protocol/money.js';
import { TRANSACTIONS_PER_REQUEST_MAX, TransactionRequest } from '../../src/protocol/schemas.js';
import { compile } from '../../src/protocol/validate.js';

const RULES: ReelsRules = { rtpBp: 9600, jackpotBp: 100 };
const SEED = '42a74d918d42681cb18a700cdf117f54c16110cc50a95bc18fab3512221c1e82';
const DECIMALS = 2;
const NOW = 1_000_000_000;
const checkBody = compile(TransactionRequest);

const ids = () => {
  const asked: TransactionSlot[] = [];
  return { asked, newId: (slot: TransactionSlot) => (asked.push(slot), randomUUID()) };
};
const played = (nonce: number) => playRound(RULES, 100n, drawSource(SEED, 'golden', nonce));

/** A wallet of one player, kept by the pure rules: what a store would write, in memory. */
class Wallet {
  readonly sessionId = randomUUID();
  readonly seen = new Map<string, SeenTransfer>();
  readonly booked: PlannedTransfer[] = [];
  round: RoundState | undefined;
  campaignFinished = false;
  constructor(public balance: bigint) {}

  /** Writes the call as the provider's body, checks it as the operator does, and books it. */
  send(call: RoundCall, roundId: string): void {
    const amount = (minor: bigint) => Number(formatMinor(minor, DECIMALS));
    const body = {
      sessionId: this.sessionId,
      playerId: 'p1',
      game: 'reels',
      transactions: call.transactions.map((tx) => ({
        id: tx.id,
        type: tx.type,
        amount: amount(tx.amountMinor),
        ...(tx.jpAmountMinor === undefined ? {} : { jpAmount: amount(tx.jpAmountMinor) }),
      })),
      round: { id: roundId, finished: call.finished },
      ...(call.campaign === undefined ? {} : { campaign: call.campaign }),
    };
    const checked = checkBody.check(JSON.parse(JSON.stringify(body)));
    if (!checked.ok) assert.fail(`${checked.code} ${checked.detail}`);
    const edge = checkTransaction(checked.value, TRANSACTIONS_PER_REQUEST_MAX);
    if (!edge.ok) assert.fail(`${edge.code} ${edge.detail}`);
    const plan = planTransaction(
      edge.value,
      {
        session: { sessionId: this.sessionId, playerId: 'p1', game: 'reels', lastActiveAt: NOW, integrationId: 'default' },
        player: { playerId: 'p1', currency: 'EUR', decimals: DECIMALS, balance: this.balance, blocked: false },
        seen: this.seen,
        round: this.round,
        campaignFinished: this.campaignFinished,
        now: NOW,
        integrationId: 'default',
      },
      DEFAULT_RULES,
    );
    if (!plan.ok) assert.fail(`refused: ${plan.code} ${plan.detail}`);
    assert.equal(plan.createRound, this.round === undefined, 'only the first request creates the round');
    this.balance = plan.balanceAfter;
    this.round = { playerId: 'p1', game: 'reels', finished: plan.closeRound, integrationId: 'default' };
    if (plan.closeCampaign !== undefined) this.campaignFinished = true;
    for (const transfer of plan.transfers) {
      this.booked.push(transfer);
      this.seen.set(transfer.id, {
        kind: transfer.kind,
        playerId: 'p1',
        roundId: canonicalUuid(roundId),
        campaignId: call.campaign?.id ?? null,
        amount: transfer.amount,
        jpAmount: transfer.jpAmount,
      });
    }
  }
}

/** Sends a round's calls in order; the round stays open until the last. */
function book(wallet: Wallet, calls: RoundCall[]): void {
  const roundId = randomUUID();
  for (const [index, call] of calls.entries()) {
    assert.equal(call.finished, index === calls.length - 1, 'only the last request finishes the round');
    wallet.send(call, roundId);
    assert.equal(wallet.round?.finished, index === calls.length - 1);
  }
}

test('a round without free spins: the bet opens it, the base win (even 0) closes it', () => {
  const round = played(0);
  assert.equal(round.freeSpins.length, 0);
  const { asked, newId } = ids();
  const calls = roundCalls(round, { newId });
  assert.deepEqual(
    calls.map((call) => [call.finished, call.transactions.map((tx) => [tx.type, tx.amountMinor, tx.jpAmountMinor])]),
    [
      [false, [['bet', 100n, 1n]]],
      [true, [['win', round.base.winMinor, undefined]]],
    ],
  );
  assert.deepEqual(asked, [{ kind: 'bet' }, { kind: 'baseWin' }]);
  const wallet = new Wallet(1000n);
  book(wallet, calls);
  assert.equal(wallet.balance, 1000n - 100n + round.winMinor);
  assert.equal(wallet.booked[0]!.jpAmount, 1n, 'the contribution is booked with the bet');
});

test('a round with free spins: bet, base win, then one request with a win per paying free spin, in order', () => {
  const round = played(385);
  const { asked, newId } = ids();
  const calls = roundCalls(round, { newId });
  assert.equal(calls.length, 3);
  assert.deepEqual(
    calls.map((call) => call.finished),
    [false, false, true],
  );
  assert.deepEqual(
    calls[1]!.transactions.map((tx) => tx.amountMinor),
    [187n],
  );
  assert.deepEqual(
    calls[2]!.transactions.map((tx) => tx.amountMinor),
    [562n, 1405n, 562n, 1124n, 1405n],
  );
  assert.deepEqual(
    asked.filter((slot) => slot.kind === 'freeSpinWin'),
    [3, 5, 10, 13, 18].map((spin) => ({ kind: 'freeSpinWin', spin })),
  );
  const wallet = new Wallet(100n);
  book(wallet, calls);
  assert.equal(wallet.balance, 100n - 100n + 5245n);
});

test('a feature in which no free spin pays closes with a single win of 0', () => {
  // A base spin with stars and nothing on its lines, then ten free spins that pay nothing.
  const stops = [26, 5, 25, ...Array.from({ length: FREE_SPINS_AWARD }, () => [7, 7, 7]).flat()];
  const round = playRound(RULES, 100n, () => stops.shift()!);
  assert.equal(round.freeSpins.length, FREE_SPINS_AWARD);
  assert.equal(round.winMinor, 0n);
  const { asked, newId } = ids();
  const calls = roundCalls(round, { newId });
  assert.deepEqual(calls[2], { transactions: [{ id: calls[2]!.transactions[0]!.id, type: 'win', amountMinor: 0n }], finished: true });
  assert.deepEqual(asked.at(-1), { kind: 'featureClose' });
  const wallet = new Wallet(100n);
  book(wallet, calls);
  assert.equal(wallet.balance, 0n);
});

test('a jackpot round: the pool is a win of its own after the base win, all of it jpAmount', () => {
  const round = played(635);
  assert.equal(round.jackpot, true);
  const { newId } = ids();
  const calls = roundCalls(round, { newId, jackpotWinMinor: 123_456n });
  assert.deepEqual(
    calls[1]!.transactions.map((tx) => [tx.type, tx.amountMinor, tx.jpAmountMinor]),
    [
      ['win', 0n, undefined],
      ['win', 123_456n, 123_456n],
    ],
  );
  const wallet = new Wallet(100n);
  book(wallet, calls);
  assert.equal(wallet.balance, 123_456n);
  assert.equal(wallet.booked.at(-1)!.jpAmount, 123_456n);
  assert.throws(() => roundCalls(round, { newId }), /jackpot/);
  assert.throws(() => roundCalls(played(0), { newId, jackpotWinMinor: 1n }), /jackpot/);
});

test('a free round: every request names the campaign, the bet is not debited, the last free round finishes the campaign with its bet', () => {
  const round = played(385);
  const campaignId = randomUUID();
  const calls = roundCalls(round, { newId: () => randomUUID(), freeBet: { campaignId, finished: true } });
  assert.deepEqual(
    calls.map((call) => call.campaign),
    [
      { id: campaignId, type: 'freeBets', finished: true },
      { id: campaignId, type: 'freeBets', finished: false },
      { id: campaignId, type: 'freeBets', finished: false },
    ],
  );
  assert.equal(calls[0]!.transactions[0]!.jpAmountMinor, 1n, 'a free bet feeds the jackpot like a paid one');
  const wallet = new Wallet(0n);
  book(wallet, calls);
  assert.equal(wallet.balance, 5245n, 'no money left the player: only the wins arrived');
  assert.equal(wallet.campaignFinished, true);
  assert.equal(wallet.booked[0]!.freeBet, true);
  // Not the last free round: the campaign stays open.
  const open = roundCalls(played(0), { newId: () => randomUUID(), freeBet: { campaignId, finished: false } });
  assert.ok(open.every((call) => call.campaign?.finished === false));
});

test('ids come from the caller, one per transaction: a repeated id is refused', () => {
  const same = randomUUID();
  assert.throws(() => roundCalls(played(385), { newId: () => same }), /id of its own/);
});

test('property: every round, free or paid, with or without features, is booked by the wallet rules in order', () => {
  fc.assert(
    // Features come once in a hundred rounds and the jackpot once in 32,768: the known nonces of both are mixed in.
    fc.property(fc.oneof(fc.constantFrom(21, 385, 635), fc.nat({ max: 20_000 })), fc.boolean(), (nonce, free) => {
      const round: ReelsRound = played(nonce);
      const jackpotWinMinor = round.jackpot ? 50_000n : undefined;
      const calls = roundCalls(round, {
        newId: () => randomUUID(),
        ...(jackpotWinMinor === undefined ? {} : { jackpotWinMinor }),
        ...(free ? { freeBet: { campaignId: randomUUID(), finished: false } } : {}),
      });
      assert.equal(calls.length, round.freeSpins.length > 0 ? 3 : 2);
      assert.equal(calls[0]!.transactions.length, 1);
      assert.equal(calls[0]!.transactions[0]!.type, 'bet');
      for (const call of calls) {
        assert.ok(call.transactions.length >= 1 && call.transactions.length <= TRANSACTIONS_PER_REQUEST_MAX);
        assert.ok(call.transactions.every((tx) => tx.amountMinor >= 0n && (tx.jpAmountMinor ?? 0n) <= tx.amountMinor));
      }
      const wallet = new Wallet(round.betMinor);
      book(wallet, calls);
      const paid = free ? 0n : round.betMinor;
      assert.equal(wallet.balance, round.betMinor - paid + round.winMinor + (jackpotWinMinor ?? 0n));
    }),
    { numRuns: 300 },
  );
});

test('the longest feature still fits one request', () => {
  assert.ok(FREE_SPINS_MAX <= TRANSACTIONS_PER_REQUEST_MAX);
});
