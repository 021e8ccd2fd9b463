/**
 * Proves the judge of `provider verify` (src/rounds/books.ts) on facts made
 * by hand: records that agree give no finding; each rule broken gives its
 * own kind, naming the ids involved, and nothing else; a parked item is a
 * note, not a finding; findings past FINDINGS_LISTED_MAX of a kind are
 * counted, not listed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CURRENCIES } from '../../src/protocol/money.js';
import { bodyText, diceRoundBody, payoutBody, reelsCallBody } from '../../src/rounds/bodies.js';
import {
  FINDINGS_LISTED_MAX,
  RoundBooks,
  type CallCause,
  type DiceCause,
  type FindingKind,
  type ItemFacts,
  type PayoutCause,
  type PoolFacts,
  type RealRoundFacts,
  type RoundBooksVerdict,
} from '../../src/rounds/books.js';

const SESSION = { operatorSessionId: 'os-1', playerId: 'p-1', game: 'dice' };

function dice(overrides: Partial<DiceCause> = {}): DiceCause {
  return {
    roundId: randomUUID(),
    operatorId: 'op',
    playerId: 'p-1',
    game: 'dice',
    currency: 'EUR',
    betMinor: 150n,
    winMinor: 300n,
    betTxId: randomUUID(),
    winTxId: randomUUID(),
    campaignId: null,
    campaignFinished: null,
    ownBody: null,
    ...overrides,
  };
}

function diceItem(round: DiceCause, overrides: Partial<ItemFacts> = {}): ItemFacts {
  return {
    itemId: 1,
    operatorId: round.operatorId,
    orderingKey: round.roundId,
    kind: 'bet',
    path: '/transaction',
    status: 'sent',
    body: diceRoundBody(round, SESSION, 2),
    referrers: 1,
    cause: { dice: round },
    ...overrides,
  };
}

function call(index: number, overrides: Partial<CallCause> = {}): CallCause {
  return {
    roundId: 'r-reels',
    operatorId: 'op',
    playerId: 'p-1',
    game: 'reels',
    currency: 'EUR',
    betMinor: 100n,
    betTxId: 'tx-bet',
    winTxId: 'tx-base',
    campaignId: null,
    campaignFinished: null,
    index,
    status: 'accepted',
    baseWinMinor: 50n,
    featureWinMinor: 250n,
    jackpotContributionMinor: 1n,
    jackpotWinMinor: 7_000n,
    freeSpins: 3,
    ...overrides,
  };
}

/** The bodies a reels round of `call()` sends: bet, base spin with the jackpot, and two paying free spins. */
function callBody(index: number, cause: CallCause = call(index)): string {
  const session = { ...SESSION, game: cause.game };
  const calls = [
    { transactions: [{ id: 'tx-bet', type: 'bet' as const, amountMinor: 100n, jpAmountMinor: 1n }], finished: false },
    {
      transactions: [
        { id: 'tx-base', type: 'win' as const, amountMinor: 50n },
        { id: 'tx-jp', type: 'win' as const, amountMinor: 7_000n, jpAmountMinor: 7_000n },
      ],
      finished: false,
    },
    {
      transactions: [
        { id: 'tx-s1', type: 'win' as const, amountMinor: 200n },
        { id: 'tx-s3', type: 'win' as const, amountMinor: 50n },
      ],
      finished: true,
    },
  ];
  return reelsCallBody(calls[index - 1]!, cause.roundId, session, 2);
}

function callItem(cause: CallCause, overrides: Partial<ItemFacts> = {}): ItemFacts {
  return {
    itemId: 10 + cause.index,
    operatorId: 'op',
    orderingKey: cause.roundId,
    kind: cause.index === 1 ? 'bet' : 'win',
    path: '/transaction',
    status: 'sent',
    body: callBody(cause.index, cause),
    referrers: 1,
    cause: { call: cause },
    ...overrides,
  };
}

function payout(overrides: Partial<PayoutCause> = {}): PayoutCause {
  return {
    payoutId: 'po-1',
    operatorId: 'op',
    playerId: 'p-1',
    currency: 'EUR',
    amountMinor: 5_050n,
    campaignId: 'camp-1',
    operatorSessionId: 'os-1',
    status: 'paid',
    ...overrides,
  };
}

function payoutItem(cause: PayoutCause, overrides: Partial<ItemFacts> = {}): ItemFacts {
  return {
    itemId: 20,
    operatorId: 'op',
    orderingKey: cause.payoutId,
    kind: 'payout',
    path: '/payout',
    status: 'sent',
    body: bodyText(payoutBody(cause, cause.operatorSessionId, 2)),
    referrers: 1,
    cause: { payout: cause },
    ...overrides,
  };
}

const REELS_ROUND: RealRoundFacts = {
  roundId: 'r-reels',
  kind: 'reels',
  status: 'settled',
  ownBody: false,
  itemId: 11,
  itemStatus: 'sent',
  reels: { calls: 3, callsDone: 3, callRows: 3, finalCalls: 3, firstCall: 'accepted', bodiless: 0 },
};

const POOL: PoolFacts = {
  operatorId: 'op',
  game: 'reels',
  currency: 'EUR',
  amountMinor: 5_000n + 30n - 2_000n,
  rounds: 40,
  seedMinor: 5_000n,
  contributionsMinor: 30n,
  hitsMinor: 2_000n,
};

/** Books fed everything that agrees, then `more`. */
function judged(more: (books: RoundBooks) => void = () => {}): RoundBooksVerdict {
  const books = new RoundBooks(CURRENCIES);
  const round = dice();
  books.round({ roundId: round.roundId, kind: 'dice', status: 'settled', ownBody: false, itemId: 1, itemStatus: 'sent', reels: null });
  books.item(diceItem(round));
  books.round(REELS_ROUND);
  for (const index of [1, 2, 3]) books.item(callItem(call(index)));
  books.item(payoutItem(payout()));
  books.payout({ payoutId: 'po-1', amountMinor: 5_050n, rows: 1, itemFound: true });
  books.pool(POOL);
  books.campaignUse({ campaignId: 'camp-1', operatorId: 'op', playerId: 'p-1', used: 3, rounds: 3 });
  more(books);
  return books.verdict();
}

function assertOnly(verdict: RoundBooksVerdict, kind: FindingKind, ids: string[]): void {
  assert.equal(verdict.ok, false);
  assert.deepEqual(
    verdict.findings.map((finding) => finding.kind),
    [kind],
    verdict.findings.map((finding) => finding.sentence).join('\n'),
  );
  assert.deepEqual(verdict.findings[0]!.ids, ids);
  assert.equal(verdict.totals[kind], 1);
}

test('records that agree, of every kind, are ok, with everything read counted', () => {
  const verdict = judged();
  assert.deepEqual(verdict.findings, []);
  assert.equal(verdict.ok, true);
  assert.deepEqual(verdict.counted, { rounds: 0, realRounds: 2, items: 5, payouts: 1, pools: 1, campaignUses: 1 });
});

test('a pending round and its pending item, and a round delivered before the outbox with its own body, are no findings', () => {
  const verdict = judged((books) => {
    const round = dice();
    books.round({ roundId: round.roundId, kind: 'dice', status: 'pending', ownBody: false, itemId: 2, itemStatus: 'pending', reels: null });
    books.item(diceItem(round, { itemId: 2, status: 'pending' }));
    books.round({ roundId: 'old', kind: 'dice', status: 'settled', ownBody: true, itemId: null, itemStatus: null, reels: null });
    books.round({
      ...REELS_ROUND,
      roundId: 'r-open',
      status: 'pending',
      reels: { calls: 3, callsDone: 2, callRows: 3, finalCalls: 2, firstCall: 'accepted', bodiless: 0 },
    });
  });
  assert.equal(verdict.ok, true, verdict.findings.map((finding) => finding.sentence).join('\n'));
});

test('round-undelivered: a pending dice round without an item, a finished one with neither item nor body, an item that is not there', () => {
  assertOnly(
    judged((books) => books.round({ roundId: 'r-x', kind: 'dice', status: 'pending', ownBody: false, itemId: null, itemStatus: null, reels: null })),
    'round-undelivered',
    ['round:r-x'],
  );
  assertOnly(
    judged((books) => books.round({ roundId: 'r-x', kind: 'dice', status: 'settled', ownBody: false, itemId: null, itemStatus: null, reels: null })),
    'round-undelivered',
    ['round:r-x'],
  );
  assertOnly(
    judged((books) => books.round({ roundId: 'r-x', kind: 'dice', status: 'settled', ownBody: false, itemId: 9, itemStatus: null, reels: null })),
    'round-undelivered',
    ['round:r-x', 'item:9'],
  );
  assertOnly(
    judged((books) => books.round({ ...REELS_ROUND, roundId: 'r-y', itemId: null, itemStatus: null })),
    'round-undelivered',
    ['round:r-y'],
  );
});

test("round-status: a dice round's status is what its item's outcome makes it", () => {
  const cases: [RealRoundFacts['status'], RealRoundFacts['itemStatus']][] = [
    ['pending', 'sent'],
    ['settled', 'pending'],
    ['settled', 'parked'],
    ['settled', 'refused'],
    ['refused', 'resolved'],
    ['pending', 'skipped'],
  ];
  for (const [status, itemStatus] of cases) {
    const verdict = judged((books) => books.round({ roundId: 'r-x', kind: 'dice', status, ownBody: false, itemId: 4, itemStatus, reels: null }));
    assertOnly(verdict, 'round-status', ['round:r-x', 'item:4']);
  }
  for (const [status, itemStatus] of [
    ['settled', 'resolved'],
    ['refused', 'skipped'],
    ['pending', 'parked'],
  ] as const) {
    assert.equal(judged((books) => books.round({ roundId: 'r-x', kind: 'dice', status, ownBody: false, itemId: 4, itemStatus, reels: null })).ok, true);
  }
});

test("round-status: a reels round's status, count of answered calls and stored calls are what its calls say", () => {
  const reels = REELS_ROUND.reels!;
  const broken: RealRoundFacts[] = [
    { ...REELS_ROUND, status: 'pending' },
    { ...REELS_ROUND, status: 'refused' },
    { ...REELS_ROUND, reels: { ...reels, finalCalls: 2, callsDone: 2 } },
    { ...REELS_ROUND, reels: { ...reels, callsDone: 2 } },
    { ...REELS_ROUND, status: 'settled', reels: { ...reels, firstCall: 'refused', finalCalls: 1, callsDone: 1 } },
    { ...REELS_ROUND, reels: { ...reels, calls: 2, callsDone: 2, finalCalls: 2 } },
  ];
  for (const facts of broken)
    assertOnly(
      judged((books) => books.round({ ...facts, roundId: 'r-z' })),
      'round-status',
      ['round:r-z'],
    );
  const refused = {
    ...REELS_ROUND,
    roundId: 'r-z',
    status: 'refused' as const,
    reels: { ...reels, firstCall: 'refused' as const, finalCalls: 1, callsDone: 1 },
  };
  assert.equal(judged((books) => books.round(refused)).ok, true);
});

test("call-status: a reels call's status is what its item's outcome makes it", () => {
  assertOnly(
    judged((books) => books.item(callItem(call(2, { roundId: 'r-c', status: 'refused' })))),
    'call-status',
    ['call:r-c#2', 'item:12'],
  );
  assertOnly(
    judged((books) => books.item(callItem(call(3, { roundId: 'r-c', status: 'waiting' })))),
    'call-status',
    ['call:r-c#3', 'item:13'],
  );
  assert.equal(judged((books) => books.item(callItem(call(2, { roundId: 'r-c', status: 'pending' }), { status: 'parked' }))).ok, true);
});

test('item-orphan: an item nothing refers to, or more than one thing does', () => {
  const round = dice();
  assertOnly(
    judged((books) => books.item({ ...diceItem(round), itemId: 30, referrers: 0, cause: null })),
    'item-orphan',
    ['item:30'],
  );
  assertOnly(
    judged((books) => books.item({ ...diceItem(round), itemId: 31, referrers: 2 })),
    'item-orphan',
    ['item:31'],
  );
});

test('item-misaddressed: an item to another operator, key, kind or path than its cause', () => {
  const round = dice({ roundId: 'r-m' });
  for (const wrong of [{ operatorId: 'other' }, { orderingKey: 'r-other' }, { kind: 'win' }, { path: '/payout' }]) {
    assertOnly(
      judged((books) => books.item(diceItem(round, { itemId: 40, ...wrong }))),
      'item-misaddressed',
      ['round:r-m', 'item:40'],
    );
  }
  assertOnly(
    judged((books) => books.item(payoutItem(payout({ payoutId: 'po-2' }), { orderingKey: 'po-1' }))),
    'item-misaddressed',
    ['payout:po-2', 'item:20'],
  );
  assertOnly(
    judged((books) => books.item(callItem(call(2, { roundId: 'r-c' }), { kind: 'bet' }))),
    'item-misaddressed',
    ['call:r-c#2', 'item:12'],
  );
});

test("body-differs: a dice round's body is rebuilt from the round byte for byte, but for the operator's session", () => {
  const round = dice({ roundId: 'r-b' });
  const body = diceRoundBody(round, SESSION, 2);
  assert.equal(judged((books) => books.item(diceItem(round, { body: diceRoundBody(round, { ...SESSION, operatorSessionId: 'os-9' }, 2) }))).ok, true);
  for (const wrong of [
    body.replace('"amount":1.5', '"amount":1.6'),
    body.replace('"amount":1.5', '"amount":1.50'),
    body.replace('"p-1"', '"p-2"'),
    body.replace('"finished":true', '"finished":false'),
    `${body} `,
    'not json',
  ]) {
    assertOnly(
      judged((books) => books.item(diceItem(round, { body: wrong }))),
      'body-differs',
      ['round:r-b', 'item:1'],
    );
  }
  // A body kept on the round as well (written before it was kept once) must be the item's.
  assertOnly(
    judged((books) => books.item(diceItem({ ...round, ownBody: '{}' }))),
    'body-differs',
    ['round:r-b', 'item:1'],
  );
  assert.equal(judged((books) => books.item(diceItem({ ...round, ownBody: body }))).ok, true);
});

test("body-differs: a reels call's body is rebuilt from its round's amounts, its free spins' wins summing to the feature's", () => {
  const at = (index: number, from: string, to: string) => {
    const cause = call(index, { roundId: 'r-c' });
    const body = callBody(index, cause);
    assert.ok(body.includes(from), `${body} has ${from}`);
    return judged((books) => books.item(callItem(cause, { body: body.replace(from, to) })));
  };
  assertOnly(at(1, '"amount":1', '"amount":2'), 'body-differs', ['call:r-c#1', 'item:11']);
  assertOnly(at(1, '"jpAmount":0.01', '"jpAmount":0.02'), 'body-differs', ['call:r-c#1', 'item:11']);
  assertOnly(at(2, '"amount":70', '"amount":71'), 'body-differs', ['call:r-c#2', 'item:12']);
  assertOnly(at(2, '"finished":false', '"finished":true'), 'body-differs', ['call:r-c#2', 'item:12']);
  assertOnly(at(3, '"amount":2', '"amount":2.01'), 'body-differs', ['call:r-c#3', 'item:13']);
  assertOnly(at(3, '"type":"win"', '"type":"bet"'), 'body-differs', ['call:r-c#3', 'item:13']);
  assertOnly(
    judged((books) => books.item(callItem(call(3, { roundId: 'r-c', featureWinMinor: 251n })))),
    'body-differs',
    ['call:r-c#3', 'item:13'],
  );
  assertOnly(
    judged((books) => books.round({ ...REELS_ROUND, roundId: 'r-c', reels: { ...REELS_ROUND.reels!, bodiless: 1 } })),
    'body-differs',
    ['round:r-c'],
  );
});

test("body-differs: a payout's body is rebuilt from the payout and the session it names", () => {
  const cause = payout({ payoutId: 'po-3' });
  assertOnly(
    judged((books) => books.item(payoutItem(cause, { body: bodyText(payoutBody({ ...cause, amountMinor: 5_051n }, 'os-1', 2)) }))),
    'body-differs',
    ['payout:po-3', 'item:20'],
  );
  assertOnly(
    judged((books) => books.item(payoutItem(cause, { body: bodyText(payoutBody(cause, 'os-2', 2)) }))),
    'body-differs',
    ['payout:po-3', 'item:20'],
  );
});

test('a body in a currency the config does not know is a note, not a finding', () => {
  const verdict = judged((books) => books.item(diceItem(dice({ currency: 'XQQ' }), { body: '{}' })));
  assert.equal(verdict.ok, true);
  assert.equal(verdict.noteTotals['body-unchecked'], 1);
});

test('pool-mismatch: a pool is its seed plus the contributions of rounds not refused less their hits, and exists exactly when rounds made it', () => {
  assertOnly(
    judged((books) => books.pool({ ...POOL, game: 'g2', amountMinor: POOL.amountMinor! + 1n })),
    'pool-mismatch',
    ['pool:op/g2/EUR'],
  );
  assertOnly(
    judged((books) => books.pool({ ...POOL, game: 'g2', hitsMinor: 0n })),
    'pool-mismatch',
    ['pool:op/g2/EUR'],
  );
  assertOnly(
    judged((books) => books.pool({ ...POOL, game: 'g2', amountMinor: null })),
    'pool-mismatch',
    ['pool:op/g2/EUR'],
  );
  assertOnly(
    judged((books) => books.pool({ ...POOL, game: 'g2', rounds: 0, seedMinor: null })),
    'pool-mismatch',
    ['pool:op/g2/EUR'],
  );
});

test('payouts: once per id, a positive amount, an item to deliver it, and the status its item makes it', () => {
  assertOnly(
    judged((books) => books.payout({ payoutId: 'po-r', amountMinor: 1n, rows: 2, itemFound: true })),
    'payout-repeated',
    ['payout:po-r'],
  );
  assertOnly(
    judged((books) => books.payout({ payoutId: 'po-a', amountMinor: 0n, rows: 1, itemFound: true })),
    'payout-amount',
    ['payout:po-a'],
  );
  assertOnly(
    judged((books) => books.payout({ payoutId: 'po-u', amountMinor: 1n, rows: 1, itemFound: false })),
    'payout-undelivered',
    ['payout:po-u'],
  );
  for (const [status, itemStatus] of [
    ['pending', 'sent'],
    ['paid', 'refused'],
    ['refused', 'resolved'],
    ['paid', 'parked'],
  ] as const) {
    const cause = payout({ payoutId: 'po-s', status });
    assertOnly(
      judged((books) => books.item(payoutItem(cause, { status: itemStatus }))),
      'payout-status',
      ['payout:po-s', 'item:20'],
    );
  }
});

test("campaign-overused: no player's free rounds not refused exceed the campaign's, and the campaign is stored", () => {
  assertOnly(
    judged((books) => books.campaignUse({ campaignId: 'c-2', operatorId: 'op', playerId: 'p-2', used: 4, rounds: 3 })),
    'campaign-overused',
    ['campaign:c-2', 'player:p-2'],
  );
  assertOnly(
    judged((books) => books.campaignUse({ campaignId: 'c-3', operatorId: 'op', playerId: 'p-2', used: 1, rounds: null })),
    'campaign-overused',
    ['campaign:c-3', 'player:p-2'],
  );
});

test('a parked item is a note, and the books still agree', () => {
  const round = dice();
  const verdict = judged((books) => {
    books.round({ roundId: round.roundId, kind: 'dice', status: 'pending', ownBody: false, itemId: 7, itemStatus: 'parked', reels: null });
    books.item(diceItem(round, { itemId: 7, status: 'parked' }));
  });
  assert.equal(verdict.ok, true);
  assert.deepEqual(verdict.noteTotals, { 'item-parked': 1 });
  assert.deepEqual(verdict.notes[0]!.ids, ['item:7']);
});

test('findings past the listed maximum of a kind are counted, not listed', () => {
  const verdict = judged((books) => {
    for (let n = 0; n < FINDINGS_LISTED_MAX + 5; n++) books.payout({ payoutId: `po-${n}`, amountMinor: 0n, rows: 1, itemFound: true });
    books.payout({ payoutId: 'po-u', amountMinor: 1n, rows: 1, itemFound: false });
  });
  assert.equal(verdict.totals['payout-amount'], FINDINGS_LISTED_MAX + 5);
  assert.equal(verdict.findings.filter((finding) => finding.kind === 'payout-amount').length, FINDINGS_LISTED_MAX);
  assert.equal(verdict.totals['payout-undelivered'], 1);
  assert.equal(verdict.findings.at(-1)!.kind, 'payout-undelivered');
});
