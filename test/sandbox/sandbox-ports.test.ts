/**
 * Proves that a sandbox start which cannot serve changes nothing, run as
 * child processes: with either port taken, `wagerlink sandbox` exits 1 and
 * names the port before it makes a database — on SQLite the data folder
 * holds no database, and with DATABASE_URL neither side's schema holds a
 * table — so the next start with free ports is a fresh one and seeds the
 * demo players as a first start does.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, runWagerlink, startWagerlink } from '../harness/child-process.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';

const READY = /wagerlink sandbox ready \(pid (\d+)\)/;

/** A port on 127.0.0.1 held by this process until the test ends. */
async function takenPort(t: { after: (fn: () => unknown) => void }): Promise<number> {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  return (server.address() as { port: number }).port;
}

for (const side of ['operator', 'provider'] as const) {
  test(`with the ${side}'s port taken, the start fails before any database is made, and the next start is a fresh one (SQLite)`, async (t) => {
    const dir = join(mkdtempSync(join(tmpdir(), 'wagerlink-sandbox-ports-')), 'data');
    const taken = await takenPort(t);
    const free = await freePort();
    const [port, providerPort] = side === 'operator' ? [taken, free] : [free, taken];
    const busy = await runWagerlink(['sandbox', '--data', dir, '--port', String(port), '--provider-port', String(providerPort)]);
    assert.equal(busy.code, 1, busy.stderr);
    assert.match(busy.stderr, new RegExp(`port ${taken} \\(the ${side}\\) is already in use on 127\\.0\\.0\\.1`));
    for (const file of ['operator.db', 'provider.db']) assert.equal(existsSync(join(dir, file)), false, `no ${file} after the failed start`);

    const started = await startWagerlink(['sandbox', '--data', dir, '--port', String(await freePort()), '--provider-port', String(await freePort())], {
      ready: READY,
      until: t,
    });
    assert.match(started.child.stdout, /; 4 demo players added\)/, started.child.stdout);
    assert.equal((await started.child.stop('SIGTERM')).code, 0);
  });
}

test(
  'with a port taken, a start on PostgreSQL makes no table in either schema, and the next start seeds as a fresh one',
  { skip: POSTGRES_UNAVAILABLE ?? false },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'wagerlink-sandbox-ports-'));
    const schema = await freshSchema('sandbox_ports');
    const providerSchema = `${schema.name}_p`;
    t.after(async () => {
      await schema.admin.unsafe(`DROP SCHEMA IF EXISTS ${providerSchema} CASCADE`);
      await schema.drop();
    });
    const tables = async (name: string) =>
      (await schema.admin<{ n: number }[]>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = ${name}`)[0]!.n;
    const database = ['--database', schema.url(), '--provider-schema', providerSchema];
    for (const side of ['operator', 'provider'] as const) {
      const taken = await takenPort(t);
      const free = await freePort();
      const [port, providerPort] = side === 'operator' ? [taken, free] : [free, taken];
      const busy = await runWagerlink(['sandbox', '--data', dir, ...database, '--port', String(port), '--provider-port', String(providerPort)]);
      assert.equal(busy.code, 1, busy.stderr);
      assert.match(busy.stderr, new RegExp(`port ${taken} \\(the ${side}\\) is already in use on 127\\.0\\.0\\.1`));
      assert.equal(await tables(schema.name), 0, `no table in the operator's schema after the ${side}'s port was found taken`);
      assert.equal(await tables(providerSchema), 0, `no table in the provider's schema after the ${side}'s port was found taken`);
    }

    const started = await startWagerlink(
      ['sandbox', '--data', dir, ...database, '--port', String(await freePort()), '--provider-port', String(await freePort())],
      { ready: READY, until: t },
    );
    assert.match(started.child.stdout, /; 4 demo players added\)/, started.child.stdout);
    assert.equal((await started.child.stop('SIGTERM')).code, 0);
  },
);
