/**
 * Proves what an answer shows, as both stores now show it through
 * src/ledger/views.ts: money as exact text in the player's currency, the
 * next page's cursor only when a row beyond the page was read, and the
 * refusals that name a player.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCurrencies } from '../../src/protocol/money.js';
import {
  balanceOutcome,
  bookedOf,
  pageOf,
  playerExists,
  playerNotFound,
  playerStateOf,
  playerView,
  sessionOutcome,
  storedDecimals,
  transferView,
} from '../../src/ledger/views.js';

const currencies = createCurrencies({ BTC: 8 });
const eur = { playerId: 'p1', currency: 'EUR', balance: 12_345n, blocked: false, country: 'DE' };
const jpy = { playerId: 'p2', currency: 'JPY', balance: 500n, blocked: true, country: null };

test("a player's balance is exact text in its currency's decimals", () => {
  assert.deepEqual(playerView(eur, currencies), { ok: true, playerId: 'p1', currency: 'EUR', balance: '123.45', blocked: false, country: 'DE' });
  assert.equal(playerView(jpy, currencies).balance, '500');
  assert.equal(playerView({ ...eur, currency: 'BTC', balance: 1n }, currencies).balance, '0.00000001');
  assert.deepEqual(playerStateOf(jpy, currencies), { playerId: 'p2', currency: 'JPY', decimals: 0, balance: 500n, blocked: true });
});

test('a stored currency that is no longer configured is a fault, not a guess', () => {
  assert.throws(() => storedDecimals(currencies, 'XYZ'), /currency XYZ of a stored player must stay configured/);
  assert.throws(() => playerView({ ...eur, currency: 'XYZ' }, currencies), /must stay configured/);
});

test('a balance outcome lists what was booked, in major units', () => {
  const player = playerStateOf(eur, currencies);
  assert.deepEqual(balanceOutcome(player, 12_000n, [bookedOf('bet', 345n, player)]), {
    ok: true,
    balance: '120',
    currency: 'EUR',
    booked: [{ kind: 'bet', amount: '3.45' }],
  });
  assert.deepEqual(sessionOutcome('s-1', player, null), { ok: true, sessionId: 's-1', playerId: 'p1', currency: 'EUR', balance: '123.45', country: '' });
});

test('a page has a next cursor only when a row beyond it was read', () => {
  const rows = [{ id: 9n }, { id: 7n }, { id: 4n }];
  assert.deepEqual(
    pageOf(rows, 2, (r) => Number(r.id)),
    { ok: true, items: [9, 7], next: 7n },
  );
  assert.deepEqual(
    pageOf(rows, 3, (r) => Number(r.id)),
    { ok: true, items: [9, 7, 4], next: null },
  );
  // PostgreSQL's driver reads an int8 as its decimal text.
  assert.equal(pageOf([{ id: '12' }, { id: '11' }], 1, (r) => r.id).next, 12n);
});

const stored = {
  id: 't',
  kind: 'win' as const,
  amount: 150n,
  jpAmount: 0n,
  freeBet: false,
  roundId: 'r',
  game: 'dice',
  campaignId: null,
  regulatory: null,
  createdAt: 1,
};

test("a transfer's amounts are shown in the player's decimals", () => {
  const view = transferView({ ...stored, roundIntegration: 'default', tournamentRef: null }, 2);
  assert.equal(view.amount, '1.5');
  assert.equal(view.jpAmount, '0');
});

test("a transfer's studio: its round's, a payout's tournament's by the account's name, none for an adjustment", () => {
  assert.equal(transferView({ ...stored, roundIntegration: 'studio-a', tournamentRef: null }, 2).integration, 'studio-a');
  const payout = { ...stored, kind: 'payout' as const, roundId: null, game: null, roundIntegration: null };
  assert.equal(transferView({ ...payout, tournamentRef: 'studio-b/7f1d6c1e-62a8-4b6e-9a55-3f2d7c1b0e41' }, 2).integration, 'studio-b');
  assert.equal(transferView({ ...payout, tournamentRef: '7f1d6c1e-62a8-4b6e-9a55-3f2d7c1b0e41' }, 2).integration, 'default');
  assert.equal(transferView({ ...payout, kind: 'deposit', tournamentRef: null }, 2).integration, null);
});

test('the refusals that name a player', () => {
  assert.deepEqual(playerNotFound('p9'), { ok: false, code: 'PLAYER_NOT_FOUND', detail: 'player p9 is not known' });
  assert.deepEqual(playerExists('p1'), { ok: false, code: 'PLAYER_EXISTS', detail: 'player p1 exists' });
});
