/**
 * Proves the shutdown rule of PROTOCOL.md §9 on the real commands, each run
 * as a child process: a server holding a connection whose body never comes
 * stops on SIGTERM within its shutdown time-out (closing that connection)
 * and exits 0 with its storage closed; a second signal during a graceful
 * stop stops it at once, also exiting 0. For `wagerlink operator serve`,
 * `wagerlink operator serve --workers 2` (PostgreSQL) and `wagerlink
 * provider serve`. The request time-out is set far longer here, so that only
 * the shutdown can end the stalled connection.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, tempDir } from '../helpers.js';
import { CLI, cleanEnv, exampleConfigFile, ROOT, serveProviderChild } from '../provider/provider-helpers.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';

/** A start that does not log "ready on" within this long failed (ms); generous for a loaded machine. */
const READY_TIMEOUT_MS = 30_000;
/** The shutdown time-out of the servers that must stop on their own (ms). */
const SHUTDOWN_TIMEOUT_MS = 1_000;
/** Longer than any wait here (ms): neither time-out may end a stalled connection in the second-signal tests. */
const LONG_TIMEOUT_MS = 600_000;
/** A server that has not exited this long after the stop it was due to make failed (ms); generous for a loaded machine. */
const EXIT_WAIT_MS = 15_000;
/** A pause that lets the server read what was just sent (ms). */
const SETTLE_MS = 300;

const children = new Set<ChildProcess>();
const temp = tempDir('wagerlink-shutdown-');

after(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  temp.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

interface Served {
  child: ChildProcess;
  port: number;
  output: () => string;
}

/** Starts `wagerlink operator serve` with these settings and waits for its ready line. */
async function serveOperator(name: string, env: Record<string, string>, args: string[] = []): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'operator', 'serve', ...args], {
    cwd: ROOT,
    env: cleanEnv({
      WAGERLINK_HOST: '127.0.0.1',
      WAGERLINK_PORT: String(port),
      WAGERLINK_DATABASE: join(temp.dir, `${name}.db`),
      WAGERLINK_SECRET: SECRET,
      WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN,
      WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN,
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line:\n${output}`)), READY_TIMEOUT_MS);
    const onData = () => {
      if (!/ready on/.test(output)) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = () => reject(new Error(`exited before ready:\n${output}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
  return { child, port, output: () => output };
}

/** Starts `wagerlink provider serve` with these limits. */
async function serveProvider(name: string, limits: Record<string, number>): Promise<Served> {
  const file = exampleConfigFile();
  file.database = join(temp.dir, `${name}.db`);
  file.port = 0;
  file.limits = limits;
  const path = join(temp.dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(file));
  const served = await serveProviderChild(path, children, READY_TIMEOUT_MS);
  return { child: served.child, port: Number(new URL(served.origin).port), output: served.output };
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

/** Waits for the exit, bounded by EXIT_WAIT_MS; a child still running then is killed and the test fails. */
async function exitOf(served: Served): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { child } = served;
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([exited, new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), EXIT_WAIT_MS)))]);
  clearTimeout(timer);
  if (outcome === 'waiting') {
    child.kill('SIGKILL');
    await exited;
    assert.fail(`the server was still running ${EXIT_WAIT_MS} ms after it was due to stop:\n${served.output()}`);
  }
  const [code, signal] = outcome;
  return { code, signal };
}

const WALLET_HEADERS = `Authorization: Bearer ${ACCESS_TOKEN}\r\n`;

test('operator serve: a stalled connection does not hold SIGTERM past the shutdown time-out', async () => {
  const served = await serveOperator('graceful', {
    WAGERLINK_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    WAGERLINK_REQUEST_TIMEOUT_MS: String(LONG_TIMEOUT_MS),
  });
  const stalled = await stalledConnection(served.port, '/transaction', WALLET_HEADERS);
  served.child.kill('SIGTERM');
  const { code } = await exitOf(served);
  assert.equal(code, 0, served.output());
  await stalled.closed;
  assert.match(served.output(), /still open after 1000 ms/);
  assert.match(served.output(), /"msg":"stopped"/);
});

test('operator serve: a second signal during a graceful stop stops at once', async () => {
  const served = await serveOperator('second-signal', {
    WAGERLINK_SHUTDOWN_TIMEOUT_MS: String(LONG_TIMEOUT_MS),
    WAGERLINK_REQUEST_TIMEOUT_MS: String(LONG_TIMEOUT_MS),
  });
  const stalled = await stalledConnection(served.port, '/transaction', WALLET_HEADERS);
  served.child.kill('SIGTERM');
  await sleep(SETTLE_MS);
  assert.equal(served.child.exitCode, null, 'the graceful stop waits for the stalled connection');
  served.child.kill('SIGINT');
  const { code } = await exitOf(served);
  assert.equal(code, 0, served.output());
  await stalled.closed;
  assert.match(served.output(), /second signal: SIGINT/);
});

test('operator serve --workers 2: SIGTERM reaches every worker once, and the shutdown time-out holds', { skip: POSTGRES_UNAVAILABLE }, async () => {
  const schema = await freshSchema('shutdown');
  try {
    const served = await serveOperator(
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
    served.child.kill('SIGTERM');
    const { code } = await exitOf(served);
    assert.equal(code, 0, served.output());
    await Promise.all(stalled.map((connection) => connection.closed));
    assert.doesNotMatch(served.output(), /second signal/);
  } finally {
    await schema.drop();
  }
});

test('provider serve: the shutdown time-out holds, and a second signal stops at once', async () => {
  const graceful = await serveProvider('provider-graceful', { shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, requestTimeoutMs: LONG_TIMEOUT_MS });
  const first = await stalledConnection(graceful.port, '/game-bets', '');
  graceful.child.kill('SIGTERM');
  assert.equal((await exitOf(graceful)).code, 0, graceful.output());
  await first.closed;

  const twice = await serveProvider('provider-twice', { shutdownTimeoutMs: LONG_TIMEOUT_MS, requestTimeoutMs: LONG_TIMEOUT_MS });
  const second = await stalledConnection(twice.port, '/game-bets', '');
  twice.child.kill('SIGINT');
  await sleep(SETTLE_MS);
  assert.equal(twice.child.exitCode, null, 'the graceful stop waits for the stalled connection');
  twice.child.kill('SIGTERM');
  assert.equal((await exitOf(twice)).code, 0, twice.output());
  await second.closed;
  assert.match(twice.output(), /second signal: SIGTERM/);
});
