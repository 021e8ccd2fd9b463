/**
 * Proves the back office's payouts and outbox routes. Against a real
 * operator over real sockets, through the real dispatcher: a prize posted
 * twice, whose first delivery's answer is lost after the operator booked
 * it, is credited once, and the payout is paid with the operator's balance;
 * a payout id left out is derived, so the same prize asked for twice is the
 * same payout; bad input (look-alike player ids among it), other content,
 * a player with no session and a currency other than the session's are refused with problem+json and
 * change nothing. With the delivery stopped: the outbox's items listed,
 * retried and resolved by hand, and refused while in flight or final. On
 * every provider store backend (PROVIDER_BACKENDS).
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLAIM_LIMITS } from '../../src/dispatch/outbox.js';
import { derivedPayoutId } from '../../src/provider/payout-id.js';
import { adminOverHttp, ledgerOf, makeOperator, type Operator } from '../helpers.js';
import { adminCall, assertProblem, makeProvider, OPERATOR_ID, openRealGame, PROVIDER_BACKENDS, realClock, type Provider } from './provider-helpers.js';
import { realSession } from './store/store-fixtures.js';

const CAMPAIGN = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
/** How long a test waits for the delivery to reach a state (ms), on a loaded machine. */
const STATE_WAIT_MS = 15_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + STATE_WAIT_MS;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`payouts to a real operator through the dispatcher: ${backend.name}`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let origin: string;
    let provider: Provider;
    /** /payout calls the operator received, and how many of their answers were lost on the way back. */
    let payoutCalls = 0;
    let answersToLose = 0;

    before(async () => {
      op = await makeOperator();
      op.app.addHook('onRequest', async (request) => {
        if (request.url === '/payout') payoutCalls += 1;
      });
      // The operator books the payout, then its answer is lost: the connection closes before the reply.
      op.app.addHook('onSend', async (request, reply, payload) => {
        if (request.url === '/payout' && answersToLose > 0) {
          answersToLose -= 1;
          reply.raw.socket?.destroy();
        }
        return payload;
      });
      origin = await op.app.listen({ host: '127.0.0.1', port: 0 });
      provider = await makeProvider({ endpoint: origin, clock: realClock(), deliveryLimits: { idleMs: 10 }, backend: backend.name });
    });

    after(async () => {
      await provider.close();
      await op.close();
    });

    const playerWhoPlayed = (playerId: string) => openRealGame(provider.app, origin, playerId);

    const getOperator = async (url: string) => {
      const answer = await adminOverHttp(origin, 'GET', url);
      return { status: answer.status, text: answer.text };
    };

    test('a prize posted twice, its first answer lost, is credited once and the payout is paid with the balance', async () => {
      await playerWhoPlayed('alice');
      const payoutId = randomUUID();
      const body = { operatorId: OPERATOR_ID, playerId: 'alice', currency: 'EUR', amount: '50.25', campaignId: CAMPAIGN, payoutId };
      answersToLose = 1;
      const created = await adminCall(provider.app, 'POST', '/admin/payouts', body);
      assert.equal(created.status, 202, created.raw);
      assert.equal(created.headers.location, `/admin/payouts/${payoutId}`);
      assert.equal(created.body.status, 'pending');
      assert.equal(created.body.amount, 50.25);
      // The same prize again, while the first is on its way: the same payout, nothing more to send.
      const again = await adminCall(provider.app, 'POST', '/admin/payouts', { ...body, amount: 50.25 });
      assert.equal(again.status, 200, again.raw);
      assert.equal(again.body.outboxItemId, created.body.outboxItemId);

      const paid = await until('the payout to be paid', async () => {
        const answer = await adminCall(provider.app, 'GET', `/admin/payouts/${payoutId}`);
        return answer.body.status === 'paid' ? answer : undefined;
      });
      assert.equal(paid.body.balanceAfter, 150.25);
      assert.ok(payoutCalls >= 2, `the lost answer was followed by another attempt (${payoutCalls} calls)`);
      const ledger = await ledgerOf(getOperator, 'alice');
      assert.deepEqual(
        ledger.filter((item) => item.kind !== 'deposit').map((item) => [item.kind, item.amount]),
        [['payout', 50.25]],
      );
      const player = await adminOverHttp(origin, 'GET', '/admin/players/alice');
      assert.equal(player.body.balance, 150.25);

      // Posted once more after it was paid: still the one payout, no new request.
      const late = await adminCall(provider.app, 'POST', '/admin/payouts', body);
      assert.equal(late.status, 200, late.raw);
      assert.equal(late.body.status, 'paid');

      const listed = await adminCall(provider.app, 'GET', '/admin/payouts?status=paid');
      assert.equal(listed.status, 200, listed.raw);
      assert.ok((listed.body.items as { payoutId: string }[]).some((item) => item.payoutId === payoutId));
      const sentItems = await adminCall(provider.app, 'GET', `/admin/outbox?status=sent&operatorId=${OPERATOR_ID}&body=1`);
      const item = (sentItems.body.items as Record<string, unknown>[]).find((one) => one.orderingKey === payoutId)!;
      assert.equal(item.kind, 'payout');
      assert.equal(item.path, '/payout');
      assert.match(item.body as string, /"amount":50\.25,"campaign":\{"id":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d","type":"tournament"\}/);
    });

    test('without a payout id, the id is derived from operator, campaign and player: the same prize twice is one payout', async () => {
      await playerWhoPlayed('bob');
      const body = { operatorId: OPERATOR_ID, playerId: 'bob', currency: 'EUR', amount: 10, campaignId: CAMPAIGN.toUpperCase() };
      const first = await adminCall(provider.app, 'POST', '/admin/payouts', body);
      assert.equal(first.status, 202, first.raw);
      assert.equal(first.body.payoutId, derivedPayoutId(OPERATOR_ID, CAMPAIGN, 'bob'));
      const second = await adminCall(provider.app, 'POST', '/admin/payouts', body);
      assert.equal(second.status, 200, second.raw);
      const other = await adminCall(provider.app, 'POST', '/admin/payouts', { ...body, amount: 11 });
      assertProblem(other, 'DUPLICATE_CONFLICT');
      await until('the payout to be paid', async () => {
        const answer = await adminCall(provider.app, 'GET', `/admin/payouts/${first.body.payoutId}`);
        return answer.body.status === 'paid' ? answer : undefined;
      });
      const ledger = await ledgerOf(getOperator, 'bob');
      assert.equal(ledger.filter((item) => item.kind === 'payout').length, 1);
    });

    test('bad input, no session and another currency are refused with problem+json, and nothing is created', async () => {
      await playerWhoPlayed('carol');
      const good = { operatorId: OPERATOR_ID, playerId: 'carol', currency: 'EUR', amount: '5', campaignId: CAMPAIGN };
      const refusals: [Record<string, unknown>, Parameters<typeof assertProblem>[1], RegExp][] = [
        [{ ...good, amount: '1.001' }, 'INVALID_REQUEST', /amount: must be greater than 0 with at most 2 decimals/],
        [{ ...good, amount: 0 }, 'INVALID_REQUEST', /amount/],
        [{ ...good, amount: -1 }, 'INVALID_REQUEST', /amount/],
        [{ ...good, amount: 1.5e300 }, 'INVALID_REQUEST', /amount/],
        [{ ...good, campaignId: 'not-a-uuid' }, 'INVALID_REQUEST', /campaignId/],
        [{ ...good, payoutId: 'x' }, 'INVALID_REQUEST', /payoutId/],
        [{ ...good, currency: 'USD' }, 'INVALID_REQUEST', /carol plays in EUR .*not USD/],
        [{ ...good, currency: 'ZZZ' }, 'INVALID_REQUEST', /ZZZ is not a currency/],
        [{ ...good, playerId: 'nobody' }, 'SESSION_NOT_FOUND', /player nobody has no real game session/],
        // Look-alikes of carol (docs/protocol.md §5.4): refused as ids, never paid to her.
        [{ ...good, playerId: 'c\u0430rol' }, 'INVALID_REQUEST', /^playerId: must be a player id .*mixes letters of scripts/],
        [{ ...good, playerId: 'carol ' }, 'INVALID_REQUEST', /^playerId: must be a player id .*starts or ends with a space/],
        [{ ...good, playerId: 'car\u200bol' }, 'INVALID_REQUEST', /^playerId: must be a player id .*U\+200B/],
        [{ ...good, operatorId: 'nowhere' }, 'WALLET_NOT_FOUND', /nowhere is not configured/],
      ];
      for (const [body, code, detail] of refusals) {
        const answer = await adminCall(provider.app, 'POST', '/admin/payouts', body);
        assertProblem(answer, code);
        assert.match(answer.body.detail as string, detail, answer.raw);
      }
      const listed = await adminCall(provider.app, 'GET', '/admin/payouts?limit=500');
      assert.ok(!(listed.body.items as { playerId: string }[]).some((item) => item.playerId.startsWith('c') || item.playerId === 'nobody'));
      assertProblem(await adminCall(provider.app, 'GET', `/admin/payouts/${randomUUID()}`), 'NOT_FOUND');
      assertProblem(await adminCall(provider.app, 'GET', '/admin/payouts?status=lost'), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/payouts', good, 'wrong-token'), 'INVALID_TOKEN');
    });
  });

  describe(`the outbox over the back office, the delivery stopped: ${backend.name}`, { skip: backend.unavailable }, () => {
    let provider: Provider;
    let payoutId: string;
    let itemId: number;

    before(async () => {
      provider = await makeProvider({ deliver: false, clock: realClock(), backend: backend.name });
      await realSession(provider.store, { operatorId: OPERATOR_ID, now: Date.now() });
      payoutId = randomUUID();
      const created = await adminCall(provider.app, 'POST', '/admin/payouts', {
        operatorId: OPERATOR_ID,
        playerId: 'p-1',
        currency: 'EUR',
        amount: 12.5,
        campaignId: CAMPAIGN,
        payoutId,
      });
      assert.equal(created.status, 202, created.raw);
      itemId = created.body.outboxItemId as number;
    });

    after(async () => {
      await provider.close();
    });

    test('pending items are listed, without their body unless asked, a page at a time', async () => {
      const listed = await adminCall(provider.app, 'GET', '/admin/outbox');
      assert.equal(listed.status, 200, listed.raw);
      const [item] = listed.body.items as Record<string, unknown>[];
      assert.equal(item!.id, itemId);
      assert.equal(item!.status, 'pending');
      assert.equal(item!.inFlight, false);
      assert.equal(item!.orderingKey, payoutId);
      assert.equal(item!.body, undefined);
      const withBody = await adminCall(provider.app, 'GET', '/admin/outbox?status=pending&body=1&limit=1');
      assert.match((withBody.body.items as Record<string, string>[])[0]!.body!, /"amount":12\.5/);
      assert.equal(withBody.body.nextCursor, String(itemId));
      const next = await adminCall(provider.app, 'GET', `/admin/outbox?after=${itemId}`);
      assert.deepEqual(next.body.items, []);
      const elsewhere = await adminCall(provider.app, 'GET', '/admin/outbox?operatorId=other-operator');
      assert.deepEqual(elsewhere.body.items, []);
      assertProblem(await adminCall(provider.app, 'GET', '/admin/outbox?status=lost'), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'GET', '/admin/outbox?limit=0'), 'INVALID_REQUEST');
    });

    test('retry and resolve: unknown ids, ids that are not ids, items in flight and final items are refused', async () => {
      assertProblem(await adminCall(provider.app, 'POST', '/admin/outbox/999999/retry'), 'NOT_FOUND');
      assertProblem(await adminCall(provider.app, 'POST', '/admin/outbox/abc/retry'), 'INVALID_REQUEST');
      assertProblem(await adminCall(provider.app, 'POST', `/admin/outbox/${itemId}/resolve`, { reference: '' }), 'INVALID_REQUEST');

      // Pending, not in flight: due now.
      const retried = await adminCall(provider.app, 'POST', `/admin/outbox/${itemId}/retry`);
      assert.equal(retried.status, 200, retried.raw);

      // In flight: another node holds it.
      const claimed = await provider.store.outbox.claim(Date.now(), 'node-b', CLAIM_LIMITS);
      assert.deepEqual(
        claimed.map((item) => item.id),
        [itemId],
      );
      const busy = await adminCall(provider.app, 'POST', `/admin/outbox/${itemId}/retry`);
      assertProblem(busy, 'STATE_CONFLICT');
      assert.match(busy.body.detail as string, /in flight \(leased to node-b/);
      assertProblem(await adminCall(provider.app, 'POST', `/admin/outbox/${itemId}/resolve`, { reference: 'OP-1' }), 'STATE_CONFLICT');

      // Its answer was none: it waits for the next attempt, and may be resolved by hand.
      await provider.store.outbox.retryLater(itemId, 'node-b', Date.now() + 60_000, { detail: 'time-out' });
      const resolved = await adminCall(provider.app, 'POST', `/admin/outbox/${itemId}/resolve`, { reference: 'OP-REF-42' });
      assert.equal(resolved.status, 200, resolved.raw);
      assert.equal(resolved.body.status, 'resolved');
      assert.equal(resolved.body.resolution, 'OP-REF-42');
      const payout = await adminCall(provider.app, 'GET', `/admin/payouts/${payoutId}`);
      assert.equal(payout.body.status, 'paid');
      assert.equal(payout.body.balanceAfter, null);

      const final = await adminCall(provider.app, 'POST', `/admin/outbox/${itemId}/retry`);
      assertProblem(final, 'STATE_CONFLICT');
      assert.match(final.body.detail as string, /is resolved; only a parked item/);
    });
  });
}
