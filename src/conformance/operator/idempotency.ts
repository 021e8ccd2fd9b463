/**
 * Idempotency and final refusals (docs/protocol.md §6.4): an id seen before
 * with the same content is not applied again; with other content the whole
 * request is a 409; a refusal of the wallet rules is remembered with its
 * ids and answered again for ever, while refusals the wallet never judged
 * leave the ids free for a corrected request.
 */
import { token } from '../json-text.js';
import type { CallStep, Step } from '../case-model.js';
import { call, operatorCases, probe, refusal, transaction, tx, UNKNOWN_SESSION, type CaseSpec, type TransactionSpec, type TxSpec } from './define.js';

const CONFLICT = refusal('DUPLICATE_CONFLICT', 'unchanged');

/** The ids of a body (its transactions' and its round's) in upper case. */
function upperCaseIds(body: Record<string, unknown>): Record<string, unknown> {
  const round = body.round as { id: string; finished: boolean };
  return {
    ...body,
    transactions: (body.transactions as Record<string, unknown>[]).map((each) => ({ ...each, id: String(each.id).toUpperCase() })),
    round: { ...round, id: round.id.toUpperCase() },
  };
}

/** A bet of 2 under id b1, in the open round r1: what the conflicts below conflict with. */
const OPEN_BET = tx(
  'bet 2 under id b1 in the open round r1',
  { transactions: [{ id: 'b1', type: 'bet', amount: '2' }], round: { id: 'r1', finished: false } },
  { status: 200, balance: '-2' },
);

/** The open bet b1, then b1 with one part of its content changed: a 409 that applies nothing. */
function conflict(id: string, title: string, say: string, changed: TransactionSpec): CaseSpec {
  return { id: `conflict-${id}`, title, clause: 'docs/protocol.md §6.4', steps: [OPEN_BET, tx(say, changed, CONFLICT), probe()] };
}

const INSUFFICIENT = refusal('INSUFFICIENT_FUNDS', 'unchanged');

/**
 * On a balance of 10, a request in round r1 refused for insufficient funds
 * (kept as `refused`), then a win of 100 that would pay for it now, then
 * `then`: a refusal is final, whatever changed since (§6.4), and whatever
 * `then` is answered books nothing.
 */
function refusedThenFunded(id: string, title: string, refused: TxSpec[], then: Step): CaseSpec {
  return {
    id,
    title,
    clause: 'docs/protocol.md §6.4',
    players: { main: { currency: 'EUR', balance: '10' } },
    steps: [
      tx('the request on a balance of 10', { transactions: refused, round: 'r1' }, INSUFFICIENT, { keep: 'refused' }),
      tx('win 100 in another round', { transactions: [{ type: 'win', amount: '100' }] }, { status: 200, balance: '+100' }),
      then,
      probe('nothing of the refused request was booked'),
    ],
  };
}

/** A refusal the wallet never judged, then the same ids, corrected: booked (§6.4 keeps no such refusal). */
function notFinal(id: string, title: string, refused: CallStep): CaseSpec {
  const bet: TransactionSpec = { transactions: [{ id: 'b1', type: 'bet', amount: '1' }], round: 'r1' };
  return {
    id: `not-final-${id}`,
    title,
    clause: 'docs/protocol.md §6.4',
    steps: [refused, tx('bet 1 (b1) in r1, as it should be', bet, { status: 200, balance: '-1' })],
  };
}

export const IDEMPOTENCY_CASES = operatorCases('idempotency', [
  {
    id: 'replay-not-applied',
    title: 'the same request sent again is not applied again and answers 200',
    clause: 'docs/protocol.md §6.4',
    steps: [
      tx(
        'bet 2 and win 1',
        {
          transactions: [
            { type: 'bet', amount: '2' },
            { type: 'win', amount: '1' },
          ],
        },
        { status: 200, balance: '-1' },
        { keep: 'first' },
      ),
      call({ say: 'send the same bytes again', endpoint: '/transaction', resend: 'first', expect: { status: 200, balance: 'unchanged' } }),
      probe('the request was booked once'),
    ],
  },
  {
    id: 'replay-answers-current-balance',
    title: 'a replay answers the balance now, not the balance of its first answer',
    clause: 'docs/protocol.md §6.8',
    steps: [
      tx('bet 2', { transactions: [{ type: 'bet', amount: '2' }] }, { status: 200, balance: '-2' }, { keep: 'first' }),
      tx('win 3 in another round', { transactions: [{ type: 'win', amount: '3' }] }, { status: 200, balance: '+3' }),
      call({ say: 'send the bet again', endpoint: '/transaction', resend: 'first', expect: { status: 200, balance: 'unchanged' } }),
    ],
  },
  {
    id: 'replay-ids-any-case',
    title: 'ids are UUIDs, compared without regard to letter case: the same ids in upper case are a replay',
    clause: 'docs/protocol.md §6.4',
    steps: [
      tx('bet 2 under id b1 in round r1', { transactions: [{ id: 'b1', type: 'bet', amount: '2' }], round: 'r1' }, { status: 200, balance: '-2' }),
      call({
        say: 'the same request with its ids in upper case',
        endpoint: '/transaction',
        body: (ctx) => upperCaseIds(transaction(ctx, { transactions: [{ id: 'b1', type: 'bet', amount: '2' }], round: 'r1' })),
        expect: { status: 200, balance: 'unchanged' },
      }),
      probe('the bet was booked once'),
    ],
  },
  {
    id: 'replay-amount-by-value',
    title: 'amounts are compared by value: 10, 10.0 and 1e1 are the same content',
    clause: 'docs/protocol.md §6.4',
    steps: [
      tx(
        'bet 10 under id b1 in round r1',
        { transactions: [{ id: 'b1', type: 'bet', amount: '10' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: '-10' },
      ),
      tx(
        'the same with amount 10.0',
        { transactions: [{ id: 'b1', type: 'bet', amount: token('10.0') }], round: { id: 'r1', finished: false } },
        { status: 200, balance: 'unchanged' },
      ),
      tx(
        'the same with amount 1e1',
        { transactions: [{ id: 'b1', type: 'bet', amount: token('1e1') }], round: { id: 'r1', finished: false } },
        { status: 200, balance: 'unchanged' },
      ),
      probe('the bet was booked once'),
    ],
  },
  {
    id: 'seen-and-new',
    title: 'a request with seen and new ids applies only the new ones',
    clause: 'docs/protocol.md §6.4',
    steps: [
      tx(
        'bet 3 under id b1 in the open round r1',
        { transactions: [{ id: 'b1', type: 'bet', amount: '3' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: '-3' },
      ),
      tx(
        'b1 again with a new win of 5, closing r1',
        {
          transactions: [
            { id: 'b1', type: 'bet', amount: '3' },
            { type: 'win', amount: '5' },
          ],
          round: 'r1',
        },
        { status: 200, balance: '+5' },
      ),
      probe('b1 was debited once'),
    ],
  },
  {
    id: 'conflict-amount',
    title: 'a seen id with another amount fails the whole request with 409 DUPLICATE_CONFLICT; its new win is not applied',
    clause: 'docs/protocol.md §6.4',
    steps: [
      OPEN_BET,
      tx(
        'a new win of 4, and b1 with amount 3',
        {
          transactions: [
            { type: 'win', amount: '4' },
            { id: 'b1', type: 'bet', amount: '3' },
          ],
          round: { id: 'r1', finished: false },
        },
        CONFLICT,
      ),
      probe('neither the win nor the changed bet was booked'),
    ],
  },
  conflict('type', 'a seen id with another type is a 409 DUPLICATE_CONFLICT', 'b1 as a win of 2', {
    transactions: [{ id: 'b1', type: 'win', amount: '2' }],
    round: { id: 'r1', finished: false },
  }),
  conflict('jp-amount', 'a seen id with another jpAmount is a 409 DUPLICATE_CONFLICT', 'b1 with jpAmount 0.5', {
    transactions: [{ id: 'b1', type: 'bet', amount: '2', jpAmount: '0.5' }],
    round: { id: 'r1', finished: false },
  }),
  conflict('round', 'a seen id in another round is a 409 DUPLICATE_CONFLICT: ids are global', 'b1 in a new round', {
    transactions: [{ id: 'b1', type: 'bet', amount: '2' }],
  }),
  {
    id: 'conflict-player',
    title: 'a seen id sent for another player is a 409 DUPLICATE_CONFLICT: ids are unique across players',
    clause: 'docs/protocol.md §6.4',
    players: { other: { currency: 'EUR', balance: '100' } },
    steps: [
      tx(
        'the main player wins 2 under id w1 in the open round r1',
        { transactions: [{ id: 'w1', type: 'win', amount: '2' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: '+2' },
      ),
      tx(
        'the other player sends w1 in r1 with the same content',
        { session: 'other', transactions: [{ id: 'w1', type: 'win', amount: '2' }], round: { id: 'r1', finished: false } },
        { status: 409, code: 'DUPLICATE_CONFLICT', balance: 'unchanged' },
      ),
      probe('the other player got nothing', undefined, 'other'),
    ],
  },
  refusedThenFunded(
    'final-insufficient-funds',
    'a request refused for insufficient funds stays refused once the balance would allow it, and books nothing',
    [
      { type: 'bet', amount: '50' },
      { type: 'win', amount: '70' },
    ],
    call({ say: 'send the refused request again', endpoint: '/transaction', resend: 'refused', expect: INSUFFICIENT }),
  ),
  refusedThenFunded(
    'final-id-alone',
    'any id of a refused request, alone, answers the same refusal',
    [
      { id: 'b1', type: 'bet', amount: '50' },
      { id: 'w1', type: 'win', amount: '70' },
    ],
    tx('the win w1 alone', { transactions: [{ id: 'w1', type: 'win', amount: '70' }], round: 'r1' }, INSUFFICIENT),
  ),
  refusedThenFunded(
    'final-id-beside-new',
    'an id of a refused request beside new ids answers the same refusal, and the new ones are not applied',
    [{ id: 'b1', type: 'bet', amount: '50' }],
    tx(
      'b1 with a new win of 1',
      {
        transactions: [
          { id: 'b1', type: 'bet', amount: '50' },
          { type: 'win', amount: '1' },
        ],
        round: 'r1',
      },
      INSUFFICIENT,
    ),
  ),
  refusedThenFunded(
    'final-then-other-content',
    'an id of a refused request sent with other content is a 409 DUPLICATE_CONFLICT',
    [{ id: 'b1', type: 'bet', amount: '50' }],
    tx('b1 with amount 5', { transactions: [{ id: 'b1', type: 'bet', amount: '5' }], round: 'r1' }, CONFLICT),
  ),
  {
    id: 'final-beside-booked',
    title: 'a booked id beside a new bet refused for funds: the request stays refused once funded, and the booked id alone is still a replay',
    clause: 'docs/protocol.md §6.4',
    players: { main: { currency: 'EUR', balance: '10' } },
    steps: [
      tx(
        'bet 10 (b1) in the open round r1',
        { transactions: [{ id: 'b1', type: 'bet', amount: '10' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: '-10' },
      ),
      tx(
        'b1 and a new bet of 5 (b2) in r1',
        {
          transactions: [
            { id: 'b1', type: 'bet', amount: '10' },
            { id: 'b2', type: 'bet', amount: '5' },
          ],
          round: { id: 'r1', finished: false },
        },
        INSUFFICIENT,
        {
          keep: 'refused',
        },
      ),
      tx('win 100 in another round', { transactions: [{ type: 'win', amount: '100' }] }, { status: 200, balance: '+100' }),
      call({ say: 'send the refused request again', endpoint: '/transaction', resend: 'refused', expect: INSUFFICIENT }),
      tx(
        'b1 alone again',
        { transactions: [{ id: 'b1', type: 'bet', amount: '10' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: 'unchanged' },
      ),
      probe('b1 was booked once and b2 never'),
    ],
  },
  {
    id: 'final-session-mismatch',
    title: "a SESSION_MISMATCH is final: the same ids under the session's own game answer it again (game is not part of the content)",
    clause: 'docs/protocol.md §6.4',
    steps: [
      tx(
        "bet 1 (b1) naming another game than the session's",
        { transactions: [{ id: 'b1', type: 'bet', amount: '1' }], round: 'r1', override: { game: 'conformance-not-the-game' } },
        { status: 403, code: 'SESSION_MISMATCH', balance: 'unchanged' },
      ),
      tx(
        "b1 again under the session's game",
        { transactions: [{ id: 'b1', type: 'bet', amount: '1' }], round: 'r1' },
        { status: 403, code: 'SESSION_MISMATCH', balance: 'unchanged' },
      ),
      probe(),
    ],
  },
  {
    id: 'final-blocked',
    title: 'a bet refused for a blocked player stays refused once the player is unblocked; new ids are judged afresh',
    clause: 'docs/protocol.md §6.4',
    needs: ['block'],
    steps: [
      { kind: 'block', say: 'block the player' },
      tx('bet 5', { transactions: [{ type: 'bet', amount: '5' }] }, { status: 403, code: 'PLAYER_BLOCKED', balance: 'unchanged' }, { keep: 'refused' }),
      { kind: 'unblock', say: 'unblock the player' },
      call({
        say: 'send the refused bet again',
        endpoint: '/transaction',
        resend: 'refused',
        expect: { status: 403, code: 'PLAYER_BLOCKED', balance: 'unchanged' },
      }),
      tx('a new bet of 5', { transactions: [{ type: 'bet', amount: '5' }] }, { status: 200, balance: '-5' }),
    ],
  },
  notFinal(
    'bad-amount',
    'a 400 is not remembered: the same ids, corrected, are booked',
    tx('bet 1.001 (b1) in round r1', { transactions: [{ id: 'b1', type: 'bet', amount: '1.001' }], round: 'r1' }, refusal('INVALID_REQUEST')),
  ),
  notFinal(
    'unknown-session',
    'a 404 SESSION_NOT_FOUND is not remembered: the same ids under the right session are booked',
    tx(
      'bet 1 (b1) naming a session nobody issued',
      { transactions: [{ id: 'b1', type: 'bet', amount: '1' }], round: 'r1', override: UNKNOWN_SESSION },
      refusal('SESSION_NOT_FOUND'),
    ),
  ),
  notFinal(
    'bad-signature',
    'a 401 is not remembered: the same request, signed, is booked',
    tx('bet 1 (b1) with no signature', { transactions: [{ id: 'b1', type: 'bet', amount: '1' }], round: 'r1' }, refusal('INVALID_SIGNATURE', 'absent'), {
      headers: ({ 'x-server-authorization': _signature, ...rest }) => rest,
    }),
  ),
]);
