/**
 * `wagerlink provider payouts` and `provider outbox`, run as the built CLI
 * in a child process against a provider and a real operator listening on
 * real sockets: an import checks the whole file first (bad lines named,
 * nothing sent), then pays each row with progress lines and a summary, and
 * pays nobody twice when run again; a refused row makes the exit code 1;
 * on a terminal the progress bar ends on the summary's own words and
 * counts; create, a conflict, the outbox listed, an unknown item, each a
 * refusal told in one line `wagerlink: CODE: detail`; a provider that is not
 * there told as such; usage errors and each command's help; the admin token from a file or the environment, and
 * warned about on the command line.
 * On every provider store backend (PROVIDER_BACKENDS).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adminOverHttp, ledgerOf, makeOperator, tempDir, type Operator } from '../helpers.js';
import { CLI, RUN_TIMEOUT_MS, cleanEnv, freePort, runWagerlink } from '../harness/child-process.js';
import {
  adminCall,
  makeProvider,
  OPERATOR_ID,
  openRealGame,
  PROVIDER_ADMIN_TOKEN,
  PROVIDER_BACKENDS,
  realClock,
  type Provider,
} from '../provider/provider-helpers.js';

const CAMPAIGN = '0f6b5c1e-7a2d-4e8f-9b3c-1d2e3f4a5b6c';
/** util-linux's script(1) runs a command on a pseudo-terminal: the import draws its bar only there. */
const SCRIPT = '/usr/bin/script';

/** Runs the built CLI on a terminal; what it wrote to stdout and stderr together, as the terminal got it. */
async function onTerminal(args: string[]): Promise<{ code: number; output: string }> {
  const quoted = [process.execPath, CLI, ...args].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  try {
    const { stdout } = await promisify(execFile)(SCRIPT, ['-qec', quoted, '/dev/null'], { env: cleanEnv(), timeout: RUN_TIMEOUT_MS });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, output: failed.stdout ?? '' };
  }
}
for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`provider payouts and outbox commands: ${backend.name}`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let operatorOrigin: string;
    let provider: Provider;
    let providerOrigin: string;
    const temp = tempDir('wagerlink-cli-payouts-');

    before(async () => {
      op = await makeOperator();
      operatorOrigin = await op.app.listen({ host: '127.0.0.1', port: 0 });
      provider = await makeProvider({ endpoint: operatorOrigin, clock: realClock(), deliveryLimits: { idleMs: 10 }, backend: backend.name });
      providerOrigin = await provider.app.listen({ host: '127.0.0.1', port: 0 });
      for (const player of ['alice', 'bob']) await openRealGame(provider.app, operatorOrigin, player);
    });

    after(async () => {
      await provider.close();
      await op.close();
      temp.cleanup();
    });

    const connection = () => ['--provider', providerOrigin, '--admin-token', PROVIDER_ADMIN_TOKEN];

    function csv(name: string, text: string): string {
      const path = join(temp.dir, name);
      writeFileSync(path, text);
      return path;
    }

    const importing = (file: string) =>
      runWagerlink(['provider', 'payouts', 'import', file, '--operator', OPERATOR_ID, '--campaign', CAMPAIGN, ...connection()]);

    test('an import with bad lines names each of them and sends nothing', async () => {
      const file = csv('bad.csv', 'playerId,currency,amount\r\nalice,EUR,10.001\r\nbob,EUR,5\r\n,EUR,1\r\nbob,EUR,6\r\n');
      const run = await importing(file);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /bad\.csv:2: amount: 10\.001 has more than 2 decimals for EUR/);
      assert.match(run.stderr, /bad\.csv:4: playerId: "" must be/);
      assert.match(run.stderr, /bad\.csv:5: player bob is also on line 3/);
      assert.match(run.stderr, /3 bad lines; nothing was sent/);
      const listed = await adminCall(provider.app, 'GET', '/admin/payouts');
      assert.deepEqual(listed.body.items, []);
    });

    test('an import pays each row once, with progress and a summary; run again, every row is already there', async () => {
      const file = csv('leaderboard.csv', '\uFEFFplayerId,currency,amount\r\nalice,EUR,500.00\r\n"bob",EUR,"250.5"\r\n');
      const first = await importing(file);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stderr, /payouts 1\/2: line 2 alice created\npayouts 2\/2: line 3 bob created/);
      const summary = JSON.parse(first.stdout) as Record<string, unknown>;
      assert.deepEqual(
        {
          rows: summary.rows,
          created: summary.created,
          alreadyThere: summary.alreadyThere,
          conflicts: summary.conflicts,
          refused: summary.refused,
          failed: summary.failed,
        },
        { rows: 2, created: 2, alreadyThere: 0, conflicts: 0, refused: 0, failed: 0 },
      );
      const again = await importing(file);
      assert.equal(again.code, 0, again.stderr);
      assert.equal((JSON.parse(again.stdout) as { alreadyThere: number }).alreadyThere, 2);

      const getOperator = async (url: string) => {
        const answer = await adminOverHttp(operatorOrigin, 'GET', url);
        return { status: answer.status, text: answer.text };
      };
      const deadline = Date.now() + 15_000;
      for (;;) {
        const paid = await adminCall(provider.app, 'GET', '/admin/payouts?status=paid');
        if ((paid.body.items as unknown[]).length === 2) break;
        assert.ok(Date.now() < deadline, 'both payouts are paid');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const prizes = async (player: string) => (await ledgerOf(getOperator, player)).filter((item) => item.kind === 'payout').map((item) => item.amount);
      assert.deepEqual(await prizes('alice'), [500]);
      assert.deepEqual(await prizes('bob'), [250.5]);
    });

    test('a row the provider refuses makes the import exit 1 and is in the summary', async () => {
      const file = csv('stranger.csv', 'playerId,currency,amount,payoutId\nstranger,EUR,1,\n');
      const run = await importing(file);
      assert.equal(run.code, 1, run.stderr);
      const summary = JSON.parse(run.stdout) as { refused: number; problems: { line: number; code: string }[] };
      assert.equal(summary.refused, 1);
      assert.deepEqual(
        summary.problems.map((p) => [p.line, p.code]),
        [[2, 'SESSION_NOT_FOUND']],
      );
    });

    test(
      "on a terminal the progress bar ends on the summary's own words and counts",
      { skip: existsSync(SCRIPT) ? false : `${SCRIPT} is not installed` },
      async () => {
        const file = csv('strangers.csv', 'playerId,currency,amount\nstranger1,EUR,1\nalice,EUR,2.5\nstranger2,EUR,1\n');
        const run = await onTerminal(['provider', 'payouts', 'import', file, '--operator', OPERATOR_ID, '--campaign', randomUUID(), ...connection()]);
        assert.equal(run.code, 1, run.output);
        const bars = run.output.split('\r').filter((part) => part.startsWith('['));
        assert.equal(bars.length, 3, run.output);
        const last = bars.at(-1)!.split('\n')[0]!;
        const summary = JSON.parse(run.output.slice(run.output.indexOf('{'))) as Record<string, number>;
        assert.deepEqual([summary.created, summary.refused, summary.failed], [1, 2, 0]);
        assert.equal(
          last,
          `[##########] 3/3 created ${summary.created} alreadyThere ${summary.alreadyThere} conflicts ${summary.conflicts} refused ${summary.refused} failed ${summary.failed}`,
        );
      },
    );

    test('a provider that is not there is one line naming it, for a call and for each row of an import', async () => {
      const gone = `http://127.0.0.1:${await freePort()}`;
      const listed = await runWagerlink(['provider', 'outbox', 'list', '--provider', gone], {
        env: cleanEnv({ WAGERLINK_PROVIDER_ADMIN_TOKEN: PROVIDER_ADMIN_TOKEN }),
      });
      assert.equal(listed.code, 1);
      assert.equal(listed.stdout, '');
      assert.equal(listed.stderr, `wagerlink: could not reach ${gone} (connection refused)\n`);
      const file = csv('gone.csv', 'playerId,currency,amount\nalice,EUR,1\n');
      const imported = await runWagerlink(['provider', 'payouts', 'import', file, '--operator', OPERATOR_ID, '--campaign', CAMPAIGN, '--provider', gone], {
        env: cleanEnv({ WAGERLINK_PROVIDER_ADMIN_TOKEN: PROVIDER_ADMIN_TOKEN }),
      });
      assert.equal(imported.code, 1);
      const summary = JSON.parse(imported.stdout) as { failed: number; problems: { detail: string }[] };
      assert.equal(summary.failed, 1);
      assert.equal(summary.problems[0]!.detail, `could not reach ${gone} (connection refused)`);
    });

    test('create pays one prize; the same payout id with another amount is a conflict', async () => {
      const payoutId = randomUUID();
      const args = [
        'provider',
        'payouts',
        'create',
        '--operator',
        OPERATOR_ID,
        '--player',
        'alice',
        '--currency',
        'EUR',
        '--campaign',
        randomUUID(),
        '--payout',
        payoutId,
        ...connection(),
      ];
      const created = await runWagerlink([...args, '--amount', '7.25']);
      assert.equal(created.code, 0, created.stderr);
      const payout = JSON.parse(created.stdout) as { payoutId: string; status: string; amount: number };
      assert.equal(payout.payoutId, payoutId);
      assert.equal(payout.amount, 7.25);
      const conflict = await runWagerlink([...args, '--amount', '7.26']);
      assert.equal(conflict.code, 1);
      assert.equal(conflict.stdout, '');
      assert.match(conflict.stderr, /^wagerlink: DUPLICATE_CONFLICT: [^\n{]+\n$/m);
      const bad = await runWagerlink([...args, '--amount', 'seven']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--amount must be decimal text/);
    });

    test('the admin token comes from a file, or from WAGERLINK_PROVIDER_ADMIN_TOKEN, without a warning; on the command line it is warned about', async () => {
      const tokenFile = join(temp.dir, 'admin-token');
      writeFileSync(tokenFile, `${PROVIDER_ADMIN_TOKEN}\n`, { mode: 0o600 });
      const list = ['provider', 'outbox', 'list', '--status', 'sent', '--provider', providerOrigin];
      const fromFile = await runWagerlink([...list, '--admin-token-file', tokenFile]);
      assert.equal(fromFile.code, 0, fromFile.stderr);
      assert.ok(Array.isArray((JSON.parse(fromFile.stdout) as { items: unknown[] }).items), fromFile.stdout);
      assert.equal(fromFile.stderr, '');
      const fromEnv = await runWagerlink(list, { env: cleanEnv({ WAGERLINK_PROVIDER_ADMIN_TOKEN: PROVIDER_ADMIN_TOKEN }) });
      assert.equal(fromEnv.code, 0, fromEnv.stderr);
      assert.equal(fromEnv.stderr, '');
      const onCommandLine = await runWagerlink([...list, '--admin-token', PROVIDER_ADMIN_TOKEN]);
      assert.equal(onCommandLine.code, 0, onCommandLine.stderr);
      assert.match(
        onCommandLine.stderr,
        /^wagerlink: warning: --admin-token on the command line can be read by other users .*; use --admin-token-file FILE or WAGERLINK_PROVIDER_ADMIN_TOKEN\n$/,
      );
    });

    test('outbox list, and retry or resolve of an item that does not exist', async () => {
      const listed = await runWagerlink(['provider', 'outbox', 'list', '--status', 'sent', '--operator', OPERATOR_ID, ...connection()]);
      assert.equal(listed.code, 0, listed.stderr);
      const items = (JSON.parse(listed.stdout) as { items: { kind: string; status: string }[] }).items;
      assert.ok(items.some((item) => item.kind === 'payout' && item.status === 'sent'));
      const unknown = await runWagerlink(['provider', 'outbox', 'retry', '999999', ...connection()]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^wagerlink: NOT_FOUND: [^\n{]+\n$/m);
      const noReference = await runWagerlink(['provider', 'outbox', 'resolve', '1', ...connection()]);
      assert.equal(noReference.code, 2);
      assert.match(noReference.stderr, /^wagerlink: provider outbox resolve needs --reference REF\n/);
      const wrongToken = await runWagerlink(['provider', 'outbox', 'list', '--provider', providerOrigin], {
        env: cleanEnv({ WAGERLINK_PROVIDER_ADMIN_TOKEN: 'wrong' }),
      });
      assert.equal(wrongToken.code, 1);
      assert.match(wrongToken.stderr, /^wagerlink: INVALID_TOKEN: [^\n{]+\n$/);
    });

    test('each command has its help', async () => {
      for (const [args, heading] of [
        [['provider', 'payouts', '--help'], /wagerlink provider payouts — /],
        [['provider', 'payouts', 'create', '--help'], /wagerlink provider payouts create — /],
        [['provider', 'payouts', 'import', '--help'], /playerId,currency,amount\[,payoutId\]/],
        [['provider', 'outbox', '--help'], /wagerlink provider outbox — /],
        [['provider', 'outbox', 'list', '--help'], /wagerlink provider outbox list — [^]*--status S/],
        [['provider', 'outbox', 'retry', '--help'], /wagerlink provider outbox retry — /],
        [['provider', 'outbox', 'resolve', '--help'], /wagerlink provider outbox resolve — [^]*--reference REF/],
      ] as const) {
        const run = await runWagerlink(args);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, heading);
      }
    });
  });
}
