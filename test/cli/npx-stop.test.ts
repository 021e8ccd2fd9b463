/**
 * Proves that a server started with `npx wagerlink ...` stops when npx is
 * told to stop, run as a user runs it: in a project where wagerlink is
 * installed (linked to this checkout, as `npm link` would), `npx --no
 * wagerlink operator serve` and `npx --no wagerlink sandbox` are started,
 * and once ready, SIGTERM is sent to the npx process alone, as a
 * supervisor or `kill PID` sends it. npx runs the command through `sh -c`
 * and passes the signal to that shell, which dies of it without passing it
 * on; the server, left under another parent, sees npm gone and stops as on
 * a first signal: gracefully, saying why, with no process left behind.
 * A SIGINT the shell holds back until its command exits (it is not the
 * terminal's Ctrl-C, which reaches the server itself); the documented way
 * round it, `npx -c 'exec wagerlink ...'`, has npx signal the server
 * itself, and SIGINT stops it. Linux: processes are found by their command
 * lines in /proc.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Child, cleanEnv, freePort, READY_TIMEOUT_MS, ROOT } from '../harness/child-process.js';

/** How long the processes may take to be gone after the signal (ms): a failure's bound, generous for a loaded machine. */
const GONE_MS_MAX = 30_000;

/** A fresh project with wagerlink installed as a link to this checkout: npx finds its command in node_modules/.bin. */
function projectWithWagerlink(): string {
  const project = mkdtempSync(join(tmpdir(), 'wagerlink-npx-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'npx-user', version: '1.0.0', private: true }));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules', 'wagerlink'), 'dir');
  symlinkSync(join('..', 'wagerlink', 'bin', 'wagerlink.js'), join(project, 'node_modules', '.bin', 'wagerlink'));
  return project;
}

/** The test's environment without npm's own variables (an `npm test` run's must not steer the npx started here). */
function npxEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(cleanEnv(extra)).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

/** Processes whose command line names `text` (the project's folder): npx, its shell and the server. */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      // A zombie has exited: only its parent's wait is left, and a process whose parent is init may never get one.
      if (/^State:\s+Z/m.test(status)) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry));
    } catch {
      // The process ended while it was read.
    }
  }
  return found;
}

/** Waits until no process names `text`; past GONE_MS_MAX, kills those left and fails naming them. */
async function allGone(text: string, output: () => string): Promise<void> {
  const deadline = Date.now() + GONE_MS_MAX;
  while (processesNaming(text).length > 0) {
    if (Date.now() > deadline) {
      const left = processesNaming(text);
      for (const pid of left) process.kill(pid, 'SIGKILL');
      assert.fail(`processes ${left.join(', ')} outlived npx:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const OPERATOR_ENV = { WAGERLINK_SECRET: 'npx-secret', WAGERLINK_ACCESS_TOKENS: 'npx-token', WAGERLINK_ADMIN_TOKEN: 'npx-admin-token' };

const cases = [
  {
    name: 'npx wagerlink operator serve',
    signal: 'SIGTERM',
    npx: (args: string[]) => ['--no', 'wagerlink', ...args],
    args: (project: string, port: number) => ['operator', 'serve', '--port', String(port), '--database', join(project, 'operator.db')],
    env: OPERATOR_ENV,
    ready: /wagerlink operator ready on/,
    stopped: /"reason":"the process that started this one is gone"[^\n]*"msg":"shutting down[\s\S]*"msg":"stopped"/,
  },
  {
    name: 'npx wagerlink sandbox',
    signal: 'SIGTERM',
    npx: (args: string[]) => ['--no', 'wagerlink', ...args],
    args: (project: string, port: number, providerPort: number) => [
      'sandbox',
      '--data',
      join(project, 'data'),
      '--port',
      String(port),
      '--provider-port',
      String(providerPort),
    ],
    env: {},
    ready: /wagerlink sandbox ready/,
    stopped: /the process that started the sandbox is gone: stopping/,
  },
  // The documented way for SIGINT, which the shell holds back until its command exits: exec, so that npx signals the server itself.
  {
    name: "npx -c 'exec wagerlink operator serve'",
    signal: 'SIGINT',
    npx: (args: string[]) => ['-c', `exec wagerlink ${args.join(' ')}`],
    args: (project: string, port: number) => ['operator', 'serve', '--port', String(port), '--database', join(project, 'operator.db')],
    env: OPERATOR_ENV,
    ready: /wagerlink operator ready on/,
    stopped: /"reason":"SIGINT"[^\n]*"msg":"shutting down[\s\S]*"msg":"stopped"/,
  },
] as const;

for (const one of cases) {
  test(`${one.name}: ${one.signal} to npx stops the server it started`, async (t) => {
    const project = projectWithWagerlink();
    const args = one.args(project, await freePort(), await freePort());
    const npx = new Child('npx', one.npx(args), { cwd: project, env: npxEnv(one.env) });
    t.after(async () => {
      for (const pid of processesNaming(project)) process.kill(pid, 'SIGKILL');
    });
    await npx.waitForLine(one.ready, READY_TIMEOUT_MS);
    const server = processesNaming(project).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join('.bin', 'wagerlink')));
    assert.equal(server.length, 1, `one server process, started by npx:\n${npx.output()}`);

    npx.signal(one.signal);
    await allGone(project, () => npx.output());
    await npx.exit;
    assert.match(npx.stdout, one.stopped, npx.output());
  });
}
