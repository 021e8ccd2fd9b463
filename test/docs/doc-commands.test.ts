/**
 * Proves that every shell command of the README and of docs/*.md works as
 * written against a fresh `npm start`: a sandbox is started in a temporary
 * folder, and each fenced `sh`, `bash` or `console` block is run, command by
 * command and in each file's order, in one bash per file (so that a variable
 * or function a command defines serves the next ones), with the sandbox's
 * variables (`wagerlink sandbox env`) and `npx wagerlink` / `wagerlink`
 * being this checkout's bin/wagerlink.js. Each command must exit 0, or the
 * code its line states (`# -> exit N`), within COMMAND_MS_MAX.
 *
 * What cannot run here says why, in the doc, where a reader sees it too:
 * `<!-- not run: REASON -->` on the line before a block skips the block,
 * and `# not run: REASON` ending a command skips that command. A marker
 * without a reason fails the test; what was skipped is listed.
 *
 * The docs name the default ports, 8080 and 8090, so that a person can
 * paste them against `npm start`; the sandbox here runs on free ports
 * (another test, or a person's sandbox, may hold the default ones), so each
 * command is rewritten before it runs: `127.0.0.1:8080` and
 * `localhost:8080` name the operator's port, `:8090` the provider's, and
 * `wagerlink sandbox env` is given `--provider-port`. The commands run in a
 * folder of their own, where `./data` is the sandbox's data folder and
 * `examples` this checkout's examples, so that the reports and files they
 * write stay out of the checkout.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI, cleanEnv, freePort, ROOT, runWagerlink, startWagerlink } from '../harness/child-process.js';

/** A command that has not ended after this long is killed and fails the test (ms); the operator's conformance run is the longest, about 20 s alone. */
const COMMAND_MS_MAX = 180_000;
/** The languages of the blocks that are run. */
const SHELL_LANGUAGES = new Set(['sh', 'bash', 'console', 'shell']);

const BLOCK_MARKER = /^<!--\s*not run:(.*?)-->\s*$/;
const COMMAND_MARKER = /#.*\bnot run:(.*)$/;
const EXIT_MARKER = /#.*->\s*exit (\d+)\b/;

/** The files whose commands are run, in this order. */
function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export interface DocCommand {
  file: string;
  /** The line of the doc where the command starts. */
  line: number;
  text: string;
  /** Why it is not run, when its block or its line says so. */
  skip?: string;
  exitCode: number;
}

interface Block {
  line: number;
  language: string;
  lines: string[];
  skip?: string;
}

function blocksOf(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\w*)\s*$/.exec(lines[index]!);
    if (!open) continue;
    let end = index + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    assert.ok(end < lines.length, `${file}:${index + 1}: a block that is never closed`);
    const previous =
      lines
        .slice(0, index)
        .reverse()
        .find((line) => line.trim() !== '') ?? '';
    const marker = BLOCK_MARKER.exec(previous.trim());
    if (marker) assert.ok(marker[1]!.trim() !== '', `${file}:${index}: a "not run" marker must say why`);
    blocks.push({ line: index + 1, language: open[1]!, lines: lines.slice(index + 1, end), ...(marker ? { skip: marker[1]!.trim() } : {}) });
    index = end;
  }
  return blocks;
}

/** A line's text without its comment, quotes followed: where a `#` starts a word outside quotes. */
function scan(line: string, state: { quote: '' | "'" | '"'; depth: number }): { code: string } {
  let code = '';
  for (let at = 0; at < line.length; at++) {
    const char = line[at]!;
    if (state.quote === "'") {
      if (char === "'") state.quote = '';
    } else if (state.quote === '"') {
      if (char === '\\') {
        code += char + (line[at + 1] ?? '');
        at++;
        continue;
      }
      if (char === '"') state.quote = '';
    } else {
      if (char === '#' && (at === 0 || /\s/.test(line[at - 1]!))) break;
      if (char === '\\') {
        code += char + (line[at + 1] ?? '');
        at++;
        continue;
      }
      if (char === "'" || char === '"') state.quote = char;
      else if (char === '(') state.depth++;
      else if (char === ')') state.depth--;
      else if (char === '{' && (at === line.length - 1 || /\s/.test(line[at + 1]!))) state.depth++;
      else if (char === '}' && (at === 0 || /[\s;]/.test(line[at - 1]!))) state.depth--;
    }
    code += char;
  }
  return { code };
}

/** A block's commands: lines joined while a quote, a brace, a parenthesis, a `\`, a pipe or `&&` is left open. */
export function commandsOf(file: string, block: Block): DocCommand[] {
  const commands: DocCommand[] = [];
  const lines = block.language === 'console' ? consoleCommands(block.lines) : block.lines.map((text, index) => ({ text, index }));
  const state = { quote: '' as '' | "'" | '"', depth: 0 };
  let current: { start: number; lines: string[] } | undefined;
  for (const { text, index } of lines) {
    if (current === undefined) {
      if (text.trim() === '' || text.trim().startsWith('#')) continue;
      current = { start: block.line + 1 + index, lines: [] };
    }
    current.lines.push(text);
    const { code } = scan(text, state);
    const open = state.quote !== '' || state.depth > 0 || /(\\|\||&&)\s*$/.test(code);
    if (open) continue;
    const whole = current.lines.join('\n');
    const last = current.lines[current.lines.length - 1]!;
    const skipped = COMMAND_MARKER.exec(last);
    if (skipped) assert.ok(skipped[1]!.trim() !== '', `${file}:${current.start}: a "not run" marker must say why`);
    const skip = block.skip ?? skipped?.[1]!.trim();
    commands.push({ file, line: current.start, text: whole, exitCode: Number(EXIT_MARKER.exec(last)?.[1] ?? 0), ...(skip === undefined ? {} : { skip }) });
    current = undefined;
  }
  assert.equal(current, undefined, `${file}:${block.line}: the block ends inside a command (an open quote, brace or continuation)`);
  return commands;
}

/** A console block's commands are its `$ ` lines and their continuations; the rest is output. */
function consoleCommands(lines: string[]): { text: string; index: number }[] {
  const kept: { text: string; index: number }[] = [];
  let continuing = false;
  lines.forEach((text, index) => {
    if (text.startsWith('$ ')) kept.push({ text: text.slice(2), index });
    else if (continuing) kept.push({ text, index });
    else return;
    continuing = /\\\s*$/.test(text);
  });
  return kept;
}

export function docCommands(): DocCommand[] {
  return docFiles().flatMap((file) =>
    blocksOf(file, readFileSync(join(ROOT, file), 'utf8'))
      .filter((block) => SHELL_LANGUAGES.has(block.language))
      .flatMap((block) => commandsOf(file, block)),
  );
}

/** A command as it runs against this test's sandbox: its ports instead of the default ones. */
function rewritten(text: string, ports: { operator: number; provider: number }): string {
  return text
    .replace(/\b(127\.0\.0\.1|localhost):8080\b/g, `$1:${ports.operator}`)
    .replace(/\b(127\.0\.0\.1|localhost):8090\b/g, `$1:${ports.provider}`)
    .replace(/\bwagerlink sandbox env\b/g, `wagerlink sandbox env --provider-port ${ports.provider}`);
}

/** `npx wagerlink ...` and `wagerlink ...` run this checkout's CLI; any other npx is npm's. */
function shimFolder(work: string): string {
  const folder = join(work, '.bin');
  mkdirSync(folder);
  const node = JSON.stringify(process.execPath);
  const cli = JSON.stringify(CLI);
  writeFileSync(join(folder, 'wagerlink'), `#!/bin/sh\nexec ${node} ${cli} "$@"\n`);
  const realPath = (process.env.PATH ?? '')
    .split(':')
    .filter((entry) => entry !== folder)
    .join(':');
  writeFileSync(
    join(folder, 'npx'),
    `#!/bin/sh\nif [ "$1" = wagerlink ]; then shift; exec ${node} ${cli} "$@"; fi\nPATH=${JSON.stringify(realPath)} exec npx "$@"\n`,
  );
  chmodSync(join(folder, 'wagerlink'), 0o755);
  chmodSync(join(folder, 'npx'), 0o755);
  return folder;
}

/** The bash script of one file's commands: each in the shell itself, its start and exit code written to fd 3. */
function scriptOf(commands: readonly DocCommand[], ports: { operator: number; provider: number }): string {
  // pipefail: a command whose first half fails (a file that is not there) fails, though the last half succeeds.
  const parts = ['exec 2>&1', 'set -o pipefail'];
  commands.forEach((command, index) => {
    parts.push(`printf '\\n>>> [${index}] %s:%s\\n' ${JSON.stringify(command.file)} ${command.line}`);
    parts.push(`printf 'start ${index}\\n' >&3`);
    parts.push(`{\n${rewritten(command.text, ports)}\n} 3>&- </dev/null`);
    parts.push(`printf 'end ${index} %d\\n' $? >&3`);
  });
  return `${parts.join('\n')}\n`;
}

interface FileRun {
  exits: Map<number, number>;
  /** The command that ran past COMMAND_MS_MAX, or the one running when bash ended early. */
  stuck?: number;
  output: string;
}

/** Runs one file's script in bash, killing it (its whole process group) when a command outlives COMMAND_MS_MAX. */
async function runFile(script: string, work: string, env: NodeJS.ProcessEnv): Promise<FileRun> {
  const path = join(work, `.script-${Date.now()}.sh`);
  writeFileSync(path, script);
  const child = spawn('bash', [path], { cwd: work, env, detached: true, stdio: ['ignore', 'pipe', 'ignore', 'pipe'] });
  const exits = new Map<number, number>();
  let output = '';
  let running: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stuck: number | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stuck = running;
      process.kill(-child.pid!, 'SIGKILL');
    }, COMMAND_MS_MAX);
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let partial = '';
  (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8');
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const [word, index, code] = line.split(' ');
      if (word === 'start') {
        running = Number(index);
        arm();
      } else if (word === 'end') {
        exits.set(Number(index), Number(code));
        running = undefined;
      }
    }
  });
  arm();
  await new Promise((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  try {
    // Anything a command left running in the background ends with its file.
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
  return { exits, output, ...(stuck !== undefined ? { stuck } : running !== undefined ? { stuck: running } : {}) };
}

test('the parser finds commands across quotes, braces and continuations, and reads the markers', () => {
  const block: Block = {
    line: 10,
    language: 'sh',
    lines: [
      '# a comment alone',
      'call() { # call PATH',
      '  curl -s "$1" \\',
      '    -d "$2"; echo',
      '}',
      'call /x \'{"a":1,',
      '  "b":2}\'   # -> exit 3',
      'npx wagerlink operator serve   # not run: it runs until stopped',
    ],
  };
  const commands = commandsOf('x.md', block);
  assert.deepEqual(
    commands.map((command) => [command.line, command.exitCode, command.skip]),
    [
      [12, 0, undefined],
      [16, 3, undefined],
      [18, 0, 'it runs until stopped'],
    ],
  );
  assert.deepEqual(
    commandsOf('x.md', { line: 1, language: 'console', lines: ['$ echo a \\', '  b', 'a b', '$ true'] }).map((command) => command.text),
    ['echo a \\\n  b', 'true'],
  );
  assert.throws(() => commandsOf('x.md', { line: 1, language: 'sh', lines: ['true   # not run: '] }), /must say why/);
});

test('every command of the README and docs/*.md works as written against a fresh npm start', async (t) => {
  const commands = docCommands();
  const work = mkdtempSync(join(tmpdir(), 'wagerlink-docs-'));
  const data = join(work, 'data');
  symlinkSync(join(ROOT, 'examples'), join(work, 'examples'));
  const ports = { operator: await freePort(), provider: await freePort() };
  const sandbox = await startWagerlink(['sandbox', '--data', data, '--port', String(ports.operator), '--provider-port', String(ports.provider)], {
    ready: /wagerlink sandbox ready/,
    until: t,
  });
  const printed = await runWagerlink(['sandbox', 'env', '--data', data, '--provider-port', String(ports.provider)]);
  assert.equal(printed.code, 0, printed.stderr);
  const variables = Object.fromEntries([...printed.stdout.matchAll(/^export (\w+)='([^']*)'/gm)].map((match) => [match[1]!, match[2]!]));
  const env = cleanEnv({ ...variables, PATH: `${shimFolder(work)}:${process.env.PATH ?? ''}`, HOME: work });

  const skipped = commands.filter((command) => command.skip !== undefined);
  t.diagnostic(`${commands.length - skipped.length} commands run, ${skipped.length} not run:`);
  // One line per run of skipped commands of a file with one reason (a block's), naming the lines.
  const groups: { file: string; lines: number[]; skip: string }[] = [];
  for (const command of skipped) {
    const last = groups[groups.length - 1];
    if (last && last.file === command.file && last.skip === command.skip) last.lines.push(command.line);
    else groups.push({ file: command.file, lines: [command.line], skip: command.skip! });
  }
  for (const group of groups) t.diagnostic(`  ${group.file}:${group.lines.join(',')}: ${group.skip}`);

  const failures: string[] = [];
  for (const file of [...new Set(commands.map((command) => command.file))]) {
    const toRun = commands.filter((command) => command.file === file && command.skip === undefined);
    if (toRun.length === 0) continue;
    const run = await runFile(scriptOf(toRun, ports), work, env);
    toRun.forEach((command, index) => {
      const exit = run.exits.get(index);
      const told = () => run.output.split(`\n>>> [${index}] `)[1]?.split('\n>>> [')[0]?.slice(-3000) ?? '';
      if (run.stuck === index && exit === undefined)
        failures.push(`${command.file}:${command.line}: did not end within ${COMMAND_MS_MAX} ms, or ended its shell\n${command.text}\n${told()}`);
      else if (exit === undefined) failures.push(`${command.file}:${command.line}: not reached (an earlier command of the file ended its shell)`);
      else if (exit !== command.exitCode)
        failures.push(`${command.file}:${command.line}: exit ${exit}, the doc says ${command.exitCode}\n${command.text}\n${told()}`);
    });
  }
  assert.deepEqual(failures, [], failures.join('\n\n'));
  assert.equal(sandbox.child.running, true, 'the sandbox ran through every command');
});
