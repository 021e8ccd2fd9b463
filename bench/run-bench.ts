/**
 * `npm run bench`: each server runs as its own process and wrk drives it
 * over loopback with pre-signed requests (unique ids, real body sizes,
 * signatures checked). Prints a table and writes bench/results/<date>.json.
 *
 * `npm run bench -- --smoke` runs every row for 2 s once: CI keeps it working.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sign } from '../src/protocol/signing.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SECRET = 'bench-secret';
const ACCESS_TOKEN = 'bench-access-token';
const ADMIN_TOKEN = 'bench-admin-token';

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    runs: { type: 'string' },
    connections: { type: 'string', default: '64' },
    rows: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds ?? (values.smoke ? 2 : 10));
const RUNS = Number(values.runs ?? (values.smoke ? 1 : 3));
const CONNECTIONS = Number(values.connections);
/** Requests prepared per second of load: above what this machine can serve, so none is ever resent. */
const REQUESTS_PER_SECOND_MAX = Number(process.env.WAGERLINK_BENCH_RATE_MAX ?? 40_000);
const PLAYERS = 256;

interface RunResult {
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  loadCpuSeconds: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

async function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`process exited (${code}) before ready:\n${output}`)));
  });
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** Writes `count` requests, one per line, for bench/requests.lua. */
async function writeRequests(file: string, count: number, make: (i: number) => { path: string; body: string }): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < count; i++) {
    const { path, body } = make(i);
    if (!out.write(`${path}\t${sign(SECRET, body)}\t${body}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function runWrk(port: number, requestsFile: string): RunResult {
  const script = join(ROOT, 'bench/requests.lua');
  // `times` reports the CPU the load generator itself used.
  const command = `wrk -t1 -c${CONNECTIONS} -d${SECONDS}s --latency -s ${script} http://127.0.0.1:${port}; times`;
  const result = spawnSync('bash', ['-c', command], {
    env: { ...process.env, WAGERLINK_BENCH_REQUESTS: requestsFile, WAGERLINK_BENCH_THREADS: '1', WAGERLINK_BENCH_TOKEN: ACCESS_TOKEN },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr}`);
  const out = result.stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const latency = (p: number) => Number(new RegExp(`latency_us p${p} (\\d+)`).exec(out)?.[1]) / 1000;
  const statuses: Record<string, number> = {};
  for (const match of out.matchAll(/^status (\d+) (\d+)$/gm)) statuses[match[1]!] = (statuses[match[1]!] ?? 0) + Number(match[2]);
  const times = [...out.matchAll(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/g)].at(-1);
  const cpu = times ? Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]) : Number.NaN;
  return { requestsPerSecond: rps, p50Ms: latency(50), p90Ms: latency(90), p99Ms: latency(99), statuses, loadCpuSeconds: cpu };
}

async function api(port: number, method: string, path: string, body: unknown, wallet = false): Promise<Record<string, unknown>> {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (wallet) {
    headers.authorization = `Bearer ${ACCESS_TOKEN}`;
    headers['x-server-authorization'] = sign(SECRET, text);
  } else {
    headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  }
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, ...(method === 'GET' ? {} : { body: text }) });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

interface Session {
  sessionId: string;
  playerId: string;
  game: string;
}

async function openSessions(port: number, count: number): Promise<Session[]> {
  const sessions: Session[] = [];
  for (let i = 0; i < count; i++) {
    const playerId = `bench-${i}-${randomUUID().slice(0, 8)}`;
    await api(port, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 1_000_000_000, country: 'DE' });
    const { key } = (await api(port, 'POST', '/admin/launch-keys', { playerId, game: 'dice' })) as { key: string };
    const { sessionId } = (await api(port, 'POST', '/authenticate', { key, game: 'dice' }, true)) as { sessionId: string };
    sessions.push({ sessionId, playerId, game: 'dice' });
  }
  return sessions;
}

function singleBet(session: Session): string {
  return JSON.stringify({
    sessionId: session.sessionId,
    playerId: session.playerId,
    game: session.game,
    transactions: [{ id: randomUUID(), type: 'bet', amount: 1.5, jpAmount: 0.01 }],
    round: { id: randomUUID(), finished: true },
    regulatory: '',
  });
}

function summarize(runs: RunResult[]) {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    loadCpuShare: median(runs.map((r) => r.loadCpuSeconds / SECONDS)),
    runs,
  };
}

const log = (message: string) => console.error(`[bench] ${message}`);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'wagerlink-bench-'));
  const rows: Record<string, ReturnType<typeof summarize> & { note?: string }> = {};
  const requestCount = Math.ceil(REQUESTS_PER_SECOND_MAX * SECONDS);
  try {
    // Ceiling: same bodies, same signature check, no storage.
    {
      const port = await freePort();
      log('ceiling');
      const server = await startProcess(['dist/bench/ceiling-server.js'], { WAGERLINK_PORT: String(port), WAGERLINK_SECRET: SECRET }, /ready on/);
      const fake: Session = { sessionId: randomUUID(), playerId: 'bench-0', game: 'dice' };
      const runs: RunResult[] = [];
      for (let run = 0; run < RUNS; run++) {
        const file = join(work, `ceiling-${run}.txt`);
        await writeRequests(file, requestCount, () => ({ path: '/transaction', body: singleBet(fake) }));
        log(`ceiling run ${run + 1}`);
        runs.push(runWrk(port, file));
      }
      await stopProcess(server);
      rows.ceiling = summarize(runs);
    }
    // Wallet, single bet: unique ids, SQLite with synchronous=FULL.
    {
      const port = await freePort();
      const env = {
        WAGERLINK_PORT: String(port),
        WAGERLINK_DATABASE: join(work, 'wallet.db'),
        WAGERLINK_SECRET: SECRET,
        WAGERLINK_ACCESS_TOKENS: ACCESS_TOKEN,
        WAGERLINK_ADMIN_TOKEN: ADMIN_TOKEN,
        WAGERLINK_LOG_LEVEL: 'warn',
      };
      const server = await startProcess(['bin/wagerlink.js', 'operator', 'serve'], { ...env, WAGERLINK_LOG_LEVEL: 'info' }, /ready on/);
      log('wallet: opening sessions');
      const sessions = await openSessions(port, PLAYERS);
      const runs: RunResult[] = [];
      for (let run = 0; run < RUNS; run++) {
        const file = join(work, `single-${run}.txt`);
        await writeRequests(file, requestCount, (i) => ({ path: '/transaction', body: singleBet(sessions[i % sessions.length]!) }));
        runs.push(runWrk(port, file));
      }
      const report = await api(port, 'GET', '/admin/verify', undefined);
      await stopProcess(server);
      rows['wallet, single bet'] = { ...summarize(runs), note: `verify ok: ${String(report.ok)}` };
      if (report.ok !== true) throw new Error(`the ledger did not verify after the run: ${JSON.stringify(report)}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  const ceiling = rows.ceiling!;
  const table = Object.entries(rows).map(([name, row]) => ({
    row: name,
    'req/s': Math.round(row.requestsPerSecond),
    'p50 ms': row.p50Ms.toFixed(2),
    'p99 ms': row.p99Ms.toFixed(2),
    'x ceiling req/s': (row.requestsPerSecond / ceiling.requestsPerSecond).toFixed(2),
    'x ceiling p99': (row.p99Ms / ceiling.p99Ms).toFixed(2),
    'wrk CPU': `${Math.round(row.loadCpuShare * 100)}%`,
    statuses: JSON.stringify(row.runs.reduce<Record<string, number>>((all, r) => {
      for (const [k, v] of Object.entries(r.statuses)) all[k] = (all[k] ?? 0) + v;
      return all;
    }, {})),
  }));
  console.table(table);
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, `bench/results/${values.smoke ? 'smoke-' : ''}${date}.json`);
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, runs: RUNS, connections: CONNECTIONS, rows }, null, 2)}\n`);
  console.log(`written ${file}`);
}

await main();
