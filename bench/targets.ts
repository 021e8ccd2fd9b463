/**
 * The wallet's performance targets, as ratios measured in one run, and what
 * a run says of each. A target whose rows were not run (a `--rows` filter,
 * or no DATABASE_URL for PostgreSQL) is left out rather than failed.
 */
import { END_TO_END_ROWS } from './end-to-end-row.js';
import { PGBENCH_ROW, walletRowName } from './postgres-rows.js';

/** Single bet, SQLite `synchronous=FULL`: at least this share of the ceiling's throughput. */
const SINGLE_BET_SHARE_MIN = 0.8;
/** Single bet: a 99th percentile at most this multiple of the ceiling's. */
const P99_MULTIPLE_MAX = 1.5;
/** The single bet on a grown ledger: at least this share of the single bet on an empty one. */
const GROWN_SHARE_MIN = 0.8;
/** One PostgreSQL node: at least this multiple of pgbench tpcb-like's transactions per second. */
const POSTGRES_PGBENCH_MULTIPLE_MIN = 2;
/** Rounds of each end-to-end row (both servers, the outbox between them): at least this share of the single bet's requests. */
const END_TO_END_SHARE_MIN = 0.5;
/** Studios the many-integrations row spreads the single bet's load over. */
export const INTEGRATIONS = 4;
export const INTEGRATIONS_ROW = `wallet, ${INTEGRATIONS} integrations`;
/** The single bet from several integrations: the server's CPU per request at most this multiple of one integration's. */
const INTEGRATIONS_CPU_MULTIPLE_MAX = 1.1;

export interface RowFigures {
  requestsPerSecond: number;
  p99Ms: number;
  /** The servers' CPU per request, µs; not a target of its own, the denominator of the many-integrations one. */
  serverCpuUs?: number;
}

export interface Verdict {
  target: string;
  measured: number;
  met: boolean;
}

export function judgeTargets(rows: Readonly<Record<string, RowFigures>>): Verdict[] {
  const verdicts: Verdict[] = [];
  const { ceiling } = rows;
  const single = rows['wallet, single bet'];
  const grown = rows['wallet, grown ledger'];
  const pgbench = rows[PGBENCH_ROW];
  const onePostgresNode = rows[walletRowName(1)];
  const atLeast = (target: string, measured: number, min: number) => verdicts.push({ target, measured, met: measured >= min });
  if (ceiling && single) {
    atLeast(`single bet >= ${SINGLE_BET_SHARE_MIN} x ceiling`, single.requestsPerSecond / ceiling.requestsPerSecond, SINGLE_BET_SHARE_MIN);
    const p99 = single.p99Ms / ceiling.p99Ms;
    verdicts.push({ target: `single bet p99 <= ${P99_MULTIPLE_MAX} x ceiling's`, measured: p99, met: p99 <= P99_MULTIPLE_MAX });
  }
  const studios = rows[INTEGRATIONS_ROW];
  if (single?.serverCpuUs && studios?.serverCpuUs) {
    const cost = studios.serverCpuUs / single.serverCpuUs;
    verdicts.push({
      target: `${INTEGRATIONS_ROW} CPU per request <= ${INTEGRATIONS_CPU_MULTIPLE_MAX} x single bet's`,
      measured: cost,
      met: cost <= INTEGRATIONS_CPU_MULTIPLE_MAX,
    });
  }
  if (single && grown) atLeast(`grown ledger >= ${GROWN_SHARE_MIN} x empty`, grown.requestsPerSecond / single.requestsPerSecond, GROWN_SHARE_MIN);
  for (const name of Object.values(END_TO_END_ROWS)) {
    const row = rows[name];
    if (single && row) atLeast(`${name} >= ${END_TO_END_SHARE_MIN} x single bet`, row.requestsPerSecond / single.requestsPerSecond, END_TO_END_SHARE_MIN);
  }
  if (pgbench && onePostgresNode) {
    atLeast(
      `postgres 1 node >= ${POSTGRES_PGBENCH_MULTIPLE_MIN} x pgbench tpcb-like`,
      onePostgresNode.requestsPerSecond / pgbench.requestsPerSecond,
      POSTGRES_PGBENCH_MULTIPLE_MIN,
    );
  }
  return verdicts;
}

/** One line per verdict, as the bench prints them. */
export function verdictLines(verdicts: readonly Verdict[]): string[] {
  return verdicts.map((v) => `target: ${v.target}: ${v.measured.toFixed(2)}, ${v.met ? 'met' : 'not met'}`);
}
