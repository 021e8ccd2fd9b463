/**
 * Proves that concurrent wallet calls over a real socket are applied exactly
 * once and never overdraw (docs/protocol.md §6.2–§6.4, §7): identical requests
 * racing each other move the balance once and leave one ledger entry, bets
 * racing for the same balance stop exactly at zero, a request mixing seen and
 * new ids applies only the new ones, and the books verify after each. On
 * every backend (SQLite, and PostgreSQL with DATABASE_URL).
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import {
  admin,
  balanceOf,
  ledgerOf,
  makeOperator,
  OPERATOR_BACKENDS,
  playerWithSession,
  postSigned,
  transactionBody,
  tx,
  type HttpAnswer,
  type Operator,
} from '../helpers.js';

/** Requests fired together in each race. */
const RACERS = 50;

for (const backend of OPERATOR_BACKENDS) {
  describe(`concurrent wallet calls over a real socket (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let origin: string;
    let agent: Agent;

    before(async () => {
      // One socket per racer, so that the requests really reach the server together.
      agent = new Agent({ connections: RACERS, pipelining: 1 });
      op = await makeOperator({ backend: backend.name });
      origin = await op.app.listen({ host: '127.0.0.1', port: 0 });
    });

    after(async () => {
      await agent?.close();
      await op?.close();
    });

    function fire(path: string, bodyText: string, copies: number): Promise<HttpAnswer[]> {
      return Promise.all(Array.from({ length: copies }, () => postSigned(origin, path, bodyText, agent)));
    }

    /** Ledger ids of a player, read through the back-office listing. */
    async function ledgerIds(playerId: string): Promise<string[]> {
      const items = await ledgerOf(async (url) => {
        const answer = await admin(op.app, 'GET', url);
        return { status: answer.status, text: answer.raw };
      }, playerId);
      return items.map((item) => item.id);
    }

    function occurrences(ids: readonly string[], id: string): number {
      return ids.filter((each) => each === id.toLowerCase()).length;
    }

    async function assertBooksBalance(): Promise<void> {
      const report = await op.store.verify();
      assert.ok(report.ok, `verify: ${report.problems.join('; ')}`);
    }

    test(`${RACERS} identical /transaction requests at once apply once`, async () => {
      const p = await playerWithSession(op.app, { balance: 100 });
      const bet = tx('bet', 12.5);
      const bodyText = JSON.stringify(transactionBody(p, [bet]));

      const answers = await fire('/transaction', bodyText, RACERS);

      for (const answer of answers) {
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.text, '{"balance":87.5}');
      }
      assert.equal(await balanceOf(op.app, p.playerId), 87.5);
      assert.equal(occurrences(await ledgerIds(p.playerId), bet.id), 1);
      await assertBooksBalance();
    });

    test('40 distinct bets of 10 on a balance of 100 at once: 10 pass, 30 are refused, balance ends at 0', async () => {
      const bets = 40;
      const p = await playerWithSession(op.app, { balance: 100 });
      // Each bet is its own finished round, so only the balance decides between them.
      const bodies = Array.from({ length: bets }, () => JSON.stringify(transactionBody(p, [tx('bet', 10)])));

      const answers = await Promise.all(bodies.map((bodyText) => postSigned(origin, '/transaction', bodyText, agent)));

      const passed = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status !== 200);
      assert.equal(passed.length, 10, answers.map((a) => `${a.status} ${a.text}`).join('\n'));
      assert.equal(refused.length, 30);
      for (const answer of refused) {
        assert.equal(answer.status, 402, answer.text);
        assert.match(answer.contentType, /^application\/problem\+json/);
        const problem = JSON.parse(answer.text) as { code: string; balance: number };
        assert.equal(problem.code, 'INSUFFICIENT_FUNDS');
        assert.ok(problem.balance >= 0, `a refusal showed a negative balance: ${answer.text}`);
      }
      // Applied one after another, the ten accepted bets saw each balance from 90 down to 0 once.
      const seen = passed.map((a) => (JSON.parse(a.text) as { balance: number }).balance).sort((x, y) => x - y);
      assert.deepEqual(seen, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
      assert.equal(await balanceOf(op.app, p.playerId), 0);

      const ids = await ledgerIds(p.playerId);
      // The opening deposit and the ten bets.
      assert.equal(ids.length, 11);
      await assertBooksBalance();
    });

    test('requests mixing seen and new transaction ids apply only the new ones, even when they race', async () => {
      const p = await playerWithSession(op.app, { balance: 100 });
      const roundId = randomUUID();
      const first = tx('bet', 10);
      const opened = await postSigned(origin, '/transaction', JSON.stringify(transactionBody(p, [first], { id: roundId, finished: false })), agent);
      assert.equal(opened.status, 200, opened.text);
      assert.equal(opened.text, '{"balance":90}');

      // The seen bet again, with a new win and a new bet in the same round.
      const win = tx('win', 3);
      const second = tx('bet', 2);
      const mixed = JSON.stringify(transactionBody(p, [first, win, second], { id: roundId, finished: true }));
      const answers = await fire('/transaction', mixed, RACERS);

      for (const answer of answers) {
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.text, '{"balance":91}');
      }
      assert.equal(await balanceOf(op.app, p.playerId), 91);
      const ids = await ledgerIds(p.playerId);
      for (const each of [first, win, second]) assert.equal(occurrences(ids, each.id), 1, `${each.type} ${each.id}`);
      // The opening deposit and the three transactions, nothing else.
      assert.equal(ids.length, 4);
      await assertBooksBalance();
    });

    test('a request and a superset of it raced against each other apply each transaction once', async () => {
      const p = await playerWithSession(op.app, { balance: 100 });
      const roundId = randomUUID();
      const bet = tx('bet', 10);
      const win = tx('win', 3);
      const second = tx('bet', 2);
      const subset = JSON.stringify(transactionBody(p, [bet], { id: roundId, finished: false }));
      const superset = JSON.stringify(transactionBody(p, [bet, win, second], { id: roundId, finished: true }));

      // Whichever lands first, the other finds its ids seen with the same content.
      const answers = await Promise.all(
        Array.from({ length: RACERS }, (_, index) => postSigned(origin, '/transaction', index % 2 === 0 ? subset : superset, agent)),
      );

      answers.forEach((answer, index) => {
        assert.equal(answer.status, 200, answer.text);
        const balance = (JSON.parse(answer.text) as { balance: number }).balance;
        // The subset answers 90 if it came first, 91 once the superset is in; the superset always ends at 91.
        if (index % 2 === 0) assert.ok(balance === 90 || balance === 91, answer.text);
        else assert.equal(balance, 91);
      });
      assert.equal(await balanceOf(op.app, p.playerId), 91);
      const ids = await ledgerIds(p.playerId);
      for (const each of [bet, win, second]) assert.equal(occurrences(ids, each.id), 1, `${each.type} ${each.id}`);
      assert.equal(ids.length, 4);
      await assertBooksBalance();
    });

    test(`${RACERS} identical /payout requests at once apply once`, async () => {
      const p = await playerWithSession(op.app, { balance: 100 });
      const payoutId = randomUUID();
      const bodyText = JSON.stringify({
        sessionId: p.sessionId,
        payoutId,
        amount: 25.05,
        campaign: { id: randomUUID(), type: 'tournament' },
      });

      const answers = await fire('/payout', bodyText, RACERS);

      for (const answer of answers) {
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.text, '{"balance":125.05}');
      }
      assert.equal(await balanceOf(op.app, p.playerId), 125.05);
      assert.equal(occurrences(await ledgerIds(p.playerId), payoutId), 1);
      await assertBooksBalance();
    });
  });
}
