/**
 * Proves the reels game's rounds of several calls against a real operator
 * on a real socket, on every provider store backend (PROVIDER_BACKENDS): a
 * round without free spins is booked as a bet (with its jpAmount) and a
 * win, answered once both are; a feature is played spin by spin, a new
 * round is refused while it lasts, a reload shows it, and its wins go in one
 * request after the last spin; a jackpot round (a client seed searched for
 * the server seed's three crowns) wins the whole pool and resets it; a
 * refused bet leaves nothing queued and the pool as it was; a round its
 * player left is completed by the provider's sweep on the injected clock,
 * with the outcome the draw fixed, and a node's sweep is set for its due
 * time as the round is played; a free spin asked for a finished round
 * of the launch is ROUND_CLOSED, however many rounds followed it, and one
 * for a round of another launch ROUND_MISMATCH; a free-bet campaign's round
 * carries its campaign on every call; fun mode never reaches the operator. For every
 * player, the operator's ledger is exactly the provider's accepted calls.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { commitment, drawSource } from '../../src/game/fairness.js';
import { launchTokens } from '../../src/provider/launch-token.js';
import { openSessionSeed } from '../../src/provider/seed-keyring.js';
import { playRound, type ReelsRound } from '../../src/game/reels.js';
import type { ReelsGameSettings } from '../../src/provider/config-games.js';
import { COMPLETION_SWEEP_MS_MAX, RoundCompletion } from '../../src/provider/round-completion.js';
import { testTimers } from './sweep-timers.js';
import type { RoundRow } from '../../src/provider/store/provider-store.js';
import { ROUNDS_SHOWN_MAX } from '../../src/provider/game-service.js';
import { admin, balanceOf, ledgerOf, makeOperator, type Operator } from '../helpers.js';
import {
  adminCall,
  assertProblem,
  type Answer,
  launchOf,
  makeProvider,
  operatorCall,
  pageCall,
  PROVIDER_BACKENDS,
  realLaunchBody,
  type Provider,
} from './provider-helpers.js';

/** Rounds a seed search tries at most: the jackpot is 1 in 32,768 a round. */
const SEARCH_MAX = 400_000;
/** How long a test waits for the outbox to deliver what a sweep enqueued (ms); generous for a loaded machine. */
const DELIVERY_MS_MAX = 20_000;

type Json = Record<string, any>;

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`reels rounds: ${backend.name}`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let provider: Provider;
    let game: ReelsGameSettings;
    const operatorCalls: string[] = [];
    const players: string[] = [];
    let leftBehind: RoundCompletion | undefined;

    before(async () => {
      op = await makeOperator();
      op.app.addHook('onRequest', async (request) => {
        operatorCalls.push(request.url);
      });
      const origin = await op.app.listen({ host: '127.0.0.1', port: 0 });
      // The rounds with free spins the game service tells of reach the completion a test runs, if any.
      provider = await makeProvider({ endpoint: origin, backend: backend.name, completion: { roundAdded: (createdAt) => leftBehind?.roundAdded(createdAt) } });
      game = provider.config.games.find((one): one is ReelsGameSettings => one.kind === 'reels')!;
    });

    after(async () => {
      await provider.close();
      await op.close();
    });

    interface Launch {
      playerId: string;
      token: string;
      path: string;
    }

    async function launchReal(balance = 100): Promise<Launch> {
      const playerId = `reels-${randomUUID().slice(0, 8)}`;
      players.push(playerId);
      const created = await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance, country: 'DE' });
      assert.equal(created.status, 201, created.raw);
      const key = await admin(op.app, 'POST', '/admin/launch-keys', { playerId, game: 'reels' });
      assert.equal(key.status, 201, key.raw);
      const answer = await operatorCall(provider.app, '/generate-launch-url', realLaunchBody({ game: 'reels', key: key.body.key }));
      assert.equal(answer.status, 200, answer.raw);
      const launch = { playerId, ...launchOf(answer.body.url as string) };
      const opened = await pageCall(provider.app, `${launch.path}/api/open`, { token: launch.token });
      assert.equal(opened.status, 200, opened.raw);
      return launch;
    }

    /** The page's calls; their bodies read loosely, as the page reads them. */
    const loose = async (answer: Promise<Answer>) => answer as Promise<Answer & { body: Json }>;
    const play = (launch: Launch, input: Json) => loose(pageCall(provider.app, `${launch.path}/api/play`, { token: launch.token, ...input }));
    const freeSpin = (launch: Launch, roundId: string) => loose(pageCall(provider.app, `${launch.path}/api/free-spin`, { token: launch.token, roundId }));
    const state = (launch: Launch) => loose(pageCall(provider.app, `${launch.path}/api/state`, { token: launch.token }));

    /** The launch's game session, found by the launch id its token seals. */
    async function sessionOf(launch: Launch) {
      const claims = launchTokens(provider.config.launchTokenSecrets, randomBytes).open(launch.token)!;
      return (await provider.store.sessionByLaunch(claims.launchId))!;
    }

    /** The session's next round for a client seed, as the server will draw it. */
    async function nextRound(launch: Launch, bet: bigint, clientSeed: string): Promise<ReelsRound> {
      const session = await sessionOf(launch);
      // The test is the operator of the seed key: it opens the next seed the page sees only hashed.
      return playRound(game.rules, bet, drawSource(openSessionSeed(provider.config.seedKeys, session), clientSeed, session.nonce));
    }

    /** A client seed whose round at the session's next nonce has what `wanted` asks. */
    async function seedFor(launch: Launch, bet: bigint, wanted: (round: ReelsRound) => boolean): Promise<string> {
      const session = await sessionOf(launch);
      const serverSeed = openSessionSeed(provider.config.seedKeys, session);
      for (let i = 0; i < SEARCH_MAX; i++) {
        const clientSeed = `s${i}`;
        if (wanted(playRound(game.rules, bet, drawSource(serverSeed, clientSeed, session.nonce)))) return clientSeed;
      }
      throw new Error(`no client seed within ${SEARCH_MAX} gives the round asked for`);
    }

    /** Waits (real time) until the round is finished: what a sweep enqueued goes out through the running delivery. */
    async function settledRound(pk: number): Promise<RoundRow> {
      const deadline = Date.now() + DELIVERY_MS_MAX;
      for (;;) {
        const round = await provider.store.round(pk);
        if (round.status !== 'pending' || Date.now() > deadline) return round;
        await sleep(20);
      }
    }

    const minor = (text: string) => BigInt(Math.round(Number(text) * 100));

    test("a round without free spins: the bet with its jpAmount, then the base spin's win; answered once both are booked", async () => {
      const launch = await launchReal();
      const clientSeed = await seedFor(launch, 100n, (round) => round.freeSpins.length === 0 && !round.jackpot && round.base.winMinor > 0n);
      const answer = await play(launch, { bet: '1', clientSeed });
      assert.equal(answer.status, 200, answer.raw);
      const round = answer.body.round as Json;
      assert.equal(round.stage, 'settled');
      assert.equal(round.status, 'settled');
      assert.equal(round.feature, null);
      assert.equal(round.jackpotWin, null);
      assert.equal(round.jackpotContribution, '0.01');
      assert.equal(round.win, round.base.win);
      assert.equal(round.base.window.length, 3);
      // Fair: the revealed seed is the one committed to, and it draws the round shown.
      assert.equal(commitment(round.serverSeed as string), round.serverSeedHash);
      assert.equal(minor(round.win as string), playRound(game.rules, 100n, drawSource(round.serverSeed as string, clientSeed, 0)).winMinor);
      // The balance is the operator's answer to the last call.
      assert.equal(minor(answer.body.balance as string), 10_000n - 100n + minor(round.win));
      assert.equal(await balanceOf(op.app, launch.playerId), Number(answer.body.balance));
      const row = (await provider.store.listRounds(10)).find((one) => one.roundId === round.roundId)!;
      const calls = await provider.store.roundCalls(row.pk);
      assert.deepEqual(
        calls.map((call) => call.status),
        ['accepted', 'accepted'],
      );
      const bet = JSON.parse(calls[0]!.body) as Json;
      assert.deepEqual(bet.transactions, [{ id: row.betTxId, type: 'bet', amount: 1, jpAmount: 0.01 }]);
      assert.deepEqual(bet.round, { id: round.roundId, finished: false });
      assert.deepEqual(JSON.parse(calls[1]!.body).round, { id: round.roundId, finished: true });
    });

    test('a feature played spin by spin: a new round waits for it, a reload resumes it, its wins go in one call after the last spin', async () => {
      const launch = await launchReal();
      const clientSeed = await seedFor(launch, 100n, (round) => round.freeSpins.length > 0 && !round.jackpot);
      const drawn = await nextRound(launch, 100n, clientSeed);
      const answer = await play(launch, { bet: '1', clientSeed });
      assert.equal(answer.status, 200, answer.raw);
      let round = answer.body.round as Json;
      assert.equal(round.stage, 'feature');
      const total = round.feature.total as number;
      assert.ok(total >= 10);
      assert.deepEqual({ played: round.feature.played, left: round.feature.left, spins: round.feature.spins }, { played: 0, left: total, spins: [] });
      assert.equal(round.serverSeed, undefined);
      // Bet and base spin booked: the balance has them.
      assert.equal(minor(answer.body.balance as string), 10_000n - 100n + minor(round.base.win));
      assertProblem(await play(launch, { bet: '1', clientSeed: 'another' }), 'ROUND_UNFINISHED');
      const reloaded = await state(launch);
      assert.equal(reloaded.body.unfinished.roundId, round.roundId);
      assert.equal(reloaded.body.game.kind, 'reels');

      for (let spin = 1; spin <= total; spin++) {
        const step = await freeSpin(launch, round.roundId as string);
        assert.equal(step.status, 200, step.raw);
        round = step.body.round as Json;
        assert.equal(round.feature.played, spin);
        assert.equal(round.feature.spins.length, spin);
        assert.deepEqual(step.body.spin, round.feature.spins[spin - 1]);
        assert.equal(step.body.spin.multiplier, 3);
        if (spin < total) assert.equal(round.stage, 'feature');
      }
      assert.equal(round.stage, 'settled');
      assert.match(round.serverSeed as string, /^[0-9a-f]{64}$/);
      assertProblem(await freeSpin(launch, round.roundId as string), 'ROUND_CLOSED');
      assertProblem(await freeSpin(launch, randomUUID()), 'ROUND_MISMATCH');
      const featureWin = (round.feature.spins as Json[]).reduce((sum, spin) => sum + minor(spin.win as string), 0n);
      assert.equal(minor(round.feature.win as string), featureWin);
      assert.equal(minor(round.win as string), minor(round.base.win as string) + featureWin);
      assert.equal(minor(round.win as string), drawn.winMinor);
      const balance = await balanceOf(op.app, launch.playerId);
      assert.equal(minor(String(balance)), 10_000n - 100n + minor(round.win as string));
      const row = (await provider.store.listRounds(10)).find((one) => one.roundId === round.roundId)!;
      assert.deepEqual(
        (await provider.store.roundCalls(row.pk)).map((call) => call.status),
        ['accepted', 'accepted', 'accepted'],
      );
      // The next round may start.
      assert.equal((await play(launch, { bet: '1', clientSeed: 'after' })).status, 200);
    });

    test('a free spin for a finished round of the launch is ROUND_CLOSED however far back it is; a round of another launch is ROUND_MISMATCH', async () => {
      const launch = await launchReal();
      const plain = (one: Launch) => seedFor(one, 100n, (round) => round.freeSpins.length === 0 && !round.jackpot);
      const first = await play(launch, { bet: '1', clientSeed: await plain(launch) });
      assert.equal(first.status, 200, first.raw);
      const firstId = first.body.round.roundId as string;
      assertProblem(await freeSpin(launch, firstId), 'ROUND_CLOSED');
      // Enough rounds after it that the launch's recent rounds no longer list it.
      for (let i = 0; i < ROUNDS_SHOWN_MAX; i++) assert.equal((await play(launch, { bet: '1', clientSeed: await plain(launch) })).status, 200);
      const shown = (await state(launch)).body.rounds as Json[];
      assert.ok(!shown.some((round) => round.roundId === firstId), 'the first round is no longer among those shown');
      assertProblem(await freeSpin(launch, firstId), 'ROUND_CLOSED');

      const other = await launchReal();
      const elsewhere = await play(other, { bet: '1', clientSeed: await plain(other) });
      assert.equal(elsewhere.status, 200, elsewhere.raw);
      assertProblem(await freeSpin(launch, elsewhere.body.round.roundId as string), 'ROUND_MISMATCH');
      assertProblem(await freeSpin(launch, randomUUID()), 'ROUND_MISMATCH');
    });

    test('a jackpot round wins the whole pool, its own contribution included, and the pool starts again from its seed', async () => {
      const launch = await launchReal(1_000);
      const seed = game.jackpotSeeds.get('EUR')!;
      // Each round before feeds the pool 0.01 per 1.00 bet.
      for (let i = 0; i < 3; i++) {
        const clientSeed = await seedFor(launch, 100n, (round) => round.freeSpins.length === 0 && !round.jackpot);
        assert.equal((await play(launch, { bet: '1', clientSeed })).status, 200);
      }
      const before = (await state(launch)).body.jackpot.pool as string;
      assert.ok(minor(before) >= seed + 3n, `the pool ${before} holds the seed and three contributions at least`);
      const clientSeed = await seedFor(launch, 100n, (round) => round.jackpot && round.freeSpins.length === 0);
      const answer = await play(launch, { bet: '1', clientSeed });
      assert.equal(answer.status, 200, answer.raw);
      const round = answer.body.round as Json;
      assert.equal(round.base.jackpot, true);
      assert.equal(minor(round.jackpotWin as string), minor(before) + 1n);
      assert.equal(answer.body.jackpot.pool, (Number(seed) / 100).toString());
      const row = (await provider.store.listRounds(10)).find((one) => one.roundId === round.roundId)!;
      const base = JSON.parse((await provider.store.roundCalls(row.pk))[1]!.body) as Json;
      assert.deepEqual(base.transactions[1], {
        id: base.transactions[1].id,
        type: 'win',
        amount: Number(round.jackpotWin),
        jpAmount: Number(round.jackpotWin),
      });
      assert.equal(minor(String(await balanceOf(op.app, launch.playerId))), minor(answer.body.balance as string));
    });

    test('a refused bet leaves nothing queued, no round shown and the pool as it was', async () => {
      const launch = await launchReal(0.5);
      const pool = (await state(launch)).body.jackpot.pool as string;
      const clientSeed = await seedFor(launch, 100n, (round) => round.freeSpins.length > 0);
      const answer = await play(launch, { bet: '1', clientSeed });
      assertProblem(answer, 'INSUFFICIENT_FUNDS');
      assert.equal(answer.body.balance, 0.5);
      const after = await state(launch);
      assert.deepEqual(after.body.rounds, []);
      assert.equal(after.body.unfinished, null);
      assert.equal(after.body.jackpot.pool, pool);
      const row = (await provider.store.listRounds(20)).find((one) => one.playerId === launch.playerId)!;
      assert.equal(row.status, 'refused');
      assert.deepEqual(
        (await provider.store.roundCalls(row.pk)).map((call) => call.status),
        ['refused', 'waiting', 'waiting'],
      );
      assert.deepEqual(await provider.store.outbox.list({ status: 'pending' }), []);
    });

    test('a round its player left is completed by the provider after roundCompletionMs: the same outcome, its wins booked', async () => {
      const launch = await launchReal();
      const clientSeed = await seedFor(launch, 100n, (round) => round.freeSpins.length > 0 && !round.jackpot);
      const answer = await play(launch, { bet: '1', clientSeed });
      assert.equal(answer.status, 200, answer.raw);
      const roundId = (answer.body.round as Json).roundId as string;
      // Two spins played, then the player is gone.
      assert.equal((await freeSpin(launch, roundId)).status, 200);
      assert.equal((await freeSpin(launch, roundId)).status, 200);
      const completion = new RoundCompletion({
        store: provider.store,
        keyring: provider.config.seedKeys,
        roundCompletionMs: provider.config.limits.roundCompletionMs,
        clock: () => provider.clock.now,
        delivery: provider.delivery,
      });
      assert.equal(await completion.sweep(), 0, 'not yet due');
      provider.clock.advance(provider.config.limits.roundCompletionMs);
      // This round at least: a round an earlier test of this store left with free spins is due as well.
      assert.ok((await completion.sweep()) >= 1);
      assert.equal(await completion.sweep(), 0, 'completed once');
      const row = (await provider.store.listRounds(10)).find((one) => one.roundId === roundId)!;
      const finished = await settledRound(row.pk);
      assert.equal(finished.status, 'settled');
      assert.equal(finished.reels?.freeSpinsPlayed, finished.reels?.freeSpins);
      const shown = ((await state(launch)).body.rounds as Json[]).find((one) => one.roundId === roundId)!;
      assert.equal(shown.stage, 'settled');
      assert.equal(shown.feature.completedByProvider, true);
      assert.equal(shown.feature.left, 0);
      const drawn = playRound(game.rules, 100n, drawSource(shown.serverSeed as string, clientSeed, 0));
      assert.equal(minor(shown.win as string), drawn.winMinor);
      assert.equal(minor(String(await balanceOf(op.app, launch.playerId))), 10_000n - 100n + drawn.winMinor);
    });

    test("a node's completion is set for a round's due time when the round is played, and completes it then", async () => {
      const timers = testTimers();
      // Within the longest wait between sweeps, so that the timer is set for the round itself.
      const roundCompletionMs = 10_000;
      const completion = new RoundCompletion({
        store: provider.store,
        keyring: provider.config.seedKeys,
        roundCompletionMs,
        clock: () => provider.clock.now,
        delivery: provider.delivery,
        timers,
      });
      leftBehind = completion;
      completion.start();
      try {
        // The first sweep completes whatever earlier tests of this store left, all due by now: none is left to set the timer for.
        provider.clock.advance(roundCompletionMs);
        assert.equal(await timers.fire(), COMPLETION_SWEEP_MS_MAX);
        const launch = await launchReal();
        const clientSeed = await seedFor(launch, 100n, (round) => round.freeSpins.length > 0 && !round.jackpot);
        const answer = await play(launch, { bet: '1', clientSeed });
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(timers.waits.at(-1), roundCompletionMs, 'set for the round just played');
        provider.clock.advance(roundCompletionMs);
        await timers.fire();
        const roundId = (answer.body.round as Json).roundId as string;
        const row = (await provider.store.listRounds(10)).find((one) => one.roundId === roundId)!;
        assert.equal(row.reels?.freeSpinsPlayed, row.reels?.freeSpins, 'its free spins played by the provider');
        assert.equal((await settledRound(row.pk)).status, 'settled');
      } finally {
        leftBehind = undefined;
        await completion.stop();
      }
    });

    test('a free-bet campaign round of reels carries its campaign on every call, finished on the bet of the last', async () => {
      const launch = await launchReal(10);
      const campaignId = randomUUID();
      const created = await adminCall(provider.app, 'POST', '/admin/campaigns', {
        id: campaignId,
        operatorId: 'local-demo-operator',
        game: 'reels',
        currency: 'EUR',
        betAmount: 2,
        rounds: 1,
        players: [launch.playerId],
      });
      assert.equal(created.status, 201, created.raw);
      const clientSeed = await seedFor(launch, 200n, (round) => round.freeSpins.length === 0 && !round.jackpot);
      const answer = await play(launch, { free: true, clientSeed });
      assert.equal(answer.status, 200, answer.raw);
      const round = answer.body.round as Json;
      assert.equal(round.free, true);
      assert.equal(round.bet, '2');
      assert.equal(answer.body.freeRounds, null);
      // The free bet costs the player nothing; its win is the player's.
      assert.equal(minor(answer.body.balance as string), 1_000n + minor(round.win as string));
      const row = (await provider.store.listRounds(10)).find((one) => one.roundId === round.roundId)!;
      const marks = (await provider.store.roundCalls(row.pk)).map((call) => JSON.parse(call.body).campaign);
      assert.deepEqual(marks, [
        { id: campaignId, type: 'freeBets', finished: true },
        { id: campaignId, type: 'freeBets', finished: false },
      ]);
      assertProblem(await play(launch, { free: true, clientSeed }), 'CAMPAIGN_FINISHED');
      const ledger = await admin(op.app, 'GET', `/admin/players/${launch.playerId}/transactions?limit=50`);
      const bets = (ledger.body.items as { kind: string; freeBet: boolean; campaignId: string }[]).filter((item) => item.kind === 'bet');
      assert.deepEqual(
        bets.map((item) => [item.freeBet, item.campaignId]),
        [[true, campaignId]],
      );
    });

    test('fun mode plays reels, its feature included, with the fun balance and no call to the operator', async () => {
      const before = operatorCalls.length;
      const launched = await operatorCall(provider.app, '/generate-launch-url', { mode: 'fun', game: 'reels', language: 'en' });
      assert.equal(launched.status, 200, launched.raw);
      const launch = { playerId: '', ...launchOf(launched.body.url as string) };
      const opened = await pageCall(provider.app, `${launch.path}/api/open`, { token: launch.token });
      assert.equal(opened.status, 200, opened.raw);
      assert.equal(opened.body.mode, 'fun');
      let balance = minor(opened.body.balance as string);
      // A client seed whose round, drawn from the fun session's own seed, triggers the feature.
      const clientSeed = await seedFor(launch, 100n, (round) => round.freeSpins.length > 0 && !round.jackpot);
      const answer = await play(launch, { bet: '1', clientSeed });
      assert.equal(answer.status, 200, answer.raw);
      let round = answer.body.round as Json;
      assert.equal(round.stage, 'feature');
      while (round.stage === 'feature') {
        const step = await freeSpin(launch, round.roundId as string);
        assert.equal(step.status, 200, step.raw);
        round = step.body.round as Json;
        balance = minor(step.body.balance as string);
      }
      assert.equal(round.stage, 'settled');
      assert.equal(minor(((await state(launch)).body as Json).balance as string), balance);
      assert.deepEqual(
        operatorCalls.slice(before).filter((url) => url !== '/authenticate'),
        [],
      );
    });

    test("the back office lists a reels round with its progress and its calls' transactions", async () => {
      const listed = await adminCall(provider.app, 'GET', '/admin/rounds?limit=500');
      assert.equal(listed.status, 200, listed.raw);
      const items = listed.body.items as Json[];
      const reels = items.filter((item) => item.kind === 'reels' && item.status === 'settled');
      assert.ok(reels.length > 0);
      for (const item of reels) {
        assert.equal(item.reels.freeSpinsPlayed, item.reels.freeSpins);
        const row = (await provider.store.listRounds(1_000)).find((one) => one.roundId === item.roundId)!;
        const calls = await provider.store.roundCalls(row.pk);
        assert.deepEqual(
          item.reels.calls.map((call: Json) => [call.index, call.status, call.transactions]),
          calls.map((call) => [call.index, call.status, JSON.parse(call.body).transactions]),
        );
      }
      assert.ok(items.some((item) => item.kind === 'dice') || items.every((item) => item.kind === 'reels'));
    });

    test("the operator's ledger is exactly the provider's accepted calls, id by id, for every player", async () => {
      for (const playerId of players) {
        const ledger = (
          await ledgerOf(async (url) => {
            const answer = await admin(op.app, 'GET', url);
            return { status: answer.status, text: answer.raw };
          }, playerId)
        ).filter((item) => item.kind !== 'deposit');
        const booked = new Map<string, { kind: string; amount: number; roundId: string | null }>();
        for (const row of (await provider.store.listRounds(1_000)).filter((one) => one.playerId === playerId)) {
          for (const call of await provider.store.roundCalls(row.pk)) {
            if (call.status !== 'accepted') continue;
            const body = JSON.parse(call.body) as { transactions: { id: string; type: string; amount: number }[]; round: { id: string } };
            for (const tx of body.transactions) booked.set(tx.id, { kind: tx.type, amount: tx.amount, roundId: body.round.id });
          }
        }
        assert.equal(ledger.length, booked.size, playerId);
        for (const item of ledger)
          assert.deepEqual({ kind: item.kind, amount: item.amount, roundId: item.roundId }, booked.get(item.id), `${playerId} ${item.id}`);
      }
    });
  });
}
