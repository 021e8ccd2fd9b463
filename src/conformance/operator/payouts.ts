/**
 * Payouts (docs/protocol.md §7): a campaign's prize is credited once per
 * payoutId, for any session that existed (expired, or of a blocked player),
 * with its amount greater than 0, and the order of checks of §7.
 */
import type { Role } from '../case-model.js';
import { call, operatorCases, pay, probe, refusal, tx, UNKNOWN_SESSION, type CaseSpec, type PayoutSpec } from './define.js';

const CONFLICT = refusal('DUPLICATE_CONFLICT', 'unchanged');
const REFUSED = refusal('INVALID_REQUEST');
const FIRST: PayoutSpec = { id: 'p1', amount: '5', campaign: 'c1' };

/** Payout p1 of 5 for campaign c1, then p1 again with one part of its content changed: a 409 that credits nothing. */
function conflict(id: string, what: string, say: string, changed: Partial<PayoutSpec>, other?: Role): CaseSpec {
  return {
    id: `conflict-${id}`,
    title: `a payoutId seen with ${what} is a 409 DUPLICATE_CONFLICT`,
    clause: 'docs/protocol.md §7',
    ...(other === undefined ? {} : { players: { other: { currency: 'EUR', balance: '100' } } }),
    steps: [
      pay('payout 5 (p1) for campaign c1', FIRST, { status: 200, balance: '+5' }),
      pay(say, { ...FIRST, ...changed }, CONFLICT),
      probe('nothing more was credited', undefined, other),
    ],
  };
}

export const PAYOUTS_CASES = operatorCases('payouts', [
  {
    id: 'credits',
    title: 'a payout credits the player by its amount',
    clause: 'docs/protocol.md §7',
    steps: [pay('payout 25.5', { amount: '25.5' }, { status: 200, balance: '+25.5' }), probe('the balance stays credited')],
  },
  {
    id: 'replay-once',
    title: 'a payout sent again is credited once and answers 200',
    clause: 'docs/protocol.md §7',
    steps: [
      pay('payout 5 (p1)', { id: 'p1', amount: '5' }, { status: 200, balance: '+5' }, { keep: 'payout' }),
      call({ say: 'send it again', endpoint: '/payout', resend: 'payout', expect: { status: 200, balance: 'unchanged' } }),
      probe('it was credited once'),
    ],
  },
  conflict('amount', 'another amount', 'p1 with amount 6', { amount: '6' }),
  conflict('campaign', 'another campaign', 'p1 for campaign c2', { campaign: 'c2' }),
  conflict('player', "another session's player", "p1 through the other player's session", { session: 'other' }, 'other'),
  {
    id: 'conflict-transaction-id',
    title: 'a payoutId that is a transaction id already booked is a 409 DUPLICATE_CONFLICT: the ids share one space',
    clause: 'docs/protocol.md §7',
    steps: [
      tx('bet 1 under id b1', { transactions: [{ id: 'b1', type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }),
      pay('payout 1 with payoutId b1', { id: 'b1', amount: '1' }, CONFLICT),
      probe('the payout was not credited'),
    ],
  },
  {
    id: 'replay-other-session',
    title: 'a payout sent again through another session of the same player is a replay',
    clause: 'docs/protocol.md §7',
    steps: [
      { kind: 'session', say: 'open a second session of the player', name: 'second' },
      pay('payout 5 (p1)', { id: 'p1', amount: '5', campaign: 'c1' }, { status: 200, balance: '+5' }),
      pay('p1 through the second session', { session: 'second', id: 'p1', amount: '5', campaign: 'c1' }, { status: 200, balance: 'unchanged' }),
      probe('it was credited once'),
    ],
  },
  {
    id: 'zero-refused',
    title: 'a payout of 0 is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §7',
    steps: [pay('payout 0', { amount: '0' }, REFUSED), probe()],
  },
  {
    id: 'negative-refused',
    title: 'a negative payout is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §4.3',
    steps: [pay('payout -1', { amount: '-1' }, REFUSED), probe()],
  },
  {
    id: 'type-tournament-only',
    title: 'a payout whose campaign.type is not "tournament" is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §7',
    steps: [pay('payout 1 with campaign.type "freeBets"', { amount: '1', campaignType: 'freeBets' }, REFUSED), probe()],
  },
  {
    id: 'unknown-session',
    title: 'a payout naming a session nobody issued is refused with 404 SESSION_NOT_FOUND',
    clause: 'docs/protocol.md §7',
    steps: [pay('payout 1 to an unknown session', { amount: '1', override: UNKNOWN_SESSION }, { status: 404, code: 'SESSION_NOT_FOUND' }), probe()],
  },
  {
    id: 'order-session-before-amount',
    title: 'a payout of 0 naming an unknown session is answered 404 before the amount is judged',
    clause: 'docs/protocol.md §7',
    steps: [pay('payout 0 to an unknown session', { amount: '0', override: UNKNOWN_SESSION }, { status: 404, code: 'SESSION_NOT_FOUND' })],
  },
  {
    id: 'expired-session',
    title: 'a payout is credited on an expired session',
    clause: 'docs/protocol.md §7',
    needs: ['clock'],
    steps: [
      { kind: 'wait', say: 'wait until the session has expired', until: 'session-expired' },
      pay('payout 2 on the expired session', { amount: '2' }, { status: 200, balance: '+2' }),
      { kind: 'probe', say: 'the balance, through a new session', fresh: true },
    ],
  },
  {
    id: 'blocked-player',
    title: 'a payout is credited to a blocked player: a prize won is paid',
    clause: 'docs/protocol.md §7',
    needs: ['block'],
    steps: [
      { kind: 'block', say: 'block the player' },
      pay('payout 3', { amount: '3' }, { status: 200, balance: '+3' }),
      { kind: 'unblock', say: 'unblock the player' },
      probe('the balance stays credited'),
    ],
  },
]);
