/**
 * The provider store's `verify` on every backend: a store that played real
 * dice and reels rounds (one of them a jackpot), free rounds of a campaign
 * and a payout, all delivered, and a round still pending, verifies ok, with
 * everything counted; then each corruption of what it wrote, made past the
 * store in SQL, gives exactly its finding, naming the ids involved. On
 * SQLite, the page of rounds reads each round's calls by the round: by the
 * index of their items it would read every waiting call for each round.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CLAIM_LIMITS, type Answer } from '../../../src/dispatch/outbox.js';
import type { RoundCall } from '../../../src/game/reels-calls.js';
import type { GameSessionRow, NewReelsRound, ProviderStore, RoundRow } from '../../../src/provider/store/provider-store.js';
import { diceRoundBody, reelsCallBody } from '../../../src/rounds/bodies.js';
import type { FindingKind, RoundBooksVerdict } from '../../../src/rounds/books.js';
import { commitment } from '../../../src/game/fairness.js';
import type Database from 'better-sqlite3';
import { CURRENCIES } from '../../../src/protocol/money.js';
import { readBooks, type VerifyQuery } from '../../../src/provider/store/verify-reading.js';
import { RoundBooks } from '../../../src/rounds/books.js';
import { PROVIDER_STORE_BACKENDS, type OpenedProviderStore } from './backends.js';
import { begun, realRound, realSession, SEED, sealedNext } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const OK: Answer = { status: 200, detail: 'HTTP 200', balance: '90' };
const POOL_SEED = 5_000n;
const CAMPAIGN = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

/** A real reels round of a bet of 1.00 (contribution 0.01, base win 0.50) with the bodies its calls send. */
function reelsRound(session: GameSessionRow, nonce: number, jackpotHit: boolean): NewReelsRound {
  const roundId = randomUUID();
  const [betTxId, winTxId, jackpotTxId] = [randomUUID(), randomUUID(), randomUUID()];
  const onWire = { operatorSessionId: session.operatorSessionId, playerId: session.playerId, game: 'reels' };
  return {
    ...realRound(session, nonce, NOW),
    roundId,
    game: 'reels',
    winMinor: 50n,
    betTxId,
    winTxId,
    chancePct: 0,
    threshold: 0,
    roll: 0,
    serverSeedHash: commitment(SEED),
    requestBody: null,
    plan: {
      rtpBp: 9_600,
      jackpotBp: 100,
      baseWinMinor: 50n,
      featureWinMinor: 0n,
      jackpotContributionMinor: 1n,
      jackpotHit,
      jackpotSeedMinor: POOL_SEED,
      freeSpins: 0,
    },
    callBodies: (jackpot) => {
      const calls: RoundCall[] = [
        { transactions: [{ id: betTxId, type: 'bet', amountMinor: 100n, jpAmountMinor: 1n }], finished: false },
        {
          transactions: [
            { id: winTxId, type: 'win', amountMinor: 50n },
            ...(jackpot === undefined ? [] : [{ id: jackpotTxId, type: 'win' as const, amountMinor: jackpot, jpAmountMinor: jackpot }]),
          ],
          finished: true,
        },
      ];
      return calls.map((call) => reelsCallBody(call, roundId, onWire, 2));
    },
  };
}

interface Played {
  dice: RoundRow;
  reels: RoundRow;
  pending: RoundRow;
  payoutId: string;
}

for (const backend of PROVIDER_STORE_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`provider store contract, verify: ${backend.name}`, { skip: backend.unavailable }, () => {
    let opened: OpenedProviderStore;
    let store: ProviderStore;
    beforeEach(async () => {
      opened = await backend.open();
      store = opened.store;
    });
    afterEach(async () => opened.cleanup());

    /** Claims and accepts every item due, again while answers enqueue more (a reels round's next call). */
    const deliverAll = async () => {
      for (let pass = 0; pass < 5; pass++) {
        await store.durable();
        const claimed = await store.outbox.claim(NOW + 60_000, 'node', CLAIM_LIMITS);
        if (claimed.length === 0) return;
        for (const item of claimed) await store.outbox.sent(item.id, 'node', OK, NOW + 1);
      }
      assert.fail('every item was delivered within five passes');
    };

    const diceRound = async (session: GameSessionRow, nonce: number, campaignFinished?: boolean) => {
      const round = {
        ...realRound(session, nonce, NOW),
        ...(campaignFinished === undefined ? {} : { campaignId: CAMPAIGN, campaignFinished }),
      };
      return begun(await store.beginRealRound({ ...round, requestBody: diceRoundBody(round, session, 2) }, sealedNext(SEED)));
    };

    /** Everything a provider writes, delivered, and one round left pending. */
    const play = async (): Promise<Played> => {
      const session = await realSession(store, { operatorId: 'op', now: NOW });
      await store.putCampaign(
        { campaignId: CAMPAIGN, operatorId: 'op', game: 'dice', currency: 'EUR', betMinor: 100n, rounds: 2, expiresAt: null, createdAt: NOW },
        ['p-1'],
      );
      const dice = await diceRound(session, 0);
      await diceRound(session, 1, false);
      await diceRound(session, 2, true);
      const reels = begun(await store.beginReelsRound(reelsRound(session, 3, false), sealedNext(SEED)));
      await store.beginReelsRound(reelsRound(session, 4, true), sealedNext(SEED));
      const payoutId = randomUUID();
      const payout = await store.createPayout({
        payoutId,
        operatorId: 'op',
        playerId: 'p-1',
        currency: 'EUR',
        amountMinor: 5_050n,
        campaignId: CAMPAIGN,
        createdAt: NOW,
      });
      assert.ok(payout.ok);
      await deliverAll();
      const pending = await diceRound(session, 5);
      await store.durable();
      return { dice: await store.round(dice.pk), reels: await store.round(reels.pk), pending, payoutId };
    };

    const payoutItem = async (payoutId: string) => (await store.payout(payoutId))!.dispatchItemId;

    /** The body of item `id` with `from` replaced by `to`, in the backend's SQL. */
    const editBody = (id: number, from: string, to: string) =>
      backend.name === 'sqlite'
        ? `UPDATE dispatch_items SET body = CAST(replace(CAST(body AS TEXT), '${from}', '${to}') AS BLOB) WHERE id = ${id}`
        : `UPDATE dispatch_items SET body = convert_to(replace(convert_from(body, 'UTF8'), '${from}', '${to}'), 'UTF8') WHERE id = ${id}`;

    const explain = (verdict: RoundBooksVerdict) => verdict.findings.map((finding) => `${finding.kind}: ${finding.sentence}`).join('\n');

    /** The verdict after `sql`: exactly the findings of `kinds`, with `ids` for the first. */
    const afterCorruption = async (sql: string, kinds: FindingKind[], ids: string[]) => {
      await opened.corrupt(sql);
      const verdict = await store.verify();
      assert.equal(verdict.ok, false);
      assert.deepEqual(verdict.findings.map((finding) => finding.kind).sort(), [...kinds].sort(), explain(verdict));
      assert.deepEqual(verdict.findings.find((finding) => finding.kind === kinds[0])!.ids, ids);
    };

    test('a store that played and delivered real rounds of both games, free rounds and a payout verifies ok, everything counted', async () => {
      const played = await play();
      assert.equal(played.dice.status, 'settled');
      assert.equal(played.reels.status, 'settled');
      const verdict = await store.verify();
      assert.equal(verdict.ok, true, explain(verdict));
      assert.deepEqual(verdict.counted, { rounds: 6, realRounds: 6, items: 9, payouts: 1, pools: 1, campaignUses: 1 });
      assert.deepEqual(verdict.notes, []);
    });

    test("round-status: a settled round set back to pending disagrees with its item's answer", async () => {
      const { dice } = await play();
      await afterCorruption(
        `UPDATE rounds SET status = 'pending' WHERE id = ${dice.pk}`,
        ['round-status'],
        [`round:${dice.roundId}`, `item:${dice.dispatchItemId}`],
      );
    });

    test("body-differs: an item's body that is not its round's request", async () => {
      const { dice } = await play();
      await afterCorruption(
        editBody(dice.dispatchItemId!, '"amount":1', '"amount":2'),
        ['body-differs'],
        [`round:${dice.roundId}`, `item:${dice.dispatchItemId}`],
      );
    });

    test('pool-mismatch: a jackpot pool that is not its seed plus contributions less hits', async () => {
      await play();
      await afterCorruption('UPDATE jackpot_pools SET amount = amount + 1', ['pool-mismatch'], ['pool:op/reels/EUR']);
    });

    test("payout-status: a paid payout set to refused disagrees with its item's answer", async () => {
      const { payoutId } = await play();
      const item = await payoutItem(payoutId);
      await afterCorruption(`UPDATE payouts SET status = 'refused'`, ['payout-status'], [`payout:${payoutId}`, `item:${item}`]);
    });

    test('item-misaddressed: an item whose key is not its payout id', async () => {
      const { payoutId } = await play();
      const item = await payoutItem(payoutId);
      await afterCorruption(
        `UPDATE dispatch_items SET ordering_key = 'elsewhere' WHERE id = ${item}`,
        ['item-misaddressed'],
        [`payout:${payoutId}`, `item:${item}`],
      );
    });

    test('call-status: a reels call set refused while its item was sent', async () => {
      const { reels } = await play();
      const item = (await store.roundCalls(reels.pk))[1]!.dispatchItemId;
      await afterCorruption(
        `UPDATE round_calls SET status = 'refused' WHERE round_pk = ${reels.pk} AND call_index = 2`,
        ['call-status'],
        [`call:${reels.roundId}#2`, `item:${item}`],
      );
    });

    test('campaign-overused: more free rounds played than the campaign gives', async () => {
      await play();
      await afterCorruption('UPDATE campaigns SET rounds = 1', ['campaign-overused'], [`campaign:${CAMPAIGN}`, 'player:p-1']);
    });

    test('round-undelivered and item-orphan: a pending round that lost its item, and the item nothing refers to', async () => {
      const { pending } = await play();
      await afterCorruption(
        `UPDATE rounds SET dispatch_item_id = NULL WHERE id = ${pending.pk}`,
        ['round-undelivered', 'item-orphan'],
        [`round:${pending.roundId}`],
      );
    });

    if (backend.name === 'sqlite') {
      test("the rounds' page reads each round's calls by the round, never all waiting calls by the item index", () => {
        const reading = readBooks({ text: (column) => column, param: () => '?' }, new RoundBooks(CURRENCIES));
        reading.next();
        const realRounds = reading.next([{ n: 0n }]).value as VerifyQuery;
        const db = (store as unknown as { db: Database.Database }).db;
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${realRounds.sql}`).all(0, 500) as { detail: string }[]).map((row) => row.detail);
        const callSearches = plan.filter((detail) => /^SEARCH c\b/.test(detail));
        assert.equal(callSearches.length, 4, plan.join('\n'));
        for (const search of callSearches) assert.match(search, /\(round_pk=\?/, plan.join('\n'));
      });
    }

    test('a parked item is told as a note; the books still agree', async () => {
      const { pending } = await play();
      await opened.corrupt(`UPDATE dispatch_items SET status = 'parked' WHERE id = ${pending.dispatchItemId}`);
      const verdict = await store.verify();
      assert.equal(verdict.ok, true, explain(verdict));
      assert.deepEqual(verdict.noteTotals, { 'item-parked': 1 });
    });
  });
}
