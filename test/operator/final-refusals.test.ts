/**
 * Proves docs/protocol.md §6.4's finality of refusals through the operator's HTTP
 * API, on every backend: a /transaction request that the wallet rules refused
 * (402, 403 SESSION_EXPIRED / PLAYER_BLOCKED / SESSION_MISMATCH, 409
 * ROUND_CLOSED / ROUND_MISMATCH / CAMPAIGN_FINISHED) is remembered with its
 * transaction ids, and the same request sent again answers the same refusal
 * and books nothing, even once the balance or the player's state would allow
 * it. A provider that has closed a round as refused and an operator that
 * books its replay would disagree about money for good.
 *
 * Refusals the wallet never judged (400, 401, 404, 413, 415) are not
 * remembered: the same ids may come again, corrected, and be booked.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import {
  admin,
  balanceOf,
  makeOperator,
  OPERATOR_BACKENDS,
  playerWithSession,
  transactionBody,
  tx,
  walletHeaders,
  type Operator,
} from '../helpers.js';

const MINUTE_MS = 60_000;

/** Sends exactly these bytes, signed, as a provider's retry would. */
async function send(app: FastifyInstance, bodyText: string) {
  const response = await app.inject({ method: 'POST', url: '/transaction', payload: bodyText, headers: walletHeaders(bodyText) });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

async function deposit(app: FastifyInstance, playerId: string, amount: number): Promise<void> {
  const done = await admin(app, 'POST', `/admin/players/${playerId}/adjustments`, { id: randomUUID(), type: 'deposit', amount });
  assert.equal(done.status, 200, done.raw);
}

async function transferCount(app: FastifyInstance, playerId: string): Promise<number> {
  const listing = await admin(app, 'GET', `/admin/players/${playerId}/transactions?limit=500`);
  assert.equal(listing.status, 200, listing.raw);
  return (listing.body.items as unknown[]).length;
}

for (const backend of OPERATOR_BACKENDS) {
  describe(`§6.4 a refusal is final (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    before(async () => {
      op = await makeOperator({ backend: backend.name });
    });
    after(async () => {
      await op?.close();
    });

    test('a bet refused for insufficient funds stays refused after a deposit, and books nothing', async () => {
      const fixture = await playerWithSession(op.app, { balance: 10 });
      const body = JSON.stringify(transactionBody(fixture, [tx('bet', 50), tx('win', 70)]));
      const first = await send(op.app, body);
      assert.equal(first.status, 402);
      assert.equal(first.body.code, 'INSUFFICIENT_FUNDS');

      await deposit(op.app, fixture.playerId, 100);
      const transfers = await transferCount(op.app, fixture.playerId);
      const again = await send(op.app, body);
      assert.equal(again.status, 402, JSON.stringify(again.body));
      assert.equal(again.body.code, 'INSUFFICIENT_FUNDS');
      assert.match(String(again.body.detail), /refused before/);
      assert.equal(again.body.balance, 110, 'the balance member is the current balance');
      assert.equal(await balanceOf(op.app, fixture.playerId), 110);
      assert.equal(await transferCount(op.app, fixture.playerId), transfers);
    });

    test('a bet refused for a blocked player stays refused once the player is unblocked', async () => {
      const fixture = await playerWithSession(op.app, { balance: 100 });
      assert.equal((await admin(op.app, 'POST', `/admin/players/${fixture.playerId}/block`, { reason: 'self-exclusion' })).status, 200);
      const body = JSON.stringify(transactionBody(fixture, [tx('bet', 5)]));
      assert.equal((await send(op.app, body)).body.code, 'PLAYER_BLOCKED');
      assert.equal((await admin(op.app, 'POST', `/admin/players/${fixture.playerId}/unblock`)).status, 200);

      const again = await send(op.app, body);
      assert.equal(again.status, 403);
      assert.equal(again.body.code, 'PLAYER_BLOCKED');
      assert.equal(await balanceOf(op.app, fixture.playerId), 100);
      // A new request with new ids is judged afresh.
      assert.equal((await send(op.app, JSON.stringify(transactionBody(fixture, [tx('bet', 5)])))).status, 200);
    });

    test('the remembered refusal outlives the state that caused it: expiry answered again as SESSION_EXPIRED', async () => {
      const fixture = await playerWithSession(op.app, { balance: 100 });
      op.clock.advance(31 * MINUTE_MS);
      const body = JSON.stringify(transactionBody(fixture, [tx('bet', 5)]));
      assert.equal((await send(op.app, body)).body.code, 'SESSION_EXPIRED');
      const again = await send(op.app, body);
      assert.equal(again.body.code, 'SESSION_EXPIRED');
      assert.equal(await balanceOf(op.app, fixture.playerId), 100);
    });

    test('every refused id is remembered: each of them, alone or with new ids, answers the refusal', async () => {
      const fixture = await playerWithSession(op.app, { balance: 10 });
      const bet = tx('bet', 50);
      const win = tx('win', 70);
      const round = { id: randomUUID(), finished: true };
      assert.equal((await send(op.app, JSON.stringify(transactionBody(fixture, [bet, win], round)))).status, 402);
      await deposit(op.app, fixture.playerId, 100);

      const winAlone = await send(op.app, JSON.stringify(transactionBody(fixture, [win], round)));
      assert.equal(winAlone.status, 402, 'the win of a refused request is not booked on its own');
      const withNew = await send(op.app, JSON.stringify(transactionBody(fixture, [bet, tx('win', 1)], round)));
      assert.equal(withNew.status, 402);
      assert.equal(await balanceOf(op.app, fixture.playerId), 110);
    });

    test('a refused id sent again with other content is a DUPLICATE_CONFLICT', async () => {
      const fixture = await playerWithSession(op.app, { balance: 10 });
      const id = randomUUID();
      const round = { id: randomUUID(), finished: true };
      assert.equal((await send(op.app, JSON.stringify(transactionBody(fixture, [tx('bet', 50, { id })], round)))).status, 402);
      const other = await send(op.app, JSON.stringify(transactionBody(fixture, [tx('bet', 5, { id })], round)));
      assert.equal(other.status, 409);
      assert.equal(other.body.code, 'DUPLICATE_CONFLICT');
      assert.equal(await balanceOf(op.app, fixture.playerId), 10);
    });

    test('refusals of the round rules are final too: ROUND_CLOSED and ROUND_MISMATCH', async () => {
      const fixture = await playerWithSession(op.app, { balance: 100 });
      const round = { id: randomUUID(), finished: true };
      assert.equal((await send(op.app, JSON.stringify(transactionBody(fixture, [tx('bet', 1)], round)))).status, 200);
      const late = JSON.stringify(transactionBody(fixture, [tx('win', 3)], round));
      assert.equal((await send(op.app, late)).body.code, 'ROUND_CLOSED');
      assert.equal((await send(op.app, late)).body.code, 'ROUND_CLOSED');

      const other = await playerWithSession(op.app, { balance: 100 });
      const stolen = JSON.stringify(transactionBody(other, [tx('win', 3)], round));
      assert.equal((await send(op.app, stolen)).body.code, 'ROUND_MISMATCH');
      assert.equal((await send(op.app, stolen)).body.code, 'ROUND_MISMATCH');
      assert.equal(await balanceOf(op.app, fixture.playerId), 99);
      assert.equal(await balanceOf(op.app, other.playerId), 100);
    });

    test('ids already booked stay booked: a request that repeats them with a refused new id is refused, the booked part stands', async () => {
      const fixture = await playerWithSession(op.app, { balance: 10 });
      const round = { id: randomUUID(), finished: false };
      const bet = tx('bet', 10);
      assert.equal((await send(op.app, JSON.stringify(transactionBody(fixture, [bet], round)))).status, 200);
      const body = JSON.stringify(transactionBody(fixture, [bet, tx('bet', 5)], round));
      assert.equal((await send(op.app, body)).status, 402);
      await deposit(op.app, fixture.playerId, 100);
      assert.equal((await send(op.app, body)).status, 402);
      // The booked bet alone is still a replay of what was booked.
      assert.equal((await send(op.app, JSON.stringify(transactionBody(fixture, [bet], round)))).status, 200);
      assert.equal(await balanceOf(op.app, fixture.playerId), 100);
    });

    test('refusals the wallet never judged are not remembered: a corrected request with the same ids is booked', async () => {
      const fixture = await playerWithSession(op.app, { balance: 100 });
      const id = randomUUID();
      const round = { id: randomUUID(), finished: true };
      const tooPrecise = await send(op.app, JSON.stringify(transactionBody(fixture, [tx('bet', 1.001, { id })], round)));
      assert.equal(tooPrecise.status, 400);
      const unknownSession = await send(op.app, JSON.stringify(transactionBody({ ...fixture, sessionId: randomUUID() }, [tx('bet', 1, { id })], round)));
      assert.equal(unknownSession.status, 404);
      const corrected = await send(op.app, JSON.stringify(transactionBody(fixture, [tx('bet', 1, { id })], round)));
      assert.equal(corrected.status, 200, JSON.stringify(corrected.body));
      assert.equal(await balanceOf(op.app, fixture.playerId), 99);
    });

    test('the books still balance after refusals are remembered', async () => {
      const report = await op.store.verify();
      assert.ok(report.ok, report.problems.join('; '));
    });
  });
}
