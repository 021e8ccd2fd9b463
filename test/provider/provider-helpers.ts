/**
 * Fixtures of the provider tests: a provider app on a fresh SQLite file (or
 * a fresh PostgreSQL schema, for the tests that run on every backend),
 * configured from examples/provider.json with test secrets, started as
 * `provider serve` starts it (by the same functions, without listening:
 * the game service, the app, then the delivery of rounds), a world whose
 * clock and sleeps are the test's, and signed calls as an operator makes
 * them.
 */
import type { StaffGuard } from '../../src/http/staff-guard.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Dispatcher } from 'undici';
import { importConfigCampaigns } from '../../src/provider/config-campaigns.js';
import { REAL_CLIENT_WORLD } from '../../src/clients/http-call.js';
import type { DispatcherLimits } from '../../src/dispatch/dispatcher.js';
import { createGameService, REAL_PROVIDER_WORLD, type ProviderWorld } from '../../src/provider/game-service.js';
import { REAL_PLAYER_TIMER, type PlayerTimer, type RoundsLeftBehind } from '../../src/provider/game-context.js';
import { buildProviderApp } from '../../src/provider/provider-app.js';
import { resolveProviderConfig, type ProviderConfig } from '../../src/provider/provider-config.js';
import type { ProviderStore } from '../../src/provider/store/provider-store.js';
import { seedSealing } from '../../src/provider/seed-keyring.js';
import { openProviderStore } from '../../src/provider/store/open-provider-store.js';
import { createRoundDelivery, type RoundDispatch } from '../../src/provider/round-delivery.js';
import { sign } from '../../src/protocol/signing.js';
import { ACCESS_TOKEN, adminOverHttp, SECRET, TestClock, tempDir } from '../helpers.js';
import { startWagerlink, type Child, type TestScope } from '../harness/child-process.js';
import { freshSchema, POSTGRES_UNAVAILABLE } from '../stores/postgres-fixtures.js';
import { PROVIDER_TEST_POOL } from './store/backends.js';

export type ProviderBackendName = 'sqlite' | 'postgres';

/**
 * The provider store backends the HTTP tests about rules run on, as the
 * store suite's: `STORES` narrows them; PostgreSQL is skipped, with the
 * reason, without DATABASE_URL.
 */
export const PROVIDER_BACKENDS: { name: ProviderBackendName; unavailable?: string }[] = (() => {
  const all: { name: ProviderBackendName; unavailable?: string }[] = [
    { name: 'sqlite' },
    { name: 'postgres', ...(POSTGRES_UNAVAILABLE ? { unavailable: POSTGRES_UNAVAILABLE } : {}) },
  ];
  const wanted = process.env.STORES?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return wanted ? all.filter((backend) => wanted.includes(backend.name)) : all;
})();

export const EXAMPLE_CONFIG_URL = new URL('../../../examples/provider.json', import.meta.url);
export const OPERATOR_ID = 'local-demo-operator';
export const WALLET_ID = 'local-demo-wallet';
/** A second operator, reachable only from 10.0.0.0/8 or through a trusted proxy. */
export const OTHER_OPERATOR_ID = 'other-operator';
export const OTHER_WALLET_ID = 'other-wallet';
export const OTHER_SECRET = 'other-operator-secret';
export const OTHER_NEXT_SECRET = 'other-operator-secret-next';
export const PROVIDER_ADMIN_TOKEN = 'test-provider-admin-token';
/** The address app.inject() calls come from unless a test says otherwise. */
export const LOCAL_ADDRESS = '127.0.0.1';

export type ConfigFile = Record<string, unknown> & { operators: Record<string, unknown>[]; games: Record<string, unknown>[] };

export function exampleConfigFile(): ConfigFile {
  return JSON.parse(readFileSync(EXAMPLE_CONFIG_URL, 'utf8')) as ConfigFile;
}

/**
 * The example config with the test operator's secret and token (those of
 * makeOperator), a second operator for whitelist tests, and no campaigns.
 */
export function testConfigFile(options: { endpoint?: string; database?: string } = {}): ConfigFile {
  const file = exampleConfigFile();
  const demo = file.operators[0]!;
  demo.secret = SECRET;
  demo.accessToken = ACCESS_TOKEN;
  demo.endpoint = options.endpoint ?? 'http://127.0.0.1:9';
  file.operators.push({
    operatorId: OTHER_OPERATOR_ID,
    walletIds: [OTHER_WALLET_ID],
    secret: OTHER_SECRET,
    secretNext: OTHER_NEXT_SECRET,
    ipWhitelist: ['10.0.0.0/8', '2001:db8::/32'],
    trustedProxies: ['192.168.1.1'],
    endpoint: 'http://127.0.0.1:9',
    pageOrigins: ['https://casino.example'],
    accessToken: 'other-access-token',
    currencies: ['EUR', 'USD'],
  });
  file.adminToken = PROVIDER_ADMIN_TOKEN;
  file.campaigns = [];
  if (options.database) file.database = options.database;
  return file;
}

export interface TestWorld extends ProviderWorld {
  /** Every back-off the clients waited, ms. */
  sleeps: number[];
}

/** Real time, where a test needs it (an outage measured in seconds); a test cannot advance it. */
export function realClock(): TestClock {
  return {
    get now() {
      return Date.now();
    },
    advance: () => {
      throw new Error('the real clock is not advanced by a test');
    },
  };
}

/**
 * A player's time that a test runs: a wait ends when the test calls
 * expire(), never after a number of milliseconds, so a slow machine cannot
 * end it early or late.
 */
export class ManualPlayerTimer implements PlayerTimer {
  private elapsed = 0;
  private readonly pending = new Set<{ at: number; fire: () => void }>();
  private readonly watchers: (() => void)[] = [];

  now(): number {
    return this.elapsed;
  }

  after(ms: number, fire: () => void): () => void {
    const entry = { at: this.elapsed + ms, fire };
    this.pending.add(entry);
    for (const watcher of this.watchers.splice(0)) watcher();
    return () => this.pending.delete(entry);
  }

  /** Resolves once a player is waiting. */
  async waiting(): Promise<void> {
    if (this.pending.size === 0) await new Promise<void>((resolve) => this.watchers.push(resolve));
  }

  /** Every player waiting now runs out of patience. */
  expire(): void {
    const due = [...this.pending];
    this.pending.clear();
    for (const entry of due) this.elapsed = Math.max(this.elapsed, entry.at);
    for (const entry of due) entry.fire();
  }
}

/** A world on the test's clock: sleeping advances it at once, so retry budgets run without waiting. Players wait in real time unless given a timer. */
export function testWorld(clock: TestClock, playerTimer: PlayerTimer = REAL_PLAYER_TIMER): TestWorld {
  const sleeps: number[] = [];
  return {
    playerTimer,
    clock: () => clock.now,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    random: () => 0.5,
    randomBytes: (size) => randomBytes(size),
    newId: () => randomUUID(),
    sleeps,
  };
}

export interface StartedProvider {
  app: FastifyInstance;
  /** The delivery of rounds: started unless the test asked otherwise. */
  delivery: RoundDispatch;
  /** Stops what was started, the delivery and the operator clients with the app; the store stays open. */
  stop: () => Promise<void>;
}

export interface StartOptions {
  /** The undici dispatcher of every call to an operator (a MockAgent). */
  dispatcher?: Dispatcher;
  /** False: the delivery is built but not started, as in a process that stopped before it sent anything. Default true. */
  deliver?: boolean;
  /** The delivery's own limits (a short idle wait). */
  deliveryLimits?: Partial<DispatcherLimits>;
  /** Receives the back office's guard (its route table). */
  onGuard?: (guard: StaffGuard) => void;
  /**
   * The delivery's lasting name (its leases' owner before the run's part).
   * Default: one of its own, since nodes of one test file share the config's
   * port; makeProvider keeps one across its restarts, as a node restarted on
   * its port does.
   */
  lastingName?: string;
  /** Told of each round with free spins, as a node's completion of rounds left unfinished is. */
  completion?: RoundsLeftBehind;
}

/** A lasting name no other node of the test process has. */
function testNodeName(): string {
  return `test-node-${randomBytes(4).toString('hex')}`;
}

/**
 * Starts a provider on an open store as serve-provider.ts does, in its
 * order and by its functions, but without listening: the config's
 * campaigns, the game service, the app, then the delivery of rounds. The
 * delivery runs on the world's clock and randomness, so that a test moves
 * its back-offs on by advancing the clock; it waits between claims in real
 * time, as a clock that jumps at each sleep would have it claim without end.
 */
export async function startProvider(options: { config: ProviderConfig; store: ProviderStore; world?: ProviderWorld } & StartOptions): Promise<StartedProvider> {
  const { config, store } = options;
  const world = options.world ?? REAL_PROVIDER_WORLD;
  const delivery = createRoundDelivery({
    config,
    store,
    lastingName: options.lastingName ?? testNodeName(),
    world: { clock: world.clock, random: world.random, sleep: REAL_CLIENT_WORLD.sleep },
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    ...(options.deliveryLimits === undefined ? {} : { limits: options.deliveryLimits }),
  });
  const games = createGameService({
    config,
    store,
    world,
    delivery,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    ...(options.completion === undefined ? {} : { completion: options.completion }),
  });
  const metrics = new ProviderMetrics({ outbox: store.outbox, clock: world.clock });
  delivery.dispatcher.onDelivery((delivered) => metrics.dispatch.observe(delivered));
  let app: FastifyInstance;
  try {
    await importConfigCampaigns(config, store, world.clock());
    app = await buildProviderApp({ config, store, games, world, metrics, delivery, ...(options.onGuard === undefined ? {} : { onGuard: options.onGuard }) });
  } catch (error) {
    await delivery.stop();
    await games.close();
    throw error;
  }
  if (options.deliver !== false) delivery.start();
  return {
    app,
    delivery,
    stop: async () => {
      await app.close();
      await delivery.stop();
      await games.close();
    },
  };
}

export interface Provider {
  app: FastifyInstance;
  store: ProviderStore;
  config: ProviderConfig;
  clock: TestClock;
  world: TestWorld;
  /** The running delivery of rounds; a restart builds a new one. */
  delivery: RoundDispatch;
  /** Stops the app and its work and starts them again on the same store, as a restarted process would; `app` is the new one. */
  restart: (options?: StartOptions) => Promise<void>;
  close: () => Promise<void>;
}

/** `backend`: the store's (default SQLite); PostgreSQL works in a fresh schema, dropped on close. */
export async function makeProvider(
  options: {
    endpoint?: string;
    edit?: (file: ConfigFile) => void;
    clock?: TestClock;
    playerTimer?: PlayerTimer;
    backend?: ProviderBackendName;
  } & StartOptions = {},
): Promise<Provider> {
  const { dir, cleanup: removeDir } = tempDir('wagerlink-provider-');
  const schema = options.backend === 'postgres' ? await freshSchema('provider') : undefined;
  const cleanup = async () => {
    removeDir();
    await schema?.drop();
  };
  const database = schema === undefined ? join(dir, 'provider.db') : schema.url();
  const file = testConfigFile({ ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }), database });
  options.edit?.(file);
  const config = resolveProviderConfig(file);
  const store = await openProviderStore(config.database, {
    currencies: config.currencies,
    postgres: PROVIDER_TEST_POOL,
    seeds: seedSealing(config.seedKeys, randomBytes),
  });
  const clock = options.clock ?? new TestClock();
  const world = testWorld(clock, options.playerTimer);
  const { endpoint: _endpoint, edit: _edit, clock: _clock, playerTimer: _playerTimer, backend: _backend, ...given } = options;
  // Every run of this provider is the same node: a restart finds the leases of the run before it.
  const startOptions: StartOptions = { lastingName: testNodeName(), ...given };
  const start = (again: StartOptions = startOptions) => startProvider({ config, store, world, ...again });
  let started: StartedProvider;
  try {
    started = await start();
  } catch (error) {
    await store.close();
    await cleanup();
    throw error;
  }
  const provider: Provider = {
    app: started.app,
    store,
    config,
    clock,
    world,
    delivery: started.delivery,
    restart: async (again) => {
      await started.stop();
      started = await start(again === undefined ? startOptions : { ...startOptions, ...again });
      provider.app = started.app;
      provider.delivery = started.delivery;
    },
    close: async () => {
      await started.stop();
      await store.close();
      await cleanup();
    },
  };
  return provider;
}

export interface Answer {
  status: number;
  headers: Record<string, unknown>;
  raw: string;
  body: Record<string, unknown>;
}

async function answerOf(response: { statusCode: number; headers: Record<string, unknown>; body: string }): Promise<Answer> {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(response.body) as Record<string, unknown>;
  } catch {
    // Left empty: the assertions fail on it with the raw text.
  }
  return { status: response.statusCode, headers: response.headers, raw: response.body, body };
}

/** A call to an interface endpoint as an operator makes it: the body text signed with `secret`. */
export async function operatorCall(
  app: FastifyInstance,
  url: string,
  body: unknown,
  options: { secret?: string; remoteAddress?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await app.inject({
    method: 'POST',
    url,
    payload,
    remoteAddress: options.remoteAddress ?? LOCAL_ADDRESS,
    headers: { 'content-type': 'application/json', 'x-server-authorization': sign(options.secret ?? SECRET, payload), ...options.headers },
  });
  return answerOf(response);
}

/** A call of the game page's API. */
export async function pageCall(app: FastifyInstance, url: string, body: unknown): Promise<Answer> {
  const response = await app.inject({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return answerOf(response);
}

export async function adminCall(app: FastifyInstance, method: 'GET' | 'POST', url: string, body?: unknown, token = PROVIDER_ADMIN_TOKEN): Promise<Answer> {
  const response = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return answerOf(response);
}

/** The token and page path of a launch URL. */
export function launchOf(url: string): { path: string; token: string; slug: string } {
  const parsed = new URL(url);
  const slug = decodeURIComponent(parsed.pathname.split('/').pop() ?? '');
  return { path: parsed.pathname, token: parsed.hash.slice(1), slug };
}

export function realLaunchBody(overrides: Record<string, unknown> = {}) {
  return {
    mode: 'real',
    game: 'dice',
    language: 'en-GB',
    walletId: WALLET_ID,
    operatorId: OPERATOR_ID,
    key: `key-${randomUUID()}`,
    country: 'DE',
    urls: { lobby: 'https://casino.example/lobby', deposit: 'https://casino.example/deposit', refresh: 'https://casino.example/refresh' },
    ...overrides,
  };
}

// (Import declarations are hoisted; these sit with the helper that uses them.)
import assert from 'node:assert/strict';
import { ERRORS, errorType, type ErrorCode } from '../../src/protocol/errors.js';
import { ProviderMetrics } from '../../src/provider/metrics.js';

/** The answer is the problem+json of `code` (RFC 9457 with `code`), with `balance` when given. */
export function assertProblem(answer: Answer, code: ErrorCode, balance?: number): void {
  assert.equal(answer.status, ERRORS[code].status, answer.raw);
  assert.match(String(answer.headers['content-type']), /^application\/problem\+json(;|$)/);
  assert.equal(answer.body.type, errorType(code));
  assert.equal(answer.body.title, ERRORS[code].title);
  assert.equal(answer.body.status, ERRORS[code].status);
  assert.equal(answer.body.code, code);
  assert.equal(typeof answer.body.detail, 'string');
  assert.ok((answer.body.detail as string).length > 0);
  assert.doesNotMatch(answer.raw, /\n\s*at /, 'a stack trace leaked');
  if (balance !== undefined) assert.equal(answer.body.balance, balance, answer.raw);
}

export interface ServedProvider {
  child: Child;
  origin: string;
}

/**
 * Starts `wagerlink provider serve --config FILE` as a child process and
 * answers once it has logged its ready line, or fails after `timeoutMs` or
 * if it exits first. `until` (the test's `t`) kills it when that test ends;
 * the harness kills it at the end of the file in any case.
 */
export async function serveProviderChild(configPath: string, options: { timeoutMs?: number; until?: TestScope } = {}): Promise<ServedProvider> {
  const { child, ready } = await startWagerlink(['provider', 'serve', '--config', configPath], {
    ready: /ready on (http:\/\/[^"\s]+)/,
    ...(options.timeoutMs === undefined ? {} : { readyTimeoutMs: options.timeoutMs }),
    ...(options.until === undefined ? {} : { until: options.until }),
  });
  return { child, origin: ready[1]! };
}

/**
 * A player created at a real operator (at `operatorOrigin`, in EUR) who
 * opened a real game on the provider: the provider holds a game session of
 * theirs, with the operator's session id.
 */
export async function openRealGame(app: FastifyInstance, operatorOrigin: string, playerId: string): Promise<void> {
  const created = await adminOverHttp(operatorOrigin, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 100, country: 'DE' });
  assert.equal(created.status, 201, created.text);
  const key = await adminOverHttp(operatorOrigin, 'POST', '/admin/launch-keys', { playerId, game: 'dice' });
  assert.equal(key.status, 201, key.text);
  const answer = await operatorCall(app, '/generate-launch-url', realLaunchBody({ key: key.body.key }));
  assert.equal(answer.status, 200, answer.raw);
  const launch = launchOf(answer.body.url as string);
  const opened = await pageCall(app, `${launch.path}/api/open`, { token: launch.token });
  assert.equal(opened.status, 200, opened.raw);
}
