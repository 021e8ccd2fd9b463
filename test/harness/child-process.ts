/**
 * The one way tests run processes: `wagerlink` commands (bin/wagerlink.js)
 * and, rarely, a node script of their own. A child is spawned with an
 * environment free of the parent's WAGERLINK_* settings, its stdout and
 * stderr are collected, a test can wait for a line matching a pattern (a
 * ready line) with a time-out, send signals, and stop it and await its exit
 * code, killing it if it outlives its time-out. No child outlives its test:
 * one started with `until: t` is killed when that test ends, and every child
 * still running when the test file ends is killed then (or when the test
 * process exits).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';

/** The project's root, from dist/test/harness/. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The `wagerlink` command. */
export const CLI = join(ROOT, 'bin', 'wagerlink.js');

/** A start that does not log its ready line within this long failed (ms); generous for a loaded, shared machine. */
export const READY_TIMEOUT_MS = 30_000;
/** A command run to its end that takes longer than this is killed (ms); as generous, for the same reason. */
export const RUN_TIMEOUT_MS = 30_000;
/** A stopped child that has not exited within this long is killed with SIGKILL (ms). */
const EXIT_TIMEOUT_MS = 15_000;
/**
 * Output kept per stream, and of both together (characters, the newest):
 * enough for every line a test asserts on and for the tail of a failure,
 * without holding a busy server's whole log.
 */
const OUTPUT_KEPT_MAX = 100_000;

/** How a child ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What can end a child with a test: node:test's TestContext (`t`). */
export interface TestScope {
  after: (fn: () => unknown) => void;
}

export interface ChildOptions {
  /** The child's whole environment; default cleanEnv(). */
  env?: NodeJS.ProcessEnv;
  /** A test whose end kills the child if it still runs. */
  until?: TestScope;
  /** The child's working folder; default the project's root. */
  cwd?: string;
}

/** The environment of a child: the parent's, without its own WAGERLINK_* settings (they must not leak in), plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WAGERLINK_')));
  return { ...env, ...extra };
}

/** A TCP port that was free a moment ago on 127.0.0.1 (a child may still lose it to another process: retry then). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

const running = new Set<Child>();

/** Kills a child at once and waits for the process to end (not for its output, which grandchildren may hold open). */
async function killNow(child: Child): Promise<void> {
  if (!child.running) return;
  const exited = once(child.process, 'exit');
  child.process.kill('SIGKILL');
  await exited;
}

// Registered once, on the root test of whichever test file imports this: no child outlives the file.
after(async () => {
  await Promise.all([...running].map(killNow));
});
// Nor the test process, should it end without running its hooks.
process.on('exit', () => {
  for (const child of running) child.process.kill('SIGKILL');
});

function keep(text: string): string {
  return text.length > OUTPUT_KEPT_MAX ? text.slice(-OUTPUT_KEPT_MAX) : text;
}

/** A running (or ended) child process and its collected output. */
export class Child {
  readonly process: ChildProcess;
  /** Resolves once the child has exited and its stdout and stderr are read to their end. */
  readonly exit: Promise<Exit>;
  private stdoutText = '';
  private stderrText = '';
  private outputText = '';
  /** Partial last lines of each stream, and the listeners waiting for a line. */
  private readonly partial = { stdout: '', stderr: '' };
  private readonly lineListeners = new Set<(line: string) => void>();

  constructor(command: string, args: readonly string[], options: ChildOptions = {}) {
    this.process = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(this);
    this.exit = new Promise<Exit>((resolve) => {
      this.process.once('close', (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal }));
    });
    this.process.once('exit', () => running.delete(this));
    // A spawn that fails (no such command) ends as an exit without a code.
    this.process.once('error', () => running.delete(this));
    for (const stream of ['stdout', 'stderr'] as const) {
      this.process[stream]!.setEncoding('utf8').on('data', (chunk: string) => this.received(stream, chunk));
      // A last line without a newline is a line too, once the stream ends.
      this.process[stream]!.on('end', () => {
        const rest = this.partial[stream];
        this.partial[stream] = '';
        if (rest !== '') for (const listener of this.lineListeners) listener(rest);
      });
    }
    options.until?.after(() => killNow(this));
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null && running.has(this);
  }

  /** Everything kept of stdout. */
  get stdout(): string {
    return this.stdoutText;
  }

  /** Everything kept of stderr. */
  get stderr(): string {
    return this.stderrText;
  }

  /** Everything kept of stdout and stderr together, in the order it arrived. */
  output(): string {
    return this.outputText;
  }

  private received(stream: 'stdout' | 'stderr', chunk: string): void {
    if (stream === 'stdout') this.stdoutText = keep(this.stdoutText + chunk);
    else this.stderrText = keep(this.stderrText + chunk);
    this.outputText = keep(this.outputText + chunk);
    const lines = (this.partial[stream] + chunk).split('\n');
    this.partial[stream] = lines.pop()!;
    for (const line of lines) for (const listener of this.lineListeners) listener(line);
  }

  /**
   * The first line of stdout or stderr (seen already, or to come) that
   * matches `pattern`. Fails, naming the output, if the child exits first
   * or no such line comes within `timeoutMs`.
   */
  waitForLine(pattern: RegExp, timeoutMs = READY_TIMEOUT_MS): Promise<RegExpExecArray> {
    // Complete lines only: a line still arriving might match before its end has come.
    const complete = (seen: string, partial: string) => seen.slice(0, Math.max(0, seen.length - partial.length));
    for (const seen of [complete(this.stdoutText, this.partial.stdout), complete(this.stderrText, this.partial.stderr)]) {
      for (const line of seen.split('\n')) {
        const match = pattern.exec(line);
        if (match) return Promise.resolve(match);
      }
    }
    return new Promise<RegExpExecArray>((resolve, reject) => {
      const finish = (outcome: () => void) => {
        clearTimeout(timer);
        this.lineListeners.delete(onLine);
        this.process.off('exit', onExit);
        outcome();
      };
      const onLine = (line: string) => {
        const match = pattern.exec(line);
        if (match) finish(() => resolve(match));
      };
      const onExit = () =>
        // The streams may still hold the line: give them until they close.
        void this.exit.then(() => finish(() => reject(new Error(`the child exited before a line matched ${pattern}:\n${this.outputText}`))));
      const timer = setTimeout(() => finish(() => reject(new Error(`no line matched ${pattern} within ${timeoutMs} ms:\n${this.outputText}`))), timeoutMs);
      this.lineListeners.add(onLine);
      if (this.running) this.process.once('exit', onExit);
      else onExit();
    });
  }

  /** Sends a signal if the child still runs. */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.process.kill(signal);
  }

  /**
   * Waits for the exit. A child still running after `timeoutMs` is killed
   * with SIGKILL and the wait fails, naming the output: it was due to stop.
   */
  async exited(timeoutMs = EXIT_TIMEOUT_MS): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
    const outcome = await Promise.race([this.exit, late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      await killNow(this);
      throw new Error(`the child was still running ${timeoutMs} ms after it was due to stop:\n${this.outputText}`);
    }
    return outcome;
  }

  /** Sends `signal` and waits for the exit; a child that outlives `timeoutMs` is killed with SIGKILL (and the stop does not fail). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = EXIT_TIMEOUT_MS): Promise<Exit> {
    this.signal(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), timeoutMs);
    try {
      return await this.exit;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Spawns `wagerlink <args>`. */
function spawnWagerlink(args: readonly string[], options: ChildOptions = {}): Child {
  return new Child(process.execPath, [CLI, ...args], options);
}

/** Spawns node with these arguments (a script of the test's own). */
export function spawnNode(args: readonly string[], options: ChildOptions = {}): Child {
  return new Child(process.execPath, args, options);
}

/**
 * Starts a `wagerlink` server and answers once it logs a line matching
 * `ready` (the match is returned with it). A child that exits first, or
 * does not get there within `readyTimeoutMs`, is killed, and the start
 * fails naming its output.
 */
export async function startWagerlink(
  args: readonly string[],
  options: ChildOptions & { ready?: RegExp; readyTimeoutMs?: number } = {},
): Promise<{ child: Child; ready: RegExpExecArray }> {
  const child = spawnWagerlink(args, options);
  try {
    const ready = await child.waitForLine(options.ready ?? /ready on/, options.readyTimeoutMs ?? READY_TIMEOUT_MS);
    return { child, ready };
  } catch (error) {
    await killNow(child);
    throw error;
  }
}

export interface Finished extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs a child to its end; one that takes longer than `timeoutMs` is killed with SIGKILL (its exit then shows it). */
async function runToEnd(child: Child, timeoutMs = RUN_TIMEOUT_MS): Promise<Finished> {
  const timer = setTimeout(() => child.signal('SIGKILL'), timeoutMs);
  try {
    const exit = await child.exit;
    return { ...exit, stdout: child.stdout, stderr: child.stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `wagerlink <args>` to its end (see runToEnd). */
export function runWagerlink(args: readonly string[], options: ChildOptions & { timeoutMs?: number } = {}): Promise<Finished> {
  return runToEnd(spawnWagerlink(args, options), options.timeoutMs);
}

/** Runs node with these arguments to its end (see runToEnd). */
export function runNode(args: readonly string[], options: ChildOptions & { timeoutMs?: number } = {}): Promise<Finished> {
  return runToEnd(spawnNode(args, options), options.timeoutMs);
}
