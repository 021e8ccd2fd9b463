/**
 * Proves the operator wallet through a PostgreSQL failover managed by
 * pg_auto_failover (scripts/pg-failover.sh: a monitor, a primary and a
 * synchronous secondary on ports of their own): two `wagerlink operator
 * serve` nodes on the formation's multi-host URL (target_session_attrs=
 * read-write) take a steady stream of signed bets from clients that resend
 * the same body on 503. The primary's machine is lost (SIGKILL to its
 * pg_autoctl and PostgreSQL), the secondary is promoted, the old primary
 * rejoins as the secondary, and then the same again the other way. Every
 * answer is 200 or 503; every bet acknowledged is in the ledger once, and
 * nothing else is; `verify` passes; the nodes recovered without a restart.
 * The failover time, the 503s and the longest wait a player saw are
 * printed. Skipped, saying so, where pg_autoctl is not installed (.ci/run
 * installs it).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'undici';
import { Child, cleanEnv, freePort, ROOT, runWagerlink, startWagerlink } from '../../harness/child-process.js';
import { ADMIN_TOKEN, adminOverHttp, ledgerOf, operatorServeEnv, postSigned, walletHeaders } from '../../helpers.js';

const SCRIPT = join(ROOT, 'scripts', 'pg-failover.sh');

/** Why this file cannot run here, or undefined when it can. */
const FAILOVER_UNAVAILABLE: string | undefined =
  spawnSync('pg_autoctl', ['--version']).status === 0
    ? undefined
    : 'pg_autoctl is not installed, so the failover test is skipped (apt-get install postgresql-15-auto-failover pg-auto-failover-cli)';

/** Wallet nodes on the formation. */
const NODES = 2;
/** Clients sending bets one after another, each its own player. */
const CLIENTS = 6;
/** A bet answered 503 is resent after Retry-After, or this long when the answer names none (ms). */
const RESEND_DELAY_MS = 250;
/** A bet still unanswered 200 after this long fails the test (ms): a failover here takes about 10 s. */
const BET_WAIT_MS_MAX = 60_000;
/** Load before each loss, and after the new primary's first answer (ms). */
const STEADY_MS = 3_000;
/** A formation step (start, promotion, rejoin) that takes longer than this failed (ms). */
const STEP_TIMEOUT_MS = 150_000;
const GAME = 'dice';
const BALANCE = 10_000_000;

/** Runs the formation script to its end; fails, naming its output, on a non-zero exit. */
async function formation(args: string[]): Promise<string> {
  const child = new Child('bash', [SCRIPT, ...args], { env: cleanEnv({ PG_FAILOVER_TIMERS: 'short' }) });
  const exit = await child.exited(STEP_TIMEOUT_MS);
  assert.equal(exit.code, 0, `pg-failover.sh ${args.join(' ')}:\n${child.output()}`);
  return child.stdout.trim();
}

/** A first port of three free consecutive ones on 127.0.0.1 (monitor, node1, node2). */
async function freeBasePort(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = await freePort();
    if (base > 65_000) continue;
    if ((await free(base + 1)) && (await free(base + 2))) return base;
  }
  throw new Error('no three free consecutive ports');
}

interface Node {
  child: Child;
  origin: string;
  agent: Agent;
}

interface Player {
  playerId: string;
  sessionId: string;
}

/** One bet as a client saw it: when it was first sent, when its 200 came, and the 503s between. */
interface Bet {
  id: string;
  firstSentAt: number;
  /** When the attempt that was answered 200 was sent. */
  answeredAttemptAt: number;
  answeredAt: number;
  unavailable: number;
  retryAfterSeen: boolean;
}

/** Sends a bet until it is answered 200, resending the same body on 503; any other answer fails the test. */
async function sendUntilAnswered(nodes: Node[], player: Player, turn: number): Promise<Bet> {
  const id = randomUUID();
  const text = JSON.stringify({
    sessionId: player.sessionId,
    playerId: player.playerId,
    game: GAME,
    transactions: [{ id, type: 'bet', amount: 1 }],
    round: { id: randomUUID(), finished: true },
  });
  const firstSentAt = Date.now();
  let unavailable = 0;
  let retryAfterSeen = false;
  for (let attempt = 0; ; attempt++) {
    // A resend goes to the other node, as a load balancer may send it.
    const node = nodes[(turn + attempt) % nodes.length]!;
    const attemptAt = Date.now();
    const response = await request(new URL('/transaction', node.origin), { method: 'POST', headers: walletHeaders(text), body: text, dispatcher: node.agent });
    const answer = await response.body.text();
    if (response.statusCode === 200) return { id, firstSentAt, answeredAttemptAt: attemptAt, answeredAt: Date.now(), unavailable, retryAfterSeen };
    assert.equal(response.statusCode, 503, answer);
    assert.equal((JSON.parse(answer) as { code: string }).code, 'SERVICE_UNAVAILABLE', answer);
    unavailable++;
    const retryAfter = response.headers['retry-after'];
    retryAfterSeen ||= retryAfter !== undefined;
    assert.ok(Date.now() - firstSentAt < BET_WAIT_MS_MAX, `bet ${id} still unanswered after ${BET_WAIT_MS_MAX} ms: ${answer}`);
    await new Promise((resolve) => setTimeout(resolve, retryAfter === undefined ? RESEND_DELAY_MS : Number(retryAfter) * 1_000));
  }
}

/** Clients betting until stopped; every bet they finish is answered 200. */
function load(nodes: Node[], players: Player[]): { bets: Bet[]; stop: () => Promise<void> } {
  const bets: Bet[] = [];
  let stopping = false;
  const clients = players.map(async (player, index) => {
    for (let turn = index; !stopping; turn++) bets.push(await sendUntilAnswered(nodes, player, turn));
  });
  const all = Promise.all(clients);
  all.catch(() => undefined);
  return {
    bets,
    stop: async () => {
      stopping = true;
      await all;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `${what} did not happen within ${STEP_TIMEOUT_MS} ms`);
    await sleep(250);
  }
}

interface Switch {
  from: string;
  to: string;
  /** From the loss until the monitor showed the other node as the one taking writes (ms), within a 250 ms poll. */
  promotedMs: number;
  /** From the loss to the first bet answered 200 whose attempt was sent after it (ms). */
  failoverMs: number;
  /** 503 answers to bets sent around the switch. */
  unavailable: number;
  /** The longest a bet waited from its first send to its 200 (ms). */
  longestWaitMs: number;
  retryAfterSeen: boolean;
  /** Every bet acknowledged during this switch's load. */
  bets: Bet[];
}

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one formation, each of them short
describe('the wallet through a PostgreSQL failover (pg_auto_failover)', { skip: FAILOVER_UNAVAILABLE }, () => {
  let dir: string;
  let url: string;
  const nodes: Node[] = [];
  const players: Player[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wl-failover-'));
    url = await formation(['start', dir, String(await freeBasePort())]);
    assert.match(url, /^postgres:\/\/\w+@127\.0\.0\.1:\d+,127\.0\.0\.1:\d+\/wagerlink\?.*target_session_attrs=read-write/);
    const migrated = await runWagerlink(['operator', 'migrate'], { env: cleanEnv({ WAGERLINK_DATABASE: url }) });
    assert.equal(migrated.code, 0, migrated.stderr);
    for (let index = 0; index < NODES; index++) {
      const port = await freePort();
      const env = cleanEnv({ ...operatorServeEnv(port, url), WAGERLINK_PG_POOL_SIZE: '2', WAGERLINK_LOG_LEVEL: 'info' });
      const { child } = await startWagerlink(['operator', 'serve'], { env });
      nodes.push({ child, origin: `http://127.0.0.1:${port}`, agent: new Agent({ connections: 16 }) });
    }
    for (let index = 0; index < CLIENTS; index++) {
      const node = nodes[index % NODES]!;
      const playerId = `fo-${index}-${randomUUID().slice(0, 8)}`;
      const created = await adminOverHttp(node.origin, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: BALANCE, country: 'DE' }, node.agent);
      assert.equal(created.status, 201, created.text);
      const key = await adminOverHttp(node.origin, 'POST', '/admin/launch-keys', { playerId, game: GAME }, node.agent);
      assert.equal(key.status, 201, key.text);
      const session = await postSigned(node.origin, '/authenticate', JSON.stringify({ key: key.body.key, game: GAME }), node.agent);
      assert.equal(session.status, 200, session.text);
      players.push({ playerId, sessionId: (JSON.parse(session.text) as { sessionId: string }).sessionId });
    }
  });

  after(async () => {
    for (const node of nodes) {
      await node.agent.close();
      await node.child.stop('SIGTERM');
    }
    if (dir !== undefined) {
      await formation(['stop', dir]).catch((error: unknown) => console.log(String(error)));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Loses the primary's machine under load, waits for the promotion and the first answers, rejoins the old primary. */
  async function loseThePrimary(): Promise<Switch> {
    const from = await formation(['primary', dir]);
    assert.match(from, /^node[12]$/);
    const running = load(nodes, players);
    await sleep(STEADY_MS);
    await formation(['kill', dir, from]);
    // Once the kill has returned: bets answered before then may still be the old primary's.
    const lostAt = Date.now();
    const to = await waitFor('the promotion', async () => {
      const now = await formation(['primary', dir]);
      return now !== '' && now !== from ? now : undefined;
    });
    const promotedMs = Date.now() - lostAt;
    const first = await waitFor('a bet answered by the new primary', () => Promise.resolve(running.bets.find((bet) => bet.answeredAttemptAt > lostAt)));
    await sleep(STEADY_MS);
    await running.stop();
    await formation(['rejoin', dir, from]);
    await formation(['wait', dir]);
    const around = running.bets.filter((bet) => bet.answeredAt > lostAt);
    return {
      from,
      to,
      promotedMs,
      failoverMs: first.answeredAt - lostAt,
      unavailable: running.bets.reduce((sum, bet) => sum + bet.unavailable, 0),
      longestWaitMs: Math.max(...around.map((bet) => bet.answeredAt - bet.firstSentAt)),
      retryAfterSeen: running.bets.some((bet) => bet.retryAfterSeen),
      bets: running.bets,
    };
  }

  test('the primary lost twice under load, once each way: every acknowledged bet is booked once, verify passes', async () => {
    const switches: Switch[] = [];
    switches.push(await loseThePrimary());
    switches.push(await loseThePrimary());
    assert.equal(switches[1]!.to, switches[0]!.from, 'the fail-back went back to the first primary');
    for (const node of nodes) assert.equal(node.child.running, true, node.child.output());

    const acknowledged = switches.flatMap((s) => s.bets);
    const booked: string[] = [];
    for (const player of players) {
      const items = await ledgerOf(async (path) => {
        const answer = await request(new URL(path, nodes[0]!.origin), { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, dispatcher: nodes[0]!.agent });
        return { status: answer.statusCode, text: await answer.body.text() };
      }, player.playerId);
      booked.push(...items.filter((item) => item.kind === 'bet').map((item) => item.id));
    }
    assert.equal(new Set(booked).size, booked.length, 'a bet is booked twice');
    assert.deepEqual(new Set(booked), new Set(acknowledged.map((bet) => bet.id)), 'the ledger holds exactly the bets acknowledged');

    const verified = await runWagerlink(['operator', 'verify'], { env: cleanEnv({ WAGERLINK_DATABASE: url }) });
    assert.equal(verified.code, 0, `${verified.stdout}\n${verified.stderr}`);
    assert.equal((JSON.parse(verified.stdout) as { ok: boolean }).ok, true, verified.stdout);

    // A storage 503 says when to come back (docs/protocol.md §3.3); the count of them is only reported.
    for (const s of switches) assert.ok(s.unavailable === 0 || s.retryAfterSeen, `${s.from} -> ${s.to}: no 503 said Retry-After`);
    for (const s of switches) {
      console.log(
        `failover ${s.from} -> ${s.to}: promoted ${(s.promotedMs / 1000).toFixed(1)} s after the loss, first bet answered ${(s.failoverMs / 1000).toFixed(1)} s after the loss, ` +
          `${s.unavailable} answers 503 (Retry-After ${s.retryAfterSeen ? 'given' : 'not given'}), ` +
          `longest wait a player saw ${(s.longestWaitMs / 1000).toFixed(1)} s, ${s.bets.length} bets acknowledged`,
      );
    }
  });
});
