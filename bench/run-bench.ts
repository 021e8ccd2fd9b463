/**
 * `npm run bench`: every server runs as its own process, and wrk drives it
 * over loopback with pre-signed requests (unique ids, the body sizes of real
 * requests, signatures checked by the server, durability on). Each row is
 * run RUNS times for SECONDS; the table shows medians, and ratios to the
 * ceiling measured in the same run: RUNS times first, then once before each
 * other row and once at the end, so that a shared machine's drift over the
 * bench weighs on the ceiling as on the rows. After each wallet row the ledger must
 * verify. The table is printed and written to bench/results/<date>.json.
 *
 * `npm run bench -- --smoke`: every row once for 2 s, with a small grown
 * ledger; CI runs it so the bench keeps working.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sign } from '../src/protocol/signing.js';
import { DEFAULT_RULES } from '../src/ledger/rules.js';
import { DEFAULT_CRYPTO_DECIMALS } from '../src/protocol/money.js';
import { openStore } from '../src/stores/open-store.js';
import { SYNC_WRITE_BYTES, syncLatency, wakeRoundTripUs, type SyncLatency } from './host-probe.js';
import { INTEGRATIONS, INTEGRATIONS_ROW, judgeTargets, verdictLines } from './targets.js';
import { childCpuSecondsFromTimes, CPU_UNMEASURED, cpuBetween, cpuPerRequest, sampleCpu, type CpuSample } from './cpu-usage.js';
import { END_TO_END_ROWS, endToEndRow, FORWARDER_ROW, type EndToEndGame } from './end-to-end-row.js';
import { rowFilter } from './row-filter.js';
import { commitTimes, SLOW_COMMIT_S } from './commit-times.js';
import { measureRun, STEAL_RETRIES, stealText } from './steal.js';
import {
  POSTGRES_ROWS,
  postgresRows,
  type BenchCaller,
  type BenchKit,
  type BenchRequest,
  type BenchSession,
  type Row,
  type RunResult,
} from './postgres-rows.js';
import { checkedTransaction } from '../src/protocol/checked-requests.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SECRET = 'bench-secret';
const ACCESS_TOKEN = 'bench-access-token';
const ADMIN_TOKEN = 'bench-admin-token';
const SERVER_ENV = { WAGERLINK_SECRET: SECRET, WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN, WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN };

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    runs: { type: 'string' },
    connections: { type: 'string', default: '64' },
    rows: { type: 'string' },
    'grown-rounds': { type: 'string' },
  },
});
const SMOKE = values.smoke;
const SECONDS = Number(values.seconds ?? (SMOKE ? 2 : 10));
const RUNS = Number(values.runs ?? (SMOKE ? 1 : 3));
const CONNECTIONS = Number(values.connections);
/** Rounds stored before the grown-ledger row: 1,000,000 (10,000 in smoke mode). */
const GROWN_ROUNDS = Number(values['grown-rounds'] ?? (SMOKE ? 10_000 : 1_000_000));
/** Requests prepared per second of load: above what this machine serves, so no request is sent twice. */
const REQUESTS_PER_SECOND_MAX = Number(process.env.WAGERLINK_BENCH_RATE_MAX ?? 40_000);
/** Players the bets are spread over (the hot-player row uses one). */
const PLAYERS = 256;
/** Rounds stored per call while growing the ledger: big batches, few commits. */
const GROW_BATCH = 2_000;
/** How long the disk is probed in smoke mode (the full bench probes for SYNC_PROBE_MS). */
const SMOKE_SYNC_PROBE_MS = 500;
/**
 * V8's helper threads (collection, compilation) for every server the bench
 * starts, the ceiling's included, on a host of SMALL_HOST_CORES or fewer:
 * there, Node's default of four wake onto the two cores that the server's
 * threads and wrk already share, and every wait for a core lands in some
 * request's latency. docs/sqlite-store.md, "Node's options on a small
 * machine", gives the same setting for production and what it was
 * measured to change.
 */
const SMALL_HOST_CORES = 2;
const SMALL_HOST_V8_POOL_SIZE = 1;
/** Cores this host offers the bench: what the servers' options are chosen by, and what the results record. */
const HOST_CORES = availableParallelism();
/**
 * Node options for every server the bench starts. WAGERLINK_BENCH_NODE_ARGS
 * replaces them, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a
 * row's time goes.
 */
const SERVER_NODE_ARGS =
  process.env.WAGERLINK_BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? (HOST_CORES <= SMALL_HOST_CORES ? [`--v8-pool-size=${SMALL_HOST_V8_POOL_SIZE}`] : []);

const log = (message: string) => console.error(`[bench] ${message}`);
/** What requests.lua writes to stderr once its requests are formatted and the run is about to start. */
const WRK_READY = 'wagerlink-bench: requests ready';

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

async function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...SERVER_NODE_ARGS, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    if (ready.test(output)) started();
  };
  let started = () => {};
  await new Promise<void>((resolve, reject) => {
    started = resolve;
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`process exited (${code}) before ready:\n${output}`)));
  });
  // Once ready, the output is read and dropped: a server logs a line per request, and keeping (and searching)
  // it all would cost this process, on the cores the server is measured on, more with every request.
  child.stdout!.off('data', onData).resume();
  child.stderr!.off('data', onData).resume();
  output = '';
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** Writes `count` requests, one per line (path, signature, body), for bench/requests.lua. */
async function writeRequests(file: string, count: number, make: (i: number) => BenchRequest): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < count; i++) {
    const { path, body, caller } = make(i);
    const line = caller ? `${path}\t${sign(caller.secret, body)}\t${caller.token}\t${body}\n` : `${path}\t${sign(SECRET, body)}\t${body}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/**
 * One wrk run against the server listening on `port`; `serverPids` are the
 * processes whose CPU (with their children's) is counted as the server's. The CPU window opens
 * when wrk says it is ready (requests.lua writes a line to stderr once it
 * has formatted every request), so that wrk's start-up, when the server is
 * idle, counts neither as the server's time nor as the machine's idle time.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function runWrk(port: number, requestsFile: string, serverPids?: number | readonly number[]): Promise<RunResult> {
  const script = join(ROOT, 'bench/requests.lua');
  // `times` reports the CPU that the load generator itself used.
  const command = `wrk -t1 -c${CONNECTIONS} -d${SECONDS}s --latency -s ${script} http://127.0.0.1:${port}; times`;
  const child = spawn('bash', ['-c', command], {
    env: { ...process.env, WAGERLINK_BENCH_REQUESTS: requestsFile, WAGERLINK_BENCH_THREADS: '1', WAGERLINK_BENCH_TOKEN: ACCESS_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let errors = '';
  let before: CpuSample | undefined;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
    if (!before && errors.includes(WRK_READY)) before = sampleCpu();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  const spent = before ? cpuBetween(before, sampleCpu(), serverPids) : CPU_UNMEASURED;
  if (code !== 0) throw new Error(`wrk failed: ${errors}`);
  // A server that died during the run leaves wrk reconnecting to nothing: its numbers would be a silent lie.
  const gone = [serverPids ?? []].flat().filter((pid) => !alive(pid));
  if (gone.length > 0) throw new Error(`a server (pid ${gone.join(', ')}) stopped during the run: no row is measured from it`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const requests = Number(/(\d+) requests in /.exec(out)?.[1]);
  const latency = (p: number) => Number(new RegExp(`latency_us p${p} (\\d+)`).exec(out)?.[1]) / 1000;
  const statuses: Record<string, number> = {};
  for (const match of out.matchAll(/^status (\d+) (\d+)$/gm)) statuses[match[1]!] = (statuses[match[1]!] ?? 0) + Number(match[2]);
  const cpu = childCpuSecondsFromTimes(out);
  return {
    requestsPerSecond: rps,
    p50Ms: latency(50),
    p90Ms: latency(90),
    p99Ms: latency(99),
    statuses,
    loadCpuSeconds: cpu,
    ...cpuPerRequest(spent, requests),
  };
}

/** An admin call, or a wallet call (`wallet`) as the environment's integration or as `wallet` names. */
async function api(port: number, method: string, path: string, body: unknown, wallet: boolean | BenchCaller = false): Promise<Record<string, unknown>> {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (wallet) {
    const caller = wallet === true ? { token: ACCESS_TOKEN, secret: SECRET } : wallet;
    headers.authorization = `Bearer ${caller.token}`;
    headers['x-server-authorization'] = sign(caller.secret, text);
  } else {
    headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  }
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, ...(method === 'GET' ? {} : { body: text }) });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Players with a session each, opened by the environment's integration or by `caller`. */
async function openSessions(port: number, count: number, balance = 1_000_000_000, caller?: BenchCaller): Promise<BenchSession[]> {
  const sessions: BenchSession[] = [];
  for (let i = 0; i < count; i++) {
    const playerId = `bench-${i}-${randomUUID().slice(0, 8)}`;
    await api(port, 'POST', '/admin/players', { playerId, currency: 'EUR', balance, country: 'DE' });
    const { key } = (await api(port, 'POST', '/admin/launch-keys', { playerId, game: 'dice' })) as { key: string };
    const { sessionId } = (await api(port, 'POST', '/authenticate', { key, game: 'dice' }, caller ?? true)) as { sessionId: string };
    sessions.push({ sessionId, playerId, game: 'dice' });
  }
  return sessions;
}

/**
 * The single bet's load from INTEGRATIONS studios: each added through the admin API (its secret sealed, its
 * token hashed), each with its share of the players, each bet signed with its studio's secret and sent with
 * its token, the studios taking turns request by request.
 */
async function studiosBets(port: number): Promise<(i: number) => BenchRequest> {
  const studios: { caller: BenchCaller; sessions: BenchSession[] }[] = [];
  for (let n = 1; n <= INTEGRATIONS; n++) {
    const made = (await api(port, 'POST', '/admin/integrations', { id: `bench-studio-${n}`, name: `Bench studio ${n}` })) as unknown as BenchCaller;
    const caller = { token: made.token, secret: made.secret };
    studios.push({ caller, sessions: await openSessions(port, PLAYERS / INTEGRATIONS, undefined, caller) });
  }
  return (i) => {
    const studio = studios[i % INTEGRATIONS]!;
    return { path: '/transaction', body: singleBet(studio.sessions[Math.floor(i / INTEGRATIONS) % studio.sessions.length]!), caller: studio.caller };
  };
}

function roundBody(session: BenchSession, transactions: unknown[], roundId: string = randomUUID(), finished = true): string {
  return JSON.stringify({
    sessionId: session.sessionId,
    playerId: session.playerId,
    game: session.game,
    transactions,
    round: { id: roundId, finished },
    regulatory: '',
  });
}

function singleBet(session: BenchSession): string {
  return roundBody(session, [{ id: randomUUID(), type: 'bet', amount: 1.5, jpAmount: 0.01 }]);
}

function summarize(runs: RunResult[], setAside: RunResult[] = []): Row {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    loadCpuShare: median(runs.map((r) => r.loadCpuSeconds / SECONDS)),
    serverCpuUs: median(runs.map((r) => r.serverCpuUs)),
    databaseCpuUs: median(runs.map((r) => r.databaseCpuUs)),
    machineIdleShare: median(runs.map((r) => r.machineIdleShare)),
    machineStealShare: median(runs.map((r) => r.machineStealShare)),
    serverQueuedShare: median(runs.map((r) => r.serverQueuedShare)),
    busiestThreadShare: median(runs.map((r) => r.busiestThreadShare)),
    runs,
    ...(setAside.length > 0 && { setAside }),
  };
}

/** Two seconds a run say whether the bench works: a smoke run measures nothing again. */
const stealRule = { retries: SMOKE ? 0 : STEAL_RETRIES, log };

const kit: BenchKit = {
  freePort,
  startProcess,
  stopProcess,
  writeRequests,
  runWrk,
  openSessions,
  singleBet,
  summarize,
  measureRun: (name, attempt, setAside) => measureRun(name, attempt, stealRule, setAside),
  api,
  log,
};

/**
 * The realistic mix: 70% rounds of [bet, win], 15% a bet and, 500 requests
 * later, its win in a request of its own, 5% replays of an earlier request,
 * 5% bets refused for funds (players kept poor for it), 5% payouts.
 */
function mixedRequests(rich: BenchSession[], poor: BenchSession[]): (i: number) => BenchRequest {
  const SPLIT_WIN_DISTANCE = 500;
  const pendingWins = new Map<number, BenchRequest>();
  const sent: BenchRequest[] = [];
  let draw = 0x2545f491;
  const random = () => {
    // xorshift: the same mix on every run.
    draw ^= draw << 13;
    draw ^= draw >>> 17;
    draw ^= draw << 5;
    return (draw >>> 0) / 4294967296;
  };
  return (i) => {
    const due = pendingWins.get(i);
    if (due) {
      pendingWins.delete(i);
      return due;
    }
    const session = rich[i % rich.length]!;
    const roll = random();
    let request: BenchRequest;
    if (roll < 0.7) {
      request = {
        path: '/transaction',
        body: roundBody(session, [
          { id: randomUUID(), type: 'bet', amount: 2 },
          { id: randomUUID(), type: 'win', amount: 1.9 },
        ]),
      };
    } else if (roll < 0.85) {
      const roundId = randomUUID();
      request = { path: '/transaction', body: roundBody(session, [{ id: randomUUID(), type: 'bet', amount: 1 }], roundId, false) };
      let at = i + SPLIT_WIN_DISTANCE;
      while (pendingWins.has(at)) at++;
      pendingWins.set(at, { path: '/transaction', body: roundBody(session, [{ id: randomUUID(), type: 'win', amount: 2.5 }], roundId, true) });
    } else if (roll < 0.9 && sent.length > 0) {
      return sent[Math.floor(random() * sent.length)]!;
    } else if (roll < 0.95) {
      request = { path: '/transaction', body: roundBody(poor[i % poor.length]!, [{ id: randomUUID(), type: 'bet', amount: 50 }]) };
    } else {
      request = {
        path: '/payout',
        body: JSON.stringify({ sessionId: session.sessionId, payoutId: randomUUID(), amount: 5, campaign: { id: randomUUID(), type: 'tournament' } }),
      };
    }
    if (sent.length < 10_000) sent.push(request);
    return request;
  };
}

/** Stores `rounds` single-bet rounds straight through the store, in big batches, before the server starts. */
async function growLedger(path: string, rounds: number): Promise<void> {
  const store = await openStore(path, { rules: DEFAULT_RULES, cryptoDecimals: { ...DEFAULT_CRYPTO_DECIMALS } });
  try {
    const now = Date.now();
    const sessions: BenchSession[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const playerId = `grown-${i}`;
      const created = await store.createPlayer({ playerId, currency: 'EUR', balance: 1_000_000_000, depositId: randomUUID(), now });
      const key = await store.createLaunchKey({ playerId, game: 'dice', key: randomUUID(), now });
      if (!created.ok || !key.ok) throw new Error('could not create the grown ledger players');
      const auth = await store.authenticate({ key: key.key, game: 'dice', now, newSessionId: randomUUID() });
      if (!auth.ok) throw new Error('could not open the grown ledger sessions');
      sessions.push({ sessionId: auth.sessionId, playerId, game: 'dice' });
    }
    for (let done = 0; done < rounds; done += GROW_BATCH) {
      const batch = Array.from({ length: Math.min(GROW_BATCH, rounds - done) }, (_, i) => {
        const session = sessions[(done + i) % sessions.length]!;
        return store.transact({
          now,
          request: checkedTransaction({
            ...session,
            transactions: [{ id: randomUUID(), type: 'bet', amount: 1 }],
            round: { id: randomUUID(), finished: true },
          }),
        });
      });
      const outcomes = await Promise.all(batch);
      if (outcomes.some((outcome) => !outcome.ok)) throw new Error('growing the ledger: a round was refused');
      if ((done / GROW_BATCH) % 50 === 0) log(`grown ledger: ${done} of ${rounds} rounds`);
    }
  } finally {
    await store.close();
  }
}

interface WalletRow {
  /** Prepares the database before the server starts. */
  prepare?: (dbPath: string) => Promise<void>;
  /** Builds the requests of one run from the sessions opened for it. */
  requests: (port: number) => Promise<(i: number) => BenchRequest>;
  /** Variables the server starts with beside the bench's own. */
  env?: Record<string, string>;
  /** wrk sends to a forwarder (bench/forwarder-server.ts) that sends each request on to the wallet; the CPU counted is both servers'. */
  forwarded?: boolean;
}

/** bench/forwarder-server.ts, sending on to the wallet listening on `operatorPort`. */
async function startForwarder(operatorPort: number): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = await startProcess(
    ['dist/bench/forwarder-server.js'],
    { ...SERVER_ENV, WAGERLINK_PORT: String(port), WAGERLINK_OPERATOR_URL: `http://127.0.0.1:${operatorPort}`, WAGERLINK_ACCESS_TOKEN: ACCESS_TOKEN },
    /ready on/,
  );
  return { child, port };
}

async function walletRow(work: string, name: string, row: WalletRow): Promise<Row> {
  const port = await freePort();
  const dbPath = join(work, `${name.replace(/\W+/g, '-')}.db`);
  if (row.prepare) await row.prepare(dbPath);
  const server = await startProcess(
    ['bin/wagerlink.js', 'operator', 'serve'],
    { ...SERVER_ENV, ...row.env, WAGERLINK_PORT: String(port), WAGERLINK_DATABASE: dbPath, WAGERLINK_LOG_LEVEL: 'info' },
    /ready on/,
  );
  const forwarder = row.forwarded ? await startForwarder(port) : undefined;
  try {
    const make = await row.requests(port);
    const runs: RunResult[] = [];
    const setAside: RunResult[] = [];
    for (let run = 0; run < RUNS; run++) {
      const attempt = async () => {
        // Fresh requests for every attempt: the ledger keeps what an attempt set aside was sent.
        const file = join(work, `${name.replace(/\W+/g, '-')}-${run}.txt`);
        await writeRequests(file, Math.ceil(REQUESTS_PER_SECOND_MAX * SECONDS), make);
        log(`${name}: run ${run + 1} of ${RUNS}`);
        const result = forwarder ? await runWrk(forwarder.port, file, [server.pid!, forwarder.child.pid!]) : await runWrk(port, file, server.pid);
        rmSync(file);
        return result;
      };
      runs.push(await kit.measureRun(name, attempt, setAside));
    }
    const report = await api(port, 'GET', '/admin/verify', undefined);
    if (report.ok !== true) throw new Error(`${name}: the ledger did not verify after the run: ${JSON.stringify(report)}`);
    const commits = commitTimes(await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text());
    return { ...summarize(runs, setAside), ...(commits && { commits }), note: `verified: ${String(report.transfers)} transfers` };
  } finally {
    if (forwarder) await stopProcess(forwarder.child);
    await stopProcess(server);
  }
}

// eslint-disable-next-line max-lines-per-function -- the bench's run in order: options, host probes, rows, report; each step feeds the next
async function main(): Promise<void> {
  const hasWrk = spawnSync('wrk', ['--version']).error === undefined;
  if (!hasWrk) throw new Error('wrk is not installed: apt-get install wrk');
  const work = mkdtempSync(join(tmpdir(), 'wagerlink-bench-'));
  // The databases of the wallet rows live in `work`: its disk is the one probed.
  const host: HostFacts = {
    wakeRoundTripUs: await wakeRoundTripUs(),
    sync: syncLatency(work, SMOKE ? SMOKE_SYNC_PROBE_MS : undefined),
    cores: HOST_CORES,
    serverNodeArgs: SERVER_NODE_ARGS,
  };
  log(hostLine(host));
  let rows: Record<string, Row> = {};
  const requestCount = Math.ceil(REQUESTS_PER_SECOND_MAX * SECONDS);
  // The ceiling: the same bodies and signature check, no storage. It stays up
  // for the whole bench and is measured between the wallet rows too, so that
  // the machine's drift over the bench reaches the ceiling as it reaches them.
  const ceilingPort = await freePort();
  const ceiling = await startProcess(['dist/bench/ceiling-server.js'], { WAGERLINK_PORT: String(ceilingPort), WAGERLINK_SECRET: SECRET }, /ready on/);
  const ceilingRuns: RunResult[] = [];
  const ceilingSetAside: RunResult[] = [];
  const ceilingFile = join(work, 'ceiling.txt');
  const measureCeiling = async (when: string) => {
    log(`ceiling: run ${ceilingRuns.length + 1} (${when})`);
    // The ceiling stores nothing: the same requests serve every attempt.
    ceilingRuns.push(await kit.measureRun('ceiling', () => runWrk(ceilingPort, ceilingFile, ceiling.pid), ceilingSetAside));
  };
  try {
    const fake: BenchSession = { sessionId: randomUUID(), playerId: 'bench-0', game: 'dice' };
    // Nothing is stored, so one file of requests serves every ceiling run.
    await writeRequests(ceilingFile, requestCount, () => ({ path: '/transaction', body: singleBet(fake) }));
    for (let run = 0; run < RUNS; run++) await measureCeiling('first');
    const spread = async (port: number) => {
      const sessions = await openSessions(port, PLAYERS);
      return (i: number) => ({ path: '/transaction', body: singleBet(sessions[i % sessions.length]!) });
    };
    const walletRows: [string, WalletRow][] = [
      ['wallet, single bet', { requests: spread }],
      // Next to the single bet, which its target compares it with.
      [INTEGRATIONS_ROW, { requests: studiosBets, env: { WAGERLINK_INTEGRATION_KEYS: `bench:${randomBytes(32).toString('base64')}` } }],
      // Next to the row its target compares it with, so that the host's drift over the bench falls between them as little as it can.
      ['wallet, grown ledger', { prepare: (dbPath) => growLedger(dbPath, GROWN_ROUNDS), requests: spread }],
      [
        'wallet, realistic mix',
        {
          requests: async (port) => mixedRequests(await openSessions(port, PLAYERS), await openSessions(port, 16, 10)),
        },
      ],
      [
        'wallet, hot player',
        {
          requests: async (port) => {
            const [session] = await openSessions(port, 1);
            return () => ({ path: '/transaction', body: singleBet(session!) });
          },
        },
      ],
      // Last, next to the end-to-end rows it bounds.
      [FORWARDER_ROW, { requests: spread, forwarded: true }],
    ];
    const wanted = rowFilter(values.rows, [...walletRows.map(([name]) => name), ...Object.values(END_TO_END_ROWS), ...POSTGRES_ROWS]);
    for (const [name, row] of walletRows) {
      if (!wanted(name)) continue;
      await measureCeiling(`before ${name}`);
      rows[name] = await walletRow(work, name, row);
    }
    for (const [game, name] of Object.entries(END_TO_END_ROWS) as [EndToEndGame, string][]) {
      if (!wanted(name)) continue;
      await measureCeiling(`before ${name}`);
      rows[name] = await endToEndRow(kit, game, { work, runs: RUNS, launches: CONNECTIONS, env: SERVER_ENV });
    }
    if (POSTGRES_ROWS.some(wanted)) {
      await measureCeiling('before the postgres rows');
      Object.assign(rows, await postgresRows(kit, { work, runs: RUNS, seconds: SECONDS, requestCount, players: PLAYERS, env: SERVER_ENV, wanted }));
    }
    await measureCeiling('last');
  } finally {
    await stopProcess(ceiling);
    rmSync(work, { recursive: true, force: true });
  }
  const spread = ceilingRuns.map((r) => r.requestsPerSecond);
  rows = {
    ceiling: {
      ...summarize(ceilingRuns, ceilingSetAside),
      note: `median of ${ceilingRuns.length} runs spread over the bench: ${Math.round(Math.min(...spread))} to ${Math.round(Math.max(...spread))} req/s`,
    },
    ...rows,
  };
  report(rows, host);
}

/** A share as a whole percentage; '-' where it was not measured (no /proc). */
function percent(share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)}%` : '-';
}

/** What the bench measures of the host itself, beside the rows. */
interface HostFacts {
  /** See host-probe.ts. */
  wakeRoundTripUs: number;
  /** See host-probe.ts. */
  sync: SyncLatency;
  /** Cores the host offers, and the Node options every server ran with. */
  cores: number;
  serverNodeArgs: string[];
}

const SYNC_WRITE_KIB = SYNC_WRITE_BYTES / 1024;

function hostLine(host: HostFacts): string {
  const { sync } = host;
  return (
    `host: one thread wakes another and is woken back in ${host.wakeRoundTripUs.toFixed(1)} µs; ` +
    `a ${SYNC_WRITE_KIB} KiB write is synced in ${sync.p50Ms.toFixed(2)} ms at the median, ${sync.p99Ms.toFixed(2)} at p99, ${sync.maxMs.toFixed(1)} at most (${sync.syncs} syncs); ` +
    `${host.cores} cores, servers run with ${host.serverNodeArgs.length > 0 ? host.serverNodeArgs.join(' ') : "Node's default options"}`
  );
}

function report(rows: Record<string, Row>, host: HostFacts): void {
  const ceiling = rows.ceiling!;
  const table = Object.entries(rows).map(([name, row]) => ({
    row: name,
    'req/s': Math.round(row.requestsPerSecond),
    'p50 ms': row.p50Ms.toFixed(2),
    'p99 ms': row.p99Ms.toFixed(2),
    'x ceiling': (row.requestsPerSecond / ceiling.requestsPerSecond).toFixed(2),
    'p99 x ceiling': (row.p99Ms / ceiling.p99Ms).toFixed(2),
    'wrk CPU': percent(row.loadCpuShare),
    'server µs/req': Number.isFinite(row.serverCpuUs) ? Math.round(row.serverCpuUs) : '-',
    'db µs/req': Number.isFinite(row.databaseCpuUs) && row.databaseCpuUs > 0 ? Math.round(row.databaseCpuUs) : '-',
    queued: percent(row.serverQueuedShare),
    'busiest thread': percent(row.busiestThreadShare),
    idle: percent(row.machineIdleShare),
    stolen: percent(row.machineStealShare),
    // Runs measured again because the host took over STEAL_SET_ASIDE_SHARE of the CPU (steal.ts).
    'set aside': row.setAside ? row.setAside.map((r) => stealText(r.machineStealShare)).join(' ') : '-',
    [`commits > ${SLOW_COMMIT_S * 1000} ms`]: row.commits ? `${row.commits.slow} of ${row.commits.commits}` : '-',
    statuses: JSON.stringify(
      row.runs.reduce<Record<string, number>>((all, r) => {
        for (const [k, v] of Object.entries(r.statuses)) all[k] = (all[k] ?? 0) + v;
        return all;
      }, {}),
    ),
  }));
  console.table(table);
  if (ceiling.note) console.log(`ceiling: ${ceiling.note}`);
  for (const name of Object.values(END_TO_END_ROWS)) if (rows[name]?.note) console.log(`${name}: ${rows[name].note}`);
  const grown = rows['wallet, grown ledger'];
  const single = rows['wallet, single bet'];
  if (grown && single) console.log(`grown ledger / empty ledger: ${(grown.requestsPerSecond / single.requestsPerSecond).toFixed(2)}`);
  const forwarded = rows[FORWARDER_ROW];
  if (forwarded && single) {
    console.log(
      `${FORWARDER_ROW} / single bet: ${(forwarded.requestsPerSecond / single.requestsPerSecond).toFixed(2)}, the bound of the end-to-end rows on this host`,
    );
  }
  console.log(hostLine(host));
  // Two seconds a row and a ledger of 10,000 rounds say whether the bench works, not how fast the wallet is.
  const targets = SMOKE ? [] : judgeTargets(rows);
  if (SMOKE) console.log('targets: not judged in a smoke run');
  for (const line of verdictLines(targets)) console.log(line);
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, `bench/results/${SMOKE ? 'smoke-' : ''}${date}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, runs: RUNS, connections: CONNECTIONS, grownRounds: GROWN_ROUNDS, host, targets, rows }, null, 2)}\n`,
  );
  console.log(`written ${file}`);
}

await main();
