/**
 * Proves the configuration of the PostgreSQL path: WAGERLINK_DATABASE picks
 * the backend by its form and declares what it can do, the pool and
 * time-out variables have their defaults and refuse nonsense, --workers
 * takes a count or "auto", and a database password never reaches a log line
 * or the CLI's output. Also that the SQLite wallet's writer placement and
 * commit durability are no longer settings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIG_VARIABLES } from '../../src/operator/config-variables.js';
import { ConfigError, parseWorkers, readOperatorConfig, WORKERS_MAX } from '../../src/operator/operator-config.js';
import { DEFAULT_POSTGRES_SETTINGS } from '../../src/platform/postgres/settings.js';
import { callTimeoutMs } from '../../src/platform/postgres/settings.js';
import { backendOf } from '../../src/stores/open-store.js';

test('the database setting picks the backend and declares its capabilities', () => {
  for (const url of ['postgres://u@db:5432/wallet', 'postgresql://u@db/wallet', 'POSTGRES://db/wallet']) {
    const backend = backendOf(url);
    assert.equal(backend.name, 'postgres', url);
    assert.equal(backend.capabilities.sharedByProcesses, true);
  }
  const sqlite = backendOf('./data/operator.db');
  assert.equal(sqlite.name, 'sqlite');
  assert.equal(sqlite.capabilities.sharedByProcesses, false);
  assert.equal(sqlite.display, './data/operator.db');
});

test('a password in the URL is never shown', () => {
  assert.equal(
    backendOf('postgres://wallet:s3cr%40t@db.internal:5432/ops?sslmode=require').display,
    'postgres://wallet:***@db.internal:5432/ops?sslmode=require',
  );
  assert.equal(backendOf('postgres://wallet@db/ops').display, 'postgres://wallet@db/ops');
});

test('pool and time-outs: defaults, overrides, and refusals', () => {
  const defaults = readOperatorConfig({});
  assert.deepEqual(defaults.postgres, DEFAULT_POSTGRES_SETTINGS);
  assert.equal(defaults.workers, 1);
  // The call deadline with the defaults answers inside the provider's 5 s wait (docs/protocol.md §9).
  assert.ok(callTimeoutMs(DEFAULT_POSTGRES_SETTINGS) < 5_000);
  const set = readOperatorConfig({
    WAGERLINK_PG_POOL_SIZE: '12',
    WAGERLINK_PG_STATEMENT_TIMEOUT_MS: '750',
    WAGERLINK_PG_IDLE_TIMEOUT_S: '30',
    WAGERLINK_PG_CONNECT_TIMEOUT_S: '1',
    WAGERLINK_WORKERS: '3',
  });
  assert.deepEqual(set.postgres, { poolSize: 12, statementTimeoutMs: 750, idleTimeoutS: 30, connectTimeoutS: 1 });
  assert.equal(set.workers, 3);
  for (const [name, value] of [
    ['WAGERLINK_PG_POOL_SIZE', '0'],
    ['WAGERLINK_PG_POOL_SIZE', 'eight'],
    ['WAGERLINK_PG_STATEMENT_TIMEOUT_MS', '-5'],
    ['WAGERLINK_PG_IDLE_TIMEOUT_S', '1.5'],
    ['WAGERLINK_WORKERS', '0'],
  ] as const) {
    assert.throws(() => readOperatorConfig({ [name]: value }), ConfigError, `${name}=${value}`);
  }
});

test('--workers takes a count up to the limit, or auto for one per core', () => {
  assert.equal(parseWorkers(undefined, '--workers', 8), 1);
  assert.equal(parseWorkers('2', '--workers', 8), 2);
  assert.equal(parseWorkers('auto', '--workers', 8), 8);
  assert.equal(parseWorkers('auto', '--workers', 1_000), WORKERS_MAX);
  assert.throws(() => parseWorkers(String(WORKERS_MAX + 1), '--workers', 8), /--workers must be "auto" or a whole number/);
  assert.throws(() => parseWorkers('two', '--workers', 8), ConfigError);
  // A flag wins over the environment.
  assert.equal(readOperatorConfig({ WAGERLINK_WORKERS: '4' }, { workers: 2 }).workers, 2);
  assert.equal(readOperatorConfig({ WAGERLINK_WORKERS: 'auto' }, {}, 6).workers, 6);
});

test('the SQLite writer and durability settings are gone: not offered, and a value left set changes nothing', () => {
  assert.ok(!('WAGERLINK_SQLITE_WRITER' in CONFIG_VARIABLES));
  assert.ok(!('WAGERLINK_SQLITE_DURABILITY' in CONFIG_VARIABLES));
  const leftOver = readOperatorConfig({ WAGERLINK_SQLITE_WRITER: 'inline', WAGERLINK_SQLITE_DURABILITY: 'flusher' });
  // Left set, they change nothing, and are named: `serve` logs each warning.
  assert.deepEqual({ ...leftOver, warnings: [] }, readOperatorConfig({}));
  assert.deepEqual(readOperatorConfig({}).warnings, []);
  assert.deepEqual(
    leftOver.warnings.map((warning) => warning.split(' ')[0]),
    ['WAGERLINK_SQLITE_WRITER', 'WAGERLINK_SQLITE_DURABILITY'],
  );
  assert.match(leftOver.warnings[0]!, /is no longer read: the SQLite batch writer always runs on a thread of its own/);
  assert.ok(!('sqliteWriter' in leftOver) && !('sqliteDurability' in leftOver));
});
