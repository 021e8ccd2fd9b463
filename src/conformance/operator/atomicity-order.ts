/**
 * Atomicity and order (docs/protocol.md §6.2, §6.3, §6.9): a request is
 * applied whole or not at all, in array order against the running balance,
 * and a request that breaks several rules is answered the first of them in
 * the order of checks.
 */
import { sign } from '../../protocol/signing.js';
import { operatorCases, probe, refusal, tx, UNKNOWN_SESSION, type CaseSpec, type TxSpec } from './define.js';

const OTHER_SECRET = 'conformance-kit-not-the-secret';

/** On a balance of `balance`, a request the running balance cannot pay is refused with 402, and none of it is applied. */
function refusedWhole(id: string, title: string, clause: string, balance: string, say: string, transactions: TxSpec[]): CaseSpec {
  return {
    id,
    title,
    clause,
    players: { main: { currency: 'EUR', balance } },
    steps: [tx(say, { transactions }, refusal('INSUFFICIENT_FUNDS', 'unchanged')), probe('nothing was applied')],
  };
}

/** On a balance of 10, a request whose bets the running balance pays, in array order, is booked whole: the balance changes by `change`, exactly. */
function paidInOrder(id: string, title: string, say: string, transactions: TxSpec[], change: string): CaseSpec {
  return {
    id,
    title,
    clause: 'docs/protocol.md §6.3',
    players: { main: { currency: 'EUR', balance: '10' } },
    steps: [tx(say, { transactions }, { status: 200, balance: change, exactText: true })],
  };
}

export const ATOMICITY_ORDER_CASES = operatorCases('atomicity-order', [
  refusedWhole(
    'second-bet-refused',
    'when the second bet of a request is refused, the first is not applied either',
    'docs/protocol.md §6.2',
    '10',
    'bet 6 and bet 6 on a balance of 10',
    [
      { type: 'bet', amount: '6' },
      { type: 'bet', amount: '6' },
    ],
  ),
  paidInOrder(
    'bet-then-win',
    '[bet 10, win 5] on a balance of 10 passes: each bet is checked against the running balance',
    'bet 10, then win 5',
    [
      { type: 'bet', amount: '10' },
      { type: 'win', amount: '5' },
    ],
    '-5',
  ),
  refusedWhole(
    'bet-before-its-win',
    '[bet 15, win 5] on a balance of 10 is refused: the win comes after the bet',
    'docs/protocol.md §6.3',
    '10',
    'bet 15, then win 5',
    [
      { type: 'bet', amount: '15' },
      { type: 'win', amount: '5' },
    ],
  ),
  paidInOrder(
    'win-then-bet',
    '[win 5, bet 15] on a balance of 10 passes and leaves 0',
    'win 5, then bet 15',
    [
      { type: 'win', amount: '5' },
      { type: 'bet', amount: '15' },
    ],
    '-10',
  ),
  refusedWhole(
    'two-bets-over-balance',
    '[bet 10, bet 5] on a balance of 12 is refused with 402 and neither bet is applied',
    'docs/protocol.md §6.3',
    '12',
    'bet 10, then bet 5',
    [
      { type: 'bet', amount: '10' },
      { type: 'bet', amount: '5' },
    ],
  ),
  {
    id: 'order-token-before-media-type',
    title: 'an unknown token on a body of another media type is answered 401 INVALID_TOKEN: the token is checked first',
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx(
        'win 1 as text/plain with an unknown token',
        { transactions: [{ type: 'win', amount: '1' }] },
        { status: 401, code: 'INVALID_TOKEN', balance: 'absent' },
        {
          headers: (h) => ({ ...h, 'content-type': 'text/plain', authorization: 'Bearer conformance-kit-not-an-access-token' }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'order-media-type-before-signature',
    title: 'a wrong signature on a body of another media type is answered 415: content type before signature',
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx(
        'win 1 as text/plain, signed with another secret',
        { transactions: [{ type: 'win', amount: '1' }] },
        { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
        {
          headers: (h, bytes) => ({ ...h, 'content-type': 'text/plain', 'x-server-authorization': sign(OTHER_SECRET, bytes) }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'order-session-before-currency',
    title: 'an unknown session is answered 404 before an amount is checked against a currency',
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx(
        'bet 0.001 (too many decimals for EUR) naming a session nobody issued',
        { transactions: [{ type: 'bet', amount: '0.001' }], override: UNKNOWN_SESSION },
        { status: 404, code: 'SESSION_NOT_FOUND' },
      ),
      probe(),
    ],
  },
  {
    id: 'order-mismatch-before-funds',
    title: 'another playerId with a bet over the balance is answered 403 SESSION_MISMATCH before 402',
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx(
        'bet 1000 naming another playerId',
        { transactions: [{ type: 'bet', amount: '1000' }], override: { playerId: 'conformance-someone-else' } },
        { status: 403, code: 'SESSION_MISMATCH', balance: 'unchanged' },
      ),
      probe(),
    ],
  },
  {
    id: 'order-duplicate-before-round',
    title: 'a conflicting id in a closed round is answered 409 DUPLICATE_CONFLICT before ROUND_CLOSED',
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx('bet 1 (b1) in round r1, finishing it', { transactions: [{ id: 'b1', type: 'bet', amount: '1' }], round: 'r1' }, { status: 200, balance: '-1' }),
      tx(
        'b1 with amount 2 in r1',
        { transactions: [{ id: 'b1', type: 'bet', amount: '2' }], round: 'r1' },
        { status: 409, code: 'DUPLICATE_CONFLICT', balance: 'unchanged' },
      ),
      probe(),
    ],
  },
  {
    id: 'order-round-before-funds',
    title: 'a bet over the balance in a closed round is answered 409 ROUND_CLOSED before 402',
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx('bet 1 in round r1, finishing it', { transactions: [{ type: 'bet', amount: '1' }], round: 'r1' }, { status: 200, balance: '-1' }),
      tx(
        'a new bet of 1000 in r1',
        { transactions: [{ type: 'bet', amount: '1000' }], round: 'r1' },
        { status: 409, code: 'ROUND_CLOSED', balance: 'unchanged' },
      ),
      probe(),
    ],
  },
  {
    id: 'order-blocked-before-funds',
    title: 'a bet over the balance of a blocked player is answered 403 PLAYER_BLOCKED before 402',
    clause: 'docs/protocol.md §6.9',
    needs: ['block'],
    steps: [
      { kind: 'block', say: 'block the player' },
      tx('bet 1000', { transactions: [{ type: 'bet', amount: '1000' }] }, { status: 403, code: 'PLAYER_BLOCKED', balance: 'unchanged' }),
      { kind: 'unblock', say: 'unblock the player' },
      probe(),
    ],
  },
]);
