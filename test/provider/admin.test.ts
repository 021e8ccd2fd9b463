/**
 * Proves the provider's back office: its bearer token, free-bet campaigns
 * (created, repeated idempotently, refused on conflicting content, unknown
 * references, a currency without a ladder, a bet off the ladder or an
 * expiresAt that is not an RFC 3339 date-time, and then not created) and
 * the round log listing; without an admin token in the config there is no
 * back office at all.
 * On every provider store backend (PROVIDER_BACKENDS).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import { seedSealing } from '../../src/provider/seed-keyring.js';
import { openProviderStore } from '../../src/provider/store/open-provider-store.js';
import {
  adminCall,
  assertProblem,
  launchOf,
  makeProvider,
  operatorCall,
  pageCall,
  PROVIDER_BACKENDS,
  startProvider,
  testConfigFile,
  type Provider,
} from './provider-helpers.js';
import { PROVIDER_TEST_POOL } from './store/backends.js';

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`the back office: ${backend.name}`, { skip: backend.unavailable }, () => {
    let provider: Provider;
    before(async () => {
      provider = await makeProvider({ backend: backend.name });
    });
    after(async () => {
      await provider.close();
    });

    const campaign = (extra: Record<string, unknown> = {}) => ({
      id: randomUUID(),
      operatorId: 'local-demo-operator',
      game: 'dice',
      currency: 'EUR',
      betAmount: 0.5,
      rounds: 10,
      players: ['bob', 'carol'],
      ...extra,
    });

    test('401 INVALID_TOKEN: no bearer token, or another one', async () => {
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign(), 'wrong-token'), 'INVALID_TOKEN');
      const response = await provider.app.inject({ method: 'GET', url: '/admin/rounds' });
      assert.equal(response.statusCode, 401);
    });

    test('a campaign is created once; the same content again answers 200 and may add players; other content is a conflict', async () => {
      const body = campaign({ expiresAt: '2030-01-01T00:00:00Z' });
      const created = await adminCall(provider.app, 'POST', '/admin/campaigns', body);
      assert.equal(created.status, 201, created.raw);
      assert.deepEqual(created.body, {
        id: body.id,
        operatorId: 'local-demo-operator',
        game: 'dice',
        currency: 'EUR',
        betAmount: 0.5,
        rounds: 10,
        expiresAt: '2030-01-01T00:00:00.000Z',
        players: [
          { playerId: 'bob', roundsUsed: 0 },
          { playerId: 'carol', roundsUsed: 0 },
        ],
      });
      const again = await adminCall(provider.app, 'POST', '/admin/campaigns', { ...body, players: ['dave'] });
      assert.equal(again.status, 200, again.raw);
      assert.equal((again.body.players as unknown[]).length, 3);
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', { ...body, rounds: 11 }), 'DUPLICATE_CONFLICT');
      const read = await adminCall(provider.app, 'GET', `/admin/campaigns/${body.id.toUpperCase()}`);
      assert.equal(read.status, 200, read.raw);
      assert.equal(read.body.id, body.id);
    });

    test('a betAmount as decimal text, as the config file writes it, is the same campaign as the number', async () => {
      const id = randomUUID();
      const asText = await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ id, betAmount: '0.50' }));
      assert.equal(asText.status, 201, asText.raw);
      assert.equal(asText.body.betAmount, 0.5);
      const asNumber = await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ id, betAmount: 0.5 }));
      assert.equal(asNumber.status, 200, asNumber.raw);
      for (const bad of ['0.505', ' 0.50', '1e-1', '-0.50', '']) {
        assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ betAmount: bad })), 'INVALID_REQUEST');
      }
    });

    test('campaign refusals: unknown operator, game or currency, inexact amount, bad shape, unknown id', async () => {
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ operatorId: 'nobody' })), 'WALLET_NOT_FOUND');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ game: 'poker' })), 'GAME_NOT_FOUND');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ currency: 'XYZ' })), 'UNSUPPORTED_CURRENCY');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ betAmount: 0.005 })), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ betAmount: 0 })), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ rounds: 0 })), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ id: 'not-a-uuid' })), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ players: [] })), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'GET', `/admin/campaigns/${randomUUID()}`), 'NOT_FOUND');
    });

    test('400 INVALID_REQUEST: an expiresAt that is not an RFC 3339 date-time, and nothing is created', async () => {
      const refused = [
        '1',
        '2026-13-01T00:00:00Z',
        'tomorrow',
        '',
        '2026-02-30T00:00:00Z', // Date.parse rolls it over to March 2
        '2026-04-31T00:00:00Z',
        '2026-12-01T24:00:00Z',
        '2026-12-01T00:00:00', // no offset: Date.parse would read it in the server's time zone
        '2026-12-01 00:00:00Z',
        '2026-12-01',
        '2026-12-01T00:00Z',
        '2026-12-01T00:00:00+0100',
        '2026-12-01T00:00:00+24:00',
        '2026-12-31T23:59:60Z', // a leap second, which a JavaScript Date cannot hold
        'Tue, 01 Dec 2026 00:00:00 GMT',
        '+002026-12-01T00:00:00Z',
        '２０２６-12-01T00:00:00Z',
      ];
      for (const expiresAt of refused) {
        const body = campaign({ expiresAt });
        const answer = await adminCall(provider.app, 'POST', '/admin/campaigns', body);
        assertProblem(answer, 'INVALID_REQUEST');
        assert.match(answer.body.detail as string, /^expiresAt:/, expiresAt);
        assertProblem(await adminCall(provider.app, 'GET', `/admin/campaigns/${body.id}`), 'NOT_FOUND');
      }
    });

    test('an RFC 3339 date-time, in any offset, is read as the instant it names', async () => {
      const accepted: [string, string][] = [
        ['2026-12-01T00:00:00Z', '2026-12-01T00:00:00.000Z'],
        ['2026-12-01T00:00:00.000+01:00', '2026-11-30T23:00:00.000Z'],
        ['2026-12-01T00:00:00-00:00', '2026-12-01T00:00:00.000Z'],
        ['2028-02-29t12:30:00.5z', '2028-02-29T12:30:00.500Z'],
        ['2026-06-30T23:59:59.123456789-09:30', '2026-07-01T09:29:59.123Z'],
      ];
      for (const [expiresAt, instant] of accepted) {
        const answer = await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ expiresAt }));
        assert.equal(answer.status, 201, `${expiresAt}: ${answer.raw}`);
        assert.equal(answer.body.expiresAt, instant);
      }
    });

    test('422 UNSUPPORTED_CURRENCY: a currency the game has no ladder for, or the operator does not offer', async () => {
      // NOK is a currency without an exchange rate; CHF has one, but the operator does not use it.
      for (const currency of ['NOK', 'CHF']) {
        const body = campaign({ currency });
        const answer = await adminCall(provider.app, 'POST', '/admin/campaigns', body);
        assertProblem(answer, 'UNSUPPORTED_CURRENCY');
        assert.equal(answer.body.detail, `game dice has no bet ladder for ${currency} at operator local-demo-operator`);
        assertProblem(await adminCall(provider.app, 'GET', `/admin/campaigns/${body.id}`), 'NOT_FOUND');
      }
      // A derived ladder is a ladder: JPY 100 is on dice's.
      const jpy = await adminCall(provider.app, 'POST', '/admin/campaigns', campaign({ currency: 'JPY', betAmount: 100 }));
      assert.equal(jpy.status, 201, jpy.raw);
    });

    test('400 INVALID_REQUEST: a betAmount that is not on the ladder, and nothing is created', async () => {
      for (const betAmount of [0.3, 0.01, 1000]) {
        const body = campaign({ betAmount });
        const answer = await adminCall(provider.app, 'POST', '/admin/campaigns', body);
        assertProblem(answer, 'INVALID_REQUEST');
        assert.equal(answer.body.detail, `betAmount: ${betAmount} is not on the dice EUR bet ladder (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100)`);
        assertProblem(await adminCall(provider.app, 'GET', `/admin/campaigns/${body.id}`), 'NOT_FOUND');
      }
    });

    test('a campaign created again after it expired answers as the first call did', async () => {
      const body = campaign({ players: ['frank'], expiresAt: new Date(provider.clock.now + 60_000).toISOString() });
      assert.equal((await adminCall(provider.app, 'POST', '/admin/campaigns', body)).status, 201);
      provider.clock.advance(120_000);
      const again = await adminCall(provider.app, 'POST', '/admin/campaigns', body);
      assert.equal(again.status, 200, again.raw);
      assert.deepEqual(await provider.store.campaignsOf('local-demo-operator', 'frank', 'dice', 'EUR', provider.clock.now), []);
    });

    test('an expired campaign offers no free rounds', async () => {
      const body = campaign({ players: ['erin'], expiresAt: new Date(provider.clock.now - 1000).toISOString() });
      assert.equal((await adminCall(provider.app, 'POST', '/admin/campaigns', body)).status, 201);
      assert.deepEqual(await provider.store.campaignsOf('local-demo-operator', 'erin', 'dice', 'EUR', provider.clock.now), []);
    });

    test('the round log is listed newest first, a page at a time', async () => {
      const answer = await operatorCall(provider.app, '/generate-launch-url', { mode: 'fun', game: 'dice', language: 'en' });
      const launch = launchOf(answer.body.url as string);
      await pageCall(provider.app, `${launch.path}/api/open`, { token: launch.token });
      for (let i = 0; i < 5; i++) {
        const played = await pageCall(provider.app, `${launch.path}/api/play`, { token: launch.token, bet: '0.1', chancePct: 50, clientSeed: `s${i}` });
        assert.equal(played.status, 200, played.raw);
      }
      const first = await adminCall(provider.app, 'GET', '/admin/rounds?limit=3');
      assert.equal(first.status, 200, first.raw);
      const items = first.body.items as { nonce: number; mode: string; bet: number; status: string; serverSeed: string }[];
      assert.deepEqual(
        items.map((item) => item.nonce),
        [4, 3, 2],
      );
      assert.ok(items.every((item) => item.mode === 'fun' && item.bet === 0.1 && item.status === 'settled' && /^[0-9a-f]{64}$/.test(item.serverSeed)));
      const second = await adminCall(provider.app, 'GET', `/admin/rounds?limit=3&cursor=${first.body.nextCursor as string}`);
      assert.deepEqual(
        (second.body.items as { nonce: number }[]).map((item) => item.nonce),
        [1, 0],
      );
      assert.equal(second.body.nextCursor, null);
      assertProblem(await adminCall(provider.app, 'GET', '/admin/rounds?limit=0'), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'GET', '/admin/rounds?limit=abc'), 'INVALID_REQUEST');
    });

    test('without an admin token in the config there is no back office', async () => {
      const bare = await makeProvider({ edit: (file) => delete file.adminToken, backend: backend.name });
      try {
        const answer = await adminCall(bare.app, 'POST', '/admin/campaigns', campaign());
        assertProblem(answer, 'NOT_FOUND');
      } finally {
        await bare.close();
      }
    });

    test('a config campaign whose id the database holds with other content stops the start', async () => {
      const id = randomUUID();
      const row = { id, operatorId: 'local-demo-operator', game: 'dice', currency: 'EUR', rounds: 5, players: ['x'] };
      const first = await makeProvider({ edit: (file) => (file.campaigns = [{ ...row, betAmount: '1' }]), backend: backend.name });
      // The first node's start-up write (giving up its earlier runs' leases) commits at the end of its turn, on a later
      // tick; a second store opened in this same process waits for SQLite's lock synchronously and would hold that
      // tick back until its busy timeout. So the second start comes once the first's writes are durable.
      await first.store.durable();
      // A second start on the same database, whose config changed the campaign's bet.
      const file = testConfigFile({ database: first.config.database });
      file.campaigns = [{ ...row, betAmount: '2' }];
      const store = await openProviderStore(first.config.database, {
        currencies: first.config.currencies,
        postgres: PROVIDER_TEST_POOL,
        seeds: seedSealing(first.config.seedKeys, randomBytes),
      });
      try {
        await assert.rejects(
          startProvider({ config: resolveProviderConfig(file), store }),
          /campaigns\[0\]\.id: campaign .* exists in the database with other content/,
        );
      } finally {
        await store.close();
        await first.close();
      }
    });
  });
}
