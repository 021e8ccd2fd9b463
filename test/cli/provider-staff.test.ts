/**
 * `wagerlink provider staff ...` and `provider audit`, run as the built
 * command on the provider's database named by its config: `staff add`
 * prints a scoped account's token once, the provider's back office takes it
 * within its scope, `staff revoke` shuts it out at once, an operator the
 * config does not have is a usage error, and each change is audited as
 * `cli:` and the system user.
 */
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { runWagerlink } from '../harness/child-process.js';
import { tempDir } from '../helpers.js';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import { openProviderStore } from '../../src/provider/store/open-provider-store.js';
import { seedSealing } from '../../src/provider/seed-keyring.js';
import { adminCall, OPERATOR_ID, OTHER_OPERATOR_ID, startProvider, testConfigFile } from '../provider/provider-helpers.js';

test('provider staff add, list, revoke and audit on the database of --config', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = testConfigFile({ database: join(dir, 'provider.db') });
    const configPath = join(dir, 'provider.json');
    writeFileSync(configPath, JSON.stringify(file), { mode: 0o600 });

    const unknown = await runWagerlink(['provider', 'staff', 'add', 'bob', '--role', 'support', '--operators', 'nobody', '--config', configPath]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--operators: nobody is not an operator/);

    const added = await runWagerlink(['provider', 'staff', 'add', 'bob', '--role', 'support', '--operators', OPERATOR_ID, '--config', configPath]);
    assert.equal(added.code, 0, added.stderr);
    const made = JSON.parse(added.stdout) as { token: string; operators: string[]; tokens: { tokenId: string }[] };
    assert.deepEqual(made.operators, [OPERATOR_ID]);

    const list = await runWagerlink(['provider', 'staff', 'list', '--config', configPath]);
    assert.equal(list.code, 0, list.stderr);
    assert.ok(!list.stdout.includes(made.token.slice(-20)));

    const config = resolveProviderConfig(file);
    const store = await openProviderStore(config.database, { currencies: config.currencies, seeds: seedSealing(config.seedKeys, randomBytes) });
    const started = await startProvider({ config, store, deliver: false });
    try {
      assert.equal((await adminCall(started.app, 'GET', '/admin/rounds', undefined, made.token)).status, 200);
      assert.equal((await adminCall(started.app, 'GET', `/admin/outbox?operatorId=${OTHER_OPERATOR_ID}`, undefined, made.token)).body.code, 'FORBIDDEN');
      const revoked = await runWagerlink(['provider', 'staff', 'revoke', 'bob', '--config', configPath]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal((await adminCall(started.app, 'GET', '/admin/rounds', undefined, made.token)).status, 401);
    } finally {
      await started.stop();
      await store.close();
    }

    const audit = await runWagerlink(['provider', 'audit', '--config', configPath]);
    assert.equal(audit.code, 0, audit.stderr);
    const rows = (JSON.parse(audit.stdout) as { items: { actor: string; route: string; status: number }[] }).items;
    const actor = `cli:${userInfo().username}`;
    assert.deepEqual(
      rows.map((row) => [row.actor, row.route, row.status]),
      [
        [actor, 'provider staff revoke', 200],
        [actor, 'provider staff add', 201],
      ],
    );
  } finally {
    cleanup();
  }
});
