/**
 * The provider store's contract for rounds of several calls (the reels
 * game), on every backend: a reels round, its bet's request and its jackpot
 * pool's move commit together; each later call is enqueued only by the
 * final answer of the one before (the base spin's right after the bet, the
 * feature's once its free spins are all played, whichever comes second), so
 * a refused bet leaves nothing queued and gives the pool back what it took;
 * a refused win is kept on its call while the round closes; a jackpot is
 * paid once and resets the pool to its seed; free spins are revealed once;
 * a fun round pays its feature when the feature ends.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CLAIM_LIMITS, type Answer } from '../../../src/dispatch/outbox.js';
import type { GameSessionRow, NewReelsRound, ProviderStore, RoundRow } from '../../../src/provider/store/provider-store.js';
import { PROVIDER_STORE_BACKENDS, type OpenedProviderStore } from './backends.js';
import { begun, realSession, SEED, sealedNext, TEST_KEYRING } from './store-fixtures.js';
import { commitment } from '../../../src/game/fairness.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const OK = (balance: string): Answer => ({ status: 200, detail: 'HTTP 200', balance });
const POOL_SEED = 5_000n;

interface Shape {
  freeSpins?: number;
  jackpotHit?: boolean;
  mode?: 'real' | 'fun';
}

/** A reels round of a bet of 1.00 (contribution 0.01): base win 0.50, feature 2.00 when it has one. Its bodies name the call and the pool won. */
function reelsRound(session: GameSessionRow, nonce: number, shape: Shape = {}): NewReelsRound {
  const freeSpins = shape.freeSpins ?? 0;
  const mode = shape.mode ?? 'real';
  const calls = freeSpins > 0 ? 3 : 2;
  const roundId = randomUUID();
  return {
    roundId,
    sessionPk: session.pk,
    mode,
    operatorId: session.operatorId,
    playerId: session.playerId,
    game: 'reels',
    currency: 'EUR',
    betMinor: 100n,
    winMinor: freeSpins > 0 ? 250n : 50n,
    betTxId: mode === 'real' ? randomUUID() : null,
    winTxId: mode === 'real' ? randomUUID() : null,
    campaignId: null,
    campaignFinished: null,
    chancePct: 0,
    threshold: 0,
    roll: 0,
    // Free spins to reveal: the seed stays sealed until the last (the store never opens it).
    serverSeed: freeSpins > 0 ? null : SEED,
    sealedSeed: freeSpins > 0 ? TEST_KEYRING.seal(SEED, { round: roundId }) : null,
    serverSeedHash: commitment(SEED),
    clientSeed: 'c',
    nonce,
    requestBody: null,
    createdAt: NOW,
    plan: {
      rtpBp: 9_600,
      jackpotBp: 100,
      baseWinMinor: 50n,
      featureWinMinor: freeSpins > 0 ? 200n : 0n,
      jackpotContributionMinor: 1n,
      jackpotHit: shape.jackpotHit ?? false,
      jackpotSeedMinor: POOL_SEED,
      freeSpins,
    },
    ...(mode === 'real'
      ? {
          callBodies: (jackpot: bigint | undefined) =>
            Array.from({ length: calls }, (_, i) => JSON.stringify({ call: i + 1, jackpot: jackpot?.toString() ?? null })),
        }
      : {}),
  };
}

for (const backend of PROVIDER_STORE_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`provider store contract, reels rounds: ${backend.name}`, { skip: backend.unavailable }, () => {
    let opened: OpenedProviderStore;
    let store: ProviderStore;
    beforeEach(async () => {
      opened = await backend.open();
      store = opened.store;
    });
    afterEach(async () => opened.cleanup());

    const openSession = (mode: 'real' | 'fun' = 'real') =>
      mode === 'real'
        ? realSession(store, { operatorId: 'op', now: NOW })
        : store.createSession({
            sessionId: randomUUID(),
            launchId: randomUUID(),
            mode: 'fun',
            operatorId: 'op',
            walletId: null,
            game: 'reels',
            playerId: null,
            operatorSessionId: null,
            currency: 'EUR',
            country: null,
            language: 'en',
            balanceMinor: 1_000n,
            sealedSeed: sealedNext(SEED).sealed,
            serverSeedHash: sealedNext(SEED).hash,
            now: NOW,
          });
    /** The committed items, oldest first, as call numbers and statuses. */
    const items = async () => {
      await store.durable();
      return (
        (await opened.committed('SELECT id, status, kind, body FROM dispatch_items ORDER BY id')) as {
          id: bigint;
          status: string;
          kind: string;
          body: Buffer | Uint8Array;
        }[]
      ).map((row) => ({
        id: Number(row.id),
        status: row.status,
        kind: row.kind,
        ...(JSON.parse(Buffer.from(row.body).toString('utf8')) as { call: number; jackpot: string | null }),
      }));
    };
    const pool = () => store.jackpotPool('op', 'reels', 'EUR', POOL_SEED);
    /** Claims what is due and answers each item with `answer`; the items answered. */
    const answerAll = async (answer: (item: { id: number }) => Promise<unknown>) => {
      await store.durable();
      // Later calls are due when the answer before them came (NOW + a few ms).
      const claimed = await store.outbox.claim(NOW + 60_000, 'node', CLAIM_LIMITS);
      for (const item of claimed) await answer(item);
      await store.durable();
      return claimed.length;
    };
    const accept = (balance: string) => answerAll((item) => store.outbox.sent(item.id, 'node', OK(balance), NOW + 1));

    // eslint-disable-next-line max-lines-per-function -- a test: one scenario told in order, which splitting would scatter
    test('a real round with a feature: the bet alone is enqueued, the base spin after its answer, the feature once the player has played every free spin', async () => {
      const session = await openSession();
      const round = begun(await store.beginReelsRound(reelsRound(session, 0, { freeSpins: 10 }), sealedNext(SEED)));
      assert.equal(round.kind, 'reels');
      assert.equal(round.status, 'pending');
      assert.deepEqual(
        { calls: round.reels?.calls, done: round.reels?.callsDone, spins: round.reels?.freeSpins, played: round.reels?.freeSpinsPlayed },
        { calls: 3, done: 0, spins: 10, played: 0 },
      );
      assert.deepEqual(
        (await items()).map((item) => [item.call, item.status, item.kind]),
        [[1, 'pending', 'bet']],
      );
      assert.deepEqual(
        (await store.roundCalls(round.pk)).map((call) => call.status),
        ['pending', 'waiting', 'waiting'],
      );
      // The pool was made at its seed and took the bet's contribution with the round.
      assert.equal(await pool(), POOL_SEED + 1n);

      const seen: RoundRow[] = [];
      const stop = store.onRoundFinished((row) => seen.push(row));
      try {
        assert.equal(await accept('99'), 1);
        assert.deepEqual(
          (await items()).map((item) => [item.call, item.status, item.kind]),
          [
            [1, 'sent', 'bet'],
            [2, 'pending', 'win'],
          ],
        );
        assert.equal(await accept('99.5'), 1);
        // The base spin is booked; the feature waits for its player: nothing is queued.
        assert.equal(await answerAll(async () => undefined), 0);
        let now = await store.round(round.pk);
        assert.deepEqual({ status: now.status, done: now.reels?.callsDone, balance: now.balanceAfterMinor }, { status: 'pending', done: 2, balance: 9_950n });
        assert.equal((await store.session(session.pk)).balanceMinor, 9_950n);
        assert.deepEqual(
          seen.map((row) => row.reels?.callsDone),
          [1, 2],
        );

        const some = await store.playFreeSpins(round.pk, 0, 4, NOW + 2, SEED);
        assert.ok(some.ok);
        assert.equal(some.round.reels?.freeSpinsPlayed, 4);
        // Revealed once: a second reveal from the same count is answered as moved.
        const again = await store.playFreeSpins(round.pk, 0, 4, NOW + 2, SEED);
        assert.ok(!again.ok && again.round.reels?.freeSpinsPlayed === 4);
        assert.equal((await items()).length, 2);
        assert.ok((await store.playFreeSpins(round.pk, 4, 10, NOW + 3, SEED)).ok);
        assert.deepEqual(
          (await items()).map((item) => [item.call, item.status]),
          [
            [1, 'sent'],
            [2, 'sent'],
            [3, 'pending'],
          ],
        );
        assert.equal(await accept('101.5'), 1);
        now = await store.round(round.pk);
        assert.deepEqual(
          { status: now.status, done: now.reels?.callsDone, balance: now.balanceAfterMinor, win: now.winMinor },
          { status: 'settled', done: 3, balance: 10_150n, win: 250n },
        );
        assert.deepEqual(
          (await store.roundCalls(round.pk)).map((call) => [call.status, call.balanceAfterMinor]),
          [
            ['accepted', 9_900n],
            ['accepted', 9_950n],
            ['accepted', 10_150n],
          ],
        );
        assert.equal(seen.at(-1)?.status, 'settled');
        // A finished round reveals nothing more.
        assert.ok(!(await store.playFreeSpins(round.pk, 10, 10, NOW + 4, SEED)).ok);
      } finally {
        stop();
      }
    });

    test('a refused bet ends the round: nothing is enqueued after it, and the pool gets its contribution back', async () => {
      const session = await openSession();
      const round = begun(await store.beginReelsRound(reelsRound(session, 0, { freeSpins: 10 }), sealedNext(SEED)));
      assert.equal(await pool(), POOL_SEED + 1n);
      await answerAll((item) =>
        store.outbox.refused(item.id, 'node', { status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'no funds', balance: '0.5' }, NOW + 1),
      );
      const after = await store.round(round.pk);
      assert.deepEqual(
        { status: after.status, code: after.refusalCode, balance: after.balanceAfterMinor },
        { status: 'refused', code: 'INSUFFICIENT_FUNDS', balance: 50n },
      );
      assert.deepEqual(
        (await items()).map((item) => item.status),
        ['refused'],
      );
      assert.deepEqual(
        (await store.roundCalls(round.pk)).map((call) => call.status),
        ['refused', 'waiting', 'waiting'],
      );
      assert.equal(await pool(), POOL_SEED);
      // Its free spins can no longer be played, and nothing is ever sent for it.
      assert.ok(!(await store.playFreeSpins(round.pk, 0, 10, NOW + 2, SEED)).ok);
      assert.equal(await answerAll(async () => undefined), 0);
      assert.deepEqual(await store.unfinishedFeatures(NOW + 1_000_000, 10), []);
    });

    test("free spins played before the base spin is answered: the base spin's answer enqueues the feature, once", async () => {
      const session = await openSession();
      const round = begun(await store.beginReelsRound(reelsRound(session, 0, { freeSpins: 10 }), sealedNext(SEED)));
      assert.ok((await store.playFreeSpins(round.pk, 0, 10, NOW + 1, SEED, NOW + 1)).ok);
      assert.equal((await store.round(round.pk)).reels?.completedAt, NOW + 1);
      assert.equal((await items()).length, 1);
      await accept('99');
      await accept('99.5');
      assert.deepEqual(
        (await items()).map((item) => [item.call, item.status]),
        [
          [1, 'sent'],
          [2, 'sent'],
          [3, 'pending'],
        ],
      );
      await accept('101.5');
      assert.equal((await store.round(round.pk)).status, 'settled');
    });

    test('a win the operator refuses is kept on its call and the round still closes', async () => {
      const session = await openSession();
      const round = begun(await store.beginReelsRound(reelsRound(session, 0), sealedNext(SEED)));
      await accept('99');
      await answerAll((item) => store.outbox.refused(item.id, 'node', { status: 400, code: 'INVALID_REQUEST', detail: 'bad win' }, NOW + 2));
      const after = await store.round(round.pk);
      assert.deepEqual(
        { status: after.status, code: after.refusalCode, detail: after.refusalDetail },
        { status: 'settled', code: 'INVALID_REQUEST', detail: 'call 2: bad win' },
      );
      assert.deepEqual(
        (await store.roundCalls(round.pk)).map((call) => [call.status, call.refusalCode]),
        [
          ['accepted', null],
          ['refused', 'INVALID_REQUEST'],
        ],
      );
      // The refused request stays listed for a person, with its bytes.
      assert.deepEqual(
        (await store.outbox.list({ status: 'refused' })).map((item) => item.id),
        [(await items())[1]!.id],
      );
    });

    test('a jackpot takes the whole pool, its own contribution included, once, and resets it to the seed; a refused jackpot round gives it back', async () => {
      const session = await openSession();
      begun(await store.beginReelsRound(reelsRound(session, 0), sealedNext(SEED)));
      begun(await store.beginReelsRound(reelsRound(session, 1), sealedNext(SEED)));
      assert.equal(await pool(), POOL_SEED + 2n);
      const hit = begun(await store.beginReelsRound(reelsRound(session, 2, { jackpotHit: true }), sealedNext(SEED)));
      assert.equal(hit.reels?.jackpotWinMinor, POOL_SEED + 3n);
      assert.equal(hit.winMinor, 50n + POOL_SEED + 3n);
      assert.equal(await pool(), POOL_SEED);
      const second = begun(await store.beginReelsRound(reelsRound(session, 3, { jackpotHit: true }), sealedNext(SEED)));
      assert.equal(second.reels?.jackpotWinMinor, POOL_SEED + 1n);
      assert.equal(await pool(), POOL_SEED);
      begun(await store.beginReelsRound(reelsRound(session, 4), sealedNext(SEED)));
      // The bet of the second jackpot round is refused: the pool it took (less the seed it left) returns, the contribution does not.
      await store.durable();
      const bets = await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
      const secondBet = bets.find((item) => item.id === second.dispatchItemId)!;
      await store.outbox.refused(secondBet.id, 'node', { status: 403, code: 'SESSION_EXPIRED', detail: 'expired' }, NOW + 1);
      await store.durable();
      assert.equal(await pool(), POOL_SEED + 1n);
      // The bodies carried the pool each round won.
      const bodies = await items();
      assert.deepEqual(
        bodies.map((item) => item.jackpot),
        [null, null, String(POOL_SEED + 3n), String(POOL_SEED + 1n), null],
      );
    });

    test('a fun round pays the bet, the base spin and the jackpot seed at once, the feature when its last free spin is played; no pool, no request', async () => {
      const session = await openSession('fun');
      const round = begun(await store.beginReelsRound(reelsRound(session, 0, { mode: 'fun', freeSpins: 3, jackpotHit: true }), sealedNext(SEED)));
      assert.equal(round.status, 'pending');
      assert.equal((await store.session(session.pk)).balanceMinor, 1_000n - 100n + 50n + POOL_SEED);
      assert.ok((await store.playFreeSpins(round.pk, 0, 2, NOW + 1, SEED)).ok);
      assert.equal((await store.session(session.pk)).balanceMinor, 1_000n - 100n + 50n + POOL_SEED);
      const done = await store.playFreeSpins(round.pk, 2, 3, NOW + 2, SEED);
      assert.ok(done.ok);
      assert.equal(done.round.status, 'settled');
      assert.equal((await store.session(session.pk)).balanceMinor, 1_000n - 100n + 250n + POOL_SEED);
      assert.equal(done.round.balanceAfterMinor, 1_000n - 100n + 250n + POOL_SEED);
      await store.durable();
      assert.deepEqual(await items(), []);
      assert.equal(await pool(), POOL_SEED);
      const poor = await store.beginReelsRound({ ...reelsRound(session, 1, { mode: 'fun' }), betMinor: 100_000n }, sealedNext(SEED));
      assert.ok(!poor.ok && poor.conflict === 'insufficient-funds');
    });

    test('unfinished features are listed oldest first up to a start time, until played', async () => {
      const session = await openSession();
      const first = begun(await store.beginReelsRound(reelsRound(session, 0, { freeSpins: 10 }), sealedNext(SEED)));
      begun(await store.beginReelsRound(reelsRound(session, 1), sealedNext(SEED)));
      const later = begun(await store.beginReelsRound({ ...reelsRound(session, 2, { freeSpins: 10 }), createdAt: NOW + 60_000 }, sealedNext(SEED)));
      assert.deepEqual(
        (await store.unfinishedFeatures(NOW, 10)).map((row) => row.pk),
        [first.pk],
      );
      assert.deepEqual(
        (await store.unfinishedFeatures(NOW + 60_000, 10)).map((row) => row.pk),
        [first.pk, later.pk],
      );
      await store.playFreeSpins(first.pk, 0, 10, NOW + 1, SEED, NOW + 1);
      assert.deepEqual(
        (await store.unfinishedFeatures(NOW + 60_000, 10)).map((row) => row.pk),
        [later.pk],
      );
      // A round that moved meanwhile: its nonce is the session's guard, as for dice.
      const late = await store.beginReelsRound(reelsRound(session, 0), sealedNext(SEED));
      assert.ok(!late.ok && late.conflict === 'nonce-moved');
    });
  });
}
