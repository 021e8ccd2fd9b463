/**
 * Where a bench run's CPU went, read from Linux's /proc before and after it:
 * the server's process tree (its worker processes and threads included), the
 * database's server processes, and the whole machine's idle time and stolen
 * time.
 *
 * These say what bounds a row. A row whose machine still has idle CPU while
 * its throughput is below the ceiling is waiting on something (a round trip,
 * a commit, a hand-off between threads), and spending less CPU per request
 * will not by itself make it faster; a row with no idle CPU left is bound by
 * the CPU it spends per request, its load generator's included.
 *
 * A server's queued share is the time its threads were ready to run but
 * waited for a core, against the time they ran or waited (Linux's per-thread
 * schedstat). A server whose threads and load generator together want more
 * cores than the machine has waits in the run queue, and every such wait
 * lands in some request's latency.
 *
 * The busiest thread's share is the time the server's busiest thread ran
 * against the run's wall time. Near 1, that thread is the bound (the
 * ceiling's one thread, say) however much the machine leaves idle; well
 * below 1 with the rest of the machine busy, the server's threads take
 * turns for the cores, and no one of them is the bound.
 *
 * Stolen time is what a virtual machine's host gave to others while this
 * machine had work to run: the cores it had were fewer than it counts. Where
 * it is large, a run measures the host as much as the code, and its pauses
 * land in the tail of both the ceiling and the row.
 *
 * Elsewhere than Linux there is no /proc: every figure is NaN and the table
 * shows '-'.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** What one /proc/<pid>/stat line says of its process. */
export interface ProcessStat {
  pid: number;
  parentPid: number;
  /** The executable's name as the kernel keeps it (at most 15 characters). */
  name: string;
  /** User plus system time, in clock ticks. */
  cpuTicks: number;
  /** The same of the children it has waited for, once they ended (PostgreSQL's server, of its ended backends). */
  childTicks: number;
}

/**
 * Parses one /proc/<pid>/stat line. The name sits in parentheses and may
 * itself hold spaces and parentheses, so the fields are counted from the
 * last ')': after it come state, ppid, ... utime (14th field), stime,
 * cutime and cstime (15th to 17th).
 */
export function parseProcessStat(line: string): ProcessStat | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = line
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const parentPid = Number(fields[1]);
  const [user, system, childUser, childSystem] = [11, 12, 13, 14].map((i) => Number(fields[i]));
  if (![parentPid, user, system, childUser, childSystem].every(Number.isFinite)) return undefined;
  return {
    pid: Number(line.slice(0, open).trim()),
    parentPid,
    name: line.slice(open + 1, close),
    cpuTicks: user! + system!,
    childTicks: childUser! + childSystem!,
  };
}

/** What the first line of /proc/stat says of the machine, every core summed. */
export interface MachineStat {
  /** Idle and iowait. */
  idleTicks: number;
  /** Taken by the virtual machine's host while this machine had work to run. */
  stealTicks: number;
  totalTicks: number;
}

/** The first line of /proc/stat: the machine's idle, stolen and total ticks. */
export function parseMachineStat(text: string): MachineStat | undefined {
  const first = text.split('\n', 1)[0] ?? '';
  if (!first.startsWith('cpu ')) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const ticks = first.trim().split(/\s+/).slice(1, 9).map(Number);
  if (ticks.length < 5 || !ticks.every(Number.isFinite)) return undefined;
  // Kernels before 2.6.11 have no steal field: nothing was stolen that they could say.
  return { idleTicks: ticks[3]! + ticks[4]!, stealTicks: ticks[7] ?? 0, totalTicks: ticks.reduce((sum, t) => sum + t, 0) };
}

/** What /proc/<pid>/task/<tid>/schedstat says of one thread. */
export interface ThreadSched {
  pid: number;
  /** Time it ran and time it waited in the run queue, ready to run (ns). */
  ranNs: number;
  waitedNs: number;
}

/** A schedstat line: ran (ns), waited (ns), time slices. */
export function parseSchedStat(pid: number, line: string): ThreadSched | undefined {
  const [ranNs, waitedNs] = line.trim().split(/\s+/).map(Number);
  return Number.isFinite(ranNs) && Number.isFinite(waitedNs) ? { pid, ranNs: ranNs!, waitedNs: waitedNs! } : undefined;
}

export interface CpuSample {
  /** CPU ticks of every process, by pid, with the name it had (a reused pid under another name is another process). */
  processes: Map<number, ProcessStat>;
  /** Every thread's scheduler times, by thread id. */
  threads: Map<number, ThreadSched>;
  machine: MachineStat | undefined;
  /** When the sample began (process.hrtime, ns): two samples read in the same order, so the wall time between them is the threads' too. */
  takenAtNs: bigint;
}

export function sampleCpu(): CpuSample {
  const processes = new Map<number, ProcessStat>();
  const threads = new Map<number, ThreadSched>();
  let machine: CpuSample['machine'];
  const takenAtNs = process.hrtime.bigint();
  try {
    machine = parseMachineStat(readFileSync('/proc/stat', 'utf8'));
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = parseProcessStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
        if (stat) processes.set(stat.pid, stat);
        for (const tid of readdirSync(`/proc/${entry}/task`)) {
          const sched = parseSchedStat(Number(entry), readFileSync(`/proc/${entry}/task/${tid}/schedstat`, 'utf8'));
          if (sched) threads.set(Number(tid), sched);
        }
      } catch {
        // The process (or a thread) ended while the list was read, or the kernel keeps no schedstat.
      }
    }
  } catch {
    // Not Linux: no /proc.
  }
  return { processes, threads, machine, takenAtNs };
}

export interface CpuSpent {
  /** CPU seconds of the server process and every process under it. */
  serverSeconds: number;
  /** CPU seconds of the processes named `databaseName` (PostgreSQL's backends, writer, WAL writer...). */
  databaseSeconds: number;
  /** Share of the machine's CPU time (all cores) that was idle. */
  machineIdleShare: number;
  /** Share of the machine's CPU time (all cores) that its host took (steal). */
  machineStealShare: number;
  /** Share of the server's threads' time spent ready to run but waiting for a core. */
  serverQueuedShare: number;
  /**
   * Share of the run's wall time that the server's busiest thread ran: near
   * 1, that thread is the bound (the HTTP thread, a writer), whatever the
   * machine has left idle.
   */
  busiestThreadShare: number;
}

/** What a run reports when there was nothing to read (no /proc). */
export const CPU_UNMEASURED: Readonly<CpuSpent> = {
  serverSeconds: Number.NaN,
  databaseSeconds: Number.NaN,
  machineIdleShare: Number.NaN,
  machineStealShare: Number.NaN,
  serverQueuedShare: Number.NaN,
  busiestThreadShare: Number.NaN,
};

/** Clock ticks per second of /proc's figures: `getconf CLK_TCK`, 100 on every Linux we know. */
export const TICKS_PER_SECOND = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(answer.stdout?.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

/**
 * The CPU spent between two samples by the server's process trees (rooted at
 * serverPids: one process, or several such as the two servers of an
 * end-to-end run), the database's processes and the machine. A process that ended
 * during the run is no longer listed, but its parent has added all its time
 * to its own children's: so each group counts what its living processes
 * spent, what their ended children spent in all, less what those that ended
 * had spent before the run. (PostgreSQL's backends, one per pgbench client,
 * end with the run.)
 */
export function cpuBetween(before: CpuSample, after: CpuSample, serverPids: number | readonly number[] | undefined, databaseName = 'postgres'): CpuSpent {
  const roots = serverPids === undefined ? [] : [serverPids].flat();
  if (!before.machine || !after.machine) return CPU_UNMEASURED;
  // Each sample's own tree: a pid may have passed to another program with another parent.
  const treeBefore = treeOf(roots, before);
  const treeAfter = treeOf(roots, after);
  let serverTicks = 0;
  let databaseTicks = 0;
  const add = (stat: ProcessStat, inServer: boolean, ticks: number) => {
    if (inServer) serverTicks += ticks;
    else if (stat.name === databaseName) databaseTicks += ticks;
  };
  for (const stat of after.processes.values()) {
    const earlier = before.processes.get(stat.pid);
    // A pid now held by another program is another process: all of its time is new.
    const same = earlier !== undefined && earlier.name === stat.name;
    add(stat, treeAfter.has(stat.pid), stat.cpuTicks + stat.childTicks - (same ? earlier.cpuTicks + earlier.childTicks : 0));
  }
  for (const stat of before.processes.values()) {
    const later = after.processes.get(stat.pid);
    if (later === undefined || later.name !== stat.name) add(stat, treeBefore.has(stat.pid), -(stat.cpuTicks + stat.childTicks));
  }
  // Threads of the server that lived through the run count what they did in it; those born in it count all they did.
  let ranNs = 0;
  let waitedNs = 0;
  let busiestNs = Number.NEGATIVE_INFINITY;
  for (const [tid, sched] of after.threads) {
    if (!treeAfter.has(sched.pid)) continue;
    const earlier = before.threads.get(tid);
    const same = earlier !== undefined && earlier.pid === sched.pid;
    const ran = sched.ranNs - (same ? earlier.ranNs : 0);
    ranNs += ran;
    waitedNs += sched.waitedNs - (same ? earlier.waitedNs : 0);
    busiestNs = Math.max(busiestNs, ran);
  }
  const total = after.machine.totalTicks - before.machine.totalTicks;
  const wallNs = Number(after.takenAtNs - before.takenAtNs);
  return {
    serverSeconds: roots.length === 0 ? Number.NaN : serverTicks / TICKS_PER_SECOND,
    databaseSeconds: databaseTicks / TICKS_PER_SECOND,
    machineIdleShare: total > 0 ? (after.machine.idleTicks - before.machine.idleTicks) / total : Number.NaN,
    machineStealShare: total > 0 ? (after.machine.stealTicks - before.machine.stealTicks) / total : Number.NaN,
    serverQueuedShare: ranNs + waitedNs > 0 ? waitedNs / (ranNs + waitedNs) : Number.NaN,
    busiestThreadShare: wallNs > 0 && Number.isFinite(busiestNs) ? busiestNs / wallNs : Number.NaN,
  };
}

/** A run's CPU per request, or per transaction (µs): the server's and the database's, with the machine's idle and stolen shares and the server's queued share. */
export function cpuPerRequest(
  spent: CpuSpent,
  requests: number,
): Omit<CpuSpent, 'serverSeconds' | 'databaseSeconds'> & { serverCpuUs: number; databaseCpuUs: number } {
  const { serverSeconds, databaseSeconds, ...shares } = spent;
  return { serverCpuUs: (serverSeconds * 1e6) / requests, databaseCpuUs: (databaseSeconds * 1e6) / requests, ...shares };
}

/**
 * The CPU seconds of a load generator run as `<command>; times` in bash:
 * the last line of `times` is the user and system time of the shell's
 * ended children ("0m1.234s 0m0.567s"). NaN when it is missing.
 */
export function childCpuSecondsFromTimes(output: string): number {
  const times = [...output.matchAll(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/g)].at(-1);
  return times ? Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]) : Number.NaN;
}

/** The pids of the roots and every process under them in one sample; none without a root. */
function treeOf(roots: readonly number[], sample: CpuSample): Set<number> {
  const tree = new Set<number>(roots);
  // Children may be listed before their parents: repeat until no process joins.
  for (let grew = true; grew;) {
    grew = false;
    for (const stat of sample.processes.values()) {
      if (!tree.has(stat.pid) && tree.has(stat.parentPid)) {
        tree.add(stat.pid);
        grew = true;
      }
    }
  }
  return tree;
}
