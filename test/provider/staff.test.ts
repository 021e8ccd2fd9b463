/**
 * The provider's back office under named staff accounts, on every provider
 * store backend: every admin route, walked from the app's own route table,
 * is allowed or refused 403 FORBIDDEN for each role as its declared action
 * says; an account scoped to one operator sees only that operator's rounds,
 * payouts and outbox items, finds another's items "not found", and cannot
 * pay, resolve or retry for it; a payout over the role's limit is refused
 * STAFF_LIMIT_EXCEEDED and enqueues nothing; revoked and expired tokens are
 * 401 at once; no token is in clear in any column; a payout, an outbox
 * item's retry or resolve, and a campaign each commit together with their
 * audit row (each side's write is broken in turn underneath the app), while
 * a refused call still gets its row; the audit table refuses UPDATE and
 * DELETE.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import postgres from 'postgres';
import { allows, ROLES, type Role } from '../../src/access/roles.js';
import { DEFAULT_STAFF_LIMITS } from '../../src/access/limits.js';
import { STAFF_TOKEN_DAYS_DEFAULT } from '../../src/access/staff-token.js';
import type { StaffGuard } from '../../src/http/staff-guard.js';
import { adminCall, makeProvider, OPERATOR_ID, OTHER_OPERATOR_ID, PROVIDER_BACKENDS, type Provider } from './provider-helpers.js';
import { realRound, realSession, sealedNext, SEED } from './store/store-fixtures.js';

const DAY_MS = 86_400_000;
const CAMPAIGN = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

/** Runs one statement on the provider's database beside its store and answers its rows. */
function databaseOf(provider: Provider): { sql: (statement: string) => Promise<Record<string, unknown>[]>; close: () => Promise<void> } {
  const url = provider.config.database;
  if (url.startsWith('postgres')) {
    const client = postgres(url, { max: 1, onnotice: () => {} });
    return { sql: async (statement) => [...(await client.unsafe(statement))] as Record<string, unknown>[], close: () => client.end({ timeout: 5 }) };
  }
  // The store's own connection: a second one would wait, on this very thread, for the store's open write to end.
  const db = (provider.store as unknown as { db: Database.Database }).db;
  return {
    sql: async (statement) => {
      const prepared = db.prepare(statement);
      if (prepared.reader) return prepared.all() as Record<string, unknown>[];
      prepared.run();
      return [];
    },
    close: async () => undefined,
  };
}

async function staffToken(provider: Provider, name: string, role: Role, operators?: string[]): Promise<{ token: string; tokenId: string }> {
  const made = await adminCall(provider.app, 'POST', '/admin/staff', { name, role, ...(operators === undefined ? {} : { operators }) });
  assert.equal(made.status, 201, made.raw);
  return { token: made.body.token as string, tokenId: (made.body.tokens as { tokenId: string }[])[0]!.tokenId };
}

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`provider staff accounts (${backend.name})`, { skip: backend.unavailable }, () => {
    let provider: Provider;
    let guard: StaffGuard | undefined;
    let database: ReturnType<typeof databaseOf>;
    const tokens = new Map<Role, string>();
    /** A payout and a round of each operator, each with its outbox item. */
    const made = new Map<string, { payoutId: string; roundId: string; itemIds: number[] }>();

    before(async () => {
      provider = await makeProvider({ backend: backend.name, deliver: false, onGuard: (built) => (guard = built) });
      database = databaseOf(provider);
      for (const role of ROLES) tokens.set(role, (await staffToken(provider, `walker-${role}`, role)).token);
      for (const operatorId of [OPERATOR_ID, OTHER_OPERATOR_ID]) {
        const session = await realSession(provider.store, { operatorId, now: provider.clock.now, playerId: `player-of-${operatorId}` });
        const round = await provider.store.beginRealRound(realRound(session, 0, provider.clock.now), sealedNext(SEED));
        assert.ok(round.ok);
        const payout = await adminCall(provider.app, 'POST', '/admin/payouts', {
          operatorId,
          playerId: session.playerId,
          currency: session.currency,
          amount: '10',
          campaignId: CAMPAIGN,
        });
        assert.equal(payout.status, 202, payout.raw);
        const items = await provider.store.outbox.list({ status: 'pending', operatorId });
        made.set(operatorId, { payoutId: payout.body.payoutId as string, roundId: round.round.roundId, itemIds: items.map((item) => item.id) });
      }
    });
    after(async () => {
      await database.close();
      await provider.close();
    });

    test('every admin route, for every role: allowed, or 403 FORBIDDEN, as its declared action says', async () => {
      assert.ok(guard, 'the app handed over its guard');
      for (const known of ['POST /admin/payouts', 'POST /admin/outbox/:id/resolve', 'POST /admin/staff', 'GET /admin/audit', 'GET /admin/rounds']) {
        assert.ok(
          guard.routes.some((route) => `${route.method} ${route.url}` === known),
          `${known} is in the route table`,
        );
      }
      for (const role of ROLES) {
        const routes: StaffGuard['routes'] = guard.routes;
        for (const route of routes) {
          const url = route.url
            .replace(':payoutId', randomUUID())
            .replace(':nameOrTokenId', 'nobody')
            .replace(':id', route.url.includes('outbox') ? '999999' : randomUUID());
          const answer = await adminCall(provider.app, route.method as 'GET' | 'POST', url, route.method === 'POST' ? {} : undefined, tokens.get(role)!);
          const label = `${role} ${route.method} ${route.url} (${route.action}): ${answer.status} ${answer.raw.slice(0, 200)}`;
          if (allows(role, route.action)) assert.notEqual(answer.body.code, 'FORBIDDEN', label);
          else assert.deepEqual([answer.status, answer.body.code], [403, 'FORBIDDEN'], label);
        }
      }
    });

    test("an account scoped to one operator sees and acts on that operator's items only", async () => {
      const own = made.get(OPERATOR_ID)!;
      const other = made.get(OTHER_OPERATOR_ID)!;
      const { token } = await staffToken(provider, 'scoped-clerk', 'payments', [OPERATOR_ID]);
      const call = (method: 'GET' | 'POST', url: string, body?: unknown) => adminCall(provider.app, method, url, body, token);

      const rounds = (await call('GET', '/admin/rounds')).body.items as { operatorId: string; roundId: string }[];
      assert.deepEqual(
        rounds.map((round) => round.roundId),
        [own.roundId],
      );
      const payouts = (await call('GET', '/admin/payouts')).body.items as { payoutId: string }[];
      assert.deepEqual(
        payouts.map((payout) => payout.payoutId),
        [own.payoutId],
      );
      const items = (await call('GET', '/admin/outbox')).body.items as { id: number; operatorId: string }[];
      assert.deepEqual(items.map((item) => item.id).sort(), [...own.itemIds].sort());
      assert.equal((await call('GET', `/admin/outbox?operatorId=${OTHER_OPERATOR_ID}`)).body.code, 'FORBIDDEN');

      // Another operator's items are not found, exactly as ids that do not exist.
      assert.equal((await call('GET', `/admin/payouts/${other.payoutId}`)).status, 404);
      for (const id of other.itemIds) {
        assert.equal((await call('POST', `/admin/outbox/${id}/retry`)).status, 404);
        assert.equal((await call('POST', `/admin/outbox/${id}/resolve`, { reference: 'by hand' })).status, 404);
      }
      const otherItems = await provider.store.outbox.list({ status: 'pending', operatorId: OTHER_OPERATOR_ID });
      assert.deepEqual(otherItems.map((item) => item.id).sort(), [...other.itemIds].sort(), "the other operator's items are untouched");
      const pay = await call('POST', '/admin/payouts', {
        operatorId: OTHER_OPERATOR_ID,
        playerId: `player-of-${OTHER_OPERATOR_ID}`,
        currency: 'EUR',
        amount: '1',
        campaignId: CAMPAIGN,
        payoutId: randomUUID(),
      });
      assert.deepEqual([pay.status, pay.body.code], [403, 'FORBIDDEN'], pay.raw);
      // An operator nobody configured is refused alike: the answer tells nothing of which exist.
      const unknown = await call('POST', '/admin/payouts', {
        operatorId: 'no-such-operator',
        playerId: 'p',
        currency: 'EUR',
        amount: '1',
        campaignId: CAMPAIGN,
      });
      assert.deepEqual([unknown.status, unknown.body.code], [403, 'FORBIDDEN']);

      // Unscoped, both operators' rounds are there.
      const all = (await adminCall(provider.app, 'GET', '/admin/rounds')).body.items as { roundId: string }[];
      assert.deepEqual(all.map((round) => round.roundId).sort(), [own.roundId, other.roundId].sort());
      // A scoped admin may not manage staff: it could make an account that sees every operator.
      const scopedAdmin = await staffToken(provider, 'scoped-admin', 'admin', [OPERATOR_ID]);
      assert.equal((await adminCall(provider.app, 'POST', '/admin/staff', { name: 'escalated', role: 'admin' }, scopedAdmin.token)).body.code, 'FORBIDDEN');
      const audit = (await adminCall(provider.app, 'GET', '/admin/audit?limit=500', undefined, scopedAdmin.token)).body.items as {
        operatorId: string | null;
      }[];
      assert.ok(audit.length > 0 && audit.every((row) => row.operatorId === OPERATOR_ID), "a scoped admin reads its operators' rows only");
    });

    test('a payout over the role limit is refused STAFF_LIMIT_EXCEEDED and enqueues nothing', async () => {
      const { token } = await staffToken(provider, 'limited-clerk', 'payments');
      const limit = DEFAULT_STAFF_LIMITS.payments!['*']!;
      const before = await provider.store.outbox.list({ status: 'pending' });
      const payoutId = randomUUID();
      const over = await adminCall(
        provider.app,
        'POST',
        '/admin/payouts',
        {
          operatorId: OPERATOR_ID,
          playerId: `player-of-${OPERATOR_ID}`,
          currency: 'EUR',
          amount: `${limit}.01`,
          campaignId: CAMPAIGN,
          payoutId,
        },
        token,
      );
      assert.deepEqual([over.status, over.body.code], [403, 'STAFF_LIMIT_EXCEEDED'], over.raw);
      assert.equal((await adminCall(provider.app, 'GET', `/admin/payouts/${payoutId}`)).status, 404);
      assert.equal((await provider.store.outbox.list({ status: 'pending' })).length, before.length);
      const rows = (await adminCall(provider.app, 'GET', '/admin/audit?limit=500')).body.items as {
        actor: string;
        code: string | null;
        amount: string | null;
        operatorId: string | null;
      }[];
      const row = rows.find((each) => each.actor === 'limited-clerk');
      assert.deepEqual(row && [row.code, row.amount, row.operatorId], ['STAFF_LIMIT_EXCEEDED', `${limit}.01`, OPERATOR_ID]);
    });

    test('a payout and its audit row commit together: breaking either write lands neither', async () => {
      const { token } = await staffToken(provider, 'atomic-clerk', 'payments');
      const breakOn = async (table: string) => {
        if (backend.name === 'sqlite') {
          await database.sql(`CREATE TEMP TRIGGER broken_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'broken for the test'); END`);
        } else {
          await database.sql(
            `CREATE OR REPLACE FUNCTION broken_for_test() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'broken for the test'; END $$`,
          );
          await database.sql(`CREATE TRIGGER broken_${table} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION broken_for_test()`);
        }
      };
      const mend = (table: string) => database.sql(backend.name === 'sqlite' ? `DROP TRIGGER broken_${table}` : `DROP TRIGGER broken_${table} ON ${table}`);
      const pay = (payoutId: string) =>
        adminCall(
          provider.app,
          'POST',
          '/admin/payouts',
          { operatorId: OPERATOR_ID, playerId: `player-of-${OPERATOR_ID}`, currency: 'EUR', amount: '3', campaignId: CAMPAIGN, payoutId },
          token,
        );

      const first = randomUUID();
      await breakOn('staff_audit');
      const noAudit = await pay(first);
      await mend('staff_audit');
      assert.ok(noAudit.status >= 500, noAudit.raw);
      assert.equal((await adminCall(provider.app, 'GET', `/admin/payouts/${first}`)).status, 404, 'no payout without its audit row');

      const second = randomUUID();
      await breakOn('payouts');
      const noPayout = await pay(second);
      await mend('payouts');
      assert.ok(noPayout.status >= 500, noPayout.raw);
      const rows = (await adminCall(provider.app, 'GET', '/admin/audit?limit=500')).body.items as { actor: string; status: number }[];
      assert.deepEqual(
        rows.filter((row) => row.actor === 'atomic-clerk').map((row) => row.status),
        [noPayout.status],
        'only the failure is on record',
      );

      const booked = await pay(second);
      assert.equal(booked.status, 202, booked.raw);
      const after = (await adminCall(provider.app, 'GET', '/admin/audit?limit=500')).body.items as { actor: string; status: number }[];
      assert.deepEqual(
        after.filter((row) => row.actor === 'atomic-clerk').map((row) => row.status),
        [202, noPayout.status],
      );
    });

    // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
    test('an outbox retry, an outbox resolve and a campaign each commit with their audit row: breaking either write lands neither', async () => {
      const { token } = await staffToken(provider, 'atomic-admin', 'admin');
      const call = (url: string, body: unknown = {}) => adminCall(provider.app, 'POST', url, body, token);
      const breakOn = async (table: string, event: 'INSERT' | 'UPDATE') => {
        if (backend.name === 'sqlite') {
          await database.sql(`CREATE TEMP TRIGGER broken_${table} BEFORE ${event} ON ${table} BEGIN SELECT RAISE(ABORT, 'broken for the test'); END`);
        } else {
          await database.sql(
            `CREATE OR REPLACE FUNCTION broken_for_test() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'broken for the test'; END $$`,
          );
          await database.sql(`CREATE TRIGGER broken_${table} BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION broken_for_test()`);
        }
      };
      const mend = (table: string) => database.sql(backend.name === 'sqlite' ? `DROP TRIGGER broken_${table}` : `DROP TRIGGER broken_${table} ON ${table}`);
      const statuses = async (route: string) => {
        const rows = (await adminCall(provider.app, 'GET', '/admin/audit?limit=500')).body.items as { actor: string; route: string; status: number }[];
        return rows.filter((row) => row.actor === 'atomic-admin' && row.route === route).map((row) => row.status);
      };

      // A payout of its own: its item is pending, not in flight, due since the payout was made.
      const payoutId = randomUUID();
      const paid = await adminCall(provider.app, 'POST', '/admin/payouts', {
        operatorId: OPERATOR_ID,
        playerId: `player-of-${OPERATOR_ID}`,
        currency: 'EUR',
        amount: '2',
        campaignId: CAMPAIGN,
        payoutId,
      });
      assert.equal(paid.status, 202, paid.raw);
      const itemId = (await provider.store.outbox.list({ status: 'pending', operatorId: OPERATOR_ID })).map((item) => item.id).reduce((a, b) => Math.max(a, b));
      const dueAt = (await provider.store.outbox.item(itemId))!.nextAttemptAt;
      provider.clock.advance(60_000);

      const retryRoute = '/admin/outbox/:id/retry';
      await breakOn('staff_audit', 'INSERT');
      const retryUnaudited = await call(`/admin/outbox/${itemId}/retry`);
      await mend('staff_audit');
      assert.ok(retryUnaudited.status >= 500, retryUnaudited.raw);
      assert.equal((await provider.store.outbox.item(itemId))!.nextAttemptAt, dueAt, 'no retry without its audit row');
      await breakOn('dispatch_items', 'UPDATE');
      const retryUnapplied = await call(`/admin/outbox/${itemId}/retry`);
      await mend('dispatch_items');
      assert.ok(retryUnapplied.status >= 500, retryUnapplied.raw);
      assert.deepEqual(await statuses(retryRoute), [retryUnapplied.status], 'only the failure is on record');
      const retried = await call(`/admin/outbox/${itemId}/retry`);
      assert.equal(retried.status, 200, retried.raw);
      assert.equal((await provider.store.outbox.item(itemId))!.nextAttemptAt, provider.clock.now);
      assert.deepEqual(await statuses(retryRoute), [200, retryUnapplied.status]);

      const resolveRoute = '/admin/outbox/:id/resolve';
      await breakOn('staff_audit', 'INSERT');
      const resolveUnaudited = await call(`/admin/outbox/${itemId}/resolve`, { reference: 'WAL-1' });
      await mend('staff_audit');
      assert.ok(resolveUnaudited.status >= 500, resolveUnaudited.raw);
      assert.equal((await provider.store.outbox.item(itemId))!.status, 'pending', 'no resolve without its audit row');
      assert.equal((await provider.store.payout(payoutId))!.status, 'pending', 'nor the payout it settles');
      await breakOn('dispatch_items', 'UPDATE');
      const resolveUnapplied = await call(`/admin/outbox/${itemId}/resolve`, { reference: 'WAL-1' });
      await mend('dispatch_items');
      assert.ok(resolveUnapplied.status >= 500, resolveUnapplied.raw);
      assert.deepEqual(await statuses(resolveRoute), [resolveUnapplied.status], 'only the failure is on record');
      const resolved = await call(`/admin/outbox/${itemId}/resolve`, { reference: 'WAL-1' });
      assert.equal(resolved.status, 200, resolved.raw);
      assert.equal((await provider.store.outbox.item(itemId))!.status, 'resolved');
      assert.deepEqual(await statuses(resolveRoute), [200, resolveUnapplied.status]);
      // A refusal changed nothing: its row is written apart, as before.
      const again = await call(`/admin/outbox/${itemId}/resolve`, { reference: 'WAL-2' });
      assert.deepEqual([again.status, again.body.code], [409, 'STATE_CONFLICT'], again.raw);
      assert.deepEqual(await statuses(resolveRoute), [409, 200, resolveUnapplied.status]);

      const campaignRoute = '/admin/campaigns';
      const campaign = (id: string) => ({
        id,
        operatorId: OPERATOR_ID,
        game: 'dice',
        currency: 'EUR',
        betAmount: 0.5,
        rounds: 3,
        players: [`player-of-${OPERATOR_ID}`],
      });
      const campaignId = randomUUID();
      await breakOn('staff_audit', 'INSERT');
      const campaignUnaudited = await call(campaignRoute, campaign(campaignId));
      await mend('staff_audit');
      assert.ok(campaignUnaudited.status >= 500, campaignUnaudited.raw);
      assert.equal((await adminCall(provider.app, 'GET', `/admin/campaigns/${campaignId}`)).status, 404, 'no campaign without its audit row');
      await breakOn('campaigns', 'INSERT');
      const campaignUnwritten = await call(campaignRoute, campaign(campaignId));
      await mend('campaigns');
      assert.ok(campaignUnwritten.status >= 500, campaignUnwritten.raw);
      assert.deepEqual(await statuses(campaignRoute), [campaignUnwritten.status], 'only the failure is on record');
      const created = await call(campaignRoute, campaign(campaignId));
      assert.equal(created.status, 201, created.raw);
      assert.deepEqual(await statuses(campaignRoute), [201, campaignUnwritten.status]);
    });

    test('no token is in clear in any column of any table', async () => {
      const { token } = await staffToken(provider, 'clear-check', 'read-only');
      // wls_<id>_<secret>: the secret is base64url and may itself hold '_', so it is all that follows the id.
      const secret = token.split('_').slice(2).join('_');
      assert.ok(secret.length >= 43, 'the whole secret part of the token');
      const tables = (
        backend.name === 'sqlite'
          ? await database.sql("SELECT name FROM sqlite_master WHERE type = 'table'")
          : await database.sql('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()')
      ).map((row) => row.name as string);
      assert.ok(tables.includes('staff_tokens'));
      for (const table of tables) {
        for (const row of await database.sql(`SELECT * FROM "${table}"`)) {
          for (const value of Object.values(row)) assert.ok(!String(value).includes(secret), `${table} holds a token in clear`);
        }
      }
    });

    test('the audit table refuses UPDATE and DELETE', async () => {
      await assert.rejects(database.sql("UPDATE staff_audit SET actor = 'someone-else'"), /append-only/);
      await assert.rejects(database.sql('DELETE FROM staff_audit'), /append-only/);
      if (backend.name === 'postgres') await assert.rejects(database.sql('TRUNCATE staff_audit'), /append-only/);
    });

    test('a revoked token is 401 at once; an expired one too', async () => {
      const leaver = await staffToken(provider, 'leaver', 'support');
      assert.equal((await adminCall(provider.app, 'GET', '/admin/rounds', undefined, leaver.token)).status, 200);
      assert.equal((await adminCall(provider.app, 'POST', `/admin/staff/${leaver.tokenId}/revoke`)).status, 200);
      assert.deepEqual((await adminCall(provider.app, 'GET', '/admin/rounds', undefined, leaver.token)).body.code, 'INVALID_TOKEN');
      const temporary = await staffToken(provider, 'temporary', 'read-only');
      provider.clock.advance(STAFF_TOKEN_DAYS_DEFAULT * DAY_MS);
      assert.equal((await adminCall(provider.app, 'GET', '/admin/rounds', undefined, temporary.token)).status, 401);
    });
  });
}
