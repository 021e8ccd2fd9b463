/**
 * `wagerlink operator staff ...` and `operator audit`, run as the built
 * command on the operator's database: `staff add` prints the token once and
 * stores only its hash, the token opens the back office with its role,
 * `staff revoke` shuts it out at once, and every command that changes the
 * database directly is in the audit log under `cli:` and the system user.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runWagerlink } from '../harness/child-process.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, tempDir } from '../helpers.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { buildOperatorApp } from '../../src/operator/operator-app.js';

test('staff add, list, revoke and audit on the operator database', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const database = join(dir, 'operator.db');
    assert.equal((await runWagerlink(['operator', 'migrate', '--database', database])).code, 0);
    const added = await runWagerlink(['operator', 'staff', 'add', 'carol', '--role', 'support', '--expires-days', '7', '--database', database]);
    assert.equal(added.code, 0, added.stderr);
    const made = JSON.parse(added.stdout) as { name: string; role: string; token: string; tokens: { tokenId: string; expiresAt: number; createdAt: number }[] };
    assert.equal(made.role, 'support');
    assert.match(made.token, /^wls_[0-9a-f]{16}_/);
    assert.equal(made.tokens[0]!.expiresAt - made.tokens[0]!.createdAt, 7 * 86_400_000);

    const bad = await runWagerlink(['operator', 'staff', 'add', 'dave', '--role', 'boss', '--database', database]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--role must be one of read-only, support, payments, admin/);

    const list = await runWagerlink(['operator', 'staff', 'list', '--database', database]);
    assert.equal(list.code, 0, list.stderr);
    assert.ok(!list.stdout.includes(made.token.slice(-20)), 'the list never shows a token');
    assert.deepEqual(
      (JSON.parse(list.stdout) as { items: { name: string }[] }).items.map((item) => item.name),
      ['carol'],
    );

    // The token opens the back office with its role: reads yes, money no.
    const store = await SqliteStore.open({ path: database });
    const app = await buildOperatorApp({ store, secrets: [SECRET], accessTokens: [ACCESS_TOKEN], adminToken: ADMIN_TOKEN });
    try {
      const headers = { authorization: `Bearer ${made.token}` };
      assert.equal((await app.inject({ method: 'GET', url: '/admin/players', headers })).statusCode, 200);
      const refused = await app.inject({
        method: 'POST',
        url: '/admin/staff',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{"name":"eve","role":"admin"}',
      });
      assert.equal(refused.statusCode, 403);

      const revoked = await runWagerlink(['operator', 'staff', 'revoke', made.tokens[0]!.tokenId, '--database', database]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal((await app.inject({ method: 'GET', url: '/admin/players', headers })).statusCode, 401);
    } finally {
      await app.close();
      await store.close();
    }

    assert.equal((await runWagerlink(['operator', 'players', 'add', 'p1', '--currency', 'EUR', '--balance', '12.50', '--database', database])).code, 0);
    const audit = await runWagerlink(['operator', 'audit', '--limit', '10', '--database', database]);
    assert.equal(audit.code, 0, audit.stderr);
    const rows = (JSON.parse(audit.stdout) as { items: { actor: string; route: string; amount: string | null; status: number; tokenId: string | null }[] })
      .items;
    const actor = `cli:${userInfo().username}`;
    assert.deepEqual(
      rows.map((row) => [row.actor, row.route, row.amount, row.status]),
      [
        [actor, 'operator players add', '12.50', 201],
        [actor, 'operator staff revoke', null, 200],
        ['carol', '/admin/staff', null, 403],
        [actor, 'operator staff add', null, 201],
      ],
    );
    const db = new Database(database, { readonly: true });
    try {
      const stored = db.prepare('SELECT * FROM staff_tokens').all() as Record<string, unknown>[];
      assert.ok(stored.every((row) => Object.values(row).every((value) => !String(value).includes(made.token))));
    } finally {
      db.close();
    }
  } finally {
    cleanup();
  }
});
