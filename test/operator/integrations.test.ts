/**
 * Which integration is calling (docs/protocol.md §2.6), over every backend,
 * with two stored integrations beside the environment's `default`: each
 * signs with its own secret and is accepted; a token of one with a body
 * signed by the other's secret is 401 INVALID_SIGNATURE and changes
 * nothing; an unknown token is 401 INVALID_TOKEN; an integration switched
 * off is 403 INTEGRATION_OFF; a caller outside its ranges is 403
 * IP_NOT_ALLOWED; a paused one has a new bet and /authenticate refused
 * INTEGRATION_PAUSED (final: the same ids answer it after resuming), its
 * wins and payouts booked, and a bet booked before the pause answered its
 * balance; a session belongs to the integration that opened it, and
 * another's bet, win or reload on it is 403 INTEGRATION_MISMATCH, changes
 * nothing and is not kept, while a repeat of a booked bet answers its
 * balance; the environment's integration works alone as before. A second
 * node on the same database follows an add, a pause and a removal when it
 * polls the version.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildOperatorApp } from '../../src/operator/operator-app.js';
import { IntegrationRegistry } from '../../src/operator/integration-registry.js';
import { sign } from '../../src/protocol/signing.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { integrationKeyring, newIntegrationToken } from '../../src/access/integrations.js';
import { addStudio, ring, type Studio } from '../stores/studios.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, admin, balanceOf, makeOperator, OPERATOR_BACKENDS, SECRET, transactionBody, tx, type Operator } from '../helpers.js';

async function setState(store: WalletStore, id: string, state: 'active' | 'paused' | 'off'): Promise<void> {
  const stored = (await store.listIntegrations()).integrations.find((i) => i.id === id)!;
  assert.ok((await store.updateIntegration({ id, revision: stored.revision, changes: { state }, now: Date.now() })).ok);
}

/** A wallet call with a token and a body signed by a secret, from an address. */
async function call(app: FastifyInstance, url: string, body: unknown, token: string, secret: string, remoteAddress = '127.0.0.1') {
  const payload = JSON.stringify(body);
  const response = await app.inject({
    method: 'POST',
    url,
    payload,
    remoteAddress,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-server-authorization': sign(secret, payload) },
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown>, raw: response.body };
}

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`integrations on the signed routes (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let app: FastifyInstance;
    let registry: IntegrationRegistry;
    let a: Studio;
    let b: Studio;

    before(async () => {
      op = await makeOperator({ backend: backend.name });
      a = await addStudio(op.store, 'studio-a');
      b = await addStudio(op.store, 'studio-b', { ranges: ['10.0.0.0/8', '127.0.0.1'] });
      registry = new IntegrationRegistry({ store: op.store, environment: { secrets: [SECRET], accessTokens: [ACCESS_TOKEN] }, keyring: ring });
      await registry.reload();
      let keys = 0;
      app = await buildOperatorApp({
        store: op.store,
        integrations: registry,
        adminToken: ADMIN_TOKEN,
        world: { clock: () => op.clock.now, newId: () => randomUUID(), newLaunchKey: () => `key-${++keys}-${randomUUID()}` },
      });
    });
    after(async () => {
      await app.close();
      await op.close();
    });

    /** A player with a session opened by a studio. */
    async function session(studio: Studio, balance = 100) {
      const playerId = `p-${randomUUID().slice(0, 8)}`;
      assert.equal((await admin(app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance, country: 'DE' })).status, 201);
      const key = await admin(app, 'POST', '/admin/launch-keys', { playerId, game: 'dice' });
      const opened = await call(app, '/authenticate', { key: key.body.key, game: 'dice' }, studio.token, studio.secret);
      assert.equal(opened.status, 200, opened.raw);
      return { playerId, game: 'dice', sessionId: opened.body.sessionId as string };
    }

    test('each integration signs with its own secret and is accepted; the environment integration too', async () => {
      const environment = { id: 'default', secret: SECRET, token: ACCESS_TOKEN };
      for (const studio of [a, b, environment]) {
        const fixture = await session(studio);
        const bet = await call(app, '/transaction', transactionBody(fixture, [tx('bet', 1)]), studio.token, studio.secret);
        assert.equal(bet.status, 200, `${studio.id}: ${bet.raw}`);
        assert.equal(bet.body.balance, 99);
      }
    });

    test("a token of one integration with a body signed by another's secret is 401 INVALID_SIGNATURE, and nothing changes", async () => {
      const fixture = await session(a);
      for (const secret of [b.secret, SECRET]) {
        const crossed = await call(app, '/transaction', transactionBody(fixture, [tx('bet', 5)]), a.token, secret);
        assert.equal(crossed.status, 401, crossed.raw);
        assert.equal(crossed.body.code, 'INVALID_SIGNATURE');
      }
      const envCrossed = await call(app, '/transaction', transactionBody(fixture, [tx('bet', 5)]), ACCESS_TOKEN, a.secret);
      assert.equal(envCrossed.body.code, 'INVALID_SIGNATURE');
      assert.equal(await balanceOf(app, fixture.playerId), 100);
    });

    test('an unknown token is 401 INVALID_TOKEN', async () => {
      const fixture = await session(a);
      const unknown = await call(app, '/transaction', transactionBody(fixture, [tx('bet', 5)]), newIntegrationToken(randomBytes).token, a.secret);
      assert.equal(unknown.status, 401);
      assert.equal(unknown.body.code, 'INVALID_TOKEN');
    });

    test("a caller outside the integration's ranges is 403 IP_NOT_ALLOWED; inside, accepted", async () => {
      const fixture = await session(b);
      const outside = await call(app, '/transaction', transactionBody(fixture, [tx('bet', 5)]), b.token, b.secret, '192.0.2.1');
      assert.equal(outside.status, 403, outside.raw);
      assert.equal(outside.body.code, 'IP_NOT_ALLOWED');
      const inside = await call(app, '/transaction', transactionBody(fixture, [tx('bet', 5)]), b.token, b.secret, '::ffff:10.1.2.3');
      assert.equal(inside.status, 200, inside.raw);
    });

    test('an integration switched off is 403 INTEGRATION_OFF on every call, and serves again once active', async () => {
      const fixture = await session(a);
      await setState(op.store, 'studio-a', 'off');
      await registry.reload();
      try {
        for (const body of [transactionBody(fixture, [tx('win', 5)]), { sessionId: fixture.sessionId }]) {
          const refused = await call(app, '/transaction', body, a.token, a.secret);
          assert.equal(refused.status, 403, refused.raw);
          assert.equal(refused.body.code, 'INTEGRATION_OFF');
        }
      } finally {
        await setState(op.store, 'studio-a', 'active');
        await registry.reload();
      }
      assert.equal((await call(app, '/transaction', transactionBody(fixture, [tx('win', 5)]), a.token, a.secret)).status, 200);
    });

    test('paused: a new bet and /authenticate refused INTEGRATION_PAUSED, final; wins, payouts and bets booked before still answered', async () => {
      const fixture = await session(a);
      const before = transactionBody(fixture, [tx('bet', 10)], { finished: false });
      assert.equal((await call(app, '/transaction', before, a.token, a.secret)).body.balance, 90);
      await setState(op.store, 'studio-a', 'paused');
      await registry.reload();
      try {
        const retried = await call(app, '/transaction', before, a.token, a.secret);
        assert.equal(retried.status, 200, `a retry of a bet booked before the pause answers its balance: ${retried.raw}`);
        assert.equal(retried.body.balance, 90);
        const bet = transactionBody(fixture, [tx('bet', 10)]);
        const refused = await call(app, '/transaction', bet, a.token, a.secret);
        assert.equal(refused.status, 403, refused.raw);
        assert.equal(refused.body.code, 'INTEGRATION_PAUSED');
        assert.equal(refused.body.balance, 90);
        const win = await call(app, '/transaction', transactionBody(fixture, [tx('win', 7)], { id: before.round.id }), a.token, a.secret);
        assert.equal(win.status, 200, win.raw);
        assert.equal(win.body.balance, 97);
        const payout = await call(
          app,
          '/payout',
          { sessionId: fixture.sessionId, payoutId: randomUUID(), amount: 3, campaign: { id: randomUUID(), type: 'tournament' } },
          a.token,
          a.secret,
        );
        assert.equal(payout.status, 200, payout.raw);
        assert.equal(payout.body.balance, 100);
        const key = await admin(app, 'POST', '/admin/launch-keys', { playerId: fixture.playerId, game: 'dice' });
        const opened = await call(app, '/authenticate', { key: key.body.key, game: 'dice' }, a.token, a.secret);
        assert.equal(opened.body.code, 'INTEGRATION_PAUSED', opened.raw);
        const otherStudio = await session(b);
        assert.equal((await call(app, '/transaction', transactionBody(otherStudio, [tx('bet', 1)]), b.token, b.secret)).status, 200, 'b is not paused');
        await setState(op.store, 'studio-a', 'active');
        await registry.reload();
        const again = await call(app, '/transaction', bet, a.token, a.secret);
        assert.equal(again.body.code, 'INTEGRATION_PAUSED', 'final: the same ids answer the same refusal after resuming');
        assert.equal((await call(app, '/transaction', transactionBody(fixture, [tx('bet', 10)]), a.token, a.secret)).status, 200, 'new ids: booked');
      } finally {
        await setState(op.store, 'studio-a', 'active');
        await registry.reload();
      }
    });

    test("a session belongs to the integration that opened it: another's calls on it are 403 INTEGRATION_MISMATCH, and change nothing", async () => {
      const playerId = `p-${randomUUID().slice(0, 8)}`;
      assert.equal((await admin(app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 100, country: 'DE' })).status, 201);
      const key = (await admin(app, 'POST', '/admin/launch-keys', { playerId, game: 'dice' })).body.key;
      const opened = await call(app, '/authenticate', { key, game: 'dice' }, a.token, a.secret);
      assert.equal(opened.status, 200, opened.raw);
      const fixture = { playerId, game: 'dice', sessionId: opened.body.sessionId as string };
      const booked = transactionBody(fixture, [tx('bet', 10)]);
      assert.equal((await call(app, '/transaction', booked, a.token, a.secret)).body.balance, 90);

      const bet = transactionBody(fixture, [tx('bet', 5)]);
      for (const [caller, token, secret] of [
        [b.id, b.token, b.secret],
        ['default', ACCESS_TOKEN, SECRET],
      ] as const) {
        for (const body of [bet, transactionBody(fixture, [tx('win', 5)])]) {
          const refused = await call(app, '/transaction', body, token, secret);
          assert.equal(refused.status, 403, `${caller}: ${refused.raw}`);
          assert.equal(refused.body.code, 'INTEGRATION_MISMATCH');
          assert.equal(refused.body.balance, undefined, "another integration's player's balance is not shown");
        }
        const reopened = await call(app, '/authenticate', { key, game: 'dice' }, token, secret);
        assert.equal(reopened.status, 403, `${caller}: ${reopened.raw}`);
        assert.equal(reopened.body.code, 'INTEGRATION_MISMATCH');
      }
      assert.equal(await balanceOf(app, playerId), 90, 'nothing changed');

      // After idempotency: a repeat of what was booked answers its balance, as any repeat does.
      const repeat = await call(app, '/transaction', booked, b.token, b.secret);
      assert.equal(repeat.status, 200, repeat.raw);
      assert.equal(repeat.body.balance, 90);
      // Not final: the ids another integration was refused are not kept, and the session's own integration books them.
      const own = await call(app, '/transaction', bet, a.token, a.secret);
      assert.equal(own.status, 200, own.raw);
      assert.equal(own.body.balance, 85);
      const reload = await call(app, '/authenticate', { key, game: 'dice' }, a.token, a.secret);
      assert.equal(reload.status, 200, reload.raw);
      assert.equal(reload.body.sessionId, fixture.sessionId, 'its own integration reloads it');
      assert.equal(await balanceOf(app, playerId), 85);
    });

    /** A session of `studio` for an existing player, opened by that studio's /authenticate. */
    async function sessionOf(studio: Studio, playerId: string, game = 'dice') {
      const key = await admin(app, 'POST', '/admin/launch-keys', { playerId, game });
      const opened = await call(app, '/authenticate', { key: key.body.key, game }, studio.token, studio.secret);
      assert.equal(opened.status, 200, opened.raw);
      return { playerId, game, sessionId: opened.body.sessionId as string };
    }

    test("a launch key made for one integration's game opens for that integration alone; one named that is not stored is 404", async () => {
      const playerId = `p-${randomUUID().slice(0, 8)}`;
      assert.equal((await admin(app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 100, country: 'DE' })).status, 201);
      const made = await admin(app, 'POST', '/admin/launch-keys', { playerId, game: 'dice', integration: 'studio-a' });
      assert.equal(made.status, 201, made.raw);
      for (const [token, secret] of [
        [b.token, b.secret],
        [ACCESS_TOKEN, SECRET],
      ] as const) {
        const refused = await call(app, '/authenticate', { key: made.body.key, game: 'dice' }, token, secret);
        assert.equal(refused.status, 403, refused.raw);
        assert.equal(refused.body.code, 'INTEGRATION_MISMATCH');
        assert.equal(refused.body.balance, undefined);
      }
      const opened = await call(app, '/authenticate', { key: made.body.key, game: 'dice' }, a.token, a.secret);
      assert.equal(opened.status, 200, opened.raw);
      // The environment's integration may be named too; a studio that is not stored may not.
      assert.equal((await admin(app, 'POST', '/admin/launch-keys', { playerId, game: 'dice', integration: 'default' })).status, 201);
      const unknown = await admin(app, 'POST', '/admin/launch-keys', { playerId, game: 'dice', integration: 'studio-z' });
      assert.equal(unknown.status, 404, unknown.raw);
      assert.equal(unknown.body.code, 'INTEGRATION_NOT_FOUND');
      const malformed = await admin(app, 'POST', '/admin/launch-keys', { playerId, game: 'dice', integration: 'Studio A' });
      assert.equal(malformed.status, 400, malformed.raw);
    });

    test("a /payout on another integration's session is 403 INTEGRATION_MISMATCH and books nothing; its own studio's is booked", async () => {
      const fixture = await session(a);
      const payout = { sessionId: fixture.sessionId, payoutId: randomUUID(), amount: 7, campaign: { id: randomUUID(), type: 'tournament' } };
      for (const [token, secret] of [
        [b.token, b.secret],
        [ACCESS_TOKEN, SECRET],
      ] as const) {
        const refused = await call(app, '/payout', payout, token, secret);
        assert.equal(refused.status, 403, refused.raw);
        assert.equal(refused.body.code, 'INTEGRATION_MISMATCH');
        assert.equal(refused.body.balance, undefined, "another integration's player's balance is not shown");
      }
      assert.equal(await balanceOf(app, fixture.playerId), 100, 'nothing was booked');
      const paid = await call(app, '/payout', payout, a.token, a.secret);
      assert.equal(paid.status, 200, paid.raw);
      assert.equal(paid.body.balance, 107);
      // The player's transactions say whose each is: the prize is studio A's tournament's, the opening deposit no studio's.
      const listed = await admin(app, 'GET', `/admin/players/${fixture.playerId}/transactions`);
      assert.deepEqual(
        (listed.body.items as { kind: string; integration: string | null }[]).map((item) => [item.kind, item.integration]),
        [
          ['payout', 'studio-a'],
          ['deposit', null],
        ],
      );
      // After idempotency, as on /transaction: a repeat of the booked payout answers its balance, and books nothing more.
      const repeat = await call(app, '/payout', payout, b.token, b.secret);
      assert.equal(repeat.status, 200, repeat.raw);
      assert.equal(await balanceOf(app, fixture.playerId), 107);
    });

    test("a round another integration opened is 403 INTEGRATION_MISMATCH on the caller's own session, for the same player and game slug", async () => {
      const fixture = await session(a);
      const roundId = randomUUID();
      const opened = await call(app, '/transaction', transactionBody(fixture, [tx('bet', 10)], { id: roundId, finished: false }), a.token, a.secret);
      assert.equal(opened.status, 200, opened.raw);
      const theirs = await sessionOf(b, fixture.playerId);
      for (const transactions of [[tx('bet', 5)], [tx('win', 50)]]) {
        const refused = await call(app, '/transaction', transactionBody(theirs, transactions, { id: roundId, finished: true }), b.token, b.secret);
        assert.equal(refused.status, 403, refused.raw);
        assert.equal(refused.body.code, 'INTEGRATION_MISMATCH');
        assert.equal(refused.body.balance, undefined);
      }
      assert.equal(await balanceOf(app, fixture.playerId), 90, 'nothing changed');
      // The round is still its studio's to close.
      const closed = await call(app, '/transaction', transactionBody(fixture, [tx('win', 20)], { id: roundId, finished: true }), a.token, a.secret);
      assert.equal(closed.status, 200, closed.raw);
      assert.equal(closed.body.balance, 110);
    });

    test('the same game slug and campaign id at two studios are two games and two campaigns: apart in the GGR, the campaigns and the books', async () => {
      // A game slug of this test's own, so that the other tests' rounds at either studio are not in its sums.
      const game = `slots-${randomUUID().slice(0, 8)}`;
      const playerId = `p-${randomUUID().slice(0, 8)}`;
      assert.equal((await admin(app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 1000, country: 'DE' })).status, 201);
      const first = await sessionOf(a, playerId, game);
      const second = await sessionOf(b, playerId, game);
      const campaign = { id: randomUUID(), type: 'freeBets', finished: true };
      // A free round at studio A finishes the campaign for the player there; studio B's campaign of the same id is its own.
      for (const [fixture, studio, win] of [
        [first, a, 3],
        [second, b, 4],
      ] as const) {
        const free = await call(app, '/transaction', transactionBody(fixture, [tx('bet', 1), tx('win', win)], {}, { campaign }), studio.token, studio.secret);
        assert.equal(free.status, 200, `${studio.id}: ${free.raw}`);
      }
      const again = await call(app, '/transaction', transactionBody(second, [tx('bet', 1)], {}, { campaign }), b.token, b.secret);
      assert.equal(again.status, 409, again.raw);
      assert.equal(again.body.code, 'CAMPAIGN_FINISHED', "finished at studio B once B's own free round finished it");
      for (const [fixture, studio, bet, win] of [
        [first, a, 10, 0],
        [second, b, 20, 5],
      ] as const) {
        const paid = await call(app, '/transaction', transactionBody(fixture, [tx('bet', bet), tx('win', win)]), studio.token, studio.secret);
        assert.equal(paid.status, 200, `${studio.id}: ${paid.raw}`);
      }
      assert.equal(await balanceOf(app, first.playerId), 1000 + 3 + 4 - 10 - 20 + 5);

      const report = await admin(app, 'GET', '/admin/ggr');
      assert.equal(report.status, 200, report.raw);
      type Row = { integration: string; game: string; bets: number; freeBets: number; wins: number; ggr: number };
      const sums = (rows: unknown) =>
        (rows as Row[]).filter((row) => row.game === game).map((row) => [row.integration, row.bets, row.freeBets, row.wins, row.ggr]);
      assert.deepEqual(
        sums(report.body.rows),
        [
          ['studio-a', 10, 1, 3, 7],
          ['studio-b', 20, 1, 9, 11],
        ],
        'one row per studio, each with its own sums',
      );
      const onlyB = await admin(app, 'GET', '/admin/ggr?integration=studio-b');
      assert.equal(onlyB.status, 200, onlyB.raw);
      assert.ok((onlyB.body.rows as Row[]).every((row) => row.integration === 'studio-b'));
      assert.deepEqual(sums(onlyB.body.rows), [['studio-b', 20, 1, 9, 11]], 'studio B alone: its own game, whatever studio A played under the same slug');
      const badFilter = await admin(app, 'GET', '/admin/ggr?integration=Studio%20B');
      assert.equal(badFilter.status, 400, badFilter.raw);
      assert.equal(badFilter.body.code, 'INVALID_REQUEST');
      // The books still balance, with the studios' game and campaign accounts apart.
      const books = await op.store.verify();
      assert.ok(books.ok, JSON.stringify(books));
      // The player's transactions and rounds say whose each is.
      const transactions = await admin(app, 'GET', `/admin/players/${playerId}/transactions?limit=100`);
      const byStudio = (transactions.body.items as { kind: string; integration: string | null }[]).map((item) => `${item.kind} ${item.integration}`).sort();
      assert.deepEqual(byStudio, [
        'bet studio-a',
        'bet studio-a',
        'bet studio-b',
        'bet studio-b',
        'deposit null',
        'win studio-a',
        'win studio-a',
        'win studio-b',
        'win studio-b',
      ]);
      const rounds = await admin(app, 'GET', `/admin/players/${playerId}/rounds?limit=100`);
      assert.equal(rounds.status, 200, rounds.raw);
      const studios = (rounds.body.items as { integration: string; game: string }[]).map((round) => `${round.integration} ${round.game}`).sort();
      assert.deepEqual(studios, [`studio-a ${game}`, `studio-a ${game}`, `studio-b ${game}`, `studio-b ${game}`]);
      // /metrics counts what each studio's calls booked under its own label.
      const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(metrics.statusCode, 200);
      for (const studio of ['studio-a', 'studio-b']) {
        assert.match(metrics.body, new RegExp(`^wagerlink_ledger_transfers_total\\{kind="bet",currency="EUR",integration="${studio}"\\} \\d+$`, 'm'));
      }
    });

    test('a second node on the same database follows an add, a pause and a removal when it polls', async () => {
      const second = await op.reopen();
      const follower = new IntegrationRegistry({ store: second.store, keyring: ring });
      await follower.reload();
      const following = follower.follow({ warn: () => {} }, 10);
      const reloaded = () => new Promise<void>((resolve) => follower.onReload(resolve));
      try {
        const next = reloaded();
        const c = await addStudio(op.store, 'studio-c');
        await next;
        assert.equal(follower.lookup(c.token)?.state, 'active');
        const paused = reloaded();
        await setState(op.store, 'studio-c', 'paused');
        await paused;
        assert.equal(follower.lookup(c.token)?.state, 'paused');
        const removed = reloaded();
        assert.ok((await op.store.removeIntegration({ id: 'studio-c', now: Date.now() })).ok);
        await removed;
        assert.equal(follower.lookup(c.token), undefined);
        assert.equal(await follower.refresh(), false, 'nothing moved since');
      } finally {
        following.stop();
        await second.close();
      }
    });

    test('the admin API adds, lists, pauses, rotates and removes, answering a secret or token once, and refuses `default`', async () => {
      const send = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => {
        const response = await app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        return { status: response.statusCode, body: response.json() as Record<string, unknown>, raw: response.body };
      };
      const added = await send('POST', '/admin/integrations', { id: 'studio-d', name: 'Studio D' });
      assert.equal(added.status, 201, added.raw);
      const d = { id: 'studio-d', secret: added.body.secret as string, token: added.body.token as string };
      assert.equal(
        (
          await call(
            app,
            '/payout',
            { sessionId: randomUUID(), payoutId: randomUUID(), amount: 1, campaign: { id: randomUUID(), type: 'tournament' } },
            d.token,
            d.secret,
          )
        ).body.code,
        'SESSION_NOT_FOUND',
        'the new integration calls at once on the node that added it',
      );
      const listed = await send('GET', '/admin/integrations');
      assert.ok(!listed.raw.includes(d.secret) && !listed.raw.includes(d.token));
      assert.deepEqual((listed.body.items as { id: string }[]).map((item) => item.id).slice(0, 1), ['default']);
      assert.ok((listed.body.items as { id: string }[]).some((item) => item.id === 'studio-d'));
      assert.equal((await send('POST', '/admin/integrations', { id: 'default', name: 'x' })).body.code, 'INTEGRATION_EXISTS');
      assert.equal((await send('POST', '/admin/integrations', { id: 'studio-d', name: 'again' })).body.code, 'INTEGRATION_EXISTS');
      assert.equal((await send('POST', '/admin/integrations/default/state', { state: 'paused' })).body.code, 'INVALID_REQUEST');
      const paused = await send('POST', '/admin/integrations/studio-d/state', { state: 'paused' });
      assert.equal(paused.body.state, 'paused', paused.raw);
      assert.equal((await send('PATCH', '/admin/integrations/studio-d', { name: 'Studio Dee', ranges: ['10.0.0.0/33'] })).body.code, 'INVALID_REQUEST');
      assert.equal((await send('PATCH', '/admin/integrations/studio-d', { name: 'Studio Dee' })).body.name, 'Studio Dee');
      const begun = await send('POST', '/admin/integrations/studio-d/rotate', { step: 'begin', token: false });
      assert.equal(begun.status, 200, begun.raw);
      assert.equal(typeof begun.body.secretNext, 'string');
      assert.equal(begun.body.token, undefined);
      assert.equal((await send('POST', '/admin/integrations/studio-d/rotate', { step: 'finish' })).body.rotating, false);
      assert.equal((await send('DELETE', '/admin/integrations/studio-d')).body.removed, 'studio-d');
      assert.equal((await send('DELETE', '/admin/integrations/studio-d')).body.code, 'INTEGRATION_NOT_FOUND');
      assert.equal((await call(app, '/payout', {}, d.token, d.secret)).body.code, 'INVALID_TOKEN');
    });

    test('stored integrations without the keys to open them stop a node from starting', async () => {
      const blind = new IntegrationRegistry({ store: op.store, environment: { secrets: [SECRET], accessTokens: [ACCESS_TOKEN] } });
      await assert.rejects(blind.reload(), /WAGERLINK_INTEGRATION_KEYS is not set/);
      const wrongKeys = new IntegrationRegistry({ store: op.store, keyring: integrationKeyring(new Map([['k2', randomBytes(32)]]), 'k2') });
      await assert.rejects(wrongKeys.reload(), /key "k1", which WAGERLINK_INTEGRATION_KEYS no longer holds/);
    });
  });
}
