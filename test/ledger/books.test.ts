/**
 * Proves the verdict of `verify` alone, from totals: balanced books pass,
 * and each kind of broken book is named; the problem list is bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkBooks, VERIFY_PROBLEMS_MAX, type AccountTotal } from '../../src/ledger/books.js';

const clean = { transfers: 2, malformed: 0, crossCurrency: 0, dangling: 0 };
const balanced: AccountTotal[] = [
  { kind: 'player', ref: 'p1', currency: 'EUR', balance: 900n, derived: 900n },
  { kind: 'cash', ref: 'external', currency: 'EUR', balance: null, derived: -1000n },
  { kind: 'game', ref: 'dice', currency: 'EUR', balance: null, derived: 100n },
];

test('balanced books pass', () => {
  assert.deepEqual(checkBooks(clean, balanced), { ok: true, transfers: 2, accounts: 3, problems: [] });
  assert.deepEqual(checkBooks({ ...clean, brokenLinks: 0, badIds: 0 }, balanced).problems, []);
});

test('each broken rule is named', () => {
  const cases: [Parameters<typeof checkBooks>, RegExp][] = [
    [[{ ...clean, malformed: 1 }, balanced], /1 transfers are malformed/],
    [[{ ...clean, crossCurrency: 2 }, balanced], /2 transfers move money between currencies/],
    [[{ ...clean, dangling: 1 }, balanced], /name an account that does not exist/],
    [[{ ...clean, brokenLinks: 3 }, balanced], /3 links of players' transfer and round histories are broken/],
    [[{ ...clean, badIds: 2 }, balanced], /2 transfer or round ids are repeated or wrong in the id indexes/],
    [[clean, [{ ...balanced[0]!, balance: 901n }, ...balanced.slice(1)]], /player p1: balance 901 but postings sum to 900/],
    [[clean, [{ ...balanced[0]!, balance: null }, ...balanced.slice(1)]], /player account p1 keeps no balance/],
    [[clean, [...balanced, { kind: 'game', ref: 'slots', currency: 'EUR', balance: 5n, derived: 0n }]], /only player wallets do/],
    [[clean, [...balanced.slice(0, 2)]], /EUR: accounts sum to -100, not 0/],
    [
      [
        clean,
        [
          { kind: 'player', ref: 'p2', currency: 'EUR', balance: -1n, derived: -1n },
          { kind: 'cash', ref: 'x', currency: 'EUR', balance: null, derived: 1n },
        ],
      ],
      /negative balance -1/,
    ],
  ];
  for (const [args, problem] of cases) {
    const report = checkBooks(...args);
    assert.equal(report.ok, false);
    assert.match(report.problems.join('\n'), problem);
  }
});

test('the problem list is bounded, and says how many it left out', () => {
  const broken: AccountTotal[] = Array.from({ length: VERIFY_PROBLEMS_MAX + 20 }, (_, i) => ({
    kind: 'player',
    ref: `p${i}`,
    currency: 'EUR',
    balance: 1n,
    derived: 0n,
  }));
  const report = checkBooks(clean, broken);
  assert.equal(report.problems.length, VERIFY_PROBLEMS_MAX + 1);
  assert.equal(report.problems.at(-1), '... and 20 more');
});
