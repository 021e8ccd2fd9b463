/**
 * The provider store's contract (src/provider/store/provider-store.ts), on
 * every backend: each write is atomic, and the conditions it depends on are
 * checked inside its own transaction, answered as a conflict that writes
 * nothing. A real round, its request in the outbox and the session's next
 * seed are written together or not at all, and a round of a session whose
 * nonce moved is refused; a fun round's balance moves only if it covers the
 * bet; a free round is written only while its campaign has a round left
 * and its `finished` flag is right; the final answer on an item and the
 * round it settles or refuses commit together (a round that cannot be
 * finished rolls the answer back); a session's round is found by its id
 * however old, unless it was refused, and never from another session;
 * sessions and campaigns are idempotent.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CLAIM_LIMITS, type Answer } from '../../../src/dispatch/outbox.js';
import type { GameSessionRow, NewRound, ProviderStore } from '../../../src/provider/store/provider-store.js';
import { PROVIDER_STORE_BACKENDS, type OpenedProviderStore } from './backends.js';
import { begun, realRound, realSession, SEED, sealedNext } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const NEXT_SEED = 'ef'.repeat(32);
const OK = (balance: string): Answer => ({ status: 200, detail: 'HTTP 200', balance });

for (const backend of PROVIDER_STORE_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`provider store contract: ${backend.name}`, { skip: backend.unavailable }, () => {
    let opened: OpenedProviderStore;
    let store: ProviderStore;
    beforeEach(async () => {
      opened = await backend.open();
      store = opened.store;
    });
    afterEach(async () => opened.cleanup());

    const count = async (table: string) => Number((await opened.committed(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
    const committedItems = async () =>
      (await opened.committed('SELECT status, ordering_key FROM dispatch_items ORDER BY id')) as { status: string; ordering_key: string }[];
    const committedRound = async (pk: number) =>
      (await opened.committed(`SELECT status, refusal_code, refusal_detail, balance_after, attempts FROM rounds WHERE id = ${pk}`))[0];
    const committedSession = async (pk: number) => (await opened.committed(`SELECT balance, nonce, server_seed_sealed FROM game_sessions WHERE id = ${pk}`))[0];
    const openSession = (playerId = 'p-1') => realSession(store, { operatorId: 'op', now: NOW, playerId });
    const roundOf = (session: GameSessionRow, nonce: number) => realRound(session, nonce, NOW);

    // ------------------------------------------------------------ real rounds

    test("a real round, its request in the outbox and the session's next seed are written in one transaction; a round of a nonce that moved writes nothing", async () => {
      const session = await openSession();
      const round = roundOf(session, 0);
      const written = begun(await store.beginRealRound(round, sealedNext(NEXT_SEED)));
      assert.equal(written.status, 'pending');
      await store.durable();
      const item = await store.outbox.item(written.dispatchItemId!);
      assert.deepEqual(
        { operatorId: item?.operatorId, orderingKey: item?.orderingKey, kind: item?.kind, path: item?.path, status: item?.status, at: item?.nextAttemptAt },
        { operatorId: 'op', orderingKey: round.roundId, kind: 'bet', path: '/transaction', status: 'pending', at: NOW },
      );
      assert.equal(item?.body.toString('utf8'), round.requestBody);
      assert.deepEqual(await committedSession(session.pk), { balance: 10_000n, nonce: 1n, server_seed_sealed: sealedNext(NEXT_SEED).sealed });

      // A round planned on the same nonce, as a concurrent request would: answered, nothing of it written.
      const late = await store.beginRealRound(roundOf(session, 0), sealedNext(SEED));
      assert.ok(!late.ok && late.conflict === 'nonce-moved');
      assert.equal(late.session.nonce, 1);
      await store.durable();
      assert.equal(await count('dispatch_items'), 1);
      assert.equal(await count('rounds'), 1);
      assert.deepEqual(await committedSession(session.pk), { balance: 10_000n, nonce: 1n, server_seed_sealed: sealedNext(NEXT_SEED).sealed });
    });

    test('a real round whose insert fails leaves neither its request nor its next seed', async () => {
      const session = await openSession();
      await store.durable();
      await opened.breakWrites('rounds', 'INSERT', 'round insert failed');
      await assert.rejects(store.beginRealRound(roundOf(session, 0), sealedNext(NEXT_SEED)), /round insert failed/);
      await store.durable();
      assert.equal(await count('dispatch_items'), 0);
      assert.equal(await count('rounds'), 0);
      assert.deepEqual(await committedSession(session.pk), { balance: 10_000n, nonce: 0n, server_seed_sealed: sealedNext(SEED).sealed });
    });

    test("the operator's final answer and the round it settles or refuses commit together, with the session's balance", async () => {
      const session = await openSession();
      const [won, refused, resolved] = [
        begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED))),
        begun(await store.beginRealRound(roundOf(session, 1), sealedNext(SEED))),
        begun(await store.beginRealRound(roundOf(session, 2), sealedNext(SEED))),
      ];
      await store.durable();
      const claimed = await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
      assert.equal(claimed.length, 3);
      const finished: number[] = [];
      const stop = store.onRoundFinished((round) => finished.push(round.pk));
      try {
        assert.ok(await store.outbox.sent(won!.dispatchItemId!, 'node', OK('98.5'), NOW + 1));
        const refusal = { status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'bet 1 exceeds balance 0.4', balance: '0.4' };
        assert.ok((await store.outbox.refused(refused!.dispatchItemId!, 'node', refusal, NOW + 2)).applied);
        // Settled by hand: it needs no lease, only none in flight.
        await store.outbox.retryLater(resolved!.dispatchItemId!, 'node', NOW + 10, { status: 503, detail: 'busy' });
        assert.ok(await store.outbox.resolve(resolved!.dispatchItemId!, 'WAL-7', NOW + 3));
        assert.deepEqual(finished, [won!.pk, refused!.pk, resolved!.pk]);
        await store.durable();
      } finally {
        stop();
      }
      assert.deepEqual(
        (await committedItems()).map((one) => one.status),
        ['sent', 'refused', 'resolved'],
      );
      assert.deepEqual(await committedRound(won!.pk), { status: 'settled', refusal_code: null, refusal_detail: null, balance_after: 9_850n, attempts: 1n });
      assert.deepEqual(await committedRound(refused!.pk), {
        status: 'refused',
        refusal_code: 'INSUFFICIENT_FUNDS',
        refusal_detail: 'bet 1 exceeds balance 0.4',
        balance_after: 40n,
        attempts: 1n,
      });
      assert.deepEqual(await committedRound(resolved!.pk), { status: 'settled', refusal_code: null, refusal_detail: null, balance_after: null, attempts: 1n });
      // The settled round's balance is the session's; neither the refusal nor the round settled by hand moved it.
      assert.equal((await committedSession(session.pk))!.balance, 9_850n);
      // A 200 whose balance the currency cannot hold exactly is booked, its balance not believed.
      const odd = begun(await store.beginRealRound(roundOf(session, 3), sealedNext(SEED)));
      await store.durable();
      await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
      await store.outbox.sent(odd.dispatchItemId!, 'node', OK('1.005'), NOW + 4);
      await store.durable();
      assert.deepEqual(await committedRound(odd.pk), { status: 'settled', refusal_code: null, refusal_detail: null, balance_after: null, attempts: 1n });
      assert.equal((await committedSession(session.pk))!.balance, 9_850n);
    });

    test("a session's round is found by its id however far back, unless it was refused; another session's round is not", async () => {
      const session = await openSession();
      const [first, refused] = [
        begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED))),
        begun(await store.beginRealRound(roundOf(session, 1), sealedNext(SEED))),
      ];
      for (let nonce = 2; nonce < 5; nonce++) begun(await store.beginRealRound(roundOf(session, nonce), sealedNext(SEED)));
      const other = await openSession('p-2');
      const elsewhere = begun(await store.beginRealRound(roundOf(other, 0), sealedNext(SEED)));
      await store.durable();
      await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
      assert.ok((await store.outbox.refused(refused.dispatchItemId!, 'node', { status: 409, detail: 'no' }, NOW + 1)).applied);
      await store.durable();
      // Older than the session's latest two rounds, and found all the same.
      assert.ok(!(await store.recentRounds(session.pk, 2)).some((one) => one.pk === first.pk));
      assert.equal((await store.sessionRound(session.pk, first.roundId))?.pk, first.pk);
      assert.equal(await store.sessionRound(session.pk, refused.roundId), undefined);
      assert.equal(await store.sessionRound(session.pk, elsewhere.roundId), undefined);
      assert.equal((await store.sessionRound(other.pk, elsewhere.roundId))?.pk, elsewhere.pk);
      assert.equal(await store.sessionRound(session.pk, randomUUID()), undefined);
    });

    test('a round that cannot be finished rolls back the final answer with it: the item stays pending and is sent again', async () => {
      const session = await openSession();
      const round = begun(await store.beginRealRound(roundOf(session, 0), sealedNext(SEED)));
      await store.durable();
      await store.outbox.claim(NOW, 'node', { ...CLAIM_LIMITS, leaseMs: 1_000 });
      const mend = await opened.breakWrites('rounds', 'UPDATE', 'the round log refused the update');
      await assert.rejects(store.outbox.sent(round.dispatchItemId!, 'node', OK('1'), NOW + 1), /refused the update/);
      await assert.rejects(store.outbox.refused(round.dispatchItemId!, 'node', { status: 409, detail: 'no' }, NOW + 1), /refused the update/);
      await store.durable();
      assert.deepEqual(
        (await committedItems()).map((one) => one.status),
        ['pending'],
      );
      assert.equal((await committedRound(round.pk))!.status, 'pending');
      await mend();
      const [again] = await store.outbox.claim(NOW + 1_000, 'node', CLAIM_LIMITS);
      assert.equal(again?.id, round.dispatchItemId);
      assert.ok(await store.outbox.sent(again!.id, 'node', OK('1'), NOW + 1_001));
      await store.durable();
      assert.equal((await committedRound(round.pk))!.status, 'settled');
    });

    // ------------------------------------------------------------ free rounds

    test("a free round is written only while its campaign has a round left and its finished flag is right, whichever of the player's sessions plays it", async () => {
      const campaignId = randomUUID();
      assert.equal(
        await store.putCampaign({ campaignId, operatorId: 'op', game: 'dice', currency: 'EUR', betMinor: 100n, rounds: 2, expiresAt: null, createdAt: NOW }, [
          'p-1',
        ]),
        'created',
      );
      // Two launches of one player: each planned its round on the same reading, one round used of none.
      const first = await openSession();
      const second = await openSession();
      const free = (session: GameSessionRow, nonce: number, last: boolean): NewRound & { requestBody: string } => ({
        ...roundOf(session, nonce),
        campaignId,
        campaignFinished: last,
      });
      begun(await store.beginRealRound(free(first, 0, false), sealedNext(SEED)));
      const stale = await store.beginRealRound(free(second, 0, false), sealedNext(SEED));
      assert.ok(!stale.ok && stale.conflict === 'campaign-used', 'one round left: this one is the last, and its request would not say so');
      const last = begun(await store.beginRealRound(free(second, 0, true), sealedNext(SEED)));
      const none = await store.beginRealRound(free(first, 1, true), sealedNext(SEED));
      assert.ok(!none.ok && none.conflict === 'campaign-used', 'no round left');
      await store.durable();
      assert.equal(await count('rounds'), 2);
      assert.equal(await count('dispatch_items'), 2);
      assert.equal((await committedSession(first.pk))!.nonce, 1n, 'the refused round moved no seed');
      assert.equal(await store.campaignRoundsUsed(campaignId, 'op', 'p-1'), 2);

      // A refused free round gives its round back.
      await store.outbox.claim(NOW, 'node', CLAIM_LIMITS);
      assert.ok((await store.outbox.refused(last.dispatchItemId!, 'node', { status: 409, detail: 'no' }, NOW + 1)).applied);
      begun(await store.beginRealRound(free(first, 1, true), sealedNext(SEED)));
      await store.durable();
      assert.equal(await store.campaignRoundsUsed(campaignId, 'op', 'p-1'), 2);
    });

    // -------------------------------------------------------------- fun rounds

    test("a fun round moves the balance only if it covers the bet, and only on the round's nonce; otherwise nothing is written", async () => {
      const session = await store.createSession({
        sessionId: randomUUID(),
        launchId: randomUUID(),
        mode: 'fun',
        operatorId: 'op',
        walletId: null,
        game: 'dice',
        playerId: null,
        operatorSessionId: null,
        currency: 'FUN',
        country: null,
        language: 'en',
        balanceMinor: 150n,
        sealedSeed: sealedNext(SEED).sealed,
        serverSeedHash: sealedNext(SEED).hash,
        now: NOW,
      });
      const fun = (nonce: number, betMinor: bigint, winMinor: bigint): NewRound => ({
        ...roundOf(session, nonce),
        mode: 'fun',
        playerId: null,
        currency: 'FUN',
        betMinor,
        winMinor,
        betTxId: null,
        winTxId: null,
        requestBody: null,
      });
      const won = await store.playFunRound(fun(0, 100n, 30n), sealedNext(NEXT_SEED));
      assert.ok(won.ok);
      assert.equal(won.round.status, 'settled');
      assert.equal(won.round.balanceAfterMinor, 80n);
      const poor = await store.playFunRound(fun(1, 100n, 0n), sealedNext(SEED));
      assert.ok(!poor.ok && poor.conflict === 'insufficient-funds');
      assert.equal(poor.session.balanceMinor, 80n);
      const stale = await store.playFunRound(fun(0, 10n, 0n), sealedNext(SEED));
      assert.ok(!stale.ok && stale.conflict === 'nonce-moved');
      await store.durable();
      assert.equal(await count('rounds'), 1);
      assert.equal(await count('dispatch_items'), 0, 'no fun round reaches an operator');
      assert.deepEqual(await committedSession(session.pk), { balance: 80n, nonce: 1n, server_seed_sealed: sealedNext(NEXT_SEED).sealed });
    });

    // ------------------------------------------------ sessions and campaigns

    test("a launch's session is created once: opening it again answers the first, and reopening a real one takes the operator's answer", async () => {
      const session = await openSession();
      const again = await store.createSession({
        ...session,
        operatorSessionId: randomUUID(),
        balanceMinor: 1n,
        sealedSeed: sealedNext(NEXT_SEED).sealed,
        now: NOW + 1,
      });
      assert.deepEqual(again, session);
      assert.deepEqual(await store.sessionByLaunch(session.launchId), session);
      const reopened = await store.reopenSession(session.pk, 'op-session-2', 4_200n, NOW + 2);
      assert.deepEqual(
        { op: reopened.operatorSessionId, balance: reopened.balanceMinor, at: reopened.lastActiveAt },
        { op: 'op-session-2', balance: 4_200n, at: NOW + 2 },
      );
      await store.durable();
      assert.equal(await count('game_sessions'), 1);
    });

    test('a campaign put again is the same one (its new players added) or a conflict that writes nothing', async () => {
      const campaign = {
        campaignId: randomUUID(),
        operatorId: 'op',
        game: 'dice',
        currency: 'EUR',
        betMinor: 100n,
        rounds: 3,
        expiresAt: NOW + 60_000,
        createdAt: NOW,
      };
      assert.equal(await store.putCampaign(campaign, ['p-1']), 'created');
      assert.equal(await store.putCampaign({ ...campaign, createdAt: NOW + 1 }, ['p-2', 'p-1']), 'exists');
      assert.equal(await store.putCampaign({ ...campaign, rounds: 4 }, ['p-3']), 'conflict');
      assert.deepEqual((await store.campaign(campaign.campaignId))?.players, ['p-1', 'p-2']);
      assert.deepEqual(
        (await store.campaignsOf('op', 'p-2', 'dice', 'EUR', NOW)).map((c) => c.campaignId),
        [campaign.campaignId],
      );
      assert.deepEqual(await store.campaignsOf('op', 'p-2', 'dice', 'EUR', NOW + 60_000), [], 'expired');
      await store.durable();
      assert.equal(await count('campaigns'), 1);
      assert.equal(await count('campaign_players'), 2);
    });
  });
}
