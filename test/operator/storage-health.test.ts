/**
 * Proves that the operator's operations endpoints tell the truth about
 * storage, on every backend: GET /health answers 503 SERVICE_UNAVAILABLE
 * naming why while the database refuses writes (a full disk) though it
 * still answers reads, every 503 with Retry-After, and 200 again as soon as writing works, with no
 * other request in between; and GET /admin/verify, when the proof cannot
 * be finished, answers 503 naming why instead of losing the reason.
 *
 * The full disk is made without mounting one. SQLite: the writer's
 * connection may hold no more pages than the file already has
 * (databasePagesMax, SQLite's max_page_count), and the test frees pages by
 * deleting a ballast table from a connection of its own, as an operator
 * frees a disk. PostgreSQL: triggers on every table of the store's schema
 * raise what PostgreSQL raises when it cannot extend a file, SQLSTATE 53100
 * disk_full, until the test drops them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { buildOperatorApp } from '../../src/operator/operator-app.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { openPostgresStore } from '../stores/postgres-fixtures.js';
import { pagesTable } from '../stores/sqlite-pages.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, admin, OPERATOR_BACKENDS, SECRET, tempDir, type OperatorBackendName } from '../helpers.js';
import { STORAGE_RETRY_AFTER_S } from '../../src/http/limits.js';

/** Pages of ballast the SQLite test frees to make room again: far more than the writes after it need. */
const BALLAST_PAGES = 64;
/** Players created at most while waiting for the disk to fill: a few pages' worth, many times over. */
const FILL_ATTEMPTS_MAX = 5_000;

interface Fixture {
  app: FastifyInstance;
  store: WalletStore;
  /** Makes every write of the store fail as on a full disk. */
  fillDisk: () => Promise<void>;
  /** Frees room again. */
  freeDisk: () => Promise<void>;
  /** Takes away a table the proof of the books reads; returns the reason verify should name. */
  breakVerify: () => Promise<RegExp>;
  close: () => Promise<void>;
}

async function appOn(store: WalletStore): Promise<FastifyInstance> {
  return buildOperatorApp({ store, secrets: [SECRET], accessTokens: [ACCESS_TOKEN], adminToken: ADMIN_TOKEN });
}

async function sqliteFixture(): Promise<Fixture> {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'operator.db');
  // Migrated, with a ballast table, and compacted: no free page is left in the file.
  await (await SqliteStore.open({ path })).close();
  const setup = new Database(path);
  pagesTable(setup)(BALLAST_PAGES);
  setup.exec('VACUUM');
  const pages = Number(setup.pragma('page_count', { simple: true }));
  setup.close();
  const store = await SqliteStore.open({ path, databasePagesMax: pages });
  const app = await appOn(store);
  const onSide = (sql: string) => {
    const db = new Database(path);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  };
  return {
    app,
    store,
    // The writer's file may not grow: it is full once the pages it has are.
    fillDisk: async () => {},
    freeDisk: async () => onSide('DELETE FROM pages'),
    breakVerify: async () => {
      onSide('DROP TABLE id_marks');
      return /no such table: id_marks/;
    },
    close: async () => {
      await app.close();
      await store.close();
      cleanup();
    },
  };
}

async function postgresFixture(): Promise<Fixture> {
  const { store, schema, cleanup } = await openPostgresStore('health');
  const app = await appOn(store);
  const tables = async () =>
    (await schema.admin<{ name: string }[]>`SELECT tablename AS name FROM pg_tables WHERE schemaname = ${schema.name}`).map((row) => row.name);
  return {
    app,
    store,
    fillDisk: async () => {
      await schema.admin.unsafe(`CREATE FUNCTION ${schema.name}.disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device' USING ERRCODE = 'disk_full';
        END $$`);
      for (const table of await tables()) {
        await schema.admin.unsafe(`CREATE TRIGGER disk_full BEFORE INSERT OR UPDATE OR DELETE ON ${schema.name}.${table}
          FOR EACH STATEMENT EXECUTE FUNCTION ${schema.name}.disk_full()`);
      }
    },
    freeDisk: async () => {
      await schema.admin.unsafe(`DROP FUNCTION ${schema.name}.disk_full() CASCADE`);
    },
    breakVerify: async () => {
      await schema.admin.unsafe(`DROP TABLE ${schema.name}.transfers CASCADE`);
      return /relation "transfers" does not exist/;
    },
    close: async () => {
      await app.close();
      await cleanup();
    },
  };
}

const FIXTURES: Record<OperatorBackendName, () => Promise<Fixture>> = { sqlite: sqliteFixture, postgres: postgresFixture };

async function health(app: FastifyInstance) {
  const response = await app.inject({ method: 'GET', url: '/health' });
  return {
    status: response.statusCode,
    contentType: String(response.headers['content-type']),
    retryAfter: response.headers['retry-after'],
    body: response.json() as Record<string, unknown>,
  };
}

function createPlayer(app: FastifyInstance, playerId: string) {
  return admin(app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 10 });
}

for (const backend of OPERATOR_BACKENDS) {
  describe(`storage health (${backend.name})`, { skip: backend.unavailable }, () => {
    test('/health answers 503 naming why while writes fail on a full disk, and 200 once they work again', async () => {
      const fixture = await FIXTURES[backend.name]();
      const { app } = fixture;
      try {
        assert.equal((await createPlayer(app, 'before-full')).status, 201);
        assert.deepEqual((await health(app)).body, { status: 'ok', database: 'ok' });

        await fixture.fillDisk();
        let refused: Awaited<ReturnType<typeof createPlayer>> | undefined;
        for (let i = 0; i < FILL_ATTEMPTS_MAX && refused === undefined; i++) {
          const answer = await createPlayer(app, `filler-${i}`);
          if (answer.status !== 201) refused = answer;
        }
        assert.ok(refused, `the disk never filled in ${FILL_ATTEMPTS_MAX} players`);
        assert.equal(refused.status, 503, refused.raw);
        assert.equal(refused.body.code, 'SERVICE_UNAVAILABLE');
        // Every call's 503 says when to come back (docs/protocol.md §3.3): a provider's bet meets the same error handler.
        assert.equal(refused.headers['retry-after'], String(STORAGE_RETRY_AFTER_S));

        // The database still answers reads: a health check that only read would call it fine.
        assert.equal((await admin(app, 'GET', '/admin/players/before-full')).status, 200);
        for (let i = 0; i < 2; i++) {
          const sick = await health(app);
          assert.equal(sick.status, 503, JSON.stringify(sick.body));
          assert.match(sick.contentType, /^application\/problem\+json/);
          assert.equal(sick.body.code, 'SERVICE_UNAVAILABLE');
          assert.equal(sick.retryAfter, String(STORAGE_RETRY_AFTER_S));
          assert.match(String(sick.body.detail), /^writes are failing: .*(database or disk is full|No space left on device)/);
        }

        // Room again, and no request but /health's own: it turns back by itself.
        await fixture.freeDisk();
        const well = await health(app);
        assert.equal(well.status, 200, JSON.stringify(well.body));
        assert.deepEqual(well.body, { status: 'ok', database: 'ok' });
        assert.equal((await createPlayer(app, 'after-full')).status, 201);
        assert.equal((await health(app)).status, 200);
        const report = await admin(app, 'GET', '/admin/verify');
        assert.equal(report.status, 200, report.raw);
        assert.equal(report.body.ok, true, report.raw);
      } finally {
        await fixture.close();
      }
    });

    test('/admin/verify that cannot finish answers 503 naming why', async () => {
      const fixture = await FIXTURES[backend.name]();
      try {
        assert.equal((await createPlayer(fixture.app, 'verified')).status, 201);
        const reason = await fixture.breakVerify();
        const answer = await admin(fixture.app, 'GET', '/admin/verify');
        assert.equal(answer.status, 503, answer.raw);
        assert.equal(answer.body.code, 'SERVICE_UNAVAILABLE');
        assert.match(String(answer.body.detail), /^verify could not finish: /);
        assert.match(String(answer.body.detail), reason);
      } finally {
        await fixture.close();
      }
    });
  });
}
