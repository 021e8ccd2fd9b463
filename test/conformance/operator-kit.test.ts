/**
 * Proves that the conformance kit passes our operator, through real
 * sockets, on every backend (SQLite, and PostgreSQL with DATABASE_URL):
 * every operator case is judged and passes, the expiry cases included (the
 * kit's waits move the operator's test clock), with fresh players from the
 * back office, but the known bugs it found (KNOWN_OPERATOR_FAILURES). Then with a fixtures file of existing players whose balances
 * are not what the cases start from, listed launch keys, and commands that
 * mint keys and block players: every case passes but those that need a
 * clock, which are skipped, saying so, as the file gives no expiry.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FixturesFile } from '../../src/conformance/fixtures.js';
import { OPERATOR_CASES } from '../../src/conformance/operator/index.js';
import { runOperatorConformance } from '../../src/conformance/operator-runner.js';
import { admin, ADMIN_TOKEN, OPERATOR_BACKENDS, tempDir } from '../helpers.js';
import { backOfficeRun, failedIds, GAMES, KNOWN_OPERATOR_FAILURES, listeningOperator, shown, targetOf } from './kit-helpers.js';

/** The kit checks an operator with at least this many cases (docs/conformance.md). */
const CASES_MIN = 80;

for (const backend of OPERATOR_BACKENDS) {
  describe(`the conformance kit against our operator (${backend.name})`, { skip: backend.unavailable }, () => {
    test('every operator case is judged and passes, through real sockets, with players from the back office', async () => {
      const server = await listeningOperator(backend.name);
      try {
        const report = await runOperatorConformance(backOfficeRun(server.origin, server.world));
        assert.equal(report.summary.total, OPERATOR_CASES.length);
        assert.ok(report.summary.total >= CASES_MIN, `${report.summary.total} cases`);
        assert.deepEqual(failedIds(report), KNOWN_OPERATOR_FAILURES, shown(report));
        assert.equal(report.summary.skipped, 0, shown(report));
        assert.equal(report.summary.passed, OPERATOR_CASES.length - KNOWN_OPERATOR_FAILURES.length);
        const books = await server.op.store.verify();
        assert.ok(books.ok, books.problems.join('; '));
      } finally {
        await server.close();
      }
    });
  });
}

/** A script that calls the back office as a fixtures command would call an operator's tooling: `ORIGIN TOKEN key|block|unblock PLAYER [GAME]`. */
const ADMIN_SCRIPT = `
const [origin, token, action, playerId, game] = process.argv.slice(2);
const path = action === 'key' ? '/admin/launch-keys' : '/admin/players/' + encodeURIComponent(playerId) + '/' + action;
const headers = { authorization: 'Bearer ' + token };
const init = action === 'key'
  ? { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ playerId, game }) }
  : { method: 'POST', headers };
const response = await fetch(origin + path, init);
const text = await response.text();
if (!response.ok) { process.stderr.write(text); process.exit(1); }
process.stdout.write(text + '\\n');
`;

describe('the conformance kit with a fixtures file (sqlite)', () => {
  test('existing players, listed keys and commands: every case passes but the expiry cases, skipped for want of a clock', async () => {
    const server = await listeningOperator('sqlite');
    const { dir, cleanup } = tempDir('wagerlink-conformance-');
    try {
      const script = join(dir, 'admin-call.mjs');
      writeFileSync(script, ADMIN_SCRIPT);
      const command = (action: string, ...rest: string[]) => [process.execPath, script, server.origin, ADMIN_TOKEN, action, '{playerId}', ...rest];
      // Balances the cases do not start from: the kit brings each to what a case asks, through the protocol.
      const players: { playerId: string; currency: string; balance: number; keys: Record<string, number> }[] = [
        { playerId: `file-eur-a-${randomUUID().slice(0, 6)}`, currency: 'EUR', balance: 37.45, keys: { dice: 320, slots: 10 } },
        { playerId: `file-eur-b-${randomUUID().slice(0, 6)}`, currency: 'EUR', balance: 2500, keys: { dice: 30 } },
        { playerId: `file-jpy-${randomUUID().slice(0, 6)}`, currency: 'JPY', balance: 7, keys: { dice: 10 } },
        { playerId: `file-btc-${randomUUID().slice(0, 6)}`, currency: 'BTC', balance: 0.5, keys: { dice: 20 } },
        // No listed key: every key of this one comes from launchKeyCommand.
        { playerId: `file-kwd-${randomUUID().slice(0, 6)}`, currency: 'KWD', balance: 3.25, keys: {} },
      ];
      const file: FixturesFile = {
        games: GAMES,
        players: [],
        launchKeyCommand: command('key', '{game}'),
        blockCommand: command('block'),
        unblockCommand: command('unblock'),
      };
      for (const player of players) {
        const made = await admin(server.op.app, 'POST', '/admin/players', { playerId: player.playerId, currency: player.currency, balance: player.balance });
        assert.equal(made.status, 201, made.raw);
        const launchKeys: Record<string, string[]> = {};
        for (const [game, count] of Object.entries(player.keys)) {
          launchKeys[game] = [];
          for (let i = 0; i < count; i++) {
            const key = await admin(server.op.app, 'POST', '/admin/launch-keys', { playerId: player.playerId, game });
            assert.equal(key.status, 201, key.raw);
            launchKeys[game].push(key.body.key as string);
          }
        }
        file.players!.push({ playerId: player.playerId, currency: player.currency, ...(player.keys.dice === undefined ? {} : { launchKeys }) });
      }

      const report = await runOperatorConformance({
        target: targetOf(server.origin),
        fixtures: { file: { content: file, origin: 'fixtures.json' } },
        world: server.world,
      });

      const clockCases = OPERATOR_CASES.filter((each) => each.needs.includes('clock')).map((each) => each.id);
      assert.ok(clockCases.length > 0);
      assert.deepEqual(failedIds(report), KNOWN_OPERATOR_FAILURES, shown(report));
      const skipped = report.cases.filter((result) => result.outcome === 'skipped');
      assert.deepEqual(
        skipped.map((result) => result.id),
        clockCases,
        shown(report),
      );
      for (const result of skipped) assert.match(result.reason ?? '', /^needs a clock: the fixtures give no expiry/);
      assert.equal(report.fixtures, 'fixtures.json');
      const books = await server.op.store.verify();
      assert.ok(books.ok, books.problems.join('; '));
    } finally {
      cleanup();
      await server.close();
    }
  });
});
