/** `--rows`: a row's whole name selects it alone; otherwise any of the comma-separated words; the end-to-end rows by game. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { END_TO_END_ROWS } from '../../bench/end-to-end-row.js';
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

test('the end-to-end rows, one per game: "end to end" selects both, a game\'s name its own', () => {
  const names = Object.values(END_TO_END_ROWS);
  const all = [...ROWS, ...names];
  const pick = (filter: string) => all.filter(rowFilter(filter, all));
  assert.deepEqual(names, ['end to end, dice rounds', 'end to end, reels rounds']);
  assert.deepEqual(pick('end to end'), names);
  assert.deepEqual(pick('reels'), ['end to end, reels rounds']);
  assert.deepEqual(pick('dice'), ['end to end, dice rounds']);
  assert.deepEqual(pick('end to end, dice rounds'), ['end to end, dice rounds']);
});
