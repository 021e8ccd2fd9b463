/** `--rows`: a row's whole name selects it alone; otherwise any of the comma-separated words. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rowFilter } from '../../bench/row-filter.js';

const ROWS = ['wallet, single bet', 'wallet, single bet, hot player', 'wallet, realistic mix', 'pgbench tpcb-like', 'postgres, single bet, 1 node'];
const picked = (filter: string | undefined) => ROWS.filter(rowFilter(filter, ROWS));

test('no filter measures every row', () => {
  assert.deepEqual(picked(undefined), ROWS);
});

test("a row's whole name selects that row alone, though it contains commas", () => {
  assert.deepEqual(picked('wallet, single bet'), ['wallet, single bet']);
  assert.deepEqual(picked(' postgres, single bet, 1 node '), ['postgres, single bet, 1 node']);
});

test('otherwise any of the comma-separated words selects the rows that contain it', () => {
  assert.deepEqual(picked('single bet'), ['wallet, single bet', 'wallet, single bet, hot player', 'postgres, single bet, 1 node']);
  assert.deepEqual(picked('mix,1 node'), ['wallet, realistic mix', 'postgres, single bet, 1 node']);
  assert.deepEqual(picked('hot, ,pgbench'), ['wallet, single bet, hot player', 'pgbench tpcb-like']);
  assert.deepEqual(picked('nothing like it'), []);
});
