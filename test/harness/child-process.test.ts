/**
 * Proves the child-process harness that the process tests share: a line
 * is matched only once it is whole (a ready line split across chunks, or
 * one on stderr, is found; a half line is not), waiting fails naming the
 * output when the child exits first or the line does not come in time,
 * a stop that the child ignores ends in SIGKILL, a child that does not
 * exit when due is killed and the wait fails, and a child started for a
 * test is dead once that test has ended. The children are small node
 * scripts, so that no server start is part of what is proved.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { runNode, spawnNode, type Child } from './child-process.js';

/**
 * Short time-outs, so that the failures are quick; none of them times a
 * result: each is waited out only once what it waits for can no longer come.
 */
const SHORT_MS = 300;

/** Resolves once the child's stdout holds `text`, however long its start takes. */
async function stdoutHolds(child: Child, text: string): Promise<void> {
  while (!child.stdout.includes(text)) await once(child.process.stdout!, 'data');
}

/** A node script that runs `body` and then waits (for up to a minute) to be stopped. */
function script(body: string): string[] {
  return ['-e', `${body}; setTimeout(() => {}, 60_000);`];
}

describe('child-process harness', () => {
  test('a line split across chunks is matched once whole; stderr lines count too', async (t) => {
    const child = spawnNode(
      script(`
        process.stdout.write('ready o');
        setTimeout(() => process.stdout.write('n http://127.0.0.1:1234\\n'), 100);
        setTimeout(() => process.stderr.write('warning: on stderr\\n'), 150);
      `),
      { until: t },
    );
    const ready = await child.waitForLine(/ready on (http:\/\/\S+)/);
    assert.equal(ready[1], 'http://127.0.0.1:1234');
    assert.equal((await child.waitForLine(/^warning: (.*)$/))[1], 'on stderr');
    // A line seen before the wait began is found too.
    assert.equal((await child.waitForLine(/ready on/))[0], 'ready on');
    // Both streams together; their order between the pipes is the operating system's.
    assert.match(child.output(), /ready on http:\/\/127\.0\.0\.1:1234\n/);
    assert.match(child.output(), /warning: on stderr\n/);
    assert.equal(child.stdout, 'ready on http://127.0.0.1:1234\n');
    assert.equal(child.stderr, 'warning: on stderr\n');
    const exit = await child.stop('SIGTERM');
    assert.equal(exit.signal, 'SIGTERM');
  });

  test('a half line does not match until its end comes', async (t) => {
    const child = spawnNode(script(`process.stdout.write('ready on http://127.0.0.1:')`), { until: t });
    // The half line has arrived before the wait starts, so the wait's time-out proves only that it is not taken for a line.
    await stdoutHolds(child, 'ready on http://127.0.0.1:');
    await assert.rejects(child.waitForLine(/ready on (http:\/\/\S+)/, SHORT_MS), /no line matched .* within 300 ms:\nready on http:\/\/127\.0\.0\.1:/);
  });

  test('waiting fails, naming the output, when the child exits first', async () => {
    const child = spawnNode(['-e', `console.error('cannot start: port in use'); process.exit(3)`]);
    await assert.rejects(child.waitForLine(/ready on/), /the child exited before a line matched \/ready on\/:\ncannot start: port in use/);
    assert.deepEqual(await child.exit, { code: 3, signal: null });
    assert.equal(child.running, false);
  });

  test('a command run to its end gives its exit code and whole output', async () => {
    const done = await runNode(['-e', `process.stdout.write('{"ok":true}'); process.stderr.write('note'); process.exitCode = 1`]);
    assert.deepEqual(done, { code: 1, signal: null, stdout: '{"ok":true}', stderr: 'note' });
  });

  test('a stop that the child ignores ends in SIGKILL', async (t) => {
    const child = spawnNode(script(`process.on('SIGTERM', () => {}); console.log('ignoring')`), { until: t });
    await child.waitForLine(/ignoring/);
    const exit = await child.stop('SIGTERM', SHORT_MS);
    assert.deepEqual(exit, { code: null, signal: 'SIGKILL' });
  });

  test('a child that does not exit when due is killed, and the wait fails naming its output', async (t) => {
    const child = spawnNode(script(`console.log('still here')`), { until: t });
    await child.waitForLine(/still here/);
    await assert.rejects(child.exited(SHORT_MS), /the child was still running 300 ms after it was due to stop:\nstill here/);
    assert.equal(child.running, false);
  });

  test('a child started for a test is dead once that test has ended', async (t) => {
    let child: Child | undefined;
    await t.test('a test that leaves its child running', async (inner) => {
      child = spawnNode(script(`console.log('up')`), { until: inner });
      await child.waitForLine(/up/);
    });
    assert.ok(child);
    assert.equal(child.running, false);
    assert.equal((await child.exit).signal, 'SIGKILL');
  });
});
