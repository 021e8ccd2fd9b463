/**
 * Proves the shutdown rule of docs/protocol.md §9 on the real commands, each run
 * as a child process: a server holding a connection whose body never comes
 * stops on SIGTERM within its shutdown time-out (closing that connection)
 * and exits 0 with its storage closed; a second signal during a graceful
 * stop stops it at once, also exiting 0. For `wagerlink operator serve`,
 * `wagerlink operator serve --workers 2` (PostgreSQL) and `wagerlink
 * provider serve`. The request time-out is set far longer here, so that only
 * the shutdown can end the stalled connection.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanEnv, freePort, startWagerlink, type Child, type TestScope } from '../harness/child-process.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, tempDir } from '../helpers.js';
import { exampleConfigFile, serveProviderChild } from '../provider/provider-helpers.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';

/** A start that does not log "ready on" within this long failed (ms); generous for a loaded machine. */
const READY_TIMEOUT_MS = 30_000;
/** The shutdown time-out of the servers that must stop on their own (ms). */
const SHUTDOWN_TIMEOUT_MS = 1_000;
/** Longer than any wait here (ms): neither time-out may end a stalled connection in the second-signal tests. */
const LONG_TIMEOUT_MS = 600_000;
/**
 * A server that has not exited this long after the stop it was due to make
 * failed, and is killed (ms); generous for a loaded machine.
 */
const EXIT_WAIT_MS = 15_000;
/** A pause that lets the server read what was just sent (ms). */
const SETTLE_MS = 300;

const temp = tempDir('wagerlink-shutdown-');

after(() => {
  temp.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Served {
  child: Child;
  port: number;
}

/** Starts `wagerlink operator serve` with these settings and waits for its ready line; the test's end kills it. */
async function serveOperator(t: TestScope, name: string, env: Record<string, string>, args: string[] = []): Promise<Served> {
  const port = await freePort();
  const { child } = await startWagerlink(['operator', 'serve', ...args], {
    env: cleanEnv({
      WAGERLINK_HOST: '127.0.0.1',
      WAGERLINK_PORT: String(port),
      WAGERLINK_DATABASE: join(temp.dir, `${name}.db`),
      WAGERLINK_SECRET: SECRET,
      WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN,
      WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN,
      ...env,
    }),
    readyTimeoutMs: READY_TIMEOUT_MS,
    until: t,
  });
  return { child, port };
}

/** Starts `wagerlink provider serve` with these limits; the test's end kills it. */
async function serveProvider(t: TestScope, name: string, limits: Record<string, number>): Promise<Served> {
  const file = exampleConfigFile();
  file.database = join(temp.dir, `${name}.db`);
  file.port = 0;
  file.limits = limits;
  const path = join(temp.dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(file));
  const served = await serveProviderChild(path, { timeoutMs: READY_TIMEOUT_MS, until: t });
  return { child: served.child, port: Number(new URL(served.origin).port) };
}

/** A connection whose request body never comes: the server holds it open, in flight. */
async function stalledConnection(port: number, path: string, headers: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const closed = once(socket, 'close').then(() => undefined);
  await once(socket, 'connect');
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}Content-Length: 100\r\n\r\n{`);
  await sleep(SETTLE_MS);
  return { socket, closed };
}

const WALLET_HEADERS = `Authorization: Bearer ${ACCESS_TOKEN}\r\n`;

test('operator serve: a stalled connection does not hold SIGTERM past the shutdown time-out', async (t) => {
  const served = await serveOperator(t, 'graceful', {
    WAGERLINK_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    WAGERLINK_REQUEST_TIMEOUT_MS: String(LONG_TIMEOUT_MS),
  });
  const stalled = await stalledConnection(served.port, '/transaction', WALLET_HEADERS);
  served.child.signal('SIGTERM');
  const { code } = await served.child.exited(EXIT_WAIT_MS);
  assert.equal(code, 0, served.child.output());
  await stalled.closed;
  assert.match(served.child.output(), /still open after 1000 ms/);
  assert.match(served.child.output(), /"msg":"stopped"/);
});

test('operator serve: a second signal during a graceful stop stops at once', async (t) => {
  const served = await serveOperator(t, 'second-signal', {
    WAGERLINK_SHUTDOWN_TIMEOUT_MS: String(LONG_TIMEOUT_MS),
    WAGERLINK_REQUEST_TIMEOUT_MS: String(LONG_TIMEOUT_MS),
  });
  const stalled = await stalledConnection(served.port, '/transaction', WALLET_HEADERS);
  served.child.signal('SIGTERM');
  await sleep(SETTLE_MS);
  assert.equal(served.child.running, true, 'the graceful stop waits for the stalled connection');
  served.child.signal('SIGINT');
  const { code } = await served.child.exited(EXIT_WAIT_MS);
  assert.equal(code, 0, served.child.output());
  await stalled.closed;
  assert.match(served.child.output(), /second signal: SIGINT/);
});

test('operator serve --workers 2: SIGTERM reaches every worker once, and the shutdown time-out holds', { skip: POSTGRES_UNAVAILABLE }, async (t) => {
  const schema = await freshSchema('shutdown');
  try {
    const served = await serveOperator(
      t,
      'workers',
      {
        WAGERLINK_DATABASE: schema.url(),
        WAGERLINK_PG_POOL_SIZE: '2',
        WAGERLINK_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        WAGERLINK_REQUEST_TIMEOUT_MS: String(LONG_TIMEOUT_MS),
      },
      ['--workers', '2'],
    );
    // Several connections, so that both workers most likely hold one.
    const stalled = await Promise.all(Array.from({ length: 4 }, () => stalledConnection(served.port, '/transaction', WALLET_HEADERS)));
    served.child.signal('SIGTERM');
    const { code } = await served.child.exited(EXIT_WAIT_MS);
    assert.equal(code, 0, served.child.output());
    await Promise.all(stalled.map((connection) => connection.closed));
    assert.doesNotMatch(served.child.output(), /second signal/);
  } finally {
    await schema.drop();
  }
});

test('provider serve: the shutdown time-out holds, and a second signal stops at once', async (t) => {
  const graceful = await serveProvider(t, 'provider-graceful', { shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, requestTimeoutMs: LONG_TIMEOUT_MS });
  const first = await stalledConnection(graceful.port, '/game-bets', '');
  graceful.child.signal('SIGTERM');
  assert.equal((await graceful.child.exited(EXIT_WAIT_MS)).code, 0, graceful.child.output());
  await first.closed;

  const twice = await serveProvider(t, 'provider-twice', { shutdownTimeoutMs: LONG_TIMEOUT_MS, requestTimeoutMs: LONG_TIMEOUT_MS });
  const second = await stalledConnection(twice.port, '/game-bets', '');
  twice.child.signal('SIGINT');
  await sleep(SETTLE_MS);
  assert.equal(twice.child.running, true, 'the graceful stop waits for the stalled connection');
  twice.child.signal('SIGTERM');
  assert.equal((await twice.child.exited(EXIT_WAIT_MS)).code, 0, twice.child.output());
  await second.closed;
  assert.match(twice.child.output(), /second signal: SIGTERM/);
});
