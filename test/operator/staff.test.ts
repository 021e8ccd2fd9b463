/**
 * The operator's back office under named staff accounts, on every backend:
 * every admin route, walked from the app's own route table, is allowed or
 * refused 403 FORBIDDEN for each role as its declared action says (so a new
 * route cannot forget its action); money over a role's per-call limit is
 * refused STAFF_LIMIT_EXCEEDED and changes nothing; revoked and expired
 * tokens are 401 at once, on a second node too; tokens are not in clear in
 * any column of the database; an adjustment and its audit row commit
 * together or not at all (each side's write is broken in turn underneath
 * the app); the audit table refuses UPDATE and DELETE; refused calls are
 * audited with who, what, where from and the answer.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { ADMIN_TOKEN, admin, makeOperator, OPERATOR_BACKENDS, type Operator } from '../helpers.js';
import { allows, ROLES, type Role } from '../../src/access/roles.js';
import { installStaffGuard, type StaffGuard } from '../../src/http/staff-guard.js';
import { DEFAULT_STAFF_LIMITS } from '../../src/access/limits.js';
import { STAFF_TOKEN_DAYS_DEFAULT } from '../../src/access/staff-token.js';

const DAY_MS = 86_400_000;

async function as(app: FastifyInstance, token: string, method: string, url: string, body?: unknown) {
  const response = await app.inject({
    method: method as 'GET' | 'POST',
    url,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown>, raw: response.body };
}

/** A staff account made through the API with the configured admin token; answers its token. */
async function staffToken(app: FastifyInstance, name: string, role: Role): Promise<{ token: string; tokenId: string }> {
  const made = await admin(app, 'POST', '/admin/staff', { name, role });
  assert.equal(made.status, 201, made.raw);
  const tokens = made.body.tokens as { tokenId: string }[];
  return { token: made.body.token as string, tokenId: tokens[0]!.tokenId };
}

async function auditRows(app: FastifyInstance): Promise<Record<string, unknown>[]> {
  const page = await admin(app, 'GET', '/admin/audit?limit=500');
  assert.equal(page.status, 200, page.raw);
  return page.body.items as Record<string, unknown>[];
}

async function balanceOf(app: FastifyInstance, playerId: string): Promise<number> {
  const player = await admin(app, 'GET', `/admin/players/${playerId}`);
  assert.equal(player.status, 200, player.raw);
  return player.body.balance as number;
}

test('an admin route registered without an action stops the app from building', async () => {
  const app = Fastify();
  await assert.rejects(async () => {
    await app.register(async (scope) => {
      installStaffGuard(scope, {
        adminToken: 'x',
        findToken: async () => undefined,
        appendAudit: async () => undefined,
        clock: () => 0,
        limits: DEFAULT_STAFF_LIMITS,
      });
      scope.post('/forgotten', async () => 'ok');
    });
    await app.ready();
  }, /declares no action/);
  await app.close();
});

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`staff accounts (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let guard: StaffGuard | undefined;
    const tokens = new Map<Role, string>();
    before(async () => {
      op = await makeOperator({ backend: backend.name, app: { onGuard: (built) => (guard = built) } });
      for (const role of ROLES) tokens.set(role, (await staffToken(op.app, `walker-${role}`, role)).token);
      const created = await admin(op.app, 'POST', '/admin/players', { playerId: 'walk-player', currency: 'EUR', balance: 100 });
      assert.equal(created.status, 201, created.raw);
    });
    after(async () => op.close());

    test('every admin route, for every role: allowed, or 403 FORBIDDEN, as its declared action says', async () => {
      assert.ok(guard, 'the app handed over its guard');
      const routes = guard.routes;
      // The walk covers what the app registered, whatever that is; these make sure it is the back office.
      for (const known of ['POST /players/:playerId/adjustments', 'POST /staff', 'GET /audit', 'GET /players']) {
        assert.ok(
          routes.some((route) => `${route.method} ${route.url.replace(/^\/admin/, '')}` === known),
          `${known} is in the route table`,
        );
      }
      for (const role of ROLES) {
        for (const route of routes) {
          const url = route.url.replace(':playerId', 'walk-player').replace(':nameOrTokenId', 'nobody');
          const answer = await as(op.app, tokens.get(role)!, route.method, url, route.method === 'POST' ? {} : undefined);
          const label = `${role} ${route.method} ${route.url} (${route.action}): ${answer.status} ${answer.raw.slice(0, 200)}`;
          if (allows(role, route.action)) {
            assert.notEqual(answer.body.code, 'FORBIDDEN', label);
          } else {
            assert.equal(answer.status, 403, label);
            assert.equal(answer.body.code, 'FORBIDDEN', label);
          }
        }
      }
    });

    test('a refused call is audited: who, which token, what, from where, and the answer', async () => {
      const clerk = await staffToken(op.app, 'audited-reader', 'read-only');
      const refused = await as(op.app, clerk.token, 'POST', '/admin/players/walk-player/adjustments', {
        id: '0b3c0a9e-4a0c-4c55-9a8e-3d3c1b1f0a01',
        type: 'deposit',
        amount: 10,
      });
      assert.equal(refused.status, 403, refused.raw);
      assert.equal(refused.body.code, 'FORBIDDEN');
      const row = (await auditRows(op.app)).find((each) => each.actor === 'audited-reader');
      assert.ok(row, 'the refused call has its row');
      assert.equal(row.tokenId, clerk.tokenId);
      assert.equal(row.method, 'POST');
      assert.equal(row.route, '/admin/players/:playerId/adjustments');
      assert.equal(row.status, 403);
      assert.equal(row.code, 'FORBIDDEN');
      assert.equal(typeof row.address, 'string');
      assert.equal((await balanceOf(op.app, 'walk-player')) >= 0, true);
    });

    test('money over the role limit is refused STAFF_LIMIT_EXCEEDED and changes nothing; within it, booked with its audit row', async () => {
      const clerk = await staffToken(op.app, 'limit-clerk', 'payments');
      const created = await admin(op.app, 'POST', '/admin/players', { playerId: 'limit-player', currency: 'EUR', balance: 0 });
      assert.equal(created.status, 201, created.raw);
      const limit = Number(DEFAULT_STAFF_LIMITS.payments!['*']);

      const over = await as(op.app, clerk.token, 'POST', '/admin/players/limit-player/adjustments', {
        id: '1b3c0a9e-4a0c-4c55-9a8e-3d3c1b1f0a02',
        type: 'deposit',
        amount: limit + 0.01,
      });
      assert.equal(over.status, 403, over.raw);
      assert.equal(over.body.code, 'STAFF_LIMIT_EXCEEDED');
      assert.equal(await balanceOf(op.app, 'limit-player'), 0);
      const transfers = await admin(op.app, 'GET', '/admin/players/limit-player/transactions');
      assert.deepEqual(transfers.body.items, []);

      const within = await as(op.app, clerk.token, 'POST', '/admin/players/limit-player/adjustments', {
        id: '1b3c0a9e-4a0c-4c55-9a8e-3d3c1b1f0a03',
        type: 'deposit',
        amount: limit,
      });
      assert.equal(within.status, 200, within.raw);
      assert.equal(await balanceOf(op.app, 'limit-player'), limit);
      const rows = (await auditRows(op.app)).filter((row) => row.actor === 'limit-clerk');
      assert.deepEqual(
        rows.map((row) => [row.status, row.code, row.amount, row.currency]),
        [
          [200, null, String(limit), 'EUR'],
          [403, 'STAFF_LIMIT_EXCEEDED', `${limit}.01`, 'EUR'],
        ],
      );

      // An opening balance is money too: over the limit no player is made; support may make one without money only.
      const opening = await as(op.app, clerk.token, 'POST', '/admin/players', { playerId: 'limit-opening', currency: 'EUR', balance: limit + 1 });
      assert.equal(opening.body.code, 'STAFF_LIMIT_EXCEEDED', opening.raw);
      assert.equal((await admin(op.app, 'GET', '/admin/players/limit-opening')).status, 404);
      const support = tokens.get('support')!;
      assert.equal((await as(op.app, support, 'POST', '/admin/players', { playerId: 'support-money', currency: 'EUR', balance: 1 })).body.code, 'FORBIDDEN');
      assert.equal((await as(op.app, support, 'POST', '/admin/players', { playerId: 'support-plain', currency: 'EUR', balance: 0 })).status, 201);
      // An admin has none by default.
      const big = await admin(op.app, 'POST', '/admin/players/limit-player/adjustments', {
        id: '1b3c0a9e-4a0c-4c55-9a8e-3d3c1b1f0a04',
        type: 'deposit',
        amount: limit + 0.01,
      });
      assert.equal(big.status, 200, big.raw);
    });

    test('a revoked token is 401 at once, on this node and another; an expired one too', async () => {
      const made = await staffToken(op.app, 'leaver', 'support');
      const other = await op.reopen();
      try {
        assert.equal((await as(other.app, made.token, 'GET', '/admin/players')).status, 200);
        const revoked = await admin(op.app, 'POST', '/admin/staff/leaver/revoke');
        assert.equal(revoked.status, 200, revoked.raw);
        assert.deepEqual(revoked.body.revokedTokenIds, [made.tokenId]);
        for (const app of [op.app, other.app]) {
          const refused = await as(app, made.token, 'GET', '/admin/players');
          assert.equal(refused.status, 401, refused.raw);
          assert.equal(refused.body.code, 'INVALID_TOKEN');
        }
        // A name is never reused, so the audit log's names stay one person each.
        assert.equal((await admin(op.app, 'POST', '/admin/staff', { name: 'leaver', role: 'support' })).body.code, 'STAFF_EXISTS');

        const temporary = await staffToken(op.app, 'temporary', 'read-only');
        assert.equal((await as(op.app, temporary.token, 'GET', '/admin/players')).status, 200);
        op.clock.advance(STAFF_TOKEN_DAYS_DEFAULT * DAY_MS);
        assert.equal((await as(op.app, temporary.token, 'GET', '/admin/players')).status, 401);
      } finally {
        await other.close();
      }
    });

    test('no token is in clear in any column of any table', async () => {
      const made = await staffToken(op.app, 'clear-check', 'admin');
      // wls_<id>_<secret>: the secret is base64url and may itself hold '_', so it is all that follows the id.
      const secret = made.token.split('_').slice(2).join('_');
      assert.ok(secret.length >= 43, 'the whole secret part of the token');
      const tables =
        backend.name === 'sqlite'
          ? (await op.sql("SELECT name FROM sqlite_master WHERE type = 'table'")).map((row) => row.name as string)
          : (await op.sql('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()')).map((row) => row.name as string);
      assert.ok(tables.includes('staff_tokens'), tables.join(', '));
      let cells = 0;
      for (const table of tables) {
        for (const row of await op.sql(`SELECT * FROM "${table}"`)) {
          for (const value of Object.values(row)) {
            const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
            cells++;
            assert.ok(!text.includes(secret) && !text.includes(made.token), `${table} holds the token in clear`);
          }
        }
      }
      assert.ok(cells > 0);
      const stored = await op.sql(`SELECT token_hash FROM staff_tokens WHERE token_id = '${made.tokenId}'`);
      assert.equal(stored[0]!.token_hash, createHash('sha256').update(made.token).digest('hex'));
    });

    test('an adjustment and its audit row commit together: breaking either write lands neither', async () => {
      const created = await admin(op.app, 'POST', '/admin/players', { playerId: 'atomic-player', currency: 'EUR', balance: 0 });
      assert.equal(created.status, 201, created.raw);
      const clerk = await staffToken(op.app, 'atomic-clerk', 'payments');
      const breakOn = async (table: string) => {
        if (backend.name === 'sqlite') {
          await op.sql(`CREATE TRIGGER broken_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'broken for the test'); END`);
        } else {
          await op.sql(
            `CREATE OR REPLACE FUNCTION broken_for_test() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'broken for the test'; END $$`,
          );
          await op.sql(`CREATE TRIGGER broken_${table} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION broken_for_test()`);
        }
      };
      const mend = (table: string) => op.sql(backend.name === 'sqlite' ? `DROP TRIGGER broken_${table}` : `DROP TRIGGER broken_${table} ON ${table}`);

      // The audit row cannot be written: the money must not move.
      await breakOn('staff_audit');
      const noAudit = await as(op.app, clerk.token, 'POST', '/admin/players/atomic-player/adjustments', {
        id: '2b3c0a9e-4a0c-4c55-9a8e-3d3c1b1f0a01',
        type: 'deposit',
        amount: 25,
      });
      await mend('staff_audit');
      assert.ok(noAudit.status >= 500, noAudit.raw);
      assert.equal(await balanceOf(op.app, 'atomic-player'), 0);

      // The transfer cannot be written: no audit row may claim it was.
      await breakOn('transfers');
      const noTransfer = await as(op.app, clerk.token, 'POST', '/admin/players/atomic-player/adjustments', {
        id: '2b3c0a9e-4a0c-4c55-9a8e-3d3c1b1f0a02',
        type: 'deposit',
        amount: 30,
      });
      await mend('transfers');
      assert.ok(noTransfer.status >= 500, noTransfer.raw);
      assert.equal(await balanceOf(op.app, 'atomic-player'), 0);
      const rows = (await auditRows(op.app)).filter((row) => row.actor === 'atomic-clerk');
      assert.deepEqual(
        rows.map((row) => row.status),
        [noTransfer.status],
        'only the failure is on record',
      );

      // Mended, the same call books once, with its row.
      const booked = await as(op.app, clerk.token, 'POST', '/admin/players/atomic-player/adjustments', {
        id: '2b3c0a9e-4a0c-4c55-9a8e-3d3c1b1f0a02',
        type: 'deposit',
        amount: 30,
      });
      assert.equal(booked.status, 200, booked.raw);
      assert.equal(await balanceOf(op.app, 'atomic-player'), 30);
      assert.deepEqual(
        (await auditRows(op.app)).filter((row) => row.actor === 'atomic-clerk').map((row) => row.status),
        [200, noTransfer.status],
      );
    });

    test('the audit table refuses UPDATE and DELETE', async () => {
      assert.ok((await auditRows(op.app)).length > 0);
      await assert.rejects(op.sql("UPDATE staff_audit SET actor = 'someone-else'"), /append-only/);
      await assert.rejects(op.sql('DELETE FROM staff_audit'), /append-only/);
      if (backend.name === 'postgres') await assert.rejects(op.sql('TRUNCATE staff_audit'), /append-only/);
      assert.ok((await auditRows(op.app)).every((row) => row.actor !== 'someone-else'));
    });

    test('GET /admin/audit pages newest first, for admins only', async () => {
      const first = await admin(op.app, 'GET', '/admin/audit?limit=2');
      assert.equal(first.status, 200, first.raw);
      const items = first.body.items as { id: number }[];
      assert.equal(items.length, 2);
      assert.ok(items[0]!.id > items[1]!.id);
      const next = await admin(op.app, 'GET', `/admin/audit?limit=2&cursor=${first.body.nextCursor}`);
      assert.ok((next.body.items as { id: number }[]).every((item) => item.id < items[1]!.id));
      const clerk = await staffToken(op.app, 'audit-reader', 'payments');
      assert.equal((await as(op.app, clerk.token, 'GET', '/admin/audit')).body.code, 'FORBIDDEN');
    });
  });
}

test('the configured admin token may be given as its SHA-256', async () => {
  const hashed = `sha256:${createHash('sha256').update(ADMIN_TOKEN).digest('hex')}`;
  const op = await makeOperator({ app: { adminToken: hashed } });
  try {
    assert.equal((await admin(op.app, 'GET', '/admin/players')).status, 200);
    assert.equal((await as(op.app, hashed, 'GET', '/admin/players')).status, 401);
  } finally {
    await op.close();
  }
});
