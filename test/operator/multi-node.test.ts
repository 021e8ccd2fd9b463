/**
 * Proves the operator wallet on several nodes in front of one PostgreSQL
 * database, over real sockets: three `wagerlink operator serve` processes on
 * three ports share a fresh schema. The same transaction sent to every node
 * at once applies once; distinct concurrent bets on one player, spread over
 * the nodes, never overdraw; when the database connections of every node are
 * terminated in the middle of a load, answers are 200 or 503 only, nothing
 * is half-applied, the nodes recover by themselves and the resent bets apply
 * once. `wagerlink operator migrate` and `verify` work on PostgreSQL, verify
 * passes after each run, and `serve --workers 2` runs two processes on one
 * port (SQLite refuses it).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { cleanEnv, freePort, runWagerlink, startWagerlink, type Child } from '../harness/child-process.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, adminOverHttp, ledgerOf, postSigned, tempDir, type HttpAnswer } from '../helpers.js';
import { freshSchema, POSTGRES_UNAVAILABLE, type Schema } from '../stores/postgres-fixtures.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/stores/postgres/migrations.js';

/** Nodes sharing the database. */
const NODES = 3;
/** Connections per node: three nodes and the test stay well inside max_connections. */
const NODE_POOL_SIZE = '3';
/** A call answered 503 is resent at most this many times (docs/protocol.md §3: 503 is retried). */
const RESENDS_MAX = 10;
const GAME = 'dice';

/** The child's environment; the parent's own WAGERLINK_* settings do not leak in. */
function childEnv(database: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    WAGERLINK_HOST: '127.0.0.1',
    WAGERLINK_DATABASE: database,
    WAGERLINK_SECRET: SECRET,
    WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN,
    WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN,
    WAGERLINK_LOG_LEVEL: 'info',
    WAGERLINK_PG_POOL_SIZE: NODE_POOL_SIZE,
    ...extra,
  });
}

interface Node {
  child: Child;
  origin: string;
  agent: Agent;
}

/**
 * Starts `wagerlink operator serve` and waits for its ready line. Nodes live
 * through several tests of a suite, which stops them; the harness kills any
 * left when the file ends.
 */
async function startNode(database: string, args: string[] = [], extra: Record<string, string> = {}): Promise<Node> {
  const port = await freePort();
  const { child } = await startWagerlink(['operator', 'serve', ...args], { env: childEnv(database, { WAGERLINK_PORT: String(port), ...extra }) });
  return { child, origin: `http://127.0.0.1:${port}`, agent: new Agent({ connections: 32 }) };
}

/** Runs the CLI to completion. */
function runCli(database: string, args: string[]) {
  return runWagerlink(args, { env: childEnv(database) });
}

interface Fixture {
  playerId: string;
  sessionId: string;
}

async function fixture(nodes: Node[], balance: number): Promise<Fixture> {
  const [first, second] = [nodes[0]!, nodes[1 % nodes.length]!];
  const playerId = `mn-${randomUUID().slice(0, 8)}`;
  const created = await adminOverHttp(first.origin, 'POST', '/admin/players', { playerId, currency: 'EUR', balance, country: 'DE' }, first.agent);
  assert.equal(created.status, 201, created.text);
  const key = await adminOverHttp(first.origin, 'POST', '/admin/launch-keys', { playerId, game: GAME }, first.agent);
  assert.equal(key.status, 201, key.text);
  // Opened on another node than the one that made the key.
  const session = await postSigned(second.origin, '/authenticate', JSON.stringify({ key: key.body.key, game: GAME }), second.agent);
  assert.equal(session.status, 200, session.text);
  return { playerId, sessionId: (JSON.parse(session.text) as { sessionId: string }).sessionId };
}

function betBody(f: Fixture, amount: number): { id: string; text: string } {
  const id = randomUUID();
  const text = JSON.stringify({
    sessionId: f.sessionId,
    playerId: f.playerId,
    game: GAME,
    transactions: [{ id, type: 'bet', amount }],
    round: { id: randomUUID(), finished: true },
  });
  return { id, text };
}

async function ledgerBets(node: Node, playerId: string): Promise<string[]> {
  const items = await ledgerOf(async (url) => {
    const answer = await adminOverHttp(node.origin, 'GET', url, undefined, node.agent);
    return { status: answer.status, text: answer.text };
  }, playerId);
  return items.filter((item) => item.kind === 'bet').map((item) => item.id);
}

async function balanceOver(node: Node, playerId: string): Promise<number> {
  const player = await adminOverHttp(node.origin, 'GET', `/admin/players/${playerId}`, undefined, node.agent);
  assert.equal(player.status, 200, player.text);
  return player.body.balance as number;
}

async function assertVerifies(database: string): Promise<void> {
  const cli = await runCli(database, ['operator', 'verify']);
  assert.equal(cli.code, 0, `${cli.stdout}\n${cli.stderr}`);
  assert.equal((JSON.parse(cli.stdout) as { ok: boolean }).ok, true, cli.stdout);
}

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('several nodes on one PostgreSQL database', { skip: POSTGRES_UNAVAILABLE }, () => {
  let schema: Schema;
  let database: string;
  const nodes: Node[] = [];
  const application = (index: number) => `wl-node-${index}-${process.pid}`;

  before(async () => {
    schema = await freshSchema('nodes');
    database = schema.url();
    const migrated = await runCli(database, ['operator', 'migrate']);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.deepEqual(
      (JSON.parse(migrated.stdout) as { applied: number[] }).applied,
      POSTGRES_MIGRATIONS.map((m) => m.version),
    );
    const again = await runCli(database, ['operator', 'migrate']);
    assert.deepEqual((JSON.parse(again.stdout) as { applied: number[] }).applied, []);
    for (let index = 0; index < NODES; index++) {
      // Each node names its connections, so that the fault test can find them.
      nodes.push(await startNode(schema.url({ application_name: application(index) })));
    }
  });

  after(async () => {
    for (const node of nodes) {
      await node.agent.close();
      await node.child.stop('SIGTERM');
    }
    await schema?.drop();
  });

  test('the same transaction sent to every node at once applies once', async () => {
    const f = await fixture(nodes, 100);
    for (let round = 1; round <= 5; round++) {
      const bet = betBody(f, 5);
      // Four copies to each node, all at once.
      const answers = await Promise.all(
        nodes.flatMap((node) => Array.from({ length: 4 }, () => postSigned(node.origin, '/transaction', bet.text, node.agent))),
      );
      for (const answer of answers) {
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.text, `{"balance":${100 - 5 * round}}`);
      }
    }
    const bets = await ledgerBets(nodes[2]!, f.playerId);
    assert.equal(bets.length, 5);
    assert.equal(new Set(bets).size, 5);
    assert.equal(await balanceOver(nodes[1]!, f.playerId), 75);
    await assertVerifies(database);
  });

  test('distinct concurrent bets on one player, spread over the nodes, never overdraw', async () => {
    const f = await fixture(nodes, 100);
    const bets = Array.from({ length: 30 }, () => betBody(f, 10));
    const answers = await Promise.all(bets.map((bet, i) => postSigned(nodes[i % NODES]!.origin, '/transaction', bet.text, nodes[i % NODES]!.agent)));
    const passed = answers.filter((answer) => answer.status === 200);
    assert.equal(passed.length, 10, answers.map((a) => `${a.status} ${a.text}`).join('\n'));
    for (const answer of answers.filter((a) => a.status !== 200)) {
      assert.equal(answer.status, 402, answer.text);
      assert.match(answer.contentType, /^application\/problem\+json/);
      assert.equal((JSON.parse(answer.text) as { code: string }).code, 'INSUFFICIENT_FUNDS');
    }
    const seen = passed.map((a) => (JSON.parse(a.text) as { balance: number }).balance).sort((x, y) => x - y);
    assert.deepEqual(seen, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    assert.equal(await balanceOver(nodes[0]!, f.playerId), 0);
    assert.equal((await ledgerBets(nodes[0]!, f.playerId)).length, 10);
    await assertVerifies(database);
  });

  test('database connections cut in the middle of a load: 200 or 503 only, the nodes recover, resent bets apply once', async () => {
    const f = await fixture(nodes, 1_000_000);
    const sent = new Map<string, string>();
    const unanswered: string[] = [];
    const statuses = new Map<number, number>();
    let cuts = 0;
    /** Waves of bets in flight on every node; the connections are cut during some of them. */
    const WAVES = 12;
    const PER_NODE = 8;
    for (let wave = 0; wave < WAVES; wave++) {
      const batch = nodes.flatMap((node) => Array.from({ length: PER_NODE }, () => ({ node, bet: betBody(f, 1) })));
      for (const { bet } of batch) sent.set(bet.id, bet.text);
      // Handled from the start: an answer may fail while the cut below is awaited.
      const answering = Promise.all(batch.map(({ node, bet }) => postSigned(node.origin, '/transaction', bet.text, node.agent))).catch((error: unknown) => {
        throw new Error(`a node stopped answering: ${String(error)}\n${nodes.map((node) => node.child.output()).join('\n---\n')}`);
      });
      answering.catch(() => undefined);
      if (wave % 3 === 1) {
        const killed = await schema.admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = ANY(${nodes.map((_node, index) => application(index))})`;
        cuts += killed.length;
      }
      const answers: HttpAnswer[] = await answering;
      answers.forEach((answer, index) => {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 200) return;
        assert.equal(answer.status, 503, answer.text);
        assert.match(answer.contentType, /^application\/problem\+json/);
        assert.equal((JSON.parse(answer.text) as { code: string }).code, 'SERVICE_UNAVAILABLE');
        unanswered.push(batch[index]!.bet.id);
      });
    }
    assert.ok(cuts > 0, 'no connection was terminated: the test proved nothing');
    // The nodes recovered by themselves (same processes): every unanswered bet, resent, is answered 200.
    for (const node of nodes) assert.equal(node.child.running, true, node.child.output());
    // A connection killed while idle fails its next call: resend on 503, as every client does.
    for (const [index, id] of unanswered.entries()) {
      const node = nodes[index % NODES]!;
      let answer = await postSigned(node.origin, '/transaction', sent.get(id)!, node.agent);
      for (let resend = 0; answer.status === 503 && resend < RESENDS_MAX; resend++) {
        answer = await postSigned(node.origin, '/transaction', sent.get(id)!, node.agent);
      }
      assert.equal(answer.status, 200, answer.text);
    }
    // A connection killed while idle is found dead by the call that next uses it: probe each node
    // until every connection of its pool has answered, before the reads below.
    for (const node of nodes) {
      let inARow = 0;
      for (let probe = 0; probe < 5 * RESENDS_MAX && inARow < 2 * Number(NODE_POOL_SIZE); probe++) {
        const health = await adminOverHttp(node.origin, 'GET', '/health', undefined, node.agent);
        inARow = health.status === 200 ? inARow + 1 : 0;
      }
    }
    const booked = await ledgerBets(nodes[0]!, f.playerId);
    assert.equal(new Set(booked).size, booked.length, 'a bet is booked twice');
    assert.deepEqual(new Set(booked), new Set(sent.keys()), 'the ledger holds exactly the bets sent');
    assert.equal(await balanceOver(nodes[2]!, f.playerId), 1_000_000 - sent.size);
    await assertVerifies(database);
    console.log(`cut summary: sent ${sent.size}, statuses ${JSON.stringify(Object.fromEntries(statuses))}, backends cut ${cuts}`);
  });

  test('serve --workers 2 runs two processes on one port, and stops on SIGTERM', async () => {
    const cluster = await startNode(database, ['--workers', '2']);
    try {
      assert.match(cluster.child.output(), /ready on http:\/\/127\.0\.0\.1:\d+ \(2 workers\)/);
      const f = await fixture([cluster], 50);
      const answers = await Promise.all(Array.from({ length: 10 }, () => postSigned(cluster.origin, '/transaction', betBody(f, 1).text, cluster.agent)));
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      assert.equal(await balanceOver(cluster, f.playerId), 40);
    } finally {
      await cluster.agent.close();
      const stopped = await cluster.child.stop('SIGTERM');
      assert.equal(stopped.code, 0, cluster.child.output());
    }
  });
});

describe('--workers on SQLite', () => {
  test('is refused with the reason: SQLite has one writer', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const port = await freePort();
      const refused = await runWagerlink(['operator', 'serve', '--workers', '2'], {
        env: childEnv(join(dir, 'operator.db'), { WAGERLINK_PORT: String(port) }),
      });
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /--workers 2 needs a database that several processes can write at once/);
    } finally {
      cleanup();
    }
  });
});
