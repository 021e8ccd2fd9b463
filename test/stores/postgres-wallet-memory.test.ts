/**
 * Proves that a PostgreSQL node's memory of its players (wallet-memory.ts)
 * saves reads but never decides an answer: on its own, memory is used only
 * while it is at the version it was read at, and forgotten otherwise; through
 * two stores on one database, a player changed by the other node (a bet, a
 * block, a round closed, a deposit, a booked id) is read again, and every
 * answer and balance is the one a node without memory would give.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CONTENDED_MS, WalletMemory, type SessionRow } from '../../src/stores/postgres/wallet-memory.js';
import { PostgresStore } from '../../src/stores/postgres/postgres-store.js';
import type { BalanceOutcome } from '../../src/stores/store.js';
import type { Refusal } from '../../src/protocol/errors.js';
import { openTwoPostgresStores, POSTGRES_UNAVAILABLE } from './postgres-fixtures.js';
import { NOW, openSession, singleBet, type StoreSession } from './store-fixtures.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

function sessionRow(overrides: Partial<SessionRow> = {}): SessionRow {
  return {
    uuid: 's-1',
    session_pk: '11',
    game: 'dice',
    last_active_at: String(NOW),
    integration_id: 'default',
    player_pk: '7',
    player_id: 'p-7',
    currency: 'EUR',
    country: 'DE',
    blocked: false,
    account_id: '70',
    balance: '1000',
    version: '3',
    ...overrides,
  };
}

const openRound = { uuid: 'r-1', id: '500', player_id: 'p-7', game: 'dice', finished: false, integration_id: 'default' };

describe('remembered wallets (memory alone)', () => {
  test('a session is recalled only once it and its player were read', () => {
    const memory = new WalletMemory();
    assert.equal(memory.recall('s-1', NOW), undefined);
    memory.learn(sessionRow(), [openRound]);
    const recalled = memory.recall('s-1', NOW);
    assert.equal(recalled?.row.balance, '1000');
    assert.equal(recalled?.row.version, '3');
    assert.equal(recalled?.openRounds.get('r-1')?.id, '500');
    assert.equal(memory.recall('s-2', NOW), undefined, 'another session of a known player is unknown');
  });

  test('a player held by a batch in flight is not recalled until every batch holding it is done', () => {
    const memory = new WalletMemory();
    memory.learn(sessionRow(), []);
    memory.hold(['7']);
    memory.hold(['7']);
    assert.equal(memory.recall('s-1', NOW), undefined);
    memory.release(['7']);
    assert.equal(memory.recall('s-1', NOW), undefined);
    memory.release(['7']);
    assert.ok(memory.recall('s-1', NOW));
  });

  test('a committed change moves the entry to the next version; a change from another version drops it', () => {
    const memory = new WalletMemory();
    memory.learn(sessionRow(), [openRound]);
    memory.changed('7', { version: '3', balance: '900', touched: [{ session: 's-1', at: NOW + 5_000 }], opened: [], closed: ['r-1'] });
    const recalled = memory.recall('s-1', NOW + 5_000)!;
    assert.deepEqual([recalled.row.balance, recalled.row.version, recalled.row.last_active_at], ['900', '4', String(NOW + 5_000)]);
    assert.equal(recalled.openRounds.size, 0);
    memory.changed('7', { version: '3', balance: '800', touched: [], opened: [], closed: [] });
    assert.equal(memory.recall('s-1', NOW), undefined, 'memory one version behind is not vouched for');
  });

  test('a read at the same version adds to the entry, a newer read replaces it, an older one is ignored', () => {
    const memory = new WalletMemory();
    memory.learn(sessionRow(), [openRound]);
    memory.learn(sessionRow({ uuid: 's-2', session_pk: '12' }), []);
    assert.equal(memory.recall('s-1', NOW)?.openRounds.size, 1);
    assert.ok(memory.recall('s-2', NOW));
    memory.learn(sessionRow({ version: '2', balance: '5' }), []);
    assert.equal(memory.recall('s-1', NOW)?.row.balance, '1000');
    memory.learn(sessionRow({ uuid: 's-2', session_pk: '12', version: '4', balance: '900' }), []);
    assert.equal(memory.recall('s-2', NOW)?.row.balance, '900');
    assert.equal(memory.recall('s-1', NOW), undefined, 'what was known at version 3 only is gone');
    assert.equal(memory.recall('s-2', NOW)?.openRounds.size, 0);
  });

  test('a finished round is not kept as open', () => {
    const memory = new WalletMemory();
    memory.learn(sessionRow(), [{ ...openRound, finished: true }]);
    assert.equal(memory.recall('s-1', NOW)?.openRounds.size, 0);
  });

  test('a contended player is read again for CONTENDED_MS, then recalled once more', () => {
    const memory = new WalletMemory();
    memory.learn(sessionRow(), []);
    memory.contended('7', NOW);
    memory.learn(sessionRow({ version: '5' }), []);
    assert.equal(memory.recall('s-1', NOW + CONTENDED_MS - 1), undefined);
    assert.equal(memory.recall('s-1', NOW + CONTENDED_MS)?.row.version, '5');
  });
});

function balanceOf(outcome: BalanceOutcome | Refusal): string {
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return outcome.balance;
}

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('remembered wallets: two nodes on one database', { skip: POSTGRES_UNAVAILABLE }, () => {
  let first: PostgresStore;
  let second: PostgresStore;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ first, second, cleanup } = await openTwoPostgresStores('memory'));
  });
  after(async () => cleanup());

  /** A player whose next bet on `first` is planned from memory. */
  async function remembered(playerId: string, balance = 100): Promise<StoreSession> {
    const session = await openSession(first, playerId, balance);
    balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW }));
    const before = first.batchCounts().fromMemory;
    balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW }));
    assert.equal(first.batchCounts().fromMemory, before + 1, 'a remembered player is served from memory');
    return session;
  }

  test('a bet booked by the other node is seen: the balance answered is the database one', async () => {
    const session = await remembered('mem-balance');
    assert.equal(balanceOf(await second.transact({ request: checkedTransaction(singleBet(session, 10)), now: NOW })), '88');
    const stale = first.batchCounts().staleCalls;
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 5)), now: NOW })), '83');
    assert.equal(first.batchCounts().staleCalls, stale + 1, 'the call found memory stale and was read again');
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 3)), now: NOW })), '80');
  });

  test('a block made through the other node refuses the next bet; the unblock lets bets through again', async () => {
    const session = await remembered('mem-block');
    assert.ok((await second.setBlocked({ playerId: 'mem-block', blocked: true, reason: 'self-exclusion', now: NOW })).ok);
    const refused = await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW });
    assert.ok(!refused.ok && refused.code === 'PLAYER_BLOCKED', JSON.stringify(refused));
    assert.ok((await second.setBlocked({ playerId: 'mem-block', blocked: false, now: NOW })).ok);
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW })), '97');
  });

  test('a round closed by the other node with a zero win takes no more bets through this one', async () => {
    const session = await remembered('mem-round');
    const round = randomUUID();
    const open = {
      ...session,
      transactions: [{ id: randomUUID(), type: 'bet' as const, amount: 2 }],
      round: { id: round, finished: false, integration_id: 'default' },
    };
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(open), now: NOW })), '96');
    const close = {
      ...session,
      transactions: [{ id: randomUUID(), type: 'win' as const, amount: 0 }],
      round: { id: round, finished: true, integration_id: 'default' },
    };
    assert.equal(balanceOf(await second.transact({ request: checkedTransaction(close), now: NOW })), '96');
    const late = {
      ...session,
      transactions: [{ id: randomUUID(), type: 'bet' as const, amount: 1 }],
      round: { id: round, finished: false, integration_id: 'default' },
    };
    const refused = await first.transact({ request: checkedTransaction(late), now: NOW });
    assert.ok(!refused.ok && refused.code === 'ROUND_CLOSED', JSON.stringify(refused));
  });

  test('a round left open goes on from memory: its next bet and its closing win are booked once', async () => {
    const session = await remembered('mem-open-round');
    const round = randomUUID();
    const step = (type: 'bet' | 'win', amount: number, finished: boolean) => ({
      ...session,
      transactions: [{ id: randomUUID(), type, amount }],
      round: { id: round, finished },
    });
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(step('bet', 4, false)), now: NOW })), '94');
    const fromMemory = first.batchCounts().fromMemory;
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(step('bet', 4, false)), now: NOW })), '90');
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(step('win', 10, true)), now: NOW })), '100');
    assert.equal(first.batchCounts().fromMemory, fromMemory + 2, 'an open round this node remembers needs no read');
    const refused = await first.transact({ request: checkedTransaction(step('bet', 1, false)), now: NOW });
    assert.ok(!refused.ok && refused.code === 'ROUND_CLOSED', JSON.stringify(refused));
  });

  test('a deposit made through the other node is in the next balance', async () => {
    const session = await remembered('mem-deposit');
    const deposit = await second.adjust({ playerId: 'mem-deposit', type: 'deposit', amount: 50, id: randomUUID(), now: NOW });
    assert.equal(balanceOf(deposit), '148');
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 8)), now: NOW })), '140');
  });

  test('a request booked by the other node is answered as a replay, and booked once', async () => {
    const session = await remembered('mem-replay');
    const request = singleBet(session, 6);
    const booked = await second.transact({ request: checkedTransaction(request), now: NOW });
    assert.ok(booked.ok && booked.booked.length === 1 && booked.balance === '92');
    const replay = await first.transact({ request: checkedTransaction(request), now: NOW });
    assert.ok(replay.ok && replay.booked.length === 0 && replay.balance === '92', JSON.stringify(replay));
    const conflict = await first.transact({
      request: checkedTransaction({ ...request, transactions: [{ ...request.transactions[0]!, amount: 7 }] }),
      now: NOW,
    });
    assert.ok(!conflict.ok && conflict.code === 'DUPLICATE_CONFLICT', JSON.stringify(conflict));
  });

  test('a resent bet that emptied the wallet is answered as a replay, not refused for funds from memory', async () => {
    const session = await remembered('mem-drained', 12);
    const request = singleBet(session, 10);
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(request), now: NOW })), '0');
    const replay = await first.transact({ request: checkedTransaction(request), now: NOW });
    assert.ok(replay.ok && replay.booked.length === 0 && replay.balance === '0', JSON.stringify(replay));
    const refused = await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW });
    assert.ok(!refused.ok && refused.code === 'INSUFFICIENT_FUNDS' && refused.balance === '0', JSON.stringify(refused));
  });

  test('a refused request resent to a node that plans the player from memory is answered its refusal, not booked (§6.4)', async () => {
    const session = await remembered('mem-refused', 12);
    const request = singleBet(session, 50);
    const refused = await first.transact({ request: checkedTransaction(request), now: NOW });
    assert.ok(!refused.ok && refused.code === 'INSUFFICIENT_FUNDS', JSON.stringify(refused));
    balanceOf(await first.adjust({ playerId: 'mem-refused', type: 'deposit', amount: 100, id: randomUUID(), now: NOW }));
    // The player is remembered again, so the resent request would be planned from memory.
    balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW }));
    const fromMemory = first.batchCounts().fromMemory;
    balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW }));
    assert.equal(first.batchCounts().fromMemory, fromMemory + 1, 'the player is served from memory');
    const again = await first.transact({ request: checkedTransaction(request), now: NOW });
    assert.ok(!again.ok && again.code === 'INSUFFICIENT_FUNDS' && again.balance === '108', JSON.stringify(again));
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW })), '107');
  });

  test('a request refused through the other node is answered its refusal here, from memory or not (§6.4)', async () => {
    const session = await remembered('mem-refused-other', 12);
    assert.ok((await second.setBlocked({ playerId: 'mem-refused-other', blocked: true, now: NOW })).ok);
    const request = singleBet(session, 5);
    const refused = await second.transact({ request: checkedTransaction(request), now: NOW });
    assert.ok(!refused.ok && refused.code === 'PLAYER_BLOCKED', JSON.stringify(refused));
    assert.ok((await second.setBlocked({ playerId: 'mem-refused-other', blocked: false, now: NOW })).ok);
    const again = await first.transact({ request: checkedTransaction(request), now: NOW });
    assert.ok(!again.ok && again.code === 'PLAYER_BLOCKED', JSON.stringify(again));
    assert.equal(balanceOf(await first.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW })), '9');
  });

  test('bets spread over both nodes in turn on one player: every balance is exact and the books verify', async () => {
    const session = await openSession(first, 'mem-turns', 1_000);
    let expected = 1_000;
    for (let i = 0; i < 40; i++) {
      const node = i % 3 === 0 ? second : first;
      expected -= 1;
      assert.equal(balanceOf(await node.transact({ request: checkedTransaction(singleBet(session, 1)), now: NOW })), String(expected));
    }
    const report = await first.verify();
    assert.ok(report.ok, report.problems.join('\n'));
  });
});
