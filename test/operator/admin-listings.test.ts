/**
 * The back office's casino-wide reads over HTTP, on every backend:
 * GET /admin/players pages through all players with its filters and refuses
 * bad queries with a clear problem; GET /admin/ggr reports bets − wins per
 * game per day per currency, exactly, over a span of whole days that it
 * checks (defaults, order, the named maximum). A refused query changes
 * nothing and answers problem+json.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, makeOperator, OPERATOR_BACKENDS, playerWithSession, transactionBody, tx, wallet, type Operator } from '../helpers.js';
import { GGR_DAYS_MAX } from '../../src/stores/store.js';

const DAY = 86_400_000;

interface PlayerItem {
  playerId: string;
  currency: string;
  balance: number;
  blocked: boolean;
  country: string | null;
}

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`admin listings (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    before(async () => {
      op = await makeOperator({ backend: backend.name });
    });
    after(async () => op.close());

    test('GET /admin/players pages through every player, filtered', async () => {
      const made = ['p-03', 'p-01', 'q-01', 'p-02', 'p-04'];
      for (const [i, playerId] of made.entries()) {
        const created = await admin(op.app, 'POST', '/admin/players', { playerId, currency: i % 2 ? 'USD' : 'EUR', balance: 10.5 + i, country: 'DE' });
        assert.equal(created.status, 201, created.raw);
      }
      assert.equal((await admin(op.app, 'POST', '/admin/players/p-02/block', { reason: 'test' })).status, 200);

      const seen: PlayerItem[] = [];
      let cursor: string | null = null;
      do {
        const page = await admin(op.app, 'GET', `/admin/players?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        assert.equal(page.status, 200, page.raw);
        seen.push(...(page.body.items as PlayerItem[]));
        cursor = page.body.nextCursor as string | null;
      } while (cursor !== null);
      assert.deepEqual(
        seen.map((p) => p.playerId),
        ['p-01', 'p-02', 'p-03', 'p-04', 'q-01'],
      );
      assert.deepEqual(seen[0], { playerId: 'p-01', currency: 'USD', balance: 11.5, blocked: false, country: 'DE' });

      const blocked = await admin(op.app, 'GET', '/admin/players?blocked=true');
      assert.deepEqual(
        (blocked.body.items as PlayerItem[]).map((p) => p.playerId),
        ['p-02'],
      );
      const narrowed = await admin(op.app, 'GET', '/admin/players?prefix=p-&currency=EUR&blocked=false');
      assert.deepEqual(
        (narrowed.body.items as PlayerItem[]).map((p) => p.playerId),
        ['p-03', 'p-04'],
      );
      assert.equal(narrowed.body.nextCursor, null);
    });

    test('GET /admin/players refuses bad queries with a clear problem', async () => {
      for (const [query, words] of [
        ['limit=0', 'limit: must be 1..500'],
        ['limit=501', 'limit: must be 1..500'],
        ['limit=ten', 'limit'],
        ['currency=eur', 'currency'],
        ['blocked=yes', 'blocked'],
        ['prefix=%01', 'prefix'],
        ['cursor=', 'cursor'],
      ] as const) {
        const answer = await admin(op.app, 'GET', `/admin/players?${query}`);
        assert.equal(answer.status, 400, `${query}: ${answer.raw}`);
        assert.equal(answer.body.code, 'INVALID_REQUEST');
        assert.match(String(answer.body.detail), new RegExp(words), query);
      }
      const unauthorized = await op.app.inject({ method: 'GET', url: '/admin/players' });
      assert.equal(unauthorized.statusCode, 401);
    });

    test('GET /admin/ggr reports bets − wins per game per day per currency, exactly', async () => {
      const today = new Date(op.clock.now).toISOString().slice(0, 10);
      const eur = await playerWithSession(op.app, { playerId: 'g-eur', currency: 'EUR', balance: 100, game: 'dice' });
      const usd = await playerWithSession(op.app, { playerId: 'g-usd', currency: 'USD', balance: 100, game: 'dice' });
      const play = async (fixture: typeof eur, bet: number, win: number) => {
        const body = transactionBody(fixture, win > 0 ? [tx('bet', bet), tx('win', win)] : [tx('bet', bet)]);
        const answer = await wallet(op.app, '/transaction', body);
        assert.equal(answer.status, 200, answer.raw);
      };
      await play(eur, 0.1, 0);
      await play(eur, 0.2, 0.7);
      await play(usd, 1.01, 0);

      const report = await admin(op.app, 'GET', '/admin/ggr');
      assert.equal(report.status, 200, report.raw);
      const from = new Date(op.clock.now - 29 * DAY).toISOString().slice(0, 10);
      assert.deepEqual(report.body, {
        from,
        to: today,
        rows: [
          { day: today, integration: 'default', game: 'dice', currency: 'EUR', bets: 0.3, freeBets: 0, wins: 0.7, ggr: -0.4, rounds: 2 },
          { day: today, integration: 'default', game: 'dice', currency: 'USD', bets: 1.01, freeBets: 0, wins: 0, ggr: 1.01, rounds: 1 },
        ],
      });
      // Money stays exact on the wire: 0.1 + 0.2 is 0.3, not 0.30000000000000004.
      assert.match(report.raw, /"bets":0\.3,/);

      const yesterday = new Date(op.clock.now - DAY).toISOString().slice(0, 10);
      const before = await admin(op.app, 'GET', `/admin/ggr?from=${yesterday}&to=${yesterday}`);
      assert.deepEqual(before.body, { from: yesterday, to: yesterday, rows: [] });
    });

    test('GET /admin/ggr refuses spans that are no whole days, reversed, or too long', async () => {
      const last = new Date(Date.parse('2026-01-01T00:00:00Z') + (GGR_DAYS_MAX - 1) * DAY).toISOString().slice(0, 10);
      const ok = await admin(op.app, 'GET', `/admin/ggr?from=2026-01-01&to=${last}`);
      assert.equal(ok.status, 200, ok.raw);
      const tooLong = new Date(Date.parse('2026-01-01T00:00:00Z') + GGR_DAYS_MAX * DAY).toISOString().slice(0, 10);
      for (const [query, words] of [
        ['from=2026-02-30', 'from: 2026-02-30 is not a day of the calendar'],
        ['to=2026-13-01', 'to: 2026-13-01 is not a day of the calendar'],
        ['from=26-01-01', 'from'],
        ['from=2026-01-02&to=2026-01-01', 'from: 2026-01-02 is after to: 2026-01-01'],
        [`from=2026-01-01&to=${tooLong}`, `at most ${GGR_DAYS_MAX} days`],
      ] as const) {
        const answer = await admin(op.app, 'GET', `/admin/ggr?${query}`);
        assert.equal(answer.status, 400, `${query}: ${answer.raw}`);
        assert.equal(answer.body.code, 'INVALID_REQUEST');
        assert.match(String(answer.body.detail), new RegExp(words), query);
      }
    });
  });
}
