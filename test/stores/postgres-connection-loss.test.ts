/**
 * What the wallet needs of its PostgreSQL client (postgres.js, patched in
 * patches/postgres+3.4.9.patch) when a connection is lost mid-transaction:
 * every query written to the dead socket settles, and the connection made in
 * its place starts clean. Without that, a node whose connections were all cut
 * during a load (pg_terminate_backend, a fail-over) could stall for good: a
 * remade connection took a query left over from the dead one as its current
 * query and waited for an answer to something it never sent, so the pool
 * never had a connection free again.
 *
 * The loss is made deterministic here: the socket is destroyed with an error
 * while a transaction's query is in flight. Node emits 'error' at once and
 * 'close' only once the handle is closed, and in between the transaction's
 * ROLLBACK is written, as happens when the server ends the connection.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import postgres from 'postgres';
import { DATABASE_URL, POSTGRES_UNAVAILABLE } from './postgres-fixtures.js';

/** A pool that never frees a connection shows as a query that never settles: this long is "never" here. */
const HANG_MS = 5_000;

function settlesWithin<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never settled: the connection is stuck`)), HANG_MS);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

/** One connection, whose sockets the test can reach. */
function openClient(): { sql: postgres.Sql; sockets: net.Socket[] } {
  const target = new URL(DATABASE_URL!);
  const sockets: net.Socket[] = [];
  // postgres.js takes a socket factory (its `socket` option), which its types do not declare.
  const options = {
    max: 1,
    fetch_types: false,
    onnotice: () => {},
    socket: () => {
      const socket = net.connect(Number(target.port || 5432), target.hostname);
      sockets.push(socket);
      return socket;
    },
  };
  return { sql: postgres(DATABASE_URL!, options), sockets };
}

/** Resolves once the backend `pid` runs pg_sleep: the query to cut is in flight, whatever the machine's load. */
async function sleeping(admin: postgres.Sql, pid: number): Promise<void> {
  for (;;) {
    const [row] = await admin<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${pid} AND state = 'active' AND query LIKE 'SELECT pg_sleep%'`;
    if (row!.n > 0) return;
  }
}

describe('postgres client: a connection lost mid-transaction', { skip: POSTGRES_UNAVAILABLE }, () => {
  test('every query written to the dead socket settles, and the next connection starts clean', async () => {
    const { sql, sockets } = openClient();
    try {
      await sql`SELECT 1`;
      const lost = sql.begin(async (tx) => {
        await tx`SELECT 1`;
        const inFlight = tx`SELECT pg_sleep(0.2)`.execute();
        sockets.at(-1)!.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
        await inFlight;
      });
      await assert.rejects(settlesWithin(lost, 'the transaction'));
      // The remade connection answers, and keeps answering: the first query
      // goes out as the connection's first, the next ones after it.
      for (let i = 0; i < 3; i++) {
        const [row] = await settlesWithin(sql`SELECT ${i}::int AS n`, `query ${i} after the loss`);
        assert.equal(row!.n, i);
      }
      assert.equal(sockets.length, 2, 'one connection was remade');
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  test('an error the server sent before it closed is not carried into the next connection', async () => {
    const { sql } = openClient();
    const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      const [backend] = await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      const pid = backend!.pid;
      // The server answers FATAL (57P01) to the query in flight, then closes. Its refusal is
      // awaited from the start: it may arrive before the terminating call's own answer does.
      const cut = assert.rejects(settlesWithin(sql`SELECT pg_sleep(2)`.execute(), 'the query cut'));
      await settlesWithin(sleeping(admin, pid), 'the query cut reaching the server');
      await admin`SELECT pg_terminate_backend(${pid})`;
      await cut;
      const [row] = await settlesWithin(sql`SELECT 7 AS n`, 'the first query after the loss');
      assert.equal(row!.n, 7);
    } finally {
      await sql.end({ timeout: 1 });
      await admin.end({ timeout: 1 });
    }
  });
});
