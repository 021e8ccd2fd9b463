/**
 * A played reels round as the /transaction requests that book it
 * (docs/protocol.md §6), in the order they are sent, as pure data: the
 * transactions of each request in minor units, whether it finishes the
 * round, and the campaign member of a free round. The sender adds the
 * session, player, game and round id, and writes amounts in major units.
 *
 * A round is at most three requests:
 *
 *   1. the bet, with its jackpot contribution as jpAmount, and
 *      round.finished false. It goes alone and first: the wallet checks the
 *      funds (§6.3) before the player sees a reel move, and a refused bet
 *      leaves no win to take back;
 *   2. the base spin: its line win, always, even 0 (§6.5: a win of 0 closes
 *      a losing round), then the jackpot pool as a win of its own whose
 *      jpAmount is its whole amount, when the base spin won it. It finishes
 *      the round unless free spins follow;
 *   3. the free spins, when the base spin triggered them: one win per free
 *      spin that paid, in the order played, or a single win of 0 when none
 *      did; round.finished true. One request for the whole feature keeps a
 *      round at three calls however long the feature runs (FREE_SPINS_MAX
 *      wins fit the 100 transactions of §9), and a win per spin keeps each
 *      spin's win on the ledger.
 *
 * A request never has zero transactions (§6: 1 to 100). A round of a
 * free-bets campaign marks every request with campaign {id, type:
 * "freeBets"} (§6.6): the bet is booked to the campaign, not debited from
 * the player. Its `finished: true`, when this round uses the player's last
 * free round, rides on the bet, the request that uses the allocation up, so
 * that no other free round of the campaign can be booked while this one's
 * wins are still on their way. A free bet carries its jackpot contribution
 * like a paid one: it can win the jackpot the same way.
 */
import assert from 'node:assert/strict';
import type { ReelsRound } from './reels.js';

/** Which transaction of the round an id is asked for; the caller may ignore it and hand out fresh ids. */
export type TransactionSlot =
  | { kind: 'bet' }
  | { kind: 'baseWin' }
  | { kind: 'jackpotWin' }
  /** `spin` counts the round's free spins from 1. */
  | { kind: 'freeSpinWin'; spin: number }
  /** The win of 0 that closes a feature in which no free spin paid. */
  | { kind: 'featureClose' };

export interface CallTransaction {
  id: string;
  type: 'bet' | 'win';
  amountMinor: bigint;
  /** The bet's jackpot contribution, or the jackpot win's whole amount; absent on other wins. */
  jpAmountMinor?: bigint;
}

export interface RoundCall {
  transactions: CallTransaction[];
  /** round.finished */
  finished: boolean;
  campaign?: { id: string; type: 'freeBets'; finished: boolean };
}

export interface RoundCallOptions {
  /** A new transaction id per call, unique across the round (§6.4: ids are global). */
  newId: (slot: TransactionSlot) => string;
  /** The pool the round won, when round.jackpot: the provider keeps the pool. */
  jackpotWinMinor?: bigint;
  /** Set for a round of a free-bets campaign; `finished` when it is the player's last free round. */
  freeBet?: { campaignId: string; finished: boolean };
}

export function roundCalls(round: ReelsRound, options: RoundCallOptions): RoundCall[] {
  assert.equal(options.jackpotWinMinor !== undefined, round.jackpot, 'a jackpot amount is given exactly when the round won the jackpot');
  assert.ok(options.jackpotWinMinor === undefined || options.jackpotWinMinor >= 0n, 'a jackpot win is not negative');
  const free = options.freeBet;
  const campaign = (finished: boolean): Pick<RoundCall, 'campaign'> =>
    free === undefined ? {} : { campaign: { id: free.campaignId, type: 'freeBets', finished } };

  const bet: RoundCall = {
    transactions: [{ id: options.newId({ kind: 'bet' }), type: 'bet', amountMinor: round.betMinor, jpAmountMinor: round.jackpotContributionMinor }],
    finished: false,
    ...campaign(free?.finished ?? false),
  };
  const baseWins: CallTransaction[] = [{ id: options.newId({ kind: 'baseWin' }), type: 'win', amountMinor: round.base.winMinor }];
  if (options.jackpotWinMinor !== undefined) {
    baseWins.push({ id: options.newId({ kind: 'jackpotWin' }), type: 'win', amountMinor: options.jackpotWinMinor, jpAmountMinor: options.jackpotWinMinor });
  }
  const calls: RoundCall[] = [bet, { transactions: baseWins, finished: round.freeSpins.length === 0, ...campaign(false) }];
  if (round.freeSpins.length > 0) {
    const paid = round.freeSpins.flatMap((spin, index): CallTransaction[] =>
      spin.winMinor > 0n ? [{ id: options.newId({ kind: 'freeSpinWin', spin: index + 1 }), type: 'win', amountMinor: spin.winMinor }] : [],
    );
    const wins = paid.length > 0 ? paid : [{ id: options.newId({ kind: 'featureClose' }), type: 'win' as const, amountMinor: 0n }];
    calls.push({ transactions: wins, finished: true, ...campaign(false) });
  }
  const ids = calls.flatMap((call) => call.transactions.map((tx) => tx.id));
  assert.equal(new Set(ids).size, ids.length, 'every transaction of a round has an id of its own');
  return calls;
}
