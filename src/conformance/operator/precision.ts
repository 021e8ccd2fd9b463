/**
 * Money per currency (docs/protocol.md §4): amounts are exact in the
 * currency's decimals and refused past them, past 15 significant digits or
 * past 10^12 major units; balances come back exact, however long, written
 * without exponent or trailing zeros.
 */
import type { PlayerNeed } from '../case-model.js';
import { token } from '../json-text.js';
import { operatorCases, pay, probe, refusal, tx, type CaseSpec } from './define.js';

const REFUSED = refusal('INVALID_REQUEST');
const EXACT = (balance: string) => ({ status: 200, balance, exactText: true });

/** Wins of `amounts` in one request, then bets of the same in another: both balances exact, spelt as §4.4 writes them. */
function thereAndBack(id: string, title: string, clause: string, player: PlayerNeed, amounts: readonly string[], total: string): CaseSpec {
  const list = amounts.join(', ');
  return {
    id,
    title,
    clause,
    players: { main: player },
    steps: [
      tx(`win ${list} ${player.currency}`, { transactions: amounts.map((amount) => ({ type: 'win', amount })) }, EXACT(`+${total}`)),
      tx(`bet ${list} ${player.currency}`, { transactions: amounts.map((amount) => ({ type: 'bet', amount })) }, EXACT(`-${total}`)),
    ],
  };
}

/** A currency's smallest unit is booked exactly; an amount finer than it is refused and books nothing. */
function decimalsOf(id: string, player: PlayerNeed, decimals: number, unit: string, finer: string): CaseSpec {
  const { currency } = player;
  return {
    id,
    title: `${currency} has ${decimals} decimal${decimals === 1 ? '' : 's'}: ${unit} is booked, ${finer} is refused`,
    clause: 'docs/protocol.md §4.2',
    players: { main: player },
    steps: [
      tx(`bet ${unit} ${currency}`, { transactions: [{ type: 'bet', amount: unit }] }, EXACT(`-${unit}`)),
      tx(`bet ${finer} ${currency}`, { transactions: [{ type: 'bet', amount: finer }] }, REFUSED),
      probe(),
    ],
  };
}

export const PRECISION_CASES = operatorCases('precision', [
  thereAndBack(
    'eur-exact-sum',
    'wins of 0.1 and 0.2 make exactly 0.3, and bets of them leave exactly 0',
    'docs/protocol.md §4.4',
    { currency: 'EUR', balance: '0' },
    ['0.1', '0.2'],
    '0.3',
  ),
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
  decimalsOf('jpy-no-decimals', { currency: 'JPY', balance: '1000' }, 0, '1', '1.5'),
  decimalsOf('kwd-three-decimals', { currency: 'KWD', balance: '1' }, 3, '0.001', '0.0001'),
  decimalsOf('btc-eight-decimals', { currency: 'BTC', balance: '1' }, 8, '0.00000001', '0.000000001'),
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
  thereAndBack(
    'fifteen-digits-exact',
    'an amount of 15 significant digits is booked exactly',
    'docs/protocol.md §4.3',
    { currency: 'BTC', balance: '0' },
    ['1234567.12345678'],
    '1234567.12345678',
  ),
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
  thereAndBack(
    'max-accepted',
    'an amount of exactly 10^12 major units is booked',
    'docs/protocol.md §4.3',
    { currency: 'EUR', balance: '0' },
    ['1000000000000'],
    '1000000000000',
  ),
  thereAndBack(
    'long-balance-exact',
    'a balance of more than 15 significant digits is answered exactly (BTC 12345678901.12345678)',
    'docs/protocol.md §4.4',
    { currency: 'BTC', balance: '0' },
    ['10000000000', '2345678901', '0.12345678'],
    '12345678901.12345678',
  ),
  thereAndBack(
    'large-balance-exact',
    'a balance above 10^12 stays exact to the cent',
    'docs/protocol.md §4.4',
    { currency: 'EUR', balance: '100' },
    ['1000000000000', '1000000000000', '0.01'],
    '2000000000000.01',
  ),
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
