/**
 * Rounds (docs/protocol.md §6.5): the first transaction binds a round to its
 * player and game, a round may span several requests, `finished: true`
 * closes it, and a closed round takes no new transaction ids, though the
 * request that closed it may be sent again.
 */
import { call, operatorCases, probe, refusal, tx } from './define.js';

const CLOSED = refusal('ROUND_CLOSED', 'unchanged');

export const ROUNDS_CASES = operatorCases('rounds', [
  {
    id: 'spans-requests',
    title: 'a round may span several requests until one finishes it',
    clause: 'docs/protocol.md §6.5',
    steps: [
      tx('bet 4 in the open round r1', { transactions: [{ type: 'bet', amount: '4' }], round: { id: 'r1', finished: false } }, { status: 200, balance: '-4' }),
      tx(
        'bet 1 more in r1, still open',
        { transactions: [{ type: 'bet', amount: '1' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: '-1' },
      ),
      tx('win 10 in r1, finishing it', { transactions: [{ type: 'win', amount: '10' }], round: 'r1' }, { status: 200, balance: '+10' }),
    ],
  },
  {
    id: 'closed-takes-no-new-ids',
    title: 'after round.finished closed a round, new ids for it are refused with 409 ROUND_CLOSED, finished or not',
    clause: 'docs/protocol.md §6.5',
    steps: [
      tx('bet 4 in the open round r1', { transactions: [{ type: 'bet', amount: '4' }], round: { id: 'r1', finished: false } }, { status: 200, balance: '-4' }),
      tx('win 6 in r1, finishing it', { transactions: [{ type: 'win', amount: '6' }], round: 'r1' }, { status: 200, balance: '+6' }),
      tx('a new win of 1 in r1, finished: false', { transactions: [{ type: 'win', amount: '1' }], round: { id: 'r1', finished: false } }, CLOSED),
      tx('a new win of 1 in r1, finished: true', { transactions: [{ type: 'win', amount: '1' }], round: 'r1' }, CLOSED),
      probe('nothing was booked after the round closed'),
    ],
  },
  {
    id: 'closed-by-first-request',
    title: 'a round finished by its first request is closed at once',
    clause: 'docs/protocol.md §6.5',
    steps: [
      tx('bet 1 in round r1, finishing it', { transactions: [{ type: 'bet', amount: '1' }], round: 'r1' }, { status: 200, balance: '-1' }),
      tx('a new win of 1 in r1', { transactions: [{ type: 'win', amount: '1' }], round: 'r1' }, CLOSED),
      probe(),
    ],
  },
  {
    id: 'zero-win-closes',
    title: 'a win of 0 closes a losing round',
    clause: 'docs/protocol.md §6.5',
    steps: [
      tx('bet 3 in the open round r1', { transactions: [{ type: 'bet', amount: '3' }], round: { id: 'r1', finished: false } }, { status: 200, balance: '-3' }),
      tx('win 0 in r1, finishing it', { transactions: [{ type: 'win', amount: '0' }], round: 'r1' }, { status: 200, balance: 'unchanged' }),
      tx('a new win of 1 in r1', { transactions: [{ type: 'win', amount: '1' }], round: 'r1' }, CLOSED),
    ],
  },
  {
    id: 'closing-request-replayed',
    title: 'the request that closed a round, sent again, is a replay: 200, booked once',
    clause: 'docs/protocol.md §6.5',
    steps: [
      tx(
        'bet 4 (b1) in the open round r1',
        { transactions: [{ id: 'b1', type: 'bet', amount: '4' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: '-4' },
        { keep: 'bet' },
      ),
      tx('win 6 in r1, finishing it', { transactions: [{ type: 'win', amount: '6' }], round: 'r1' }, { status: 200, balance: '+6' }, { keep: 'closing' }),
      call({ say: 'send the closing request again', endpoint: '/transaction', resend: 'closing', expect: { status: 200, balance: 'unchanged' } }),
      call({ say: 'send the first bet again', endpoint: '/transaction', resend: 'bet', expect: { status: 200, balance: 'unchanged' } }),
      probe('each was booked once'),
    ],
  },
  {
    id: 'closed-seen-beside-new',
    title: 'a seen id beside a new one in a closed round is refused with 409 ROUND_CLOSED and applies nothing',
    clause: 'docs/protocol.md §6.5',
    steps: [
      tx('win 2 (w1) in round r1, finishing it', { transactions: [{ id: 'w1', type: 'win', amount: '2' }], round: 'r1' }, { status: 200, balance: '+2' }),
      tx(
        'w1 again beside a new win of 1',
        {
          transactions: [
            { id: 'w1', type: 'win', amount: '2' },
            { type: 'win', amount: '1' },
          ],
          round: 'r1',
        },
        CLOSED,
      ),
      probe(),
    ],
  },
  {
    id: 'closed-refusal-final',
    title: 'a request refused with ROUND_CLOSED answers the same when sent again',
    clause: 'docs/protocol.md §6.4',
    steps: [
      tx('bet 1 in round r1, finishing it', { transactions: [{ type: 'bet', amount: '1' }], round: 'r1' }, { status: 200, balance: '-1' }),
      tx('a new win of 3 in r1', { transactions: [{ type: 'win', amount: '3' }], round: 'r1' }, CLOSED, { keep: 'late' }),
      call({ say: 'send the late win again', endpoint: '/transaction', resend: 'late', expect: CLOSED }),
      probe(),
    ],
  },
  {
    id: 'other-player',
    title: 'a round of one player sent for another is refused with 409 ROUND_MISMATCH',
    clause: 'docs/protocol.md §6.5',
    players: { other: { currency: 'EUR', balance: '100' } },
    steps: [
      tx(
        'the main player bets 1 in the open round r1',
        { transactions: [{ type: 'bet', amount: '1' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: '-1' },
      ),
      tx(
        'the other player bets 1 in r1',
        { session: 'other', transactions: [{ type: 'bet', amount: '1' }], round: { id: 'r1', finished: false } },
        { status: 409, code: 'ROUND_MISMATCH', balance: 'unchanged' },
        { keep: 'stolen' },
      ),
      call({
        say: 'send it again',
        endpoint: '/transaction',
        session: 'other',
        resend: 'stolen',
        expect: { status: 409, code: 'ROUND_MISMATCH', balance: 'unchanged' },
      }),
      probe('the other player was not debited', undefined, 'other'),
    ],
  },
  {
    id: 'other-game',
    title: 'a round of one game sent in a session of another game is refused with 409 ROUND_MISMATCH, even for the same player',
    clause: 'docs/protocol.md §6.5',
    needs: ['second-game'],
    steps: [
      { kind: 'session', say: 'open a session of the same player on the second game', name: 'second', game: 'other' },
      tx('bet 1 in the open round r1', { transactions: [{ type: 'bet', amount: '1' }], round: { id: 'r1', finished: false } }, { status: 200, balance: '-1' }),
      tx(
        "win 1 in r1 through the second game's session",
        { session: 'second', transactions: [{ type: 'win', amount: '1' }], round: { id: 'r1', finished: false } },
        { status: 409, code: 'ROUND_MISMATCH', balance: 'unchanged' },
      ),
      probe(),
    ],
  },
]);
