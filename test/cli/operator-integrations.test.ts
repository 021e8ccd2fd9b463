/**
 * `wagerlink operator integrations ...`, run as the built command on the
 * operator's database: `add` prints the secret and token once and they
 * open the wallet's signed routes; `list` shows the environment's
 * `default` and never a secret or token; `pause`, `resume`, `off`, `set`,
 * `rotate` (begin and --finish) and `remove` change what a serving node
 * accepts; `default` cannot be added or changed, and an add without
 * WAGERLINK_INTEGRATION_KEYS says what is missing; every change is in the
 * audit log as `cli:` and the system user.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, runWagerlink } from '../harness/child-process.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, tempDir } from '../helpers.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { buildOperatorApp } from '../../src/operator/operator-app.js';
import { IntegrationRegistry } from '../../src/operator/integration-registry.js';
import { parseIntegrationKeys } from '../../src/access/integrations.js';
import { sign } from '../../src/protocol/signing.js';

const KEYS = `k1:${randomBytes(32).toString('base64')}`;

// eslint-disable-next-line max-lines-per-function -- one story told in order: each command's effect read from a serving app
test('integrations add, list, rotate, pause, resume, off, set and remove on the operator database', async () => {
  const { dir, cleanup } = tempDir();
  const env = cleanEnv({ WAGERLINK_INTEGRATION_KEYS: KEYS, WAGERLINK_SECRET: SECRET, WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN });
  const cli = (...args: string[]) => runWagerlink(['operator', 'integrations', ...args, '--database', database], { env });
  const database = join(dir, 'operator.db');
  try {
    assert.equal((await runWagerlink(['operator', 'migrate', '--database', database])).code, 0);
    const added = await cli('add', 'studio-a', '--name', 'Studio A', '--ranges', '127.0.0.1,10.0.0.0/8');
    assert.equal(added.code, 0, added.stderr);
    const made = JSON.parse(added.stdout) as { id: string; secret: string; token: string; ranges: string[]; state: string };
    assert.match(made.token, /^wli_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual([made.id, made.state, made.ranges], ['studio-a', 'active', ['127.0.0.1', '10.0.0.0/8']]);

    const listed = await cli('list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!listed.stdout.includes(made.secret) && !listed.stdout.includes(made.token), 'the list shows no secret and no token');
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { items: { id: string }[] }).items.map((item) => item.id),
      ['default', 'studio-a'],
    );

    const defaultAdd = await cli('add', 'default', '--name', 'x');
    assert.equal(defaultAdd.code, 1);
    assert.match(defaultAdd.stderr, /INTEGRATION_EXISTS/);
    const defaultPause = await cli('pause', 'default');
    assert.match(defaultPause.stderr, /changed there, and the server restarted/);
    const noKeys = await runWagerlink(['operator', 'integrations', 'add', 'studio-b', '--name', 'B', '--database', database], { env: cleanEnv() });
    assert.match(noKeys.stderr, /WAGERLINK_INTEGRATION_KEYS is not set/);

    const store = await SqliteStore.open({ path: database });
    const registry = new IntegrationRegistry({ store, keyring: parseIntegrationKeys(KEYS) });
    const app = await buildOperatorApp({ store, integrations: registry, adminToken: ADMIN_TOKEN });
    /** A signed /payout for a session nobody knows: 404 SESSION_NOT_FOUND once the caller passes every check. */
    const probe = async (token: string, secret: string) => {
      await registry.refresh();
      const payload = JSON.stringify({ sessionId: randomUUID(), payoutId: randomUUID(), amount: 1, campaign: { id: randomUUID(), type: 'tournament' } });
      const answer = await app.inject({
        method: 'POST',
        url: '/payout',
        payload,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-server-authorization': sign(secret, payload) },
      });
      return (answer.json() as { code: string }).code;
    };
    try {
      assert.equal(await probe(made.token, made.secret), 'SESSION_NOT_FOUND');
      assert.equal((await cli('off', 'studio-a')).code, 0);
      assert.equal(await probe(made.token, made.secret), 'INTEGRATION_OFF');
      assert.equal((await cli('resume', 'studio-a')).code, 0);
      assert.equal((await cli('set', 'studio-a', '--ranges', '10.0.0.0/8')).code, 0);
      assert.equal(await probe(made.token, made.secret), 'IP_NOT_ALLOWED');
      assert.equal((await cli('set', 'studio-a', '--ranges', '')).code, 0);

      const begun = await cli('rotate', 'studio-a');
      assert.equal(begun.code, 0, begun.stderr);
      const rotation = JSON.parse(begun.stdout) as { secretNext: string; token: string; rotating: boolean; tokens: number };
      assert.deepEqual([rotation.rotating, rotation.tokens], [true, 2]);
      assert.equal(await probe(made.token, rotation.secretNext), 'SESSION_NOT_FOUND', 'the next secret is accepted during the rotation');
      assert.equal(await probe(rotation.token, made.secret), 'SESSION_NOT_FOUND', 'and the new token');
      assert.equal((await cli('rotate', 'studio-a', '--finish')).code, 0);
      assert.equal(await probe(made.token, rotation.secretNext), 'INVALID_TOKEN', 'the old token is dropped');
      assert.equal(await probe(rotation.token, made.secret), 'INVALID_SIGNATURE', 'the old secret is dropped');
      assert.equal(await probe(rotation.token, rotation.secretNext), 'SESSION_NOT_FOUND');

      assert.equal((await cli('remove', 'studio-a')).code, 0);
      assert.equal(await probe(rotation.token, rotation.secretNext), 'INVALID_TOKEN');
      const routes = (await store.listAudit({ limit: 50 })).items.map((row) => [row.actor, row.route, row.status]);
      assert.ok(routes.every(([actor]) => actor === `cli:${userInfo().username}`));
      assert.deepEqual(
        routes.map(([, route]) => route),
        [
          'operator integrations remove',
          'operator integrations rotate',
          'operator integrations rotate',
          'operator integrations set',
          'operator integrations set',
          'operator integrations resume',
          'operator integrations off',
          // The refusals are in the log too, with their codes: an add without keys, a pause and an add of `default`.
          'operator integrations add',
          'operator integrations pause',
          'operator integrations add',
          'operator integrations add',
        ],
      );
    } finally {
      await app.close();
      await store.close();
    }
  } finally {
    cleanup();
  }
});
