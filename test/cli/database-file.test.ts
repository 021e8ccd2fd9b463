/**
 * Proves that a database setting, which may hold a PostgreSQL password, can
 * be kept off the command line: the operator's commands take it from
 * --database-file (a SQLite path here, and with DATABASE_URL a postgres://
 * URL) and work without a warning; a postgres:// URL with a password given
 * as --database works but is warned about on stderr, one without a password
 * is not; `provider serve` runs on the database its --database-file names,
 * and the sandbox reads the file too (its refusal of what the file holds
 * shows it); and a missing file is a usage error, run as the built CLI.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers.js';
import { request } from 'undici';
import { runWagerlink, startWagerlink } from '../harness/child-process.js';
import { exampleConfigFile } from '../provider/provider-helpers.js';
import { freshSchema, POSTGRES_UNAVAILABLE, type Schema } from '../stores/postgres-fixtures.js';

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('--database-file', () => {
  const temp = tempDir('wagerlink-database-file-');
  after(() => temp.cleanup());

  function settingFile(name: string, setting: string): string {
    const path = join(temp.dir, name);
    writeFileSync(path, `${setting}\n`, { mode: 0o600 });
    return path;
  }

  test("the operator's commands take their database from a file, without a warning", async () => {
    const file = settingFile('sqlite-setting', join(temp.dir, 'operator.db'));
    const migrated = await runWagerlink(['operator', 'migrate', '--database-file', file]);
    assert.equal(migrated.code, 0, migrated.stderr);
    const added = await runWagerlink(['operator', 'players', 'add', 'bob', '--currency', 'EUR', '--balance', '5', '--database-file', file]);
    assert.equal(added.code, 0, added.stderr);
    const shown = await runWagerlink(['operator', 'players', 'show', 'bob', '--database-file', file]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal((JSON.parse(shown.stdout) as { balance: number }).balance, 5);
    assert.equal(`${migrated.stderr}${added.stderr}${shown.stderr}`, '');
  });

  test('a password in --database is warned about; a URL without one, or a SQLite path, is not', async () => {
    // Nothing listens on port 1: the command fails after its warning, having sent the password nowhere.
    const withPassword = await runWagerlink(['operator', 'verify', '--database', 'postgres://wl:hunter2@127.0.0.1:1/wl']);
    assert.equal(withPassword.code, 1);
    assert.match(
      withPassword.stderr,
      /^wagerlink: warning: --database on the command line can be read by other users \(ps, \/proc\) and stays in shell history; use --database-file FILE\n/,
    );
    const withoutPassword = await runWagerlink(['operator', 'verify', '--database', 'postgres://wl@127.0.0.1:1/wl']);
    assert.equal(withoutPassword.code, 1);
    assert.doesNotMatch(withoutPassword.stderr, /warning/);
  });

  test("provider serve runs on the database its --database-file names, not the config's", async (t) => {
    const config = exampleConfigFile();
    config.database = join(temp.dir, 'config-named.db');
    config.port = 0;
    const configPath = join(temp.dir, 'provider.json');
    writeFileSync(configPath, JSON.stringify(config));
    const chosen = join(temp.dir, 'file-named.db');
    const { child, ready } = await startWagerlink(['provider', 'serve', '--config', configPath, '--database-file', settingFile('provider-setting', chosen)], {
      ready: /ready on (http:\/\/[^"\s]+)/,
      until: t,
    });
    const health = await request(`${ready[1]}/health`);
    assert.equal(health.statusCode, 200);
    await health.body.dump();
    assert.ok(existsSync(chosen), 'the database named in the file is made');
    assert.ok(!existsSync(config.database as string), "the config's database is not");
    assert.doesNotMatch(child.output(), /warning: --database/);
  });

  test('provider serve and the sandbox read --database-file; a missing file, or both options, is a usage error', async () => {
    const sqlite = settingFile('not-postgres', join(temp.dir, 'elsewhere.db'));
    const sandbox = await runWagerlink(['sandbox', '--data', temp.dir, '--database-file', sqlite]);
    assert.equal(sandbox.code, 2, sandbox.stderr);
    assert.match(sandbox.stderr, /^wagerlink: --database takes a postgres:\/\/ URL \(the default is SQLite in --data\), got "\S+elsewhere\.db"\n/);
    const missing = join(temp.dir, 'no-such-file');
    for (const args of [
      ['provider', 'serve', '--config', 'examples/provider.json', '--database-file', missing],
      ['sandbox', '--data', temp.dir, '--database-file', missing],
      ['operator', 'players', 'show', 'bob', '--database-file', missing],
    ]) {
      const run = await runWagerlink(args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^wagerlink: --database-file \S+no-such-file: no such file\n/);
    }
    const both = await runWagerlink(['operator', 'verify', '--database', 'x.db', '--database-file', sqlite]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /^wagerlink: --database and --database-file both give --database: give one\n/);
  });

  describe('on PostgreSQL', { skip: POSTGRES_UNAVAILABLE }, () => {
    let schema: Schema;
    before(async () => {
      schema = await freshSchema('database_file');
    });
    after(async () => schema?.drop());

    test('a postgres:// URL from a file opens the database', async () => {
      const file = settingFile('postgres-setting', schema.url());
      const migrated = await runWagerlink(['operator', 'migrate', '--database-file', file]);
      assert.equal(migrated.code, 0, migrated.stderr);
      const added = await runWagerlink(['operator', 'players', 'add', 'carol', '--currency', 'EUR', '--balance', '7', '--database-file', file]);
      assert.equal(added.code, 0, added.stderr);
      const [row] = await schema.admin<{ player_id: string }[]>`SELECT player_id FROM ${schema.admin(schema.name)}.players`;
      assert.equal(row?.player_id, 'carol');
      assert.doesNotMatch(`${migrated.stderr}${added.stderr}`, /warning/);
    });
  });
});
