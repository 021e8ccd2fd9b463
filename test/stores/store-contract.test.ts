/**
 * The store contract: every backend answers the same commands with the same
 * outcomes, byte for byte, and keeps books that verify. A seeded random
 * workload runs each backend against a small in-memory model of the wallet
 * rules, written independently of src/ledger. And every backend reports a
 * storage failure the same way (store.ts): the call rejects with an
 * UnavailableError, which the HTTP layer answers 503, and applies nothing;
 * it never resolves as a refusal.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DEFAULT_RULES } from '../../src/ledger/rules.js';
import type { TransactionRequest } from '../../src/protocol/schemas.js';
import type { PageOf } from '../../src/stores/store.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { UnavailableError, type Refusal } from '../../src/protocol/errors.js';
import { OPERATION_NAMES, OPERATIONS, type StoreOperationName } from '../../src/stores/operations.js';
import { BACKENDS } from './backends.js';
import { mulberry32 } from '../harness/seeded-random.js';
import { NOW, openSession, singleBet } from './store-fixtures.js';
import { checkedTransaction, checkPayout } from '../../src/protocol/checked-requests.js';

/** Writes tried at most while waiting for a full disk to refuse one: many pages' worth. */
const FILL_ATTEMPTS_MAX = 5_000;

/** Every item of a listing, page after page, following each page's cursor. */
async function everyPage<T>(page: (before: bigint | undefined) => Promise<PageOf<T> | Refusal>): Promise<T[]> {
  const items: T[] = [];
  let before: bigint | undefined;
  for (;;) {
    const got = await page(before);
    assert.ok(got.ok, got.ok ? '' : got.detail);
    items.push(...got.items);
    if (got.next === null) return items;
    before = got.next;
  }
}

for (const backend of BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`store contract: ${backend.name}`, { skip: backend.unavailable }, () => {
    let store: WalletStore;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await backend.open());
    });
    after(async () => cleanup());

    test('players: create, read, refuse duplicates and unknown currencies', async () => {
      const made = await store.createPlayer({ playerId: 'c-alice', currency: 'KWD', balance: 1.234, depositId: randomUUID(), now: NOW });
      assert.deepEqual(made, { ok: true, playerId: 'c-alice', currency: 'KWD', balance: '1.234', blocked: false, country: null });
      const again = await store.createPlayer({ playerId: 'c-alice', currency: 'KWD', balance: 1, depositId: randomUUID(), now: NOW });
      assert.ok(!again.ok && again.code === 'PLAYER_EXISTS');
      const bad = await store.createPlayer({ playerId: 'c-bob', currency: 'XYZ', balance: 1, depositId: randomUUID(), now: NOW });
      assert.ok(!bad.ok && bad.code === 'INVALID_REQUEST');
      const fine = await store.createPlayer({ playerId: 'c-carol', currency: 'EUR', balance: 1.001, depositId: randomUUID(), now: NOW });
      assert.ok(!fine.ok && fine.code === 'INVALID_REQUEST', 'more decimals than EUR has');
      const missing = await store.getPlayer('nobody');
      assert.ok(!missing.ok && missing.code === 'PLAYER_NOT_FOUND');
    });

    test('a round with bet and win answers exact balances, and a replay answers the same', async () => {
      const s = await openSession(store, 'c-dave', 10);
      const request: TransactionRequest = {
        ...s,
        transactions: [
          { id: randomUUID(), type: 'bet', amount: 0.1 },
          { id: randomUUID(), type: 'win', amount: 0.3, jpAmount: 0.2 },
        ],
        round: { id: randomUUID(), finished: true },
      };
      const first = await store.transact({ request: checkedTransaction(request), now: NOW });
      assert.deepEqual(first, {
        ok: true,
        balance: '10.2',
        currency: 'EUR',
        booked: [
          { kind: 'bet', amount: '0.1' },
          { kind: 'win', amount: '0.3' },
        ],
      });
      const replay = await store.transact({ request: checkedTransaction(request), now: NOW });
      assert.deepEqual(replay, { ok: true, balance: '10.2', currency: 'EUR', booked: [] });
      const listed = await store.listTransfers({ playerId: 'c-dave', limit: 10 });
      assert.ok(listed.ok);
      assert.deepEqual(
        listed.items.map((t) => [t.kind, t.amount, t.jpAmount]),
        [
          ['win', '0.3', '0.2'],
          ['bet', '0.1', '0'],
          ['deposit', '10', '0'],
        ],
      );
    });

    test('sessions expire for bets only; payouts and wins still land', async () => {
      const s = await openSession(store, 'c-erin', 5);
      const later = NOW + DEFAULT_RULES.sessionIdleMs + 1;
      const bet = await store.transact({
        request: checkedTransaction({ ...s, transactions: [{ id: randomUUID(), type: 'bet', amount: 1 }], round: { id: randomUUID(), finished: true } }),
        now: later,
      });
      assert.ok(!bet.ok && bet.code === 'SESSION_EXPIRED' && bet.balance === '5');
      const win = await store.transact({
        request: checkedTransaction({ ...s, transactions: [{ id: randomUUID(), type: 'win', amount: 1 }], round: { id: randomUUID(), finished: true } }),
        now: later,
      });
      assert.ok(win.ok && win.balance === '6');
      const payout = await store.payout({
        request: checkPayout({ sessionId: s.sessionId, payoutId: randomUUID(), amount: 2, campaign: { id: randomUUID(), type: 'tournament' } }),
        now: later,
      });
      assert.ok(payout.ok && payout.balance === '8');
    });

    test('session activity never moves back: a reload stamped earlier (a node whose clock is behind) does not shorten the session', async () => {
      const playerId = 'c-skew';
      const created = await store.createPlayer({ playerId, currency: 'EUR', balance: 5, country: 'DE', depositId: randomUUID(), now: NOW });
      assert.ok(created.ok);
      const key = await store.createLaunchKey({ playerId, game: 'dice', key: randomUUID(), now: NOW });
      assert.ok(key.ok);
      const opened = await store.authenticate({ key: key.key, game: 'dice', now: NOW, newSessionId: randomUUID() });
      assert.ok(opened.ok);
      const s = { sessionId: opened.sessionId, playerId, game: 'dice' };
      const bet = (now: number) =>
        store.transact({
          request: checkedTransaction({ ...s, transactions: [{ id: randomUUID(), type: 'bet', amount: 1 }], round: { id: randomUUID(), finished: true } }),
          now,
        });
      const minute = 60_000;
      assert.ok((await bet(NOW + 20 * minute)).ok, 'activity at 20 minutes');
      const reload = await store.authenticate({ key: key.key, game: 'dice', now: NOW + 10 * minute, newSessionId: randomUUID() });
      assert.ok(reload.ok && reload.sessionId === s.sessionId);
      // Active until 20 + 30 minutes; a reload stamped at 10 minutes would have ended it at 40.
      const late = await bet(NOW + 45 * minute);
      assert.ok(late.ok, JSON.stringify(late));
    });

    test('adjustments, blocking and paging', async () => {
      await openSession(store, 'c-frank', 0);
      const id = randomUUID();
      const deposit = await store.adjust({ id, playerId: 'c-frank', type: 'deposit', amount: 3, now: NOW });
      assert.ok(deposit.ok && deposit.balance === '3');
      const again = await store.adjust({ id, playerId: 'c-frank', type: 'deposit', amount: 3, now: NOW });
      assert.ok(again.ok && again.balance === '3' && again.booked.length === 0);
      const conflict = await store.adjust({ id, playerId: 'c-frank', type: 'deposit', amount: 4, now: NOW });
      assert.ok(!conflict.ok && conflict.code === 'DUPLICATE_CONFLICT');
      const blocked = await store.setBlocked({ playerId: 'c-frank', blocked: true, reason: 'self-excluded', now: NOW });
      assert.ok(blocked.ok && blocked.blocked);
      for (let i = 0; i < 5; i++) {
        const r = await store.adjust({ id: randomUUID(), playerId: 'c-frank', type: 'deposit', amount: 1, now: NOW + i });
        assert.ok(r.ok);
      }
      const first = await store.listTransfers({ playerId: 'c-frank', limit: 4 });
      assert.ok(first.ok && first.items.length === 4 && first.next !== null);
      const second = await store.listTransfers({ playerId: 'c-frank', limit: 4, before: first.next });
      assert.ok(second.ok && second.items.length === 2 && second.next === null);
      const ids = new Set([...first.items, ...second.items].map((t) => t.id));
      assert.equal(ids.size, 6);
    });

    test('each bet sees what came before it: back-office changes, an id used in another round, a round left open', async () => {
      const s = await openSession(store, 'c-grace', 10);
      const bet = (amount: number, round = { id: randomUUID(), finished: true }, id = randomUUID()) =>
        store.transact({ request: checkedTransaction({ ...s, transactions: [{ id, type: 'bet', amount }], round }), now: NOW });
      const balanceOf = (outcome: { ok: boolean; balance?: string }) => outcome.balance;
      assert.equal(balanceOf(await bet(1)), '9');
      const deposit = await store.adjust({ id: randomUUID(), playerId: 'c-grace', type: 'deposit', amount: 5, now: NOW });
      assert.ok(deposit.ok && deposit.balance === '14');
      assert.equal(balanceOf(await bet(1)), '13');
      await store.setBlocked({ playerId: 'c-grace', blocked: true, now: NOW });
      const blocked = await bet(1);
      assert.ok(!blocked.ok && blocked.code === 'PLAYER_BLOCKED' && blocked.balance === '13');
      await store.setBlocked({ playerId: 'c-grace', blocked: false, now: NOW });

      // An id booked in one round and sent again in another is refused, and opens nothing.
      const used = randomUUID();
      assert.equal(balanceOf(await bet(1, { id: randomUUID(), finished: true }, used)), '12');
      const roundId = randomUUID();
      const reused = await bet(1, { id: roundId, finished: false }, used);
      assert.ok(!reused.ok && reused.code === 'DUPLICATE_CONFLICT' && reused.balance === '12');
      const roundsOf = async () => {
        const page = await store.listRounds({ playerId: 'c-grace', limit: 50 });
        assert.ok(page.ok);
        return page.items.filter((round) => round.roundId === roundId).map((round) => round.finished);
      };
      assert.deepEqual(await roundsOf(), []);

      // A round left open takes a win in a later request; once finished it takes nothing more.
      assert.equal(balanceOf(await bet(2, { id: roundId, finished: false })), '10');
      assert.deepEqual(await roundsOf(), [false]);
      const win = await store.transact({
        request: checkedTransaction({ ...s, transactions: [{ id: randomUUID(), type: 'win', amount: 3 }], round: { id: roundId, finished: true } }),
        now: NOW,
      });
      assert.ok(win.ok && win.balance === '13');
      const late = await bet(1, { id: roundId, finished: true });
      assert.ok(!late.ok && late.code === 'ROUND_CLOSED' && late.balance === '13');
      assert.deepEqual(await roundsOf(), [true]);
      const report = await store.verify();
      assert.ok(report.ok, JSON.stringify(report));
    });

    test('a request refused part-way leaves nothing behind, not even the account of a game new to the ledger', async () => {
      const used = randomUUID();
      const dice = await openSession(store, 'c-heidi', 10);
      const bet = (s: typeof dice, transactions: TransactionRequest['transactions']) =>
        store.transact({ request: checkedTransaction({ ...s, transactions, round: { id: randomUUID(), finished: true } }), now: NOW });
      assert.ok((await bet(dice, [{ id: used, type: 'bet', amount: 1 }])).ok);
      // The first bet would open the new game's account; the second reuses an id and fails the request.
      const fresh = await openSession(store, 'c-ivan', 10, 'c-new-game');
      const refused = await bet(fresh, [
        { id: randomUUID(), type: 'bet', amount: 1 },
        { id: used, type: 'bet', amount: 1 },
      ]);
      assert.ok(!refused.ok && refused.code === 'DUPLICATE_CONFLICT' && refused.balance === '10');
      // Another account opens (in another currency), then the new game's account really does.
      const yen = await openSession(store, 'c-judy', 1000, 'dice', 'JPY');
      const prize = await store.payout({
        request: checkPayout({ sessionId: yen.sessionId, payoutId: randomUUID(), amount: 5, campaign: { id: randomUUID(), type: 'tournament' } }),
        now: NOW,
      });
      assert.ok(prize.ok && prize.balance === '1005');
      const booked = await bet(fresh, [{ id: randomUUID(), type: 'bet', amount: 1 }]);
      assert.ok(booked.ok && booked.balance === '9');
      const report = await store.verify();
      assert.ok(report.ok, JSON.stringify(report));
    });

    test("paging walks each player's own history, newest first, across interleaved players", async () => {
      const players = await Promise.all(['c-page-a', 'c-page-b', 'c-page-c'].map((playerId) => openSession(store, playerId, 100)));
      const rounds = new Map<string, string[]>(players.map((p) => [p.playerId, []]));
      const transfers = new Map<string, string[]>(players.map((p) => [p.playerId, []]));
      for (let i = 0; i < 21; i++) {
        // Interleaved, and some calls at once, so the players' rows are mixed in the tables.
        await Promise.all(
          players.map(async (p, n) => {
            if ((i + n) % 3 === 0) return;
            const round = randomUUID();
            const bet = randomUUID();
            const win = randomUUID();
            const outcome = await store.transact({
              request: checkedTransaction({
                ...p,
                transactions: [
                  { id: bet, type: 'bet', amount: 1 },
                  { id: win, type: 'win', amount: 0.5 },
                ],
                round: { id: round, finished: true },
              }),
              now: NOW + i,
            });
            assert.ok(outcome.ok, JSON.stringify(outcome));
            rounds.get(p.playerId)!.unshift(round);
            transfers.get(p.playerId)!.unshift(win, bet);
          }),
        );
      }
      for (const p of players) {
        const seenRounds = (await everyPage((before) => store.listRounds({ playerId: p.playerId, limit: 4, before }))).map((r) => r.roundId);
        assert.deepEqual(seenRounds, rounds.get(p.playerId));
        const seenTransfers = (await everyPage((before) => store.listTransfers({ playerId: p.playerId, limit: 5, before }))).map((t) => t.id);
        // The opening deposit comes last: it is the oldest.
        assert.deepEqual(seenTransfers.slice(0, -1), transfers.get(p.playerId));
        assert.equal(seenTransfers.length, transfers.get(p.playerId)!.length + 1);
      }
      // Past the newest row is the first page; another player's row is not a cursor of this one.
      const firstPage = await store.listRounds({ playerId: 'c-page-a', limit: 2 });
      const pastNewest = await store.listRounds({ playerId: 'c-page-a', limit: 2, before: 2n ** 63n - 1n });
      assert.deepEqual(pastNewest, firstPage);
      const ofB = await store.listTransfers({ playerId: 'c-page-b', limit: 1 });
      assert.ok(ofB.ok && ofB.next !== null);
      const foreign = await store.listTransfers({ playerId: 'c-page-a', limit: 2, before: ofB.next });
      assert.ok(!foreign.ok && foreign.code === 'INVALID_REQUEST');
      const ofBRounds = await store.listRounds({ playerId: 'c-page-b', limit: 1 });
      assert.ok(ofBRounds.ok && ofBRounds.next !== null);
      const foreignRound = await store.listRounds({ playerId: 'c-page-a', limit: 2, before: ofBRounds.next });
      assert.ok(!foreignRound.ok && foreignRound.code === 'INVALID_REQUEST');
    });

    // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
    test('seeded random workload matches the model, and the books verify', async () => {
      const random = mulberry32(20261121);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const players = await Promise.all([0, 1, 2, 3].map((i) => openSession(store, `w-${i}`, 50)));
      // The model: balances in cents, and every request sent so far with its first answer.
      const balance = new Map(players.map((p) => [p.playerId, 5000]));
      const history: { request: TransactionRequest; refusal?: string }[] = [];
      const seenIds = new Map<string, { type: string; cents: number; round: string; player: string }>();
      // Ids of requests refused by the wallet rules, with the refusal: final (docs/protocol.md §6.4).
      const refusedIds = new Map<string, { type: string; cents: number; round: string; player: string; code: string }>();
      const FINAL = new Set(['INSUFFICIENT_FUNDS', 'ROUND_CLOSED', 'ROUND_MISMATCH']);
      const rounds = new Map<string, { player: string; finished: boolean }>();
      for (let step = 0; step < 600; step++) {
        const roll = random();
        if (roll < 0.1 && history.length > 0) {
          // A replay answers what it was first answered, with the current balance, and changes nothing.
          const old = pick(history);
          const before = balance.get(old.request.playerId)!;
          const outcome = await store.transact({ request: checkedTransaction(old.request), now: NOW });
          if (old.refusal === undefined) assert.ok(outcome.ok, `replay refused: ${JSON.stringify(outcome)}`);
          else assert.ok(!outcome.ok && outcome.code === old.refusal, `refused replay answered: ${JSON.stringify(outcome)}`);
          assert.equal(Math.round(Number(outcome.balance) * 100), before);
          continue;
        }
        const p = pick(players);
        const n = 1 + Math.floor(random() * 3);
        const transactions = Array.from({ length: n }, () => ({
          id: randomUUID(),
          type: random() < 0.6 ? ('bet' as const) : ('win' as const),
          amount: Math.floor(random() * 3000) / 100,
        }));
        if (roll < 0.15 && seenIds.size > 0) transactions[0]!.id = pick([...seenIds.keys()]) as (typeof transactions)[0]['id'];
        else if (roll < 0.2 && refusedIds.size > 0) transactions[0]!.id = pick([...refusedIds.keys()]) as (typeof transactions)[0]['id'];
        const reuseRound = roll > 0.9 && rounds.size > 0;
        const roundId = reuseRound ? pick([...rounds.keys()]) : randomUUID();
        const request: TransactionRequest = { ...p, transactions, round: { id: roundId, finished: random() < 0.7 } };

        // What the model expects.
        let expected: string | number;
        const start = balance.get(p.playerId)!;
        const round = rounds.get(roundId);
        const conflict = transactions.some((t) => {
          const seen = seenIds.get(t.id) ?? refusedIds.get(t.id);
          return seen && (seen.type !== t.type || seen.cents !== Math.round(t.amount * 100) || seen.round !== roundId || seen.player !== p.playerId);
        });
        const refusedBefore = transactions.map((t) => refusedIds.get(t.id)).find((refused) => refused !== undefined);
        const fresh = transactions.filter((t) => !seenIds.has(t.id) && !refusedIds.has(t.id));
        if (conflict) expected = 'DUPLICATE_CONFLICT';
        else if (refusedBefore) expected = refusedBefore.code;
        else if (fresh.length === 0) expected = start;
        else if (round && round.player !== p.playerId) expected = 'ROUND_MISMATCH';
        else if (round?.finished) expected = 'ROUND_CLOSED';
        else {
          let running = start;
          expected = 0;
          for (const t of fresh) {
            const cents = Math.round(t.amount * 100);
            if (t.type === 'bet' && cents > running) {
              expected = 'INSUFFICIENT_FUNDS';
              break;
            }
            running += t.type === 'bet' ? -cents : cents;
          }
          if (expected !== 'INSUFFICIENT_FUNDS') expected = running;
        }

        const outcome = await store.transact({ request: checkedTransaction(request), now: NOW });
        if (typeof expected === 'number') {
          assert.ok(outcome.ok, `step ${step}: expected ${expected}, got ${JSON.stringify(outcome)}`);
          assert.equal(Math.round(Number(outcome.balance) * 100), expected, `step ${step}`);
          balance.set(p.playerId, expected);
          for (const t of fresh) {
            seenIds.set(t.id, { type: t.type, cents: Math.round(t.amount * 100), round: roundId, player: p.playerId });
          }
          if (fresh.length > 0) {
            if (!round) rounds.set(roundId, { player: p.playerId, finished: request.round.finished });
            else if (request.round.finished) round.finished = true;
          }
          history.push({ request });
        } else {
          assert.ok(!outcome.ok, `step ${step}: expected ${expected}, got ${JSON.stringify(outcome)}`);
          assert.equal(outcome.code, expected, `step ${step}: ${outcome.detail}`);
          assert.equal(Math.round(Number(outcome.balance) * 100), start, 'a refusal answers the unchanged balance');
          if (FINAL.has(expected)) {
            for (const t of fresh) {
              refusedIds.set(t.id, { type: t.type, cents: Math.round(t.amount * 100), round: roundId, player: p.playerId, code: expected });
            }
            history.push({ request, refusal: expected });
          }
        }
      }
      for (const p of players) {
        const view = await store.getPlayer(p.playerId);
        assert.ok(view.ok);
        assert.equal(Math.round(Number(view.balance) * 100), balance.get(p.playerId));
      }
      const report = await store.verify();
      assert.ok(report.ok, report.problems.join('\n'));
    });
  });
}

/**
 * Runs `write` until it rejects, and returns that rejection; each time it
 * resolves, the outcome must be a success: a storage failure answered as a
 * refusal is what this suite exists to catch.
 */
async function writeUntilRejected(label: string, write: (attempt: number) => Promise<{ ok: boolean }>): Promise<{ error: unknown; landed: number }> {
  for (let attempt = 0; attempt < FILL_ATTEMPTS_MAX; attempt++) {
    let outcome: { ok: boolean };
    try {
      outcome = await write(attempt);
    } catch (error) {
      return { error, landed: attempt };
    }
    assert.ok(outcome.ok, `${label} ${attempt} resolved ${JSON.stringify(outcome)}: a failure of storage must reject`);
  }
  assert.fail(`${label}: the disk never filled in ${FILL_ATTEMPTS_MAX} writes`);
}

function assertUnavailable(error: unknown): void {
  assert.ok(error instanceof UnavailableError, `rejected with ${String(error)}, not an UnavailableError`);
  assert.equal(error.code, 'SERVICE_UNAVAILABLE');
}

for (const backend of BACKENDS) {
  describe(`store contract, storage failure: ${backend.name}`, { skip: backend.unavailable }, () => {
    test('a write that storage cannot take rejects with UnavailableError and applies nothing; reads go on', async () => {
      const { store, prepared: session, cleanup } = await backend.openFull((roomy) => openSession(roomy, 'f-ann', 1_000));
      try {
        const bets = await writeUntilRejected('bet', () => store.transact({ now: NOW, request: checkedTransaction(singleBet(session, 1)) }));
        assertUnavailable(bets.error);
        // The bets that landed, and nothing of the one that failed.
        const player = await store.getPlayer('f-ann');
        assert.ok(player.ok);
        assert.equal(player.balance, String(1_000 - bets.landed));

        const players = await writeUntilRejected('new player', (attempt) =>
          store.createPlayer({ playerId: `f-new-${attempt}`, currency: 'EUR', balance: 5, depositId: randomUUID(), now: NOW }),
        );
        assertUnavailable(players.error);
        const missing = await store.getPlayer(`f-new-${players.landed}`);
        assert.ok(!missing.ok && missing.code === 'PLAYER_NOT_FOUND', 'the player whose write failed was not created');

        // /health's question: writes fail, so the store is not well, though it reads.
        await assert.rejects(store.ping(), (error) => {
          assertUnavailable(error);
          return true;
        });
      } finally {
        await cleanup();
      }
    });

    test('every operation of a closed store rejects with UnavailableError', async () => {
      const { store, cleanup } = await backend.open();
      await cleanup();
      const methods = OPERATION_NAMES.filter((name): name is StoreOperationName => OPERATIONS[name].method !== 'none');
      assert.ok(methods.includes('transact') && methods.includes('ping'));
      for (const name of methods) {
        // A closed store looks at no argument.
        await assert.rejects(
          store[name](undefined as never),
          (error) => {
            assertUnavailable(error);
            return true;
          },
          name,
        );
      }
    });
  });
}
