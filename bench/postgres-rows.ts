/**
 * The PostgreSQL rows of `npm run bench`, measured in the same run as the
 * SQLite ones and with the same harness (run-bench.ts passes its helpers in):
 *
 * - `pgbench tpcb-like`: the database's own yardstick on this machine, at
 *   its best number of clients.
 * - `postgres, single bet, 1 node`: `wagerlink operator serve` on PostgreSQL.
 * - `postgres, single bet, 2 nodes`: the same with `--workers 2`, two
 *   processes sharing the port in front of the same database.
 *
 * The database server is DATABASE_URL's (WAGERLINK_BENCH_DATABASE_URL wins);
 * each run creates its own databases there and drops them afterwards.
 * Without either variable the rows are skipped with a note.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import type { CommitTimes } from './commit-times.js';
import { DEFAULT_POSTGRES_SETTINGS } from '../src/platform/postgres/settings.js';
import { childCpuSecondsFromTimes, cpuBetween, cpuPerRequest, sampleCpu } from './cpu-usage.js';

export interface RunResult {
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  loadCpuSeconds: number;
  /** CPU of the server's processes per request (µs); see cpu-usage.ts. */
  serverCpuUs: number;
  /** CPU of the database's processes per request (µs): PostgreSQL rows only. */
  databaseCpuUs: number;
  /** Share of the machine's CPU (all cores) left idle during the run. */
  machineIdleShare: number;
  /** Share of the machine's CPU (all cores) its host took during the run (steal). */
  machineStealShare: number;
  /** Share of the server's threads' time spent ready to run but waiting for a core. */
  serverQueuedShare: number;
  /** Share of the run's wall time that the server's busiest thread ran (cpu-usage.ts). */
  busiestThreadShare: number;
}

export interface BenchSession {
  sessionId: string;
  playerId: string;
  game: string;
}

/** One request of a run: signed with the environment's integration, or with `caller`'s secret and sent with its token. */
export interface BenchRequest {
  path: string;
  body: string;
  caller?: BenchCaller;
}

/** An integration the bench added, as the wallet answered it once. */
export interface BenchCaller {
  token: string;
  secret: string;
}

export interface Row {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  loadCpuShare: number;
  serverCpuUs: number;
  databaseCpuUs: number;
  machineIdleShare: number;
  machineStealShare: number;
  serverQueuedShare: number;
  busiestThreadShare: number;
  runs: RunResult[];
  /** Runs set aside because the host took the CPU during them (steal.ts). */
  setAside?: RunResult[];
  /** The wallet's commits over the row, from its /metrics (commit-times.ts), where its store times them. */
  commits?: CommitTimes;
  note?: string;
}

/** The helpers of run-bench.ts that these rows reuse, so that every row is measured alike. */
export interface BenchKit {
  freePort: () => Promise<number>;
  startProcess: (args: string[], env: Record<string, string>, ready: RegExp) => Promise<ChildProcess>;
  stopProcess: (child: ChildProcess) => Promise<void>;
  writeRequests: (file: string, count: number, make: (i: number) => BenchRequest) => Promise<void>;
  runWrk: (port: number, requestsFile: string, serverPids?: number | readonly number[]) => Promise<RunResult>;
  openSessions: (port: number, count: number) => Promise<BenchSession[]>;
  singleBet: (session: BenchSession) => string;
  summarize: (runs: RunResult[], setAside?: RunResult[]) => Row;
  /** One run, measured again while the host takes the CPU (steal.ts). */
  measureRun: (name: string, attempt: () => Promise<RunResult>, setAside: RunResult[]) => Promise<RunResult>;
  api: (port: number, method: string, path: string, body: unknown, wallet?: boolean) => Promise<Record<string, unknown>>;
  log: (message: string) => void;
}

export interface PostgresRowsOptions {
  /** A scratch directory of this run. */
  work: string;
  runs: number;
  seconds: number;
  /** Pre-signed requests written per run. */
  requestCount: number;
  /** Players (and sessions) the bets are spread over. */
  players: number;
  /** WAGERLINK_SECRET, WAGERLINK_ACCESS_TOKENS, WAGERLINK_ADMIN_TOKEN of the run. */
  env: Record<string, string>;
  /** Whether a row is to be measured (`npm run bench -- --rows`). */
  wanted: (row: string) => boolean;
}

export const PGBENCH_ROW = 'pgbench tpcb-like';
/** Worker processes of the PostgreSQL wallet rows. */
const WALLET_NODES = [1, 2] as const;
/** The name of the PostgreSQL single-bet row with this many nodes. */
export const walletRowName = (nodes: number) => `postgres, single bet, ${nodes} node${nodes > 1 ? 's' : ''}`;
/** The rows postgresRows measures, for `--rows`. */
export const POSTGRES_ROWS: readonly string[] = [PGBENCH_ROW, ...WALLET_NODES.map(walletRowName)];

/** pgbench's scale: 10 branches, so that its clients rarely queue on one branch row. */
const PGBENCH_SCALE = 10;
/**
 * pgbench's clients: its best on 2 cores (measured here: 4 clients 2.4k tps,
 * 8 clients 3.4k, 16 clients 3.1k, 32 clients 2.5k), so the yardstick is the
 * database at its own best, not at the wallet's pool size.
 */
const PGBENCH_CLIENTS = 8;

export async function postgresRows(kit: BenchKit, options: PostgresRowsOptions): Promise<Record<string, Row>> {
  const serverUrl = process.env.WAGERLINK_BENCH_DATABASE_URL || process.env.DATABASE_URL;
  if (!serverUrl) {
    kit.log('PostgreSQL rows skipped: set DATABASE_URL (or WAGERLINK_BENCH_DATABASE_URL) to a PostgreSQL server');
    return {};
  }
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const suffix = `${process.pid}_${Date.now()}`;
  const walletDb = `wagerlink_bench_${suffix}`;
  const pgbenchDb = `wagerlink_pgbench_${suffix}`;
  const urlOf = (database: string) => {
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const rows: Record<string, Row> = {};
  try {
    if (options.wanted(PGBENCH_ROW)) {
      await admin.unsafe(`CREATE DATABASE ${pgbenchDb}`);
      const yardstick = await pgbench(kit, options, urlOf(pgbenchDb));
      if (yardstick) rows[PGBENCH_ROW] = yardstick;
    }
    for (const workers of WALLET_NODES) {
      const name = walletRowName(workers);
      if (!options.wanted(name)) continue;
      await admin.unsafe(`CREATE DATABASE ${walletDb}_${workers}`);
      rows[name] = await wallet(kit, options, urlOf(`${walletDb}_${workers}`), workers);
    }
  } finally {
    for (const database of [pgbenchDb, ...WALLET_NODES.map((workers) => `${walletDb}_${workers}`)]) {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    }
    await admin.end();
  }
  return rows;
}

/** pgbench -b tpcb-like at its best client count; latencies from its per-transaction log. Undefined without pgbench. */
async function pgbench(kit: BenchKit, options: PostgresRowsOptions, url: string): Promise<Row | undefined> {
  const clients = PGBENCH_CLIENTS;
  kit.log(`pgbench: scale ${PGBENCH_SCALE}, ${clients} clients`);
  const init = spawnSync('pgbench', ['-i', '-q', '-s', String(PGBENCH_SCALE), url], { encoding: 'utf8' });
  if ((init.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    kit.log('pgbench row skipped: pgbench is not installed (it comes with the PostgreSQL client tools)');
    return undefined;
  }
  if (init.status !== 0) throw new Error(`pgbench -i failed: ${init.stderr}`);
  const runs: RunResult[] = [];
  const setAside: RunResult[] = [];
  let attempts = 0;
  const attempt = async (): Promise<RunResult> => {
    const prefix = `pgbench-${attempts++}`;
    const before = sampleCpu();
    const result = spawnSync('bash', ['-c', `pgbench -b tpcb-like -c ${clients} -j 1 -T ${options.seconds} -l --log-prefix=${prefix} "$0"; times`, url], {
      cwd: options.work,
      encoding: 'utf8',
    });
    const spent = cpuBetween(before, sampleCpu(), undefined);
    if (result.status !== 0) throw new Error(`pgbench failed: ${result.stderr}`);
    const tps = Number(/tps = ([\d.]+)/.exec(result.stdout)?.[1]);
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(result.stdout)?.[1]);
    // Log lines: client transaction latency_us script epoch_s epoch_us.
    const latencies = readdirSync(options.work)
      .filter((file) => file.startsWith(`${prefix}.`))
      .flatMap((file) => readFileSync(join(options.work, file), 'utf8').trim().split('\n'))
      .map((line) => Number(line.split(' ')[2]) / 1000)
      .sort((a, b) => a - b);
    const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? Number.NaN;
    const cpu = childCpuSecondsFromTimes(result.stdout);
    return {
      requestsPerSecond: tps,
      p50Ms: at(50),
      p90Ms: at(90),
      p99Ms: at(99),
      statuses: {},
      loadCpuSeconds: cpu,
      // No server of ours: pgbench is the client, and its CPU is the load generator's column.
      ...cpuPerRequest(spent, transactions),
    };
  };
  for (let run = 0; run < options.runs; run++) runs.push(await kit.measureRun(PGBENCH_ROW, attempt, setAside));
  return { ...kit.summarize(runs, setAside), note: `scale ${PGBENCH_SCALE}, ${clients} clients, simple protocol` };
}

/** The single-bet load against `wagerlink operator serve` on PostgreSQL, with 1 or 2 worker processes. */
async function wallet(kit: BenchKit, options: PostgresRowsOptions, url: string, workers: number): Promise<Row> {
  const port = await kit.freePort();
  const env = { ...options.env, WAGERLINK_PORT: String(port), WAGERLINK_DATABASE: url, WAGERLINK_LOG_LEVEL: 'info' };
  const server = await kit.startProcess(['bin/wagerlink.js', 'operator', 'serve', '--workers', String(workers)], env, /ready on/);
  try {
    kit.log(`postgres, ${workers} node(s): opening sessions`);
    const sessions = await kit.openSessions(port, options.players);
    const runs: RunResult[] = [];
    const setAside: RunResult[] = [];
    let attempts = 0;
    for (let run = 0; run < options.runs; run++) {
      const measured = await kit.measureRun(
        walletRowName(workers),
        async () => {
          // Fresh ids for every attempt: the ledger keeps what an attempt set aside was sent.
          const file = join(options.work, `postgres-${workers}-${attempts++}.txt`);
          await kit.writeRequests(file, options.requestCount, (i) => ({ path: '/transaction', body: kit.singleBet(sessions[i % sessions.length]!) }));
          kit.log(`postgres, ${workers} node(s): run ${run + 1}`);
          return kit.runWrk(port, file, server.pid);
        },
        setAside,
      );
      runs.push(measured);
    }
    const report = await kit.api(port, 'GET', '/admin/verify', undefined);
    if (report.ok !== true) throw new Error(`the PostgreSQL ledger did not verify after the run: ${JSON.stringify(report)}`);
    return { ...kit.summarize(runs, setAside), note: `verify ok: true; pool ${DEFAULT_POSTGRES_SETTINGS.poolSize} connections per process` };
  } finally {
    await kit.stopProcess(server);
  }
}
