/**
 * Money per currency (docs/protocol.md §4): amounts are exact in the
 * currency's decimals and refused past them, past 15 significant digits or
 * past 10^12 major units; balances come back exact, however long, written
 * without exponent or trailing zeros.
 */
import { token } from '../json-text.js';
import { operatorCases, pay, probe, tx } from './define.js';

const REFUSED = { status: 400, code: 'INVALID_REQUEST' } as const;
const EXACT = (balance: string) => ({ status: 200, balance, exactText: true });

export const PRECISION_CASES = operatorCases('precision', [
  {
    id: 'eur-exact-sum',
    title: 'wins of 0.1 and 0.2 make exactly 0.3, and a bet of 0.3 leaves exactly 0',
    clause: 'docs/protocol.md §4.4',
    players: { main: { currency: 'EUR', balance: '0' } },
    steps: [
      tx('win 0.1 and win 0.2', { transactions: [{ type: 'win', amount: '0.1' }, { type: 'win', amount: '0.2' }] }, EXACT('+0.3')),
      tx('bet 0.3', { transactions: [{ type: 'bet', amount: '0.3' }] }, EXACT('-0.3')),
    ],
  },
  {
    id: 'balance-spelling',
    title: 'a balance is written without trailing zeros: 100.5, not 100.50',
    clause: 'docs/protocol.md §4.4',
    steps: [tx('win 0.5 on 100', { transactions: [{ type: 'win', amount: '0.5' }] }, EXACT('+0.5'))],
  },
  {
    id: 'eur-three-decimals',
    title: 'an EUR amount with 3 decimals is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §4.3',
    steps: [tx('win 0.001', { transactions: [{ type: 'win', amount: '0.001' }] }, REFUSED), probe()],
  },
  {
    id: 'trailing-zeros-accepted',
    title: 'trailing zeros carry no precision: an EUR amount written 1.100 is 1.1',
    clause: 'docs/protocol.md §4.3',
    steps: [tx('win 1.100', { transactions: [{ type: 'win', amount: token('1.100') }] }, { status: 200, balance: '+1.1' })],
  },
  {
    id: 'exponent-accepted',
    title: 'an amount is a JSON number in any of its spellings: 1e1 is 10',
    clause: 'docs/protocol.md §4.1',
    steps: [tx('win 1e1', { transactions: [{ type: 'win', amount: token('1e1') }] }, { status: 200, balance: '+10' })],
  },
  {
    id: 'jpy-no-decimals',
    title: 'JPY has no decimals: 1.5 is refused, 15 is booked',
    clause: 'docs/protocol.md §4.2',
    players: { main: { currency: 'JPY', balance: '1000' } },
    steps: [
      tx('bet 1.5 JPY', { transactions: [{ type: 'bet', amount: '1.5' }] }, REFUSED),
      tx('bet 15 JPY', { transactions: [{ type: 'bet', amount: '15' }] }, EXACT('-15')),
    ],
  },
  {
    id: 'kwd-three-decimals',
    title: 'KWD has 3 decimals: 0.001 is booked, 0.0001 is refused',
    clause: 'docs/protocol.md §4.2',
    players: { main: { currency: 'KWD', balance: '1' } },
    steps: [
      tx('bet 0.001 KWD', { transactions: [{ type: 'bet', amount: '0.001' }] }, EXACT('-0.001')),
      tx('bet 0.0001 KWD', { transactions: [{ type: 'bet', amount: '0.0001' }] }, REFUSED),
      probe(),
    ],
  },
  {
    id: 'btc-eight-decimals',
    title: 'BTC has 8 decimals: 0.00000001 is booked, 0.000000001 is refused',
    clause: 'docs/protocol.md §4.2',
    players: { main: { currency: 'BTC', balance: '1' } },
    steps: [
      tx('bet 0.00000001 BTC', { transactions: [{ type: 'bet', amount: '0.00000001' }] }, EXACT('-0.00000001')),
      tx('bet 0.000000001 BTC', { transactions: [{ type: 'bet', amount: '0.000000001' }] }, REFUSED),
      tx('win 12345.12345678 BTC', { transactions: [{ type: 'win', amount: '12345.12345678' }] }, EXACT('+12345.12345678')),
    ],
  },
  {
    id: 'sixteen-digits-refused',
    title: 'an amount of 16 significant digits is refused: a double may already have rounded it',
    clause: 'docs/protocol.md §4.3',
    players: { main: { currency: 'EUR', balance: '0' } },
    steps: [tx('win 1.000000000000001', { transactions: [{ type: 'win', amount: token('1.000000000000001') }] }, REFUSED), probe()],
  },
  {
    id: 'sixteen-digits-payout',
    title: 'a payout of 17 significant digits is refused, not rounded to 1',
    clause: 'docs/protocol.md §4.3',
    steps: [pay('payout 1.0000000000000001', { amount: token('1.0000000000000001') }, REFUSED), probe()],
  },
  {
    id: 'fifteen-digits-exact',
    title: 'an amount of 15 significant digits is booked exactly',
    clause: 'docs/protocol.md §4.3',
    players: { main: { currency: 'BTC', balance: '0' } },
    steps: [
      tx('win 1234567.12345678 BTC', { transactions: [{ type: 'win', amount: '1234567.12345678' }] }, EXACT('+1234567.12345678')),
      tx('bet 1234567.12345678 BTC', { transactions: [{ type: 'bet', amount: '1234567.12345678' }] }, EXACT('-1234567.12345678')),
    ],
  },
  {
    id: 'over-max-refused',
    title: 'an amount over 10^12 major units is refused, in a win and in a payout',
    clause: 'docs/protocol.md §4.3',
    steps: [
      tx('win 1000000000000.01', { transactions: [{ type: 'win', amount: '1000000000000.01' }] }, REFUSED),
      pay('payout 2000000000000', { amount: '2000000000000' }, REFUSED),
      probe(),
    ],
  },
  {
    id: 'max-accepted',
    title: 'an amount of exactly 10^12 major units is booked',
    clause: 'docs/protocol.md §4.3',
    players: { main: { currency: 'EUR', balance: '0' } },
    steps: [
      tx('win 1000000000000', { transactions: [{ type: 'win', amount: '1000000000000' }] }, EXACT('+1000000000000')),
      tx('bet 1000000000000', { transactions: [{ type: 'bet', amount: '1000000000000' }] }, EXACT('-1000000000000')),
    ],
  },
  {
    id: 'long-balance-exact',
    title: 'a balance of more than 15 significant digits is answered exactly (BTC 12345678901.12345678)',
    clause: 'docs/protocol.md §4.4',
    players: { main: { currency: 'BTC', balance: '0' } },
    steps: [
      tx(
        'win 10000000000, 2345678901 and 0.12345678 BTC',
        { transactions: [{ type: 'win', amount: '10000000000' }, { type: 'win', amount: '2345678901' }, { type: 'win', amount: '0.12345678' }] },
        EXACT('+12345678901.12345678'),
      ),
      tx(
        'bet the same three amounts',
        { transactions: [{ type: 'bet', amount: '10000000000' }, { type: 'bet', amount: '2345678901' }, { type: 'bet', amount: '0.12345678' }] },
        EXACT('-12345678901.12345678'),
      ),
    ],
  },
  {
    id: 'large-balance-exact',
    title: 'a balance above 10^12 stays exact to the cent',
    clause: 'docs/protocol.md §4.4',
    steps: [
      tx(
        'win 1000000000000 twice and 0.01',
        { transactions: [{ type: 'win', amount: '1000000000000' }, { type: 'win', amount: '1000000000000' }, { type: 'win', amount: '0.01' }] },
        EXACT('+2000000000000.01'),
      ),
      tx(
        'bet the same three amounts',
        { transactions: [{ type: 'bet', amount: '1000000000000' }, { type: 'bet', amount: '1000000000000' }, { type: 'bet', amount: '0.01' }] },
        EXACT('-2000000000000.01'),
      ),
    ],
  },
  {
    id: 'jp-amount-decimals',
    title: 'a jpAmount with more decimals than the currency is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §4.3',
    steps: [tx('bet 1 with jpAmount 0.001', { transactions: [{ type: 'bet', amount: '1', jpAmount: '0.001' }] }, REFUSED), probe()],
  },
  {
    id: 'payout-decimals',
    title: 'a payout with more decimals than the currency is refused with 400 INVALID_REQUEST',
    clause: 'docs/protocol.md §4.3',
    steps: [pay('payout 0.005', { amount: '0.005' }, REFUSED), probe()],
  },
]);
