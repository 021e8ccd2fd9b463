/**
 * Proves the pure wallet rules alone, without storage: the order of checks,
 * running balances, idempotency outcomes, rounds, free bets, session expiry,
 * payouts, adjustments and launch keys; which refusals are final and what
 * is kept of them. Also the chart of accounts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { legsOf } from '../../src/ledger/accounts.js';
import {
  DEFAULT_RULES,
  FINAL_REFUSAL_CODES,
  planAdjustment,
  planAuthenticate,
  planPayout,
  planTransaction,
  SESSION_TOUCH_INTERVAL_MS,
  withoutRemember,
  type PlayerState,
  type SeenTransfer,
  type SessionState,
  type TransactionSnapshot,
} from '../../src/ledger/rules.js';
import { checkedTransaction, checkPayout, checkTransaction } from '../../src/protocol/checked-requests.js';
import type { PayoutRequest, TransactionRequest } from '../../src/protocol/schemas.js';

/** The rules take a request as the edge checked it (checked-requests.ts); these build it from the wire form. */
const planTx = (req: TransactionRequest, ...rest: [TransactionSnapshot, typeof DEFAULT_RULES]) => planTransaction(checkedTransaction(req), ...rest);
const planPay = (req: PayoutRequest, ...rest: Parameters<typeof planPayout> extends [unknown, ...infer R] ? R : never) => planPayout(checkPayout(req), ...rest);
/** The edge's checks that need no storage: the refusal, or undefined. */
const precheck = (req: TransactionRequest, max: number) => {
  const checked = checkTransaction(req, max);
  return checked.ok ? undefined : checked;
};

const NOW = 1_000_000_000;
const player = (balance: bigint, extra: Partial<PlayerState> = {}): PlayerState => ({
  playerId: 'p1',
  currency: 'EUR',
  decimals: 2,
  balance,
  blocked: false,
  ...extra,
});
const session = (extra: Partial<SessionState> = {}): SessionState => ({
  sessionId: randomUUID(),
  playerId: 'p1',
  game: 'dice',
  lastActiveAt: NOW,
  integrationId: 'default',
  ...extra,
});
const request = (transactions: TransactionRequest['transactions'], extra: Partial<TransactionRequest> = {}): TransactionRequest => ({
  sessionId: randomUUID(),
  playerId: 'p1',
  game: 'dice',
  transactions,
  round: { id: randomUUID(), finished: true },
  ...extra,
});
const snap = (balance: bigint, extra: Partial<TransactionSnapshot> = {}): TransactionSnapshot => ({
  session: session(),
  player: player(balance),
  seen: new Map(),
  round: undefined,
  campaignFinished: false,
  now: NOW,
  integrationId: 'default',
  ...extra,
});
const bet = (amount: number, id = randomUUID()) => ({ id, type: 'bet' as const, amount });
const win = (amount: number, id = randomUUID()) => ({ id, type: 'win' as const, amount });

test('bets are checked against the running balance, in order', () => {
  const ok = planTx(request([bet(10), win(5)]), snap(1000n), DEFAULT_RULES);
  assert.ok(ok.ok);
  assert.equal(ok.balanceAfter, 500n);
  const winFirst = planTx(request([win(5), bet(15)]), snap(1000n), DEFAULT_RULES);
  assert.ok(winFirst.ok && winFirst.balanceAfter === 0n);
  const refused = planTx(request([bet(15), win(5)]), snap(1000n), DEFAULT_RULES);
  assert.ok(!refused.ok);
  assert.equal(refused.code, 'INSUFFICIENT_FUNDS');
  assert.equal(refused.detail, 'bet 15.00 exceeds balance 10.00');
  assert.equal(refused.balance, '10', 'the balance answered is the one before the request');
});

test('idempotency: seen with the same content is skipped, with other content conflicts', () => {
  const id = randomUUID();
  const roundId = randomUUID();
  const seen: SeenTransfer = { kind: 'bet', playerId: 'p1', roundId, campaignId: null, amount: 100n, jpAmount: 0n };
  const replay = planTx(request([bet(1, id)], { round: { id: roundId, finished: true } }), snap(900n, { seen: new Map([[id, seen]]) }), DEFAULT_RULES);
  assert.ok(replay.ok);
  assert.equal(replay.transfers.length, 0);
  assert.equal(replay.balanceAfter, 900n);
  for (const other of [{ amount: 200n }, { kind: 'win' as const }, { roundId: randomUUID() }, { playerId: 'p2' }, { jpAmount: 1n }]) {
    const conflict = planTx(
      request([bet(1, id)], { round: { id: roundId, finished: true } }),
      snap(900n, { seen: new Map([[id, { ...seen, ...other }]]) }),
      DEFAULT_RULES,
    );
    assert.ok(!conflict.ok);
    assert.equal(
      conflict.code,
      'DUPLICATE_CONFLICT',
      JSON.stringify(other, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
    );
  }
  const mixed = planTx(
    request([bet(1, id), win(2)], { round: { id: roundId, finished: true } }),
    snap(900n, { seen: new Map([[id, seen]]), round: { playerId: 'p1', game: 'dice', finished: false, integrationId: 'default' } }),
    DEFAULT_RULES,
  );
  assert.ok(mixed.ok);
  assert.equal(mixed.transfers.length, 1, 'only the new transaction is planned');
  assert.equal(mixed.balanceAfter, 1100n);
});

test('a replay of seen ids passes even where a new request would be refused', () => {
  const id = randomUUID();
  const roundId = randomUUID();
  const seen: SeenTransfer = { kind: 'bet', playerId: 'p1', roundId, campaignId: null, amount: 100n, jpAmount: 0n };
  const expired = snap(0n, {
    seen: new Map([[id, seen]]),
    session: session({ lastActiveAt: NOW - DEFAULT_RULES.sessionIdleMs - 1 }),
    round: { playerId: 'p1', game: 'dice', finished: true, integrationId: 'default' },
    player: player(0n, { blocked: true }),
  });
  const replay = planTx(request([bet(1, id)], { round: { id: roundId, finished: true } }), expired, DEFAULT_RULES);
  assert.ok(replay.ok && replay.transfers.length === 0);
});

test('rounds: bound to player and game, closed by finished', () => {
  const mismatch = planTx(
    request([bet(1)]),
    snap(1000n, { round: { playerId: 'p2', game: 'dice', finished: false, integrationId: 'default' } }),
    DEFAULT_RULES,
  );
  assert.ok(!mismatch.ok && mismatch.code === 'ROUND_MISMATCH');
  const otherGame = planTx(
    request([bet(1)]),
    snap(1000n, { round: { playerId: 'p1', game: 'slots', finished: false, integrationId: 'default' } }),
    DEFAULT_RULES,
  );
  assert.ok(!otherGame.ok && otherGame.code === 'ROUND_MISMATCH');
  const closed = planTx(request([win(1)]), snap(1000n, { round: { playerId: 'p1', game: 'dice', finished: true, integrationId: 'default' } }), DEFAULT_RULES);
  assert.ok(!closed.ok && closed.code === 'ROUND_CLOSED');
  const open = planTx(request([bet(1)], { round: { id: randomUUID(), finished: false } }), snap(1000n), DEFAULT_RULES);
  assert.ok(open.ok && open.createRound && !open.closeRound);
  const zeroWin = planTx(request([win(0)]), snap(1000n, { round: { playerId: 'p1', game: 'dice', finished: false, integrationId: 'default' } }), DEFAULT_RULES);
  assert.ok(zeroWin.ok && zeroWin.closeRound && !zeroWin.createRound && zeroWin.balanceAfter === 1000n);
});

test('sessions: expired sessions refuse bets, accept wins, and are not revived', () => {
  const stale = snap(1000n, { session: session({ lastActiveAt: NOW - DEFAULT_RULES.sessionIdleMs }) });
  const betOnStale = planTx(request([bet(1)]), stale, DEFAULT_RULES);
  assert.ok(!betOnStale.ok && betOnStale.code === 'SESSION_EXPIRED');
  const winOnStale = planTx(request([win(1)]), stale, DEFAULT_RULES);
  assert.ok(winOnStale.ok && !winOnStale.touchSession);
  const fresh = planTx(request([bet(1)]), snap(1000n, { session: session({ lastActiveAt: NOW - SESSION_TOUCH_INTERVAL_MS }) }), DEFAULT_RULES);
  assert.ok(fresh.ok && fresh.touchSession);
  // Activity is recorded at most every SESSION_TOUCH_INTERVAL_MS, and never back in time.
  const justTouched = planTx(request([bet(1)]), snap(1000n, { session: session({ lastActiveAt: NOW - 1 }) }), DEFAULT_RULES);
  assert.ok(justTouched.ok && !justTouched.touchSession);
  const ahead = planTx(request([bet(1)]), snap(1000n, { session: session({ lastActiveAt: NOW + 60_000 }) }), DEFAULT_RULES);
  assert.ok(ahead.ok && !ahead.touchSession);
  const unknown = planTx(request([bet(1)]), snap(1000n, { session: undefined, player: undefined }), DEFAULT_RULES);
  assert.ok(!unknown.ok && unknown.code === 'SESSION_NOT_FOUND' && unknown.balance === undefined);
  const otherPlayer = planTx(request([bet(1)], { playerId: 'p2' }), snap(1000n), DEFAULT_RULES);
  assert.ok(!otherPlayer.ok && otherPlayer.code === 'SESSION_MISMATCH');
  const otherGame = planTx(request([bet(1)], { game: 'slots' }), snap(1000n), DEFAULT_RULES);
  assert.ok(!otherGame.ok && otherGame.code === 'SESSION_MISMATCH');
});

test('blocked players: bets refused, wins accepted', () => {
  const blocked = snap(1000n, { player: player(1000n, { blocked: true }) });
  const refused = planTx(request([bet(1)]), blocked, DEFAULT_RULES);
  assert.ok(!refused.ok && refused.code === 'PLAYER_BLOCKED');
  assert.ok(planTx(request([win(1)]), blocked, DEFAULT_RULES).ok);
});

test('free bets are not debited, and a finished campaign refuses more', () => {
  const campaign = { id: randomUUID(), type: 'freeBets' as const, finished: true };
  const free = planTx(request([bet(10), win(3)], { campaign }), snap(0n), DEFAULT_RULES);
  assert.ok(free.ok);
  assert.equal(free.balanceAfter, 300n);
  assert.ok(free.transfers[0]!.freeBet && !free.transfers[1]!.freeBet);
  // The free bet is paid by the campaign's account, the win by the game's.
  assert.deepEqual(
    free.transfers.map((t) => [t.legs.debit.kind, t.legs.debit.ref, t.legs.credit.kind]),
    [
      ['campaign', campaign.id, 'game'],
      ['game', 'dice', 'player'],
    ],
  );
  assert.equal(free.closeCampaign, campaign.id);
  const after = planTx(request([bet(10)], { campaign }), snap(0n, { campaignFinished: true }), DEFAULT_RULES);
  assert.ok(!after.ok && after.code === 'CAMPAIGN_FINISHED');
});

test('amounts: decimals of the currency, jpAmount within amount', () => {
  const tooFine = planTx(request([bet(0.001)]), snap(1000n), DEFAULT_RULES);
  assert.ok(!tooFine.ok && tooFine.code === 'INVALID_REQUEST' && /transactions\[0\]\.amount/.test(tooFine.detail));
  const yen = planTx(request([bet(1.5)]), snap(1000n, { player: player(1000n, { currency: 'JPY', decimals: 0 }) }), DEFAULT_RULES);
  assert.ok(!yen.ok && yen.code === 'INVALID_REQUEST');
  const jp = planTx(request([{ ...bet(2), jpAmount: 0.5 }]), snap(1000n), DEFAULT_RULES);
  assert.ok(jp.ok && jp.transfers[0]!.jpAmount === 50n);
  assert.equal(precheck(request([{ ...bet(1), jpAmount: 2 }]), 100)?.code, 'INVALID_REQUEST');
  const id = randomUUID();
  assert.match(precheck(request([bet(1, id), win(1, id.toUpperCase() as typeof id)]), 100)?.detail ?? '', /appears twice/);
  assert.match(precheck(request([bet(1), bet(1), bet(1)]), 2)?.detail ?? '', /at most 2/);
  assert.equal(precheck(request([bet(1), win(1)]), 100), undefined);
});

test('payouts: positive, idempotent by content', () => {
  const req = { sessionId: randomUUID(), payoutId: randomUUID(), amount: 5, campaign: { id: randomUUID(), type: 'tournament' as const } };
  const s = { session: session(), player: player(100n), integrationId: 'default' };
  const planned = planPay(req, { ...s, seen: undefined });
  assert.ok(planned.ok && planned.apply && planned.balanceAfter === 600n);
  const seen: SeenTransfer = { kind: 'payout', playerId: 'p1', roundId: null, campaignId: req.campaign.id, amount: 500n, jpAmount: 0n };
  const replay = planPay(req, { ...s, seen });
  assert.ok(replay.ok && !replay.apply && replay.balanceAfter === 100n);
  const conflict = planPay({ ...req, amount: 6 }, { ...s, seen });
  assert.ok(!conflict.ok && conflict.code === 'DUPLICATE_CONFLICT');
  const otherCampaign = planPay({ ...req, campaign: { id: randomUUID(), type: 'tournament' } }, { ...s, seen });
  assert.ok(!otherCampaign.ok && otherCampaign.code === 'DUPLICATE_CONFLICT');
  const zero = planPay({ ...req, amount: 0 }, { ...s, seen: undefined });
  assert.ok(!zero.ok && zero.code === 'INVALID_REQUEST');
  const expired = planPay(req, { session: session({ lastActiveAt: 0 }), player: player(0n), seen: undefined, integrationId: 'default' });
  assert.ok(expired.ok, 'payouts land on expired sessions');
});

test('adjustments: withdrawals need funds, ids are idempotent', () => {
  const command = { id: randomUUID(), playerId: 'p1', type: 'withdrawal' as const, amount: 2 };
  const refused = planAdjustment(command, player(100n), undefined);
  assert.ok(!refused.ok && refused.code === 'INSUFFICIENT_FUNDS');
  const ok = planAdjustment({ ...command, amount: 1 }, player(100n), undefined);
  assert.ok(ok.ok && ok.balanceAfter === 0n);
  const missing = planAdjustment(command, undefined, undefined);
  assert.ok(!missing.ok && missing.code === 'PLAYER_NOT_FOUND');
});

test('launch keys: valid until first use, then as long as their session', () => {
  const key = { playerId: 'p1', game: 'dice', expiresAt: NOW + 1, integrationId: null, session: undefined };
  assert.deepEqual(planAuthenticate('dice', key, player(0n), NOW, DEFAULT_RULES, 'default'), { ok: true, kind: 'new' });
  const late = planAuthenticate('dice', key, player(0n), NOW + 1, DEFAULT_RULES, 'default');
  assert.ok(!late.ok && late.code === 'INVALID_LAUNCH_KEY');
  const wrongGame = planAuthenticate('slots', key, player(0n), NOW, DEFAULT_RULES, 'default');
  assert.ok(!wrongGame.ok && wrongGame.code === 'SESSION_MISMATCH');
  const used = { ...key, session: session() };
  const reload = planAuthenticate('dice', used, player(0n), NOW + 5 * 60_000, DEFAULT_RULES, 'default');
  assert.ok(reload.ok && reload.kind === 'existing');
  const gone = planAuthenticate('dice', used, player(0n), NOW + DEFAULT_RULES.sessionIdleMs, DEFAULT_RULES, 'default');
  assert.ok(!gone.ok && gone.code === 'INVALID_LAUNCH_KEY');
  const blocked = planAuthenticate('dice', key, player(0n, { blocked: true }), NOW, DEFAULT_RULES, 'default');
  assert.ok(!blocked.ok && blocked.code === 'PLAYER_BLOCKED');
  const blockedReload = planAuthenticate('dice', used, player(0n, { blocked: true }), NOW + 60_000, DEFAULT_RULES, 'default');
  assert.ok(!blockedReload.ok && blockedReload.code === 'PLAYER_BLOCKED', 'a blocked player cannot reload an open session either');
});

test('every transfer moves money between two accounts of one currency', () => {
  const base = { playerId: 'p1', currency: 'EUR', game: 'dice' };
  assert.deepEqual(legsOf({ ...base, kind: 'bet' }), {
    debit: { kind: 'player', ref: 'p1', currency: 'EUR' },
    credit: { kind: 'game', ref: 'dice', currency: 'EUR' },
  });
  assert.equal(legsOf({ ...base, kind: 'bet', freeBet: true, campaignId: 'c1' }).debit.kind, 'campaign');
  assert.equal(legsOf({ ...base, kind: 'win' }).credit.kind, 'player');
  assert.equal(legsOf({ ...base, kind: 'payout', campaignId: 'c1' }).debit.kind, 'tournament');
  assert.equal(legsOf({ ...base, kind: 'deposit' }).debit.kind, 'cash');
  assert.equal(legsOf({ ...base, kind: 'withdrawal' }).credit.kind, 'cash');
  for (const kind of ['bet', 'win', 'payout', 'deposit', 'withdrawal'] as const) {
    const legs = legsOf({ ...base, kind });
    assert.equal(legs.debit.currency, legs.credit.currency);
    assert.notDeepEqual(legs.debit, legs.credit);
  }
});

test('§6.4 a final refusal lists every id the ledger does not hold, with the content to compare a repeat with', () => {
  const roundId = randomUUID();
  const booked = bet(1);
  const seenBooked: SeenTransfer = { kind: 'bet', playerId: 'p1', roundId, campaignId: null, amount: 100n, jpAmount: 0n };
  const refused = planTx(
    request([booked, bet(5), win(7)], { round: { id: roundId, finished: true } }),
    snap(100n, { seen: new Map([[booked.id, seenBooked]]) }),
    DEFAULT_RULES,
  );
  assert.ok(!refused.ok && refused.code === 'INSUFFICIENT_FUNDS');
  assert.deepEqual(
    refused.remember.map((r) => [r.kind, r.amount, r.roundId, r.playerId, r.code]),
    [
      ['bet', 500n, roundId, 'p1', 'INSUFFICIENT_FUNDS'],
      ['win', 700n, roundId, 'p1', 'INSUFFICIENT_FUNDS'],
    ],
  );
  assert.equal(withoutRemember(refused).code, 'INSUFFICIENT_FUNDS');
  assert.ok(!('remember' in withoutRemember(refused)));
});

test('§6.4 every code of the final set is remembered, and no other', () => {
  assert.deepEqual([...FINAL_REFUSAL_CODES].sort(), [
    'CAMPAIGN_FINISHED',
    'INSUFFICIENT_FUNDS',
    'INTEGRATION_PAUSED',
    'PLAYER_BLOCKED',
    'ROUND_CLOSED',
    'ROUND_MISMATCH',
    'SESSION_EXPIRED',
    'SESSION_MISMATCH',
  ]);
  const blocked = planTx(request([bet(1)]), snap(100n, { player: player(100n, { blocked: true }) }), DEFAULT_RULES);
  assert.ok(!blocked.ok && blocked.code === 'PLAYER_BLOCKED' && blocked.remember.length === 1);
  const mismatch = planTx(request([bet(1)], { game: 'slots' }), snap(100n), DEFAULT_RULES);
  assert.ok(!mismatch.ok && mismatch.code === 'SESSION_MISMATCH' && mismatch.remember.length === 1);
  const invalid = planTx(request([bet(0.001)]), snap(100n), DEFAULT_RULES);
  assert.ok(!invalid.ok && invalid.code === 'INVALID_REQUEST' && invalid.remember.length === 0);
  const unknown = planTx(request([bet(1)]), snap(100n, { session: undefined, player: undefined }), DEFAULT_RULES);
  assert.ok(!unknown.ok && unknown.code === 'SESSION_NOT_FOUND' && unknown.remember.length === 0);
});

test('§2.6 paused: a new bet is refused INTEGRATION_PAUSED and kept as final; wins, and ids booked before, are answered as ever', () => {
  const paused = { betsPaused: true };
  const refused = planTx(request([bet(1), win(2)]), snap(100n, paused), DEFAULT_RULES);
  assert.ok(
    !refused.ok && refused.code === 'INTEGRATION_PAUSED' && refused.remember.length === 2,
    refused.ok ? 'booked' : `${refused.code} ${refused.remember.length}`,
  );
  assert.equal(refused.balance, '1', 'the balance, shown as the other refusals show it');
  const winOnly = planTx(request([win(2)]), snap(100n, paused), DEFAULT_RULES);
  assert.ok(winOnly.ok && winOnly.balanceAfter === 300n);
  const roundId = randomUUID();
  const booked = bet(1);
  const seenBooked: SeenTransfer = { kind: 'bet', playerId: 'p1', roundId, campaignId: null, amount: 100n, jpAmount: 0n };
  const replay = planTx(
    request([booked], { round: { id: roundId, finished: true } }),
    snap(100n, { ...paused, seen: new Map([[booked.id, seenBooked]]) }),
    DEFAULT_RULES,
  );
  assert.ok(replay.ok && replay.transfers.length === 0 && replay.balanceAfter === 100n, 'a bet booked before the pause answers its balance');
  assert.ok(planTx(request([bet(1)]), snap(100n), DEFAULT_RULES).ok, 'not paused: booked');
  const key = { playerId: 'p1', game: 'dice', expiresAt: NOW + 60_000, integrationId: null, session: undefined };
  const opened = planAuthenticate('dice', key, player(0n), NOW, DEFAULT_RULES, 'default', true);
  assert.ok(!opened.ok && opened.code === 'INTEGRATION_PAUSED');
  assert.ok(planAuthenticate('dice', key, player(0n), NOW, DEFAULT_RULES, 'default').ok);
});

test("§2.6 another integration's session: refused INTEGRATION_MISMATCH after idempotency, without the balance, and kept nowhere", () => {
  const foreign = { integrationId: 'studio-b' };
  for (const transactions of [[bet(1)], [win(2)], [bet(1), win(2)]]) {
    const refused = planTx(request(transactions), snap(100n, foreign), DEFAULT_RULES);
    assert.ok(!refused.ok && refused.code === 'INTEGRATION_MISMATCH', refused.ok ? 'booked' : refused.code);
    assert.equal(refused.balance, undefined, "the balance is not the caller's to read");
    assert.equal(refused.remember.length, 0, 'not final: nothing is kept on a player of another integration');
  }
  // Judged where the session is: a playerId or game the session does not have is the same refusal, not a kept SESSION_MISMATCH.
  for (const extra of [{ playerId: 'p2' }, { game: 'slots' }]) {
    const refused = planTx(request([bet(1)], extra), snap(100n, foreign), DEFAULT_RULES);
    assert.ok(!refused.ok && refused.code === 'INTEGRATION_MISMATCH' && refused.remember.length === 0, refused.ok ? 'booked' : refused.code);
  }
  // After idempotency: a repeat of what was booked answers its balance, as any repeat does.
  const roundId = randomUUID();
  const booked = bet(1);
  const seenBooked: SeenTransfer = { kind: 'bet', playerId: 'p1', roundId, campaignId: null, amount: 100n, jpAmount: 0n };
  const replay = planTx(
    request([booked], { round: { id: roundId, finished: true } }),
    snap(100n, { ...foreign, seen: new Map([[booked.id, seenBooked]]) }),
    DEFAULT_RULES,
  );
  assert.ok(replay.ok && replay.transfers.length === 0 && replay.balanceAfter === 100n && !replay.touchSession);
  // A repeat of a kept refusal with a fresh id beside it: the fresh id is not kept for another integration.
  const refusedId = bet(1);
  const seenRefused: SeenTransfer = { ...seenBooked, refused: { code: 'INSUFFICIENT_FUNDS', detail: 'no' } };
  const mixed = planTx(
    request([refusedId, bet(1)], { round: { id: roundId, finished: true } }),
    snap(100n, { ...foreign, seen: new Map([[refusedId.id, seenRefused]]) }),
    DEFAULT_RULES,
  );
  assert.ok(!mixed.ok && mixed.remember.length === 0);
  // The session's own integration, the environment's or a stored one, books as ever.
  assert.ok(planTx(request([bet(1)]), snap(100n), DEFAULT_RULES).ok);
  const own = { integrationId: 'studio-b', session: session({ integrationId: 'studio-b' }) };
  assert.ok(planTx(request([bet(1)]), snap(100n, own), DEFAULT_RULES).ok);
});

test("§2.6 another integration's round: refused INTEGRATION_MISMATCH on the caller's own session, without the balance, kept nowhere", () => {
  const own = { integrationId: 'studio-b', session: session({ integrationId: 'studio-b' }) };
  const theirs = { playerId: 'p1', game: 'dice', finished: false, integrationId: 'default' };
  for (const transactions of [[bet(1)], [win(2)]]) {
    const refused = planTx(request(transactions), snap(100n, { ...own, round: theirs }), DEFAULT_RULES);
    assert.ok(!refused.ok && refused.code === 'INTEGRATION_MISMATCH', refused.ok ? 'booked' : refused.code);
    assert.equal(refused.balance, undefined);
    assert.equal(refused.remember.length, 0, 'not final, as on a foreign session');
  }
  // Judged before the round's player, game and state: nothing of another studio's round is told.
  for (const round of [
    { ...theirs, playerId: 'p2' },
    { ...theirs, game: 'slots' },
    { ...theirs, finished: true },
  ]) {
    const refused = planTx(request([bet(1)]), snap(100n, { ...own, round }), DEFAULT_RULES);
    assert.ok(!refused.ok && refused.code === 'INTEGRATION_MISMATCH', refused.ok ? 'booked' : refused.code);
  }
  // After idempotency: a repeat of what the round booked answers its balance.
  const roundId = randomUUID();
  const booked = bet(1);
  const seen: SeenTransfer = { kind: 'bet', playerId: 'p1', roundId, campaignId: null, amount: 100n, jpAmount: 0n };
  const replay = planTx(
    request([booked], { round: { id: roundId, finished: true } }),
    snap(100n, { ...own, round: theirs, seen: new Map([[booked.id, seen]]) }),
    DEFAULT_RULES,
  );
  assert.ok(replay.ok && replay.transfers.length === 0);
  // Its own round, of a game with the same slug as another studio's, books as ever.
  assert.ok(planTx(request([bet(1)]), snap(100n, { ...own, round: { ...theirs, integrationId: 'studio-b' } }), DEFAULT_RULES).ok);
});

test('§2.6 the same game slug or campaign id at two studios is two accounts; the environment keeps the bare names', () => {
  const freeBet = { campaign: { id: randomUUID(), type: 'freeBets' as const, finished: false } };
  const plan = (integrationId: string) => {
    const planned = planTx(request([bet(1), win(2)], freeBet), snap(100n, { integrationId, session: session({ integrationId }) }), DEFAULT_RULES);
    assert.ok(planned.ok);
    return planned.transfers.map((t) => t.legs);
  };
  const [envBet, envWin] = plan('default');
  assert.deepEqual([envBet!.debit.ref, envBet!.credit.ref, envWin!.debit.ref], [freeBet.campaign.id, 'dice', 'dice']);
  const [bBet, bWin] = plan('studio-b');
  assert.deepEqual([bBet!.debit.ref, bBet!.credit.ref, bWin!.debit.ref], [`studio-b/${freeBet.campaign.id}`, 'studio-b/dice', 'studio-b/dice']);
  assert.equal(bWin!.credit.ref, 'p1', "the player's wallet is one, whichever studio books");
  const payout = planPay(
    { sessionId: randomUUID(), payoutId: randomUUID(), amount: 1, campaign: { id: freeBet.campaign.id, type: 'tournament' } },
    { session: session({ integrationId: 'studio-b' }), player: player(0n), seen: undefined, integrationId: 'studio-b' },
  );
  assert.ok(payout.ok && payout.legs.debit.kind === 'tournament' && payout.legs.debit.ref === `studio-b/${freeBet.campaign.id}`);
});

test("§2.6 /payout on another integration's session: refused INTEGRATION_MISMATCH after idempotency, without the balance", () => {
  const req = { sessionId: randomUUID(), payoutId: randomUUID(), amount: 5, campaign: { id: randomUUID(), type: 'tournament' as const } };
  const foreign = { session: session(), player: player(100n), integrationId: 'studio-b' };
  const refused = planPay(req, { ...foreign, seen: undefined });
  assert.ok(!refused.ok && refused.code === 'INTEGRATION_MISMATCH' && refused.balance === undefined);
  const seen: SeenTransfer = { kind: 'payout', playerId: 'p1', roundId: null, campaignId: req.campaign.id, amount: 500n, jpAmount: 0n };
  const replay = planPay(req, { ...foreign, seen });
  assert.ok(replay.ok && !replay.apply, 'a repeat of a booked payout answers its balance');
  const own = planPay(req, { ...foreign, session: session({ integrationId: 'studio-b' }), seen: undefined });
  assert.ok(own.ok && own.apply);
});

test('§2.6 /authenticate: a key whose session another integration opened is refused INTEGRATION_MISMATCH; its own reloads it', () => {
  const used = { playerId: 'p1', game: 'dice', expiresAt: NOW + 60_000, integrationId: null, session: session({ integrationId: 'studio-a' }) };
  const other = planAuthenticate('dice', used, player(0n), NOW + 1_000, DEFAULT_RULES, 'studio-b');
  assert.ok(!other.ok && other.code === 'INTEGRATION_MISMATCH' && other.balance === undefined);
  const expired = planAuthenticate('dice', used, player(0n), NOW + DEFAULT_RULES.sessionIdleMs, DEFAULT_RULES, 'default');
  assert.ok(!expired.ok && expired.code === 'INTEGRATION_MISMATCH', 'whatever the state of the session, nothing of it is told');
  const wrongGame = planAuthenticate('slots', used, player(0n, { blocked: true }), NOW + 1_000, DEFAULT_RULES, 'studio-b');
  assert.ok(!wrongGame.ok && wrongGame.code === 'INTEGRATION_MISMATCH', 'nor of the key or its player');
  const reload = planAuthenticate('dice', used, player(0n), NOW + 1_000, DEFAULT_RULES, 'studio-a');
  assert.ok(reload.ok && reload.kind === 'existing');
  const fresh = { ...used, session: undefined };
  assert.deepEqual(
    planAuthenticate('dice', fresh, player(0n), NOW, DEFAULT_RULES, 'studio-b'),
    { ok: true, kind: 'new' },
    'an unused key made for no integration opens for any',
  );
  // A key made for one integration's game: only that integration opens it, and nothing of the key is told to another.
  const made = { ...fresh, integrationId: 'studio-a' };
  for (const [game, caller] of [
    ['dice', 'studio-b'],
    ['slots', 'default'],
  ] as const) {
    const refused = planAuthenticate(game, made, player(0n, { blocked: true }), NOW, DEFAULT_RULES, caller);
    assert.ok(!refused.ok && refused.code === 'INTEGRATION_MISMATCH' && refused.balance === undefined, refused.ok ? 'opened' : refused.code);
  }
  assert.deepEqual(planAuthenticate('dice', made, player(0n), NOW, DEFAULT_RULES, 'studio-a'), { ok: true, kind: 'new' });
});

test('§6.4 a repeat of a refused id answers the refusal it was given, whatever the state now, and keeps nothing more', () => {
  const roundId = randomUUID();
  const id = randomUUID();
  const seen: SeenTransfer = {
    kind: 'bet',
    playerId: 'p1',
    roundId,
    campaignId: null,
    amount: 500n,
    jpAmount: 0n,
    refused: { code: 'INSUFFICIENT_FUNDS', detail: 'bet 5.00 exceeds balance 1.00' },
  };
  const again = planTx(request([bet(5, id)], { round: { id: roundId, finished: true } }), snap(10_000n, { seen: new Map([[id, seen]]) }), DEFAULT_RULES);
  assert.ok(!again.ok && again.code === 'INSUFFICIENT_FUNDS', JSON.stringify(again));
  assert.equal(again.detail, 'refused before, and final: bet 5.00 exceeds balance 1.00');
  assert.equal(again.balance, '100');
  assert.deepEqual(again.remember, []);
  // With a new id beside it, the new id is kept with the first refusal's own words.
  const withNew = planTx(
    request([bet(5, id), win(1)], { round: { id: roundId, finished: true } }),
    snap(10_000n, { seen: new Map([[id, seen]]) }),
    DEFAULT_RULES,
  );
  assert.ok(!withNew.ok && withNew.remember.length === 1 && withNew.remember[0]!.detail === 'bet 5.00 exceeds balance 1.00');
  // Other content under the refused id is a conflict, not the refusal.
  const other = planTx(request([bet(6, id)], { round: { id: roundId, finished: true } }), snap(10_000n, { seen: new Map([[id, seen]]) }), DEFAULT_RULES);
  assert.ok(!other.ok && other.code === 'DUPLICATE_CONFLICT' && other.remember.length === 0);
});

test('§6.6 a freeBets campaign needs its id, and so does campaign.finished', () => {
  const freeBet = request([bet(1)], { campaign: { type: 'freeBets' } });
  assert.match(precheck(freeBet, 100)?.detail ?? '', /campaign\.id: is required for a freeBets campaign/);
  const finished = request([bet(1)], { campaign: { finished: true } });
  assert.match(precheck(finished, 100)?.detail ?? '', /campaign\.id: is required with campaign\.finished/);
  assert.equal(precheck(request([bet(1)], { campaign: {} }), 100), undefined, 'an empty campaign object is no campaign');
  assert.equal(precheck(request([bet(1)], { campaign: { id: randomUUID(), type: 'freeBets', finished: true } }), 100), undefined);
});
