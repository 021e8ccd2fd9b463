/**
 * Bets and wins (docs/protocol.md §6): a bet debits, a win credits, the
 * answer is the balance after every transaction of the request, jpAmount
 * moves no money, regulatory data and unknown members are taken as they
 * come.
 */
import { token, writeJson } from '../json-text.js';
import { call, operatorCases, probe, transaction, tx } from './define.js';

export const BETS_WINS_CASES = operatorCases('bets-wins', [
  {
    id: 'bet-debits',
    title: 'a bet debits the player by its amount',
    clause: 'docs/protocol.md §6',
    steps: [tx('bet 1', { transactions: [{ type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }), probe('the balance stays debited')],
  },
  {
    id: 'win-credits',
    title: 'a win credits the player by its amount',
    clause: 'docs/protocol.md §6',
    steps: [tx('win 2.5', { transactions: [{ type: 'win', amount: '2.5' }] }, { status: 200, balance: '+2.5' }), probe('the balance stays credited')],
  },
  {
    id: 'bet-and-win',
    title: 'a bet and a win in one request: the answer is the balance after both',
    clause: 'docs/protocol.md §6.8',
    steps: [
      tx(
        'bet 10 and win 25.5 in a finished round',
        {
          transactions: [
            { type: 'bet', amount: '10' },
            { type: 'win', amount: '25.5' },
          ],
        },
        { status: 200, balance: '+15.5' },
      ),
      probe('the balance shows both'),
    ],
  },
  {
    id: 'answer-after-all',
    title: "the answer's balance is the balance after all transactions of the request",
    clause: 'docs/protocol.md §6.8',
    steps: [
      tx(
        'bet 5, win 1.25, bet 3, win 0.5',
        {
          transactions: [
            { type: 'bet', amount: '5' },
            { type: 'win', amount: '1.25' },
            { type: 'bet', amount: '3' },
            { type: 'win', amount: '0.5' },
          ],
        },
        { status: 200, balance: '-6.25', exactText: true },
      ),
    ],
  },
  {
    id: 'win-without-bet',
    title: 'a win needs no bet: a player with nothing is credited',
    clause: 'docs/protocol.md §6.5',
    players: { main: { currency: 'EUR', balance: '0' } },
    steps: [tx('win 4.2 in a round of its own', { transactions: [{ type: 'win', amount: '4.2' }] }, { status: 200, balance: '+4.2' })],
  },
  {
    id: 'zero-bet',
    title: 'a bet of 0 is valid and moves nothing',
    clause: 'docs/protocol.md §6.5',
    steps: [tx('bet 0', { transactions: [{ type: 'bet', amount: '0' }] }, { status: 200, balance: 'unchanged' })],
  },
  {
    id: 'bet-whole-balance',
    title: 'a bet of the whole balance leaves 0',
    clause: 'docs/protocol.md §6.3',
    steps: [tx('bet 100 on a balance of 100', { transactions: [{ type: 'bet', amount: '100' }] }, { status: 200, balance: '-100', exactText: true })],
  },
  {
    id: 'insufficient-funds',
    title: 'a bet over the balance is refused with 402 INSUFFICIENT_FUNDS, showing the balance, and books nothing',
    clause: 'docs/protocol.md §6.3',
    steps: [
      tx(
        'bet 100.01 on a balance of 100',
        { transactions: [{ type: 'bet', amount: '100.01' }] },
        { status: 402, code: 'INSUFFICIENT_FUNDS', balance: 'unchanged' },
      ),
      probe(),
    ],
  },
  {
    id: 'jp-amount-moves-nothing',
    title: 'jpAmount is part of amount and moves no money of its own',
    clause: 'docs/protocol.md §6.1',
    steps: [
      tx(
        'bet 2 with jpAmount 0.02, win 7.5 with jpAmount 7',
        {
          transactions: [
            { type: 'bet', amount: '2', jpAmount: '0.02' },
            { type: 'win', amount: '7.5', jpAmount: '7' },
          ],
        },
        { status: 200, balance: '+5.5' },
      ),
    ],
  },
  {
    id: 'jp-amount-whole',
    title: 'a jpAmount equal to its amount is valid',
    clause: 'docs/protocol.md §6.1',
    steps: [tx('bet 1 with jpAmount 1', { transactions: [{ type: 'bet', amount: '1', jpAmount: '1' }] }, { status: 200, balance: '-1' })],
  },
  {
    id: 'regulatory-taken',
    title: 'regulatory data of any text, and the empty string, is taken with the request',
    clause: 'docs/protocol.md §6.7',
    steps: [
      tx(
        'win 1 with regulatory text holding JSON, a tab, quotes, a backslash and non-ASCII characters',
        { transactions: [{ type: 'win', amount: '1' }], regulatory: '{"jurisdiction":"DE","spinId":42}\n\ttab "quotes" \\ backslash ✓ € 😀' },
        { status: 200, balance: '+1' },
      ),
      tx('win 1 with regulatory ""', { transactions: [{ type: 'win', amount: '1' }], regulatory: '' }, { status: 200, balance: '+1' }),
    ],
  },
  {
    id: 'unknown-members-ignored',
    title: 'unknown members, at the top, in a transaction and in the round, are ignored: the same booking as without them',
    clause: 'docs/protocol.md §1.3',
    steps: [
      call({
        say: 'bet 1 with members the protocol does not define',
        endpoint: '/transaction',
        body: (ctx) => {
          const body = transaction(ctx, {
            transactions: [{ type: 'bet', amount: '1', extra: { balance: 1000, note: 'x' } }],
            // A number of 17 significant digits where no amount is read is valid I-JSON: only amounts are held to 15 (§4.3).
            extra: { 'x-vendor': { trace: [1, 2, 3], serial: token('12345678901234567') }, balance: 5, code: 'INSUFFICIENT_FUNDS' },
          });
          return { ...body, round: { ...(body.round as object), 'x-table': 'a' } };
        },
        expect: { status: 200, balance: '-1' },
      }),
    ],
  },
  {
    id: 'proto-members-plain',
    title: '__proto__ and constructor members are plain data and change nothing',
    clause: 'docs/protocol.md §1.3',
    steps: [
      call({
        say: 'bet 1 with "__proto__" and "constructor" members',
        endpoint: '/transaction',
        body: (ctx) =>
          `${writeJson(transaction(ctx, { transactions: [{ type: 'bet', amount: '1' }] })).slice(0, -1)},"__proto__":{"amount":1000,"type":"win"},"constructor":{"prototype":{"balance":1}}}`,
        expect: { status: 200, balance: '-1' },
      }),
    ],
  },
]);
