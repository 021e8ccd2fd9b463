/**
 * Proves that an acknowledged wallet call survives kill -9 (docs/protocol.md §3,
 * §6.2, §6.4): the real server runs as a child process (`wagerlink operator
 * serve`), a stream of bets is cut by SIGKILL while several are in flight,
 * and after a restart on the same database every bet that was answered 200
 * is in the ledger, every bet the client sent but never saw answered can be
 * resent and is applied at most once, and the books verify, through the API
 * and through `wagerlink operator verify` once the server has stopped.
 *
 * It runs on SQLite, where the server process itself makes each commit
 * durable before answering; on PostgreSQL the database does, and
 * multi-node.test.ts cuts the database connections mid-load instead.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { cleanEnv, freePort, runWagerlink, startWagerlink, type Child, type TestScope } from '../harness/child-process.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, adminOverHttp, ledgerOf, postSigned, tempDir } from '../helpers.js';

/** Starts tried before giving up when the chosen port was taken meanwhile. */
const START_ATTEMPTS_MAX = 3;
/** Bets the client keeps in flight at once. */
const BETS_IN_FLIGHT = 6;
/** The server is killed once this many bets of the current life were answered 200. */
const ACKED_BEFORE_KILL = 120;
/** Bets sent in one life of the server at most, should the kill somehow not happen. */
const BETS_PER_LIFE_MAX = 5_000;
/** Lives of the server that end in SIGKILL. */
const CRASHES = 2;

const INITIAL_BALANCE = 1_000_000; // EUR
const BET = 10; // EUR
const GAME = 'dice';

const { dir, cleanup } = tempDir('wagerlink-crash-');
const dbPath = join(dir, 'operator.db');

after(() => {
  cleanup();
});

/** The child's environment; `port` is left out for commands that do not listen. */
function serverEnv(port?: number): NodeJS.ProcessEnv {
  return cleanEnv({
    WAGERLINK_HOST: '127.0.0.1',
    ...(port === undefined ? {} : { WAGERLINK_PORT: String(port) }),
    WAGERLINK_DATABASE: dbPath,
    WAGERLINK_SECRET: SECRET,
    WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN,
    WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN,
    WAGERLINK_LOG_LEVEL: 'info',
  });
}

interface Server {
  child: Child;
  origin: string;
  agent: Agent;
}

/** Starts `wagerlink operator serve` on the test database and waits for its ready line; the test's end kills it. */
async function startServer(t: TestScope): Promise<Server> {
  let lastFailure = '';
  for (let attempt = 1; attempt <= START_ATTEMPTS_MAX; attempt++) {
    const port = await freePort();
    try {
      const { child } = await startWagerlink(['operator', 'serve'], { env: serverEnv(port), until: t });
      return { child, origin: `http://127.0.0.1:${port}`, agent: new Agent({ connections: BETS_IN_FLIGHT * 2 }) };
    } catch (error) {
      lastFailure = `attempt ${attempt}: ${(error as Error).message}`;
    }
  }
  throw new Error(`the server did not start:\n${lastFailure}`);
}

interface Fixture {
  playerId: string;
  sessionId: string;
}

async function createFixture(server: Server): Promise<Fixture> {
  const playerId = `crash-${randomUUID().slice(0, 8)}`;
  const created = await adminOverHttp(
    server.origin,
    'POST',
    '/admin/players',
    { playerId, currency: 'EUR', balance: INITIAL_BALANCE, country: 'DE' },
    server.agent,
  );
  assert.equal(created.status, 201, created.text);
  const key = await adminOverHttp(server.origin, 'POST', '/admin/launch-keys', { playerId, game: GAME }, server.agent);
  assert.equal(key.status, 201, key.text);
  const session = await postSigned(server.origin, '/authenticate', JSON.stringify({ key: key.body.key, game: GAME }), server.agent);
  assert.equal(session.status, 200, session.text);
  return { playerId, sessionId: (JSON.parse(session.text) as { sessionId: string }).sessionId };
}

/** A bet that is its own finished round; the client keeps its exact text to resend. */
function betBody(fixture: Fixture): { id: string; text: string } {
  const id = randomUUID();
  const text = JSON.stringify({
    sessionId: fixture.sessionId,
    playerId: fixture.playerId,
    game: GAME,
    transactions: [{ id, type: 'bet', amount: BET }],
    round: { id: randomUUID(), finished: true },
  });
  return { id, text };
}

interface Client {
  /** Every bet sent, by id: the client persists a bet before sending it. */
  sent: Map<string, string>;
  acked: Set<string>;
  /** Answers that were neither 200 nor a network error: none are expected. */
  unexpected: string[];
}

/**
 * Streams bets with a few in flight and kills the server with SIGKILL with
 * the first bet sent after ACKED_BEFORE_KILL of them were answered, while
 * that bet and the others are on the wire.
 */
async function streamUntilKilled(server: Server, fixture: Fixture, client: Client): Promise<void> {
  let ackedThisLife = 0;
  let sentThisLife = 0;
  let killed = false;
  const worker = async () => {
    while (!killed && sentThisLife < BETS_PER_LIFE_MAX) {
      const bet = betBody(fixture);
      client.sent.set(bet.id, bet.text);
      sentThisLife++;
      const answered = postSigned(server.origin, '/transaction', bet.text, server.agent);
      // The kill comes as a bet leaves, not as an answer arrives: a group
      // commit answers every bet in flight at once, and answers already on
      // the client's side of the sockets would all count as acknowledged.
      if (ackedThisLife >= ACKED_BEFORE_KILL && !killed) {
        killed = true;
        server.child.signal('SIGKILL');
      }
      try {
        const answer = await answered;
        if (answer.status === 200) {
          client.acked.add(bet.id);
          ackedThisLife++;
        } else {
          client.unexpected.push(`${answer.status} ${answer.text}`);
        }
      } catch {
        // The connection died with the server: this bet is unacknowledged.
      }
    }
  };
  await Promise.all(Array.from({ length: BETS_IN_FLIGHT }, worker));
  assert.ok(killed, `the server was not killed within ${BETS_PER_LIFE_MAX} bets:\n${server.child.output()}`);
  const stopped = await server.child.stop('SIGKILL');
  assert.equal(stopped.signal, 'SIGKILL');
  await server.agent.destroy();
}

async function ledgerBets(server: Server, playerId: string): Promise<string[]> {
  const items = await ledgerOf(async (url) => {
    const answer = await adminOverHttp(server.origin, 'GET', url, undefined, server.agent);
    return { status: answer.status, text: answer.text };
  }, playerId);
  return items.filter((item) => item.kind === 'bet').map((item) => item.id);
}

async function balanceOver(server: Server, playerId: string): Promise<number> {
  const player = await adminOverHttp(server.origin, 'GET', `/admin/players/${playerId}`, undefined, server.agent);
  assert.equal(player.status, 200, player.text);
  return player.body.balance as number;
}

/** After a restart: every acknowledged bet is booked once, and the balance is what the booked bets say. */
async function assertAckedAreBooked(server: Server, fixture: Fixture, client: Client): Promise<string[]> {
  const booked = await ledgerBets(server, fixture.playerId);
  assert.equal(new Set(booked).size, booked.length, 'a bet is booked twice');
  const bookedSet = new Set(booked);
  const lost = [...client.acked].filter((id) => !bookedSet.has(id));
  assert.deepEqual(lost, [], 'acknowledged bets are missing after kill -9');
  const strangers = booked.filter((id) => !client.sent.has(id));
  assert.deepEqual(strangers, [], 'bets nobody sent are booked');
  assert.equal(await balanceOver(server, fixture.playerId), INITIAL_BALANCE - BET * booked.length);
  return booked;
}

test('acknowledged bets survive kill -9, and resent unacknowledged bets are applied at most once', { timeout: 180_000 }, async (t) => {
  const client: Client = { sent: new Map(), acked: new Set(), unexpected: [] };
  let server = await startServer(t);
  const fixture = await createFixture(server);

  for (let crash = 1; crash <= CRASHES; crash++) {
    await streamUntilKilled(server, fixture, client);
    server = await startServer(t);
    await assertAckedAreBooked(server, fixture, client);
  }
  assert.deepEqual(client.unexpected, [], 'bets were refused while the server was up');

  // Resend every bet whose answer never came, exactly as first sent, a few at a time.
  const unacked = [...client.sent.keys()].filter((id) => !client.acked.has(id));
  assert.ok(unacked.length > 0, 'no bet was in flight at a kill: the test proved nothing about them');
  const booked = new Set(await ledgerBets(server, fixture.playerId));
  const appliedButUnacked = unacked.filter((id) => booked.has(id)).length;
  for (let start = 0; start < unacked.length; start += BETS_IN_FLIGHT) {
    const answers = await Promise.all(
      unacked.slice(start, start + BETS_IN_FLIGHT).map((id) => postSigned(server.origin, '/transaction', client.sent.get(id)!, server.agent)),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
  }
  // Acknowledged bets resent once more change nothing either.
  const ackedSample = [...client.acked].slice(0, 20);
  for (const id of ackedSample) {
    const answer = await postSigned(server.origin, '/transaction', client.sent.get(id)!, server.agent);
    assert.equal(answer.status, 200, answer.text);
  }

  const finalBooked = await ledgerBets(server, fixture.playerId);
  assert.equal(new Set(finalBooked).size, finalBooked.length, 'a resent bet was booked twice');
  assert.deepEqual(new Set(finalBooked), new Set(client.sent.keys()), 'the ledger holds exactly the bets sent');
  assert.equal(await balanceOver(server, fixture.playerId), INITIAL_BALANCE - BET * client.sent.size);

  const verified = await adminOverHttp(server.origin, 'GET', '/admin/verify', undefined, server.agent);
  assert.equal(verified.status, 200, verified.text);
  assert.equal(verified.body.ok, true, verified.text);

  // A graceful stop, then the CLI checks the same file with the server gone.
  await server.agent.close();
  const stopped = await server.child.stop('SIGTERM');
  assert.equal(stopped.code, 0, server.child.output());
  const cli = await runWagerlink(['operator', 'verify'], { env: serverEnv() });
  assert.equal(cli.code, 0, `${cli.stdout}\n${cli.stderr}`);
  assert.equal((JSON.parse(cli.stdout) as { ok: boolean }).ok, true, cli.stdout);

  console.log(
    `crash summary: sent ${client.sent.size}, acknowledged ${client.acked.size}, unacknowledged ${unacked.length} ` +
      `(of which applied before the kill: ${appliedButUnacked})`,
  );
});
