/**
 * Proves the bench's CPU accounting: /proc lines parse even when a process
 * names itself with spaces and parentheses, the server's figure covers its
 * whole process tree and nothing else, a process that ended during the run
 * is counted through its parent, a pid reused by another program is not
 * subtracted from, and idle is a share of every core's time. On Linux it
 * also checks a live sample against CPU this test burns itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import {
  childCpuSecondsFromTimes,
  cpuBetween,
  parseMachineStat,
  parseProcessStat,
  parseSchedStat,
  sampleCpu,
  TICKS_PER_SECOND,
  type CpuSample,
  type MachineStat,
  type ProcessStat,
  type ThreadSched,
} from '../../bench/cpu-usage.js';

/** A /proc/<pid>/stat line with the given fields; utime and stime are the 14th and 15th fields. */
function statLine(pid: number, name: string, parentPid: number, user: number, system: number, childUser = 0, childSystem = 0): string {
  return `${pid} (${name}) S ${parentPid} ${pid} ${pid} 0 -1 4194304 100 0 0 0 ${user} ${system} ${childUser} ${childSystem} 20 0 1 0 100 1000 10 18446744073709551615`;
}

test('a stat line parses when the process name holds spaces and parentheses', () => {
  assert.deepEqual(parseProcessStat(statLine(42, 'a) (b) c', 7, 120, 30, 4, 1)), { pid: 42, parentPid: 7, name: 'a) (b) c', cpuTicks: 150, childTicks: 5 });
  assert.equal(parseProcessStat('garbage'), undefined);
});

test('the machine line gives idle (idle + iowait) and steal against every tick, steal included', () => {
  assert.deepEqual(parseMachineStat('cpu  100 5 50 800 20 1 4 10 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n'), { idleTicks: 820, stealTicks: 10, totalTicks: 990 });
  // A kernel too old to count steal.
  assert.deepEqual(parseMachineStat('cpu  100 5 50 800 20\n'), { idleTicks: 820, stealTicks: 0, totalTicks: 975 });
  assert.equal(parseMachineStat('intr 1 2 3'), undefined);
});

function sample(machine: MachineStat, stats: ProcessStat[], threads: [number, ThreadSched][] = [], takenAtNs = 0n): CpuSample {
  return { machine, processes: new Map(stats.map((stat) => [stat.pid, stat])), threads: new Map(threads), takenAtNs };
}

test('a schedstat line gives ran and waited', () => {
  assert.deepEqual(parseSchedStat(7, '534632 1200 3\n'), { pid: 7, ranNs: 534632, waitedNs: 1200 });
  assert.equal(parseSchedStat(7, ''), undefined);
});

test("the server's queued share: its threads' run-queue waits against their time, threads born in the run included", () => {
  const stat = (pid: number, parentPid: number, name: string): ProcessStat => ({ pid, parentPid, name, cpuTicks: 0, childTicks: 0 });
  const processes = [stat(10, 1, 'node'), stat(11, 10, 'node'), stat(30, 1, 'wrk')];
  const machine = { idleTicks: 0, stealTicks: 0, totalTicks: 100 };
  const before = sample(machine, processes, [
    [10, { pid: 10, ranNs: 1_000, waitedNs: 100 }],
    [12, { pid: 10, ranNs: 500, waitedNs: 500 }],
    [30, { pid: 30, ranNs: 0, waitedNs: 0 }],
    // A thread of another process whose id the server's new thread takes.
    [13, { pid: 30, ranNs: 9_000, waitedNs: 9_000 }],
  ]);
  const after = sample({ ...machine, totalTicks: 200 }, processes, [
    [10, { pid: 10, ranNs: 1_600, waitedNs: 200 }],
    // Thread 12 ended in the run: nothing of it counts.
    [13, { pid: 11, ranNs: 300, waitedNs: 100 }],
    // The load generator's waits are not the server's.
    [30, { pid: 30, ranNs: 1_000, waitedNs: 5_000 }],
  ]);
  // Ran 600 + 300, waited 100 + 100.
  assert.equal(cpuBetween(before, after, 10).serverQueuedShare, 200 / 1_100);
  assert.ok(Number.isNaN(cpuBetween(before, after, 99).serverQueuedShare));
});

test("the busiest thread's share: what the server's busiest thread ran, against the run's wall time", () => {
  const stat = (pid: number, name: string): ProcessStat => ({ pid, parentPid: 1, name, cpuTicks: 0, childTicks: 0 });
  const processes = [stat(10, 'node'), stat(30, 'wrk')];
  const wallNs = 2e9;
  const before = sample(
    { idleTicks: 0, stealTicks: 0, totalTicks: 1_000 },
    processes,
    [
      [10, { pid: 10, ranNs: 5e9, waitedNs: 0 }],
      [11, { pid: 10, ranNs: 1e9, waitedNs: 0 }],
      [30, { pid: 30, ranNs: 0, waitedNs: 0 }],
    ],
    10n ** 12n,
  );
  const after = sample(
    { idleTicks: 0, stealTicks: 0, totalTicks: 1_400 },
    processes,
    [
      // The HTTP thread ran 0.4 of the wall time, the writer 0.7 (its total before the run does not count).
      [10, { pid: 10, ranNs: 5e9 + 0.4 * wallNs, waitedNs: 0 }],
      [11, { pid: 10, ranNs: 1e9 + 0.7 * wallNs, waitedNs: 0 }],
      // The load generator ran more than either: it is not the server.
      [30, { pid: 30, ranNs: 0.9 * wallNs, waitedNs: 0 }],
    ],
    10n ** 12n + BigInt(wallNs),
  );
  assert.ok(Math.abs(cpuBetween(before, after, 10).busiestThreadShare - 0.7) < 1e-9);
  assert.ok(Math.abs(cpuBetween(before, after, 30).busiestThreadShare - 0.9) < 1e-9);
  // A server with no thread listed has no figure.
  assert.ok(Number.isNaN(cpuBetween(before, after, 99).busiestThreadShare));
});

test('the server is its process tree; the database is its processes by name; a reused pid counts from zero', () => {
  const stat = (pid: number, parentPid: number, name: string, cpuTicks: number, childTicks = 0): ProcessStat => ({
    pid,
    parentPid,
    name,
    cpuTicks,
    childTicks,
  });
  const before = sample({ idleTicks: 1_000, stealTicks: 300, totalTicks: 2_000 }, [
    stat(10, 1, 'node', 100),
    stat(11, 10, 'node', 50),
    stat(20, 1, 'postgres', 300, 1_000),
    // A backend that ends during the run: its parent, the server, then adds its 30 ticks to its children's.
    stat(22, 20, 'postgres', 25),
    stat(30, 1, 'wrk', 0),
    stat(40, 1, 'old', 999),
  ]);
  const after = sample({ idleTicks: 1_050, stealTicks: 340, totalTicks: 2_200 }, [
    stat(10, 1, 'node', 160),
    stat(11, 10, 'node', 70),
    // A grandchild that started during the run, listed before its parent's parent.
    stat(5, 11, 'node', 20),
    stat(20, 1, 'postgres', 340, 1_030),
    stat(21, 20, 'postgres', 10),
    stat(30, 1, 'wrk', 70),
    // Pid 40 now belongs to another program, a child of the server: all its ticks were spent in the run.
    stat(40, 10, 'sh', 3),
  ]);
  const spent = cpuBetween(before, after, 10);
  // 60 + 20 + 20 + 3 ticks; wrk is neither server nor database.
  assert.ok(Math.abs(spent.serverSeconds - 103 / TICKS_PER_SECOND) < 1e-9, String(spent.serverSeconds));
  // 40 + 10, and the ended backend's 30 - 25 = 5 spent in the run.
  assert.ok(Math.abs(spent.databaseSeconds - 55 / TICKS_PER_SECOND) < 1e-9, String(spent.databaseSeconds));
  assert.equal(spent.machineIdleShare, 50 / 200);
  assert.equal(spent.machineStealShare, 40 / 200);
  assert.ok(Number.isNaN(cpuBetween(before, after, undefined).serverSeconds));
  // Two servers (an end-to-end run): both trees count, the database's processes still apart.
  const both = cpuBetween(before, after, [10, 30]);
  assert.ok(Math.abs(both.serverSeconds - 173 / TICKS_PER_SECOND) < 1e-9, String(both.serverSeconds));
  assert.ok(Math.abs(both.databaseSeconds - 55 / TICKS_PER_SECOND) < 1e-9, String(both.databaseSeconds));
  assert.ok(Number.isNaN(cpuBetween(before, after, []).serverSeconds));
});

test("a load generator's CPU is the last line of bash's `times`: its ended children", () => {
  assert.equal(childCpuSecondsFromTimes('Requests/sec: 100\n0m0.010s 0m0.002s\n1m2.500s 0m0.250s\n'), 62.75);
  assert.ok(Number.isNaN(childCpuSecondsFromTimes('no times here')));
});

test('without /proc every figure is NaN, never zero', () => {
  const none: CpuSample = { machine: undefined, processes: new Map(), threads: new Map(), takenAtNs: 0n };
  const spent = cpuBetween(none, none, 1);
  assert.ok(Object.values(spent).every(Number.isNaN), JSON.stringify(spent));
});

test('a live sample sees the CPU this process burns', { skip: !existsSync('/proc/stat') && 'no /proc here' }, () => {
  const before = sampleCpu();
  const started = process.cpuUsage();
  const until = Date.now() + 300;
  let spin = 0;
  while (Date.now() < until) spin++;
  const burned = process.cpuUsage(started);
  const spent = cpuBetween(before, sampleCpu(), process.pid);
  assert.ok(spin > 0);
  const expected = (burned.user + burned.system) / 1e6;
  // Ticks are 10 ms: allow two of them either side, plus what the sampling itself cost.
  assert.ok(spent.serverSeconds >= expected - 0.02 && spent.serverSeconds <= expected + 0.05, `${spent.serverSeconds} s against ${expected} s`);
  assert.ok(spent.machineIdleShare >= 0 && spent.machineIdleShare < 1);
  assert.ok(spent.machineStealShare >= 0 && spent.machineStealShare < 1);
  // Kernels built without schedstats say nothing of waits; where they do, the spinning thread ran.
  assert.ok(Number.isNaN(spent.serverQueuedShare) || (spent.serverQueuedShare >= 0 && spent.serverQueuedShare < 1));
  // The spinning thread ran, and no thread runs longer than the wall time (each sample reads its threads a little after it begins).
  assert.ok(Number.isNaN(spent.busiestThreadShare) || (spent.busiestThreadShare > 0 && spent.busiestThreadShare <= 1.1), String(spent.busiestThreadShare));
});
