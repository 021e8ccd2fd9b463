/**
 * Proves what the provider does when its PostgreSQL database fails, with a
 * TCP proxy between the provider's pool and the database that the test
 * switches: `down` (every connection reset, new ones refused at once: a
 * database that is gone) and `stuck` (connections kept open and nothing
 * forwarded either way: a server or a network that stopped answering,
 * which no time-out of the database's own can end, since the statements
 * never reach it). Meanwhile every endpoint that needs the database (the
 * game pages' api, the back office) answers 503 SERVICE_UNAVAILABLE
 * problem+json with Retry-After, never a 500 or a request left hanging (a
 * stuck database is answered by the call deadline, whose message the 503
 * carries); nothing is half-applied (a launch opened in the outage left no
 * session); /generate-launch-url and /game-bets, which need no database,
 * answer as usual; and once the database answers again, so does the
 * provider. PostgreSQL only: a SQLite file has no connection to lose.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import { STORAGE_RETRY_AFTER_S } from '../../src/http/limits.js';
import { seedSealing } from '../../src/provider/seed-keyring.js';
import { openProviderStore } from '../../src/provider/store/open-provider-store.js';
import type { ProviderStore } from '../../src/provider/store/provider-store.js';
import { freshSchema, POSTGRES_UNAVAILABLE, type Schema } from '../stores/postgres-fixtures.js';
import {
  adminCall,
  assertProblem,
  launchOf,
  OPERATOR_ID,
  operatorCall,
  pageCall,
  startProvider,
  testConfigFile,
  type Answer,
  type StartedProvider,
  WALLET_ID,
} from './provider-helpers.js';

type Mode = 'up' | 'down' | 'stuck';

/** A TCP proxy to the database whose behaviour the test switches. */
class DatabaseProxy {
  private mode: Mode = 'up';
  private readonly pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  static async start(target: { host: string; port: number }): Promise<DatabaseProxy> {
    const server = createServer();
    const proxy = new DatabaseProxy(server, target);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private accept(client: Socket): void {
    client.on('error', () => {});
    if (this.mode === 'down') return void client.destroy();
    const pair: { client: Socket; upstream: Socket | undefined } = { client, upstream: undefined };
    this.pairs.add(pair);
    client.on('close', () => {
      this.pairs.delete(pair);
      pair.upstream?.destroy();
    });
    // A stuck database accepts the connection and never answers.
    if (this.mode === 'stuck') return void client.pause();
    this.link(pair);
  }

  private link(pair: { client: Socket; upstream: Socket | undefined }): void {
    if (pair.upstream === undefined) {
      const upstream = connect(this.target.port, this.target.host);
      upstream.on('error', () => pair.client.destroy());
      upstream.on('close', () => pair.client.destroy());
      pair.upstream = upstream;
    }
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
    pair.client.resume();
    pair.upstream.resume();
  }

  set(mode: Mode): void {
    this.mode = mode;
    for (const pair of this.pairs) {
      if (mode === 'down') {
        pair.client.destroy();
        pair.upstream?.destroy();
      } else if (mode === 'stuck') {
        pair.client.unpipe();
        pair.upstream?.unpipe();
        pair.client.pause();
        pair.upstream?.pause();
      } else {
        this.link(pair);
      }
    }
  }

  async close(): Promise<void> {
    this.set('down');
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Small and short, so that the deadline (statement time-out + connection attempt, 2 s) comes soon. */
const OUTAGE_POOL = { poolSize: 2, statementTimeoutMs: 1_000, idleTimeoutS: 60, connectTimeoutS: 1 };

/** Calls a page makes at most, after the database is back, before it is answered. */
const RECOVERY_ATTEMPTS_MAX = 10;

/** A launch of play money: the provider writes its session on the page's first call. */
const FUN_LAUNCH = { mode: 'fun', game: 'dice', language: 'en-GB' };

function assertUnavailable(answer: Answer, what: string): void {
  assert.equal(answer.status, 503, `${what}: ${answer.raw}`);
  assertProblem(answer, 'SERVICE_UNAVAILABLE');
  assert.equal(answer.headers['retry-after'], String(STORAGE_RETRY_AFTER_S), what);
}

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('the provider while its PostgreSQL database is down or stuck', { skip: process.env.DATABASE_URL ? undefined : POSTGRES_UNAVAILABLE }, () => {
  let schema: Schema;
  let proxy: DatabaseProxy;
  let store: ProviderStore;
  let started: StartedProvider;
  let app: FastifyInstance;
  /** A launch opened while the database answered, whose page the outage then meets. */
  let open: { path: string; token: string };

  before(async () => {
    schema = await freshSchema('outage');
    const direct = new URL(schema.url());
    proxy = await DatabaseProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(direct);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const config = resolveProviderConfig({ ...testConfigFile({ database: proxied.toString() }), postgres: OUTAGE_POOL });
    assert.deepEqual(config.postgres, OUTAGE_POOL);
    store = await openProviderStore(config.database, {
      currencies: config.currencies,
      postgres: config.postgres,
      seeds: seedSealing(config.seedKeys, randomBytes),
    });
    started = await startProvider({ config, store, deliver: false });
    app = started.app;
    const launched = await operatorCall(app, '/generate-launch-url', FUN_LAUNCH);
    assert.equal(launched.status, 200, launched.raw);
    open = launchOf(launched.body.url as string);
    const opened = await pageCall(app, `${open.path}/api/open`, { token: open.token });
    assert.equal(opened.status, 200, opened.raw);
  });

  after(async () => {
    await started?.stop();
    proxy?.set('up');
    await store?.close();
    await proxy?.close();
    await schema?.drop();
  });

  async function sessions(): Promise<number> {
    const [row] = await schema.admin.unsafe(`SELECT count(*)::int AS n FROM ${schema.name}.game_sessions`);
    return row!.n as number;
  }

  for (const mode of ['down', 'stuck'] as const) {
    test(`${mode}: every endpoint that needs the database answers 503 with Retry-After, the others as usual; then all recover`, async () => {
      const before = await sessions();
      proxy.set(mode);
      try {
        const launched = await operatorCall(app, '/generate-launch-url', FUN_LAUNCH);
        assert.equal(launched.status, 200, `a launch URL needs no database: ${launched.raw}`);
        const bets = await operatorCall(app, '/game-bets', { walletId: WALLET_ID, operatorId: OPERATOR_ID, games: ['dice'], currencies: ['EUR'] });
        assert.equal(bets.status, 200, `bet ladders need no database: ${bets.raw}`);
        const fresh = launchOf(launched.body.url as string);
        const answers: [string, Promise<Answer>][] = [
          ['open', pageCall(app, `${fresh.path}/api/open`, { token: fresh.token })],
          ['state', pageCall(app, `${open.path}/api/state`, { token: open.token })],
          ['play', pageCall(app, `${open.path}/api/play`, { token: open.token, bet: '1', chancePct: 50, clientSeed: 'outage' })],
          ['admin rounds', adminCall(app, 'GET', '/admin/rounds')],
          ['admin payouts', adminCall(app, 'GET', '/admin/payouts')],
          ['admin outbox', adminCall(app, 'GET', '/admin/outbox')],
        ];
        const details: string[] = [];
        for (const [what, answer] of answers) {
          const got = await answer;
          assertUnavailable(got, what);
          details.push(got.body.detail as string);
        }
        // A stuck connection never answers: only the call deadline can end a call on one (a call waiting
        // for a new connection may instead meet the connection attempt's own time-out, a 503 as well).
        if (mode === 'stuck')
          assert.ok(
            details.some((detail) => /did not answer within 2000 ms/.test(detail)),
            details.join('\n'),
          );
      } finally {
        proxy.set('up');
      }
      assert.equal(await sessions(), before, 'the launch opened in the outage left no session');
      // The pool makes its connections again on demand: a call or two may still meet the end of the outage, as Retry-After says.
      let state = await pageCall(app, `${open.path}/api/state`, { token: open.token });
      for (let attempt = 1; state.status === 503 && attempt < RECOVERY_ATTEMPTS_MAX; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        state = await pageCall(app, `${open.path}/api/state`, { token: open.token });
      }
      assert.equal(state.status, 200, state.raw);
      const played = await pageCall(app, `${open.path}/api/play`, { token: open.token, bet: '1', chancePct: 50, clientSeed: 'after' });
      assert.equal(played.status, 200, played.raw);
      assert.equal((await adminCall(app, 'GET', '/admin/rounds')).status, 200);
    });
  }
});
