/**
 * Proves the rotation of the seed keyring (the config's `seedKeys`) on
 * every provider store backend, the provider restarted on the same
 * database with each new ring: sessions and reels rounds sealed under key
 * A keep playing once the ring's current key is B, with A still in it:
 * their rounds reveal the seeds they were committed to under A, and each
 * session's next seed is sealed under B from its next round on, as every
 * new session's is. Once A leaves the ring, a session still under A is
 * refused plainly (503, naming the key) instead of played, the completion
 * of a round left under A fails naming it and leaves the round as it is,
 * while sessions moved to B play on; rounds already revealed verify with
 * no key at all.
 */
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { commitment, drawSource, rollOf } from '../../src/game/fairness.js';
import { playRound } from '../../src/game/reels.js';
import { launchTokens } from '../../src/provider/launch-token.js';
import type { ReelsGameSettings } from '../../src/provider/config-games.js';
import { RoundCompletion } from '../../src/provider/round-completion.js';
import { openSessionSeed, sealedKeyId, SeedKeyring } from '../../src/provider/seed-keyring.js';
import { assertProblem, type Answer, launchOf, makeProvider, operatorCall, pageCall, PROVIDER_BACKENDS, type Provider } from './provider-helpers.js';

/** Client seeds tried for a round with free spins: about 1 round in 101 has them. */
const SEARCH_MAX = 20_000;

type Json = Record<string, any>;

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`seed key rotation: ${backend.name}`, { skip: backend.unavailable }, () => {
    const keyA = randomBytes(32);
    const keyB = randomBytes(32);
    let provider: Provider;
    let reels: ReelsGameSettings;

    before(async () => {
      provider = await makeProvider({
        backend: backend.name,
        edit: (file) => {
          file.seedKeys = { current: 'a', keys: { a: keyA.toString('base64') } };
        },
      });
      reels = provider.config.games.find((one): one is ReelsGameSettings => one.kind === 'reels')!;
    });

    after(async () => provider?.close());

    /** The provider restarted on the same database with another ring, as a process started with an edited config. */
    async function restartWith(keys: [string, Buffer][], current: string): Promise<void> {
      provider.config.seedKeys = new SeedKeyring(new Map(keys), current);
      await provider.restart();
    }

    type Launch = { token: string; path: string };
    const call = async (launch: Launch, what: string, input: Json = {}) =>
      (await pageCall(provider.app, `${launch.path}/api/${what}`, { token: launch.token, ...input })) as Answer & { body: Json };

    async function launchFun(game: string): Promise<Launch> {
      const answer = await operatorCall(provider.app, '/generate-launch-url', { mode: 'fun', game, language: 'en' });
      assert.equal(answer.status, 200, answer.raw);
      const launch = launchOf(answer.body.url as string);
      assert.equal((await call(launch, 'open')).status, 200);
      return launch;
    }

    async function sessionOf(launch: Launch) {
      const claims = launchTokens(provider.config.launchTokenSecrets, randomBytes).open(launch.token)!;
      return (await provider.store.sessionByLaunch(claims.launchId))!;
    }

    /** A reels round with free spins, begun, its spins not yet played. */
    async function feature(launch: Launch): Promise<{ roundId: string; total: number }> {
      const session = await sessionOf(launch);
      const seed = openSessionSeed(provider.config.seedKeys, session);
      let clientSeed: string | undefined;
      for (let i = 0; i < SEARCH_MAX && clientSeed === undefined; i++) {
        if (playRound(reels.rules, 100n, drawSource(seed, `r${i}`, session.nonce)).freeSpins.length > 0) clientSeed = `r${i}`;
      }
      assert.ok(clientSeed, 'a client seed gives free spins');
      const played = await call(launch, 'play', { bet: '1', clientSeed });
      assert.equal(played.status, 200, played.raw);
      return { roundId: played.body.round.roundId as string, total: played.body.round.feature.total as number };
    }

    /** A dice round played: it reveals the seed committed to before it. */
    async function playDice(launch: Launch): Promise<Json> {
      const committed = (await call(launch, 'state')).body.fairness.serverSeedHash as string;
      const played = await call(launch, 'play', { bet: '1', chancePct: 50, clientSeed: 'rotate' });
      assert.equal(played.status, 200, played.raw);
      const round = played.body.round as Json;
      assert.equal(commitment(round.serverSeed as string), committed, 'the seed revealed is the one committed to before the round');
      assert.equal(rollOf(round.serverSeed as string, 'rotate', round.nonce as number), round.roll);
      return round;
    }

    test('sessions and rounds sealed under A play on under a ring whose current key is B; without A they are refused plainly', async () => {
      const moving = await launchFun('dice');
      const idle = await launchFun('dice');
      const reelsLaunch = await launchFun('reels');
      const left = await launchFun('reels');
      const firstRound = await playDice(moving);
      const inFeature = await feature(reelsLaunch);
      assert.equal((await call(reelsLaunch, 'free-spin', { roundId: inFeature.roundId })).status, 200);
      const leftRound = await feature(left);
      for (const launch of [moving, idle, reelsLaunch, left]) assert.equal(sealedKeyId((await sessionOf(launch)).sealedSeed), 'a');

      // B becomes current; A stays in the ring.
      await restartWith(
        [
          ['a', keyA],
          ['b', keyB],
        ],
        'b',
      );
      await playDice(moving);
      assert.equal(sealedKeyId((await sessionOf(moving)).sealedSeed), 'b', 'the next seed is sealed under the current key');
      assert.equal(sealedKeyId((await sessionOf(idle)).sealedSeed), 'a', 'a session that has not played is still under A');
      assert.equal(sealedKeyId((await sessionOf(await launchFun('dice'))).sealedSeed), 'b', 'a new session is under B');
      let last: (Answer & { body: Json }) | undefined;
      for (let spin = 1; spin < inFeature.total; spin++) last = await call(reelsLaunch, 'free-spin', { roundId: inFeature.roundId });
      assert.equal(last?.status, 200, last?.raw);
      const settled = ((await call(reelsLaunch, 'state')).body.rounds as Json[]).find((one) => one.roundId === inFeature.roundId)!;
      assert.equal(settled.stage, 'settled');
      assert.equal(commitment(settled.serverSeed as string), settled.serverSeedHash, 'the round begun under A reveals the seed it committed to');

      // A leaves the ring.
      await restartWith([['b', keyB]], 'b');
      await playDice(moving);
      const refused = await call(idle, 'play', { bet: '1', chancePct: 50, clientSeed: 'rotate' });
      assertProblem(refused, 'SERVICE_UNAVAILABLE');
      assert.match(refused.body.detail as string, /seed key a\b.*no longer holds/);
      const completion = new RoundCompletion({
        store: provider.store,
        keyring: provider.config.seedKeys,
        roundCompletionMs: 0,
        clock: () => provider.clock.now,
      });
      await assert.rejects(completion.sweep(), /seed key "a", which seedKeys\.keys no longer holds/);
      const stuck = (await provider.store.pendingRounds((await sessionOf(left)).pk)).find((one) => one.roundId === leftRound.roundId)!;
      assert.equal(stuck.reels?.freeSpinsPlayed, 0, 'a round whose seed cannot be opened is left as it is');

      // A round revealed under A verifies with no key: the seed and the commitment are all it takes.
      assert.equal(commitment(firstRound.serverSeed as string), firstRound.serverSeedHash);
      const shown = ((await call(moving, 'state')).body.rounds as Json[]).find((one) => one.roundId === firstRound.roundId)!;
      assert.equal(shown.serverSeed, firstRound.serverSeed);
    });
  });
}
