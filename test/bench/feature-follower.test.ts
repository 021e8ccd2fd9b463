/**
 * Proves the reels end-to-end row's feature follower (bench/end-to-end-row.ts)
 * against a real provider and operator on real sockets, without running
 * the bench: a launch whose round triggered free spins has them played
 * through the page API to the feature's end, the round settles and the
 * operator's balance is the one the provider shows; a follower whose
 * request is refused stops and stop() throws what refused it, so the row
 * fails instead of measuring a stuck launch.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FeatureFollower } from '../../bench/end-to-end-row.js';
import { drawSource } from '../../src/game/fairness.js';
import { playRound } from '../../src/game/reels.js';
import { launchTokens } from '../../src/provider/launch-token.js';
import { openSessionSeed } from '../../src/provider/seed-keyring.js';
import type { ReelsGameSettings } from '../../src/provider/config-games.js';
import { admin, balanceOf, makeOperator } from '../helpers.js';
import { launchOf, makeProvider, operatorCall, pageCall, realLaunchBody, type Provider } from '../provider/provider-helpers.js';

/** Client seeds tried for one that triggers free spins: a feature comes about once in a hundred rounds. */
const SEED_SEARCH_MAX = 20_000;
/** How long finishAll may wait for the feature's wins to be booked (ms); generous for a loaded machine. */
const SETTLE_WAIT_MS = 30_000;

let op: Awaited<ReturnType<typeof makeOperator>>;
let provider: Provider;
let port: number;

before(async () => {
  op = await makeOperator();
  provider = await makeProvider({ endpoint: await op.app.listen({ host: '127.0.0.1', port: 0 }) });
  port = Number(new URL(await provider.app.listen({ host: '127.0.0.1', port: 0 })).port);
});

after(async () => {
  await provider?.close();
  await op?.close();
});

test('a launch with free spins left has them played to the end, and its wins booked', async () => {
  const game = provider.config.games.find((g): g is ReelsGameSettings => g.kind === 'reels')!;
  const playerId = `follow-${randomUUID().slice(0, 8)}`;
  assert.equal((await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 100, country: 'DE' })).status, 201);
  const key = await admin(op.app, 'POST', '/admin/launch-keys', { playerId, game: game.slug });
  const launched = await operatorCall(provider.app, '/generate-launch-url', realLaunchBody({ game: game.slug, key: key.body.key }));
  assert.equal(launched.status, 200, launched.raw);
  const launch = launchOf(launched.body.url as string);
  assert.equal((await pageCall(provider.app, `${launch.path}/api/open`, { token: launch.token })).status, 200);

  // A client seed whose draw with the launch's next server seed triggers free spins.
  const claims = launchTokens(provider.config.launchTokenSecrets, randomBytes).open(launch.token)!;
  const session = (await provider.store.sessionByLaunch(claims.launchId))!;
  let clientSeed: string | undefined;
  let freeSpins = 0;
  for (let i = 0; i < SEED_SEARCH_MAX && clientSeed === undefined; i++) {
    const round = playRound(game.rules, 100n, drawSource(openSessionSeed(provider.config.seedKeys, session), `follow-${i}`, session.nonce));
    if (round.freeSpins.length > 0) [clientSeed, freeSpins] = [`follow-${i}`, round.freeSpins.length];
  }
  assert.ok(clientSeed, 'a client seed triggers free spins');
  const played = await pageCall(provider.app, `${launch.path}/api/play`, { token: launch.token, bet: '1.00', clientSeed });
  assert.equal(played.status, 200, played.raw);
  assert.equal((played.body.round as { stage: string }).stage, 'feature');

  const follower = new FeatureFollower(port, [launch.token]);
  await follower.finishAll(SETTLE_WAIT_MS);
  assert.equal(follower.freeSpins, freeSpins);
  const state = await pageCall(provider.app, `${launch.path}/api/state`, { token: launch.token });
  assert.equal(state.body.unfinished, null);
  const [last] = state.body.rounds as { stage: string; feature: { played: number } }[];
  assert.equal(last!.stage, 'settled');
  assert.equal(last!.feature.played, freeSpins);
  assert.equal(Number(state.body.balance), await balanceOf(op.app, playerId), "the provider's balance is the operator's");
});

test('a follower refused by the provider stops, and stop() throws why', async () => {
  const follower = new FeatureFollower(port, ['not-a-launch-token']);
  await assert.rejects(follower.stop(follower.follow()), /state answered 401/);
});
