/**
 * Calls and replies cross to the SQLite writer thread as JSON text when JSON
 * carries them exactly, and as objects otherwise (handoff.ts), each as its
 * operation declares (sqlite-operations.ts): transaction calls and balance
 * answers as flat arrays (packed-codecs.ts), everything else as objects.
 * Money must arrive as the exact decimal the edge read from the request
 * (its units as text, never a JSON number), bigints (page cursors) must
 * never be sent as JSON, and a failure of
 * storage crosses as such.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Call, CallOf, Reply } from '../../src/stores/sqlite/sqlite-operations.js';
import { crossesAsJson, decodeCalls, decodeReplies, encodeCalls, encodeReplies } from '../../src/stores/sqlite/handoff.js';
import { PACKED_MEMBERS } from '../../src/stores/sqlite/packed-codecs.js';
import type { TransactionCommand } from '../../src/stores/store.js';
import { PayoutRequest, Round, TransactionCampaign, TransactionRequest, WalletTransaction } from '../../src/protocol/schemas.js';
import { decimalText, type Decimal } from '../../src/protocol/money.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { tempDir } from '../helpers.js';
import { NOW, openSession, singleBet } from './store-fixtures.js';
import { checkedTransaction, checkPayout } from '../../src/protocol/checked-requests.js';

/** Doubles whose shortest text is long, tiny, or not what their sum suggests. */
const AMOUNTS = [0.1 + 0.2, 1e-8, 123456789.12345678, 9007199254740991, 0.07, 5e-324];

function transactCall(id: number, amount: number | Decimal): CallOf<'transact'> {
  const request = checkedTransaction({
    sessionId: randomUUID(),
    playerId: 'p-1',
    game: 'dice',
    transactions: [{ id: randomUUID(), type: 'bet', amount: typeof amount === 'number' ? amount : 1, jpAmount: 0 }],
    round: { id: randomUUID(), finished: true },
    regulatory: 'ünïcødé "quoted" \\ and \u2028',
  });
  if (typeof amount !== 'number') request.transactions[0]!.amount = amount;
  return { id, op: 'transact', args: { now: NOW, request } };
}

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('sqlite hand-off', () => {
  test('a batch of plain calls crosses as JSON and arrives equal, every amount the exact decimal that was sent', () => {
    const calls = AMOUNTS.map((amount, i) => transactCall(i + 1, amount));
    const crossing = encodeCalls(calls);
    assert.equal(typeof crossing, 'string');
    const arrived = decodeCalls(crossing);
    assert.deepEqual(arrived, calls);
    arrived.forEach((call, i) => {
      const amount = (call as CallOf<'transact'>).args.request.transactions[0]!.amount;
      assert.equal(decimalText(amount), String(AMOUNTS[i]));
    });
  });

  test('an amount past 2^53 units crosses exactly: as decimal text, never as a JSON number', () => {
    const huge = { units: 2n ** 63n - 1n, scale: 12 };
    const crossing = encodeCalls([transactCall(1, huge)]);
    assert.equal(typeof crossing, 'string');
    assert.ok((crossing as string).includes(`"${huge.units}"`), 'the units cross as text');
    const arrived = decodeCalls(crossing)[0] as CallOf<'transact'>;
    assert.deepEqual(arrived.args.request.transactions[0]!.amount, huge);
  });

  test('transaction calls cross as flat arrays and arrive equal, optional members absent where they were', () => {
    const base = transactCall(1, 1.5);
    const { request } = base.args;
    const { regulatory: _regulatory, ...withoutRegulatory } = request;
    const calls: Call[] = [
      base,
      { id: 2, op: 'transact', args: { now: NOW + 1, request: withoutRegulatory } },
      {
        id: 3,
        op: 'transact',
        args: {
          now: NOW,
          request: checkedTransaction({
            ...withoutRegulatory,
            transactions: [
              { id: randomUUID(), type: 'bet', amount: 0.1 + 0.2 },
              { id: randomUUID(), type: 'win', amount: 1e-8, jpAmount: 0 },
            ],
            round: { id: randomUUID(), finished: false },
            regulatory: '',
          }),
        },
      },
    ];
    const crossing = encodeCalls(calls);
    assert.equal(typeof crossing, 'string');
    const items = JSON.parse(crossing as string) as unknown[];
    assert.ok(items.every(Array.isArray), 'every call packed');
    const arrived = decodeCalls(crossing);
    assert.deepEqual(arrived, calls);
    const second = arrived[1]!.args as { request: object };
    assert.equal('regulatory' in second.request, false, 'an absent member stays absent');
    const third = arrived[2]!.args as { request: { transactions: object[] } };
    assert.equal('jpAmount' in third.request.transactions[0]!, false);
  });

  test('every checked transaction packs: with a campaign, an empty campaign, ids sent in upper case, a calling integration; and a payout', () => {
    const session = { sessionId: randomUUID(), playerId: 'p-1', game: 'dice' };
    const bet = () => [{ id: randomUUID().toUpperCase(), type: 'bet' as const, amount: 2 }];
    const calls: Call[] = [
      {
        id: 1,
        op: 'transact',
        args: {
          now: NOW,
          request: checkedTransaction({
            ...session,
            transactions: bet(),
            round: { id: randomUUID(), finished: true },
            campaign: { id: randomUUID().toUpperCase(), type: 'freeBets', finished: true },
          }),
        },
      },
      {
        id: 2,
        op: 'transact',
        args: { now: NOW, request: checkedTransaction({ ...session, transactions: bet(), round: { id: randomUUID(), finished: true }, campaign: {} }) },
      },
      {
        id: 4,
        op: 'transact',
        args: {
          now: NOW,
          request: checkedTransaction({ ...session, transactions: bet(), round: { id: randomUUID(), finished: false } }),
          betsPaused: true,
          integrationId: 'studio-a',
        },
      },
      {
        id: 3,
        op: 'payout',
        args: {
          now: NOW,
          request: checkPayout({
            sessionId: randomUUID().toUpperCase(),
            payoutId: randomUUID(),
            amount: 25.05,
            campaign: { id: randomUUID(), type: 'tournament' },
          }),
        },
      },
    ];
    const crossing = encodeCalls(calls);
    const items = JSON.parse(crossing as string) as unknown[];
    assert.ok(items.every(Array.isArray), 'every call packed');
    assert.deepEqual(decodeCalls(crossing), calls);
    assert.ok((calls[0]!.args as TransactionCommand).request.shown, 'the ids as sent travel with the call');
  });

  test('the packing knows every member of the transaction schemas, and the ids as sent', () => {
    assert.deepEqual([...PACKED_MEMBERS.request].sort(), [...Object.keys(TransactionRequest.properties), 'shown'].sort());
    assert.deepEqual([...PACKED_MEMBERS.transaction].sort(), Object.keys(WalletTransaction.properties).sort());
    assert.deepEqual([...PACKED_MEMBERS.round].sort(), Object.keys(Round.properties).sort());
    assert.deepEqual([...PACKED_MEMBERS.campaign].sort(), Object.keys(TransactionCampaign.properties).sort());
    assert.deepEqual([...PACKED_MEMBERS.payout].sort(), [...Object.keys(PayoutRequest.properties), 'shown'].sort());
  });

  test('a batch holding a bigint cursor or a verify crosses as objects', () => {
    for (const other of [
      { id: 2, op: 'listRounds', args: { playerId: 'p-1', limit: 10, before: 2n ** 62n } },
      { id: 2, op: 'listTransfers', args: { playerId: 'p-1', limit: 10, before: 7n } },
      { id: 2, op: 'verify', args: undefined },
    ] satisfies Call[]) {
      const calls = [transactCall(1, 1.5), other];
      assert.equal(crossesAsJson(calls), false, other.op);
      const crossing = encodeCalls(calls);
      assert.equal(crossing, calls, 'the same array, for structured clone');
      assert.equal(decodeCalls(crossing), calls);
    }
  });

  test('replies cross as JSON only when their batch did', () => {
    const replies: Reply[] = [
      { id: 1, op: 'transact', result: { ok: true, balance: '98.49', currency: 'EUR', booked: [{ kind: 'bet', amount: '1.5' }] } },
      { id: 2, op: 'transact', result: { ok: false, code: 'INSUFFICIENT_FUNDS', detail: 'balance 1 is less than 2', balance: '1' } },
      { id: 3, op: 'payout', result: { ok: true, balance: '98.49', currency: 'EUR', booked: [] } },
      {
        id: 4,
        op: 'transact',
        result: {
          ok: true,
          balance: '0.00000001',
          currency: 'BTC',
          booked: [
            { kind: 'bet', amount: '1' },
            { kind: 'win', amount: '2.5' },
          ],
        },
      },
      { id: 5, op: 'getPlayer', result: { ok: true, playerId: 'p-1', currency: 'EUR', balance: '1', blocked: false, country: null } },
      { id: 6, op: 'transact', failed: 'database or disk is full (SQLITE_FULL)' },
      { id: 7, op: 'adjust', result: { ok: true, balance: '3', currency: 'EUR', booked: [{ kind: 'deposit', amount: '2' }] } },
    ];
    const asJson = encodeReplies(replies, true);
    assert.equal(typeof asJson, 'string');
    assert.deepEqual(
      (JSON.parse(asJson as string) as unknown[]).map((item) => Array.isArray(item)),
      [true, false, true, true, false, false, true],
      'balances packed, anything else (a refusal, a failure) as objects',
    );
    assert.deepEqual(decodeReplies(asJson), replies);
    const withBigint: Reply[] = [{ id: 3, op: 'listRounds', result: { ok: true, items: [], next: 12n } }];
    assert.equal(encodeReplies(withBigint, false), withBigint);
  });

  test('through the writer thread: bets and a cursor page in one turn', async () => {
    const { dir, cleanup } = tempDir();
    const store = await SqliteStore.open({ path: join(dir, 'wallet.db') });
    try {
      const session = await openSession(store, 'x-ann', 100);
      const bet = (amount: number) => store.transact({ now: NOW, request: checkedTransaction(singleBet(session, amount)) });
      const first = await Promise.all([bet(0.1), bet(0.2), bet(0.07)]);
      assert.deepEqual(
        first.map((outcome) => outcome.ok && outcome.balance),
        ['99.9', '99.7', '99.63'],
      );
      const page = await store.listRounds({ playerId: 'x-ann', limit: 2 });
      assert.ok(page.ok && page.next !== null);
      // Queued in the same turn, so handed over together: a batch that must cross as objects.
      const [more, older] = await Promise.all([bet(0.01), store.listRounds({ playerId: 'x-ann', limit: 2, before: page.next })]);
      assert.ok(more.ok);
      assert.equal(more.balance, '99.62');
      assert.ok(older.ok);
      assert.equal(older.items.length, 1);
      assert.equal(typeof older.next, 'object', 'the last page has next: null');
      const report = await store.verify();
      assert.ok(report.ok, report.problems.join('; '));
    } finally {
      await store.close();
      cleanup();
    }
  });
  test('the writer: each batch that commits reports its commit time, a batch of reads none', async () => {
    const { dir, cleanup } = tempDir();
    const store = await SqliteStore.open({ path: join(dir, 'wallet.db') });
    const commits: number[] = [];
    store.onCommit((seconds) => commits.push(seconds));
    try {
      const session = await openSession(store, 'x-bob', 100);
      const opened = commits.length;
      assert.ok(opened >= 1, 'opening a session committed');
      const outcome = await store.transact({ now: NOW, request: checkedTransaction(singleBet(session, 1)) });
      assert.ok(outcome.ok);
      assert.equal(commits.length, opened + 1);
      // A commit that synced a file takes some time, and far under a minute.
      assert.ok(
        commits.every((seconds) => seconds > 0 && seconds < 60),
        commits.join(', '),
      );
      assert.ok((await store.getPlayer('x-bob')).ok);
      assert.equal(commits.length, opened + 1, 'a read commits nothing');
    } finally {
      await store.close();
      cleanup();
    }
  });
});
