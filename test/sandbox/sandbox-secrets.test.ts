/**
 * Proves the sandbox's seed key: the first start of a data folder makes
 * one with the other secrets (32 random bytes, readable by the owner
 * only), the provider's config uses it as its one seed key, a later start
 * reads the same one, and a data folder whose secrets file an earlier
 * version wrote, without a seed key, gets one added while every other
 * secret stays as it was (the integration keeps working).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxProviderConfig, sandboxSeedKeyId } from '../../src/sandbox/sandbox-config.js';
import { loadOrCreateSecrets, SECRETS_FILE } from '../../src/sandbox/sandbox-secrets.js';
import { seedKeyBytes } from '../../src/provider/seed-keyring.js';
import { tempDir } from '../helpers.js';

const SEED = 'cd'.repeat(32);

test('a new data folder gets a seed key with its secrets; the provider seals with it; a restart reads the same key', (t) => {
  const { dir, cleanup } = tempDir('wagerlink-sandbox-secrets-');
  t.after(cleanup);
  const made = loadOrCreateSecrets(dir);
  assert.ok(made.created);
  assert.equal(seedKeyBytes(made.secrets.seedKey)?.length, 32);
  assert.equal(statSync(join(dir, SECRETS_FILE)).mode & 0o777, 0o600);
  const config = sandboxProviderConfig({ dataDir: dir, operatorPort: 8080, providerPort: 8090, operatorDatabase: join(dir, 'operator.db') }, made.secrets);
  const id = sandboxSeedKeyId(made.secrets.seedKey);
  assert.deepEqual(config.seedKeys.toJSON(), { current: id, keys: [id] });
  const other = tempDir('wagerlink-sandbox-secrets-');
  t.after(other.cleanup);
  assert.notEqual(sandboxSeedKeyId(loadOrCreateSecrets(other.dir).secrets.seedKey), id, 'a new key (another folder, or the file deleted) has another id');
  const sealed = config.seedKeys.seal(SEED, { round: 'r' });
  const again = loadOrCreateSecrets(dir);
  assert.equal(again.created, false);
  assert.deepEqual(again.secrets, made.secrets);
  const restarted = sandboxProviderConfig({ dataDir: dir, operatorPort: 8080, providerPort: 8090, operatorDatabase: join(dir, 'operator.db') }, again.secrets);
  assert.equal(restarted.seedKeys.open(sealed, { round: 'r' }), SEED, 'a seed sealed before the restart opens after it');
});

test("a data folder from before the seed key and the integration key gets both added; the integration's secrets stay", (t) => {
  const { dir, cleanup } = tempDir('wagerlink-sandbox-secrets-');
  t.after(cleanup);
  const path = join(dir, SECRETS_FILE);
  const older = {
    secret: 's'.repeat(43),
    accessToken: 'a'.repeat(43),
    adminToken: 'd'.repeat(43),
    providerAdminToken: 'p'.repeat(43),
    launchTokenSecret: 'l'.repeat(43),
  };
  writeFileSync(path, JSON.stringify(older), { mode: 0o600 });
  const loaded = loadOrCreateSecrets(dir);
  assert.equal(loaded.created, false);
  const { seedKey, integrationKey, ...rest } = loaded.secrets;
  assert.deepEqual(rest, older);
  assert.equal(seedKeyBytes(seedKey)?.length, 32);
  assert.equal(Buffer.from(integrationKey, 'base64url').length, 32);
  assert.notEqual(integrationKey, seedKey);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), loaded.secrets, 'kept in the file');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(loadOrCreateSecrets(dir).secrets, loaded.secrets, 'and read again on the next start');
});

test('a data folder with a seed key and no integration key gets the integration key alone added', (t) => {
  const { dir, cleanup } = tempDir('wagerlink-sandbox-secrets-');
  t.after(cleanup);
  const path = join(dir, SECRETS_FILE);
  const older = {
    secret: 's'.repeat(43),
    accessToken: 'a'.repeat(43),
    adminToken: 'd'.repeat(43),
    providerAdminToken: 'p'.repeat(43),
    launchTokenSecret: 'l'.repeat(43),
    seedKey: 'k'.repeat(43),
  };
  writeFileSync(path, JSON.stringify(older), { mode: 0o600 });
  const { integrationKey, ...rest } = loadOrCreateSecrets(dir).secrets;
  assert.deepEqual(rest, older);
  assert.equal(Buffer.from(integrationKey, 'base64url').length, 32);
});
