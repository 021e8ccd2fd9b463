/**
 * Proves the outbox's contract (src/dispatch/outbox.ts) on every backend
 * (outbox-backends.ts: SQLite, and PostgreSQL when DATABASE_URL is set),
 * with two nodes on one database:
 * - an item enqueued in a database transaction that rolls back leaves
 *   nothing, neither the item nor its cause; an item is enqueued only inside
 *   a database transaction, and no other node sees it before the commit;
 * - within a key, items are claimed one at a time and in order, whatever
 *   the interleaving of two nodes' claims: a win never overtakes its bet;
 * - an operator has at most its limit in flight, counted across nodes;
 * - a claim is a lease: another node gets the item only once it expires,
 *   and the first node's late retry no longer applies, while its final
 *   answer still does; a node's heartbeat renews its own leases of items
 *   still pending, and no other; a restarted node gives up the leases of
 *   its earlier runs (its lasting name, another run), and no other node's;
 * - an operator's return makes its waiting items due, but not those in
 *   flight or held back by a Retry-After;
 * - a refusal ends its key or not, as the item says; a parked item blocks
 *   its key until retried or resolved; listings by status and operator;
 * - the hook of final outcomes runs in the database transaction that
 *   applies each (sent, refused, skipped, resolved) with the answer, a 200's
 *   text included: what it writes commits with the outcome, and a hook that
 *   throws rolls its outcome back, its own writes with it;
 * - a retry or resolve by hand carries the caller's own work into its
 *   database transaction: what it writes commits with the change, it runs
 *   only when the change applies, and one that throws rolls the change
 *   back, its own writes with it.
 * SQLite's own rules (the write lock, the durable-id mark) are in
 * sqlite/outbox.test.ts; PostgreSQL's nodes claiming at once are in
 * postgres/outbox.test.ts.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CLAIM_LIMITS, leaseOwner, type ClaimLimits, type FinalEvent, type NewItem, type Outbox } from '../../src/dispatch/outbox.js';
import { ALONGSIDE_FAILED, CAUSE_FAILED, OUTBOX_BACKENDS, type OutboxDatabase } from './outbox-backends.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const LIMITS: ClaimLimits = { ...CLAIM_LIMITS, leaseMs: 30_000 };
const OK = { status: 200, detail: 'booked' };

function item(orderingKey: string, kind: NewItem['kind'], extra: Partial<NewItem> = {}): NewItem {
  return { operatorId: 'op-1', orderingKey, kind, path: '/transaction', body: JSON.stringify({ key: orderingKey, kind }), ...extra };
}

for (const backend of OUTBOX_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`outbox contract: ${backend.name}`, { skip: backend.unavailable }, () => {
    let db: OutboxDatabase;
    let nodeA: Outbox;
    let nodeB: Outbox;

    beforeEach(async () => {
      db = await backend.open('contract');
      nodeA = db.node();
      nodeB = db.node();
    });

    afterEach(async () => {
      await db.close();
    });

    /** Enqueues in one committed database transaction, as a caller writing its own state would. */
    function enqueue(...items: NewItem[]): Promise<number[]> {
      return db.enqueue(items, NOW);
    }

    describe('enqueue', () => {
      test('inside a database transaction that rolls back, it leaves nothing', async () => {
        await assert.rejects(db.enqueue([item('r-1', 'bet')], NOW, { fail: true }), new RegExp(CAUSE_FAILED));
        assert.deepEqual(await nodeB.claim(NOW, 'b', LIMITS), []);
        assert.deepEqual(await nodeA.list({ status: 'pending' }), []);
        assert.equal(await db.causes(), 0, "the caller's own row went with it");
        await enqueue(item('r-1', 'bet'));
        assert.equal(await db.causes(), 1);
      });

      test('only inside a database transaction; no other node sees it before the commit', async () => {
        await assert.rejects(async () => db.enqueueOutside(item('r-1', 'bet'), NOW), /inside the database transaction/);
        const open = await db.enqueueOpen(item('r-1', 'bet'), NOW);
        assert.deepEqual(await nodeB.list({ status: 'pending' }), []);
        await open.commit();
        assert.equal((await nodeB.claim(NOW, 'b', LIMITS)).length, 1);
      });

      test('numbers items within their key and keeps the exact body bytes', async () => {
        const body = '{"amount":1.10,"note":"é\\u00e9"}';
        const [bet, win, other] = await enqueue(item('r-1', 'bet', { body }), item('r-1', 'win'), item('r-2', 'bet'));
        assert.equal((await nodeA.item(bet!))?.sequence, 1);
        assert.equal((await nodeA.item(win!))?.sequence, 2);
        assert.equal((await nodeA.item(other!))?.sequence, 1);
        assert.deepEqual((await nodeA.item(bet!))?.body, Buffer.from(body, 'utf8'));
        await assert.rejects(enqueue(item('r-3', 'bet', { body: Uint8Array.of(0x7b, 0xff, 0x7d) })), TypeError);
        assert.equal(await db.causes(), 3, 'a body that is not UTF-8 rolls its transaction back');
      });
    });

    describe('order within a key', () => {
      test('a key has one item in flight, and its next only once the earlier is sent or refused', async () => {
        await enqueue(item('r-1', 'bet'), item('r-1', 'win'));
        const [bet] = await nodeA.claim(NOW, 'a', LIMITS);
        assert.equal(bet?.kind, 'bet');
        assert.deepEqual(await nodeB.claim(NOW, 'b', LIMITS), [], 'the win waits behind its bet in flight');
        assert.ok(await nodeA.retryLater(bet!.id, 'a', NOW + 1_000, { status: 503, detail: 'busy' }));
        assert.deepEqual(await nodeB.claim(NOW + 999, 'b', LIMITS), [], 'the win waits behind its bet waiting to be resent');
        const [again] = await nodeB.claim(NOW + 1_000, 'b', LIMITS);
        assert.equal(again?.id, bet!.id);
        assert.equal(again?.attempts, 2);
        assert.deepEqual(again?.lastAnswer, { status: 503, detail: 'busy' });
        assert.ok(await nodeB.sent(bet!.id, 'b', OK, NOW + 1_001));
        const [win] = await nodeA.claim(NOW + 1_001, 'a', LIMITS);
        assert.equal(win?.kind, 'win');
      });

      test('holds under any interleaving of two nodes claiming and answering', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.record({ node: fc.boolean(), answer: fc.constantFrom('sent', 'retry', 'none'), batch: fc.integer({ min: 1, max: 5 }) }), {
              minLength: 1,
              maxLength: 60,
            }),
            async (steps) => {
              await db.clear();
              const keys = ['r-1', 'r-2', 'r-3', 'r-4'];
              await enqueue(...keys.flatMap((key) => [item(key, 'bet'), item(key, 'win', { path: '/transaction?win' }), item(key, 'win')]));
              const delivered = new Map<string, number[]>();
              let now = NOW;
              for (const step of steps) {
                now += 1;
                const [outbox, node] = step.node ? [nodeA, 'a'] : [nodeB, 'b'];
                const claimed = await outbox.claim(now, node, { ...LIMITS, batchSizeMax: step.batch, leaseMs: 5 });
                const claimedKeys = claimed.map((one) => one.orderingKey);
                assert.equal(new Set(claimedKeys).size, claimedKeys.length, 'one item per key in a claim');
                for (const one of claimed) {
                  const done = delivered.get(one.orderingKey) ?? [];
                  assert.equal(one.sequence, done.length + 1, `${one.orderingKey}: item ${one.sequence} claimed after ${done.length} delivered`);
                  if (step.answer === 'sent') {
                    assert.ok(await outbox.sent(one.id, node, OK, now));
                    delivered.set(one.orderingKey, [...done, one.sequence]);
                  } else if (step.answer === 'retry') {
                    assert.ok(await outbox.retryLater(one.id, node, now + 2, { detail: 'ECONNRESET' }));
                  }
                  // 'none': the node died mid-send; its lease runs out.
                }
              }
            },
          ),
          { numRuns: backend.name === 'sqlite' ? 60 : 25 },
        );
      });
    });

    describe('limits and leases', () => {
      test('an operator has at most its limit in flight across nodes; others are not held up by it', async () => {
        await enqueue(...Array.from({ length: 10 }, (_, i) => item(`slow-${i}`, 'bet', { operatorId: 'slow' })));
        await enqueue(item('fast-1', 'bet', { operatorId: 'fast' }), item('fast-2', 'bet', { operatorId: 'fast' }));
        const limits = { ...LIMITS, operatorInFlightMax: 3 };
        const first = await nodeA.claim(NOW, 'a', limits);
        assert.deepEqual(first.map((one) => one.operatorId).sort(), ['fast', 'fast', 'slow', 'slow', 'slow']);
        assert.deepEqual(await nodeB.claim(NOW, 'b', limits), [], 'the other node counts the leases held');
        const fastOne = first.find((one) => one.operatorId === 'fast')!;
        const slowOne = first.find((one) => one.operatorId === 'slow')!;
        assert.ok(await nodeA.sent(fastOne.id, 'a', OK, NOW));
        assert.deepEqual(await nodeB.claim(NOW, 'b', limits), []);
        assert.ok(await nodeA.sent(slowOne.id, 'a', OK, NOW));
        const next = await nodeB.claim(NOW, 'b', limits);
        assert.deepEqual(
          next.map((one) => one.operatorId),
          ['slow'],
        );
        assert.equal((await nodeB.claim(NOW, 'b', { ...limits, batchSizeMax: 1, operatorInFlightMax: 10 })).length, 1, 'the batch size bounds a claim');
      });

      test('a dead node’s claim passes to another once its lease expires; its late retry no longer applies, its final answer does', async () => {
        const [id] = await enqueue(item('r-1', 'win'));
        const [claimed] = await nodeA.claim(NOW, 'a', LIMITS);
        assert.equal(claimed?.leaseOwner, 'a');
        assert.equal(claimed?.leaseExpiresAt, NOW + LIMITS.leaseMs);
        assert.deepEqual(await nodeB.claim(NOW + LIMITS.leaseMs - 1, 'b', LIMITS), []);
        const [taken] = await nodeB.claim(NOW + LIMITS.leaseMs, 'b', LIMITS);
        assert.equal(taken?.id, id);
        assert.equal(taken?.leaseOwner, 'b');
        assert.equal(taken?.attempts, 2);
        assert.equal(await nodeA.retryLater(id!, 'a', NOW + 60_000, { detail: 'ETIMEDOUT' }), false);
        assert.equal(await nodeA.park(id!, 'a', { detail: 'ETIMEDOUT' }, NOW + 60_000), false);
        assert.equal(await nodeA.sent(id!, 'a', OK, NOW + LIMITS.leaseMs + 1), true, 'a final answer is the truth about those bytes');
        assert.equal(await nodeB.sent(id!, 'b', OK, NOW + LIMITS.leaseMs + 2), false, 'applied once');
        assert.equal((await nodeB.item(id!))?.status, 'sent');
      });
    });

    describe('leases renewed and taken back', () => {
      test("a live node's heartbeat renews the leases of its sends in flight: another node gets them only once the renewed lease expires", async () => {
        const [mine, finished, other] = await enqueue(item('r-1', 'bet'), item('r-2', 'bet'), item('r-3', 'bet'));
        assert.equal((await nodeA.claim(NOW, 'a', { ...LIMITS, batchSizeMax: 2 })).length, 2);
        assert.equal((await nodeB.claim(NOW, 'b', LIMITS))[0]?.id, other);
        assert.ok(await nodeA.sent(finished!, 'a', OK, NOW));
        const beat = NOW + LIMITS.leaseMs - 1;
        // Only its own pending items: the one finished, and node b's, are left as they are.
        assert.equal(await nodeA.renew([mine!, finished!, other!], 'a', beat + LIMITS.leaseMs), 1);
        assert.equal((await nodeA.item(mine!))?.leaseExpiresAt, beat + LIMITS.leaseMs);
        assert.equal((await nodeA.item(other!))?.leaseOwner, 'b');
        assert.equal((await nodeA.item(other!))?.leaseExpiresAt, NOW + LIMITS.leaseMs);
        assert.equal((await nodeA.item(finished!))?.leaseExpiresAt, undefined);
        assert.equal(await nodeB.renew([], 'b', beat + LIMITS.leaseMs), 0, 'an empty renewal writes nothing');

        const claimedBy = async (at: number) => (await nodeB.claim(at, 'b', LIMITS)).map((one) => one.id);
        assert.deepEqual(
          await claimedBy(NOW + LIMITS.leaseMs),
          [other],
          "the renewed lease holds past the claim's own; node b's own lapsed one is taken again",
        );
        assert.deepEqual(await claimedBy(beat + LIMITS.leaseMs - 1), []);
        assert.deepEqual(await claimedBy(beat + LIMITS.leaseMs), [mine], 'once node a stops renewing, its item passes on');
        assert.equal(await nodeA.renew([mine!], 'a', beat + 3 * LIMITS.leaseMs), 0, 'a lease lost is not renewed back');
      });

      test('a restarted node gives up the leases of its earlier runs, and only those: their items are claimed again at once', async () => {
        const [killedRun, otherNode, otherPort, current] = await enqueue(item('r-1', 'bet'), item('r-2', 'bet'), item('r-3', 'bet'), item('r-4', 'bet'));
        const claimAs = async (owner: string, id: number | undefined) => {
          const [claimed] = await nodeA.claim(NOW, owner, { ...LIMITS, batchSizeMax: 1 });
          assert.equal(claimed?.id, id);
        };
        const name = 'host-1:8090';
        await claimAs(leaseOwner(name, '4242-aaaa'), killedRun);
        await claimAs(leaseOwner('host-2:8090', '4242-cccc'), otherNode);
        // A name that starts as this one's does is another node's (the port 80900 is not 8090).
        await claimAs(leaseOwner('host-1:80900', '4242-bbbb'), otherPort);
        const node = leaseOwner(name, '5151-dddd');
        await claimAs(node, current);

        assert.equal(await nodeB.releaseEarlierRuns(name, node), 1);
        const released = await nodeB.item(killedRun!);
        assert.equal(released?.leaseOwner, undefined);
        assert.equal(released?.leaseExpiresAt, undefined);
        assert.equal(released?.attempts, 1, 'the killed run attempted it once');
        for (const held of [otherNode, otherPort, current]) assert.notEqual((await nodeB.item(held!))?.leaseOwner, undefined, `item ${held} is still leased`);
        const [again] = await nodeB.claim(NOW, node, LIMITS);
        assert.equal(again?.id, killedRun, 'claimed at once, its lease not waited for');
        assert.equal(await nodeB.releaseEarlierRuns(name, node), 0, "the run's own leases are its own");
      });
    });

    describe('an operator answering again (hasten)', () => {
      test('its waiting items are due at once, earliest first, but none in flight, none held by a Retry-After, none of another operator', async () => {
        const [early, late, held, inFlight] = await enqueue(item('r-1', 'bet'), item('r-2', 'bet'), item('r-3', 'bet'), item('r-4', 'bet'));
        const [other] = await enqueue(item('o-1', 'bet', { operatorId: 'op-2' }));
        const claimed = await nodeA.claim(NOW, 'a', LIMITS);
        assert.equal(claimed.length, 5);
        const down = { detail: 'ECONNREFUSED' };
        assert.ok(await nodeA.retryLater(early!, 'a', NOW + 8_000, down));
        assert.ok(await nodeA.retryLater(late!, 'a', NOW + 30_000, down));
        assert.ok(await nodeA.retryLater(held!, 'a', NOW + 9_000, { status: 503, detail: 'busy' }, NOW + 9_000));
        assert.ok(await nodeA.retryLater(other!, 'a', NOW + 8_000, down));
        // r-4 stays in flight under node a's lease.

        assert.equal(await nodeB.hasten('op-1', NOW + 100, 1), 1, 'a probe makes one item due');
        assert.deepEqual(
          (await nodeB.claim(NOW + 100, 'b', LIMITS)).map((one) => one.id),
          [early],
          'the earliest due',
        );
        assert.equal(await nodeB.hasten('op-1', NOW + 200), 1, 'the rest of those waiting on their back-off');
        assert.deepEqual(
          (await nodeB.claim(NOW + 200, 'b', LIMITS)).map((one) => one.id),
          [late],
        );
        assert.equal((await nodeB.item(held!))?.nextAttemptAt, NOW + 9_000, 'a Retry-After is still honoured');
        assert.equal((await nodeB.item(held!))?.notBefore, NOW + 9_000);
        assert.equal((await nodeB.item(inFlight!))?.leaseOwner, 'a', 'an item in flight is left to its node');
        assert.equal((await nodeB.item(other!))?.nextAttemptAt, NOW + 8_000, "another operator's items keep their back-off");
        assert.equal(await nodeB.hasten('op-1', NOW + 9_000), 0, 'nothing left waiting past its time');
        assert.deepEqual((await nodeB.claim(NOW + 9_000, 'b', LIMITS)).map((one) => one.id).sort(), [held, other].sort(), 'each at its own time');
      });
    });

    describe('refusals, parking and the operator’s hand', () => {
      test('a refused bet with skip-rest ends its key; with continue the next item goes', async () => {
        await enqueue(item('r-1', 'bet'), item('r-1', 'win'), item('r-2', 'bet', { afterRefusal: 'continue' }), item('r-2', 'win'));
        const bets = await nodeA.claim(NOW, 'a', LIMITS);
        const refusal = { status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'bet 10.00 exceeds balance 1.00' };
        for (const bet of bets) await nodeA.refused(bet.id, 'a', refusal, NOW);
        const next = await nodeB.claim(NOW, 'b', LIMITS);
        assert.deepEqual(
          next.map((one) => `${one.orderingKey}:${one.kind}`),
          ['r-2:win'],
        );
        const skipped = await nodeB.list({ status: 'skipped' });
        assert.deepEqual(
          skipped.map((one) => `${one.orderingKey}:${one.kind}`),
          ['r-1:win'],
        );
        assert.match(skipped[0]!.lastAnswer!.detail, /refused \(INSUFFICIENT_FUNDS\)/);
        const refused = await nodeB.list({ status: 'refused' });
        assert.equal(refused.length, 2);
        assert.deepEqual(refused[0]!.lastAnswer, refusal);
        assert.equal((await nodeB.refused(refused[0]!.id, 'b', refusal, NOW)).applied, false, 'final once');
      });

      test('a parked item blocks its key until retried now or resolved with the operator’s reference', async () => {
        const [bet, win] = await enqueue(item('r-1', 'bet'), item('r-1', 'win'), item('p-1', 'payout', { operatorId: 'op-2', path: '/payout' }));
        const claimed = await nodeA.claim(NOW, 'a', LIMITS);
        for (const one of claimed) assert.ok(await nodeA.park(one.id, 'a', { status: 503, detail: 'past the horizon' }, NOW));
        assert.deepEqual(await nodeB.claim(NOW + 1, 'b', LIMITS), [], 'the win waits behind its parked bet');
        assert.deepEqual(
          (await nodeB.list({ status: 'parked' })).map((one) => one.kind),
          ['bet', 'payout'],
        );
        assert.deepEqual(
          (await nodeB.list({ status: 'parked', operatorId: 'op-2' })).map((one) => one.kind),
          ['payout'],
        );
        assert.deepEqual(
          (await nodeB.list({ status: 'pending' })).map((one) => one.id),
          [win],
        );

        assert.ok(await nodeB.retryNow(bet!, NOW + 10));
        const [retried] = await nodeB.claim(NOW + 10, 'b', LIMITS);
        assert.equal(retried?.id, bet);
        assert.equal(await nodeA.retryNow(bet!, NOW + 11), false, 'not while in flight');
        assert.equal(await nodeA.resolve(bet!, 'WAL-123', NOW + 11), false, 'not while in flight');
        assert.ok(await nodeB.park(bet!, 'b', { detail: 'ECONNREFUSED' }, NOW + 12));

        await assert.rejects(nodeB.resolve(bet!, ' ', NOW + 13), /reference/);
        assert.ok(await nodeB.resolve(bet!, 'WAL-123', NOW + 13));
        const resolved = await nodeB.item(bet!);
        assert.equal(resolved?.status, 'resolved');
        assert.equal(resolved?.resolution, 'WAL-123');
        assert.equal(await nodeB.resolve(bet!, 'WAL-124', NOW + 14), false, 'resolved once');
        const [next] = await nodeA.claim(NOW + 14, 'a', LIMITS);
        assert.equal(next?.id, win, 'the win goes once its bet is resolved');
      });
    });

    describe("the caller's work beside a change by hand", () => {
      test('commits with the retry or resolve, runs only when it applies, and one that fails rolls the change back', async () => {
        const hand = db.byHand();
        const [bet] = await enqueue(item('r-1', 'bet'));
        const [claimed] = await nodeA.claim(NOW, 'a', LIMITS);
        assert.ok(await nodeA.park(claimed!.id, 'a', { detail: 'ECONNREFUSED' }, NOW));

        await assert.rejects(hand.retryNow(bet!, NOW + 1, { fail: true }), new RegExp(ALONGSIDE_FAILED));
        assert.equal((await nodeB.item(bet!))?.status, 'parked', 'no retry when its work failed');
        assert.deepEqual(await db.notes(), [], "the work's own write rolled back with it");
        assert.ok(await hand.retryNow(bet!, NOW + 2));
        assert.equal((await nodeB.item(bet!))?.status, 'pending');
        assert.deepEqual(await db.notes(), [{ itemId: bet, outcome: 'retried by hand' }]);

        // In flight: neither applies, and neither runs its work.
        assert.equal((await nodeA.claim(NOW + 3, 'a', LIMITS)).length, 1);
        assert.equal(await hand.retryNow(bet!, NOW + 4), false);
        assert.equal(await hand.resolve(bet!, 'WAL-1', NOW + 4), false);
        assert.equal((await db.notes()).length, 1);
        assert.ok(await nodeA.park(bet!, 'a', { detail: 'ECONNREFUSED' }, NOW + 5));

        await assert.rejects(hand.resolve(bet!, 'WAL-1', NOW + 6, { fail: true }), new RegExp(ALONGSIDE_FAILED));
        assert.equal((await nodeB.item(bet!))?.status, 'parked', 'no resolve when its work failed');
        assert.equal((await db.notes()).length, 1, "the work's own write rolled back with the resolve");
        assert.ok(await hand.resolve(bet!, 'WAL-1', NOW + 7));
        assert.equal((await nodeB.item(bet!))?.resolution, 'WAL-1');
        assert.deepEqual((await db.notes()).slice(1), [{ itemId: bet, outcome: 'resolved by hand' }]);
      });
    });

    describe('the hook of final outcomes', () => {
      test('runs in the database transaction of each final outcome, with the item as it left it, the outcome and the answer', async () => {
        const events: FinalEvent[] = [];
        const hooked = db.node({ onFinal: (event) => void events.push(event) });
        const [sent, refused, skipped, resolved] = await enqueue(item('r-1', 'bet'), item('r-2', 'bet'), item('r-2', 'win'), item('r-3', 'bet'));
        assert.equal((await hooked.claim(NOW, 'a', LIMITS)).length, 3);
        const ok = { status: 200, detail: 'HTTP 200', balance: '1.5' };
        const refusal = { status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'bet 1 exceeds balance 0.5', balance: '0.5' };
        assert.ok(await hooked.sent(sent!, 'a', ok, NOW + 1));
        assert.deepEqual(await hooked.refused(refused!, 'a', refusal, NOW + 2), { applied: true, skipped: 1 });
        // Not final: no hook.
        assert.ok(await hooked.park(resolved!, 'a', { detail: 'ECONNREFUSED' }, NOW + 3));
        assert.ok(await hooked.resolve(resolved!, 'WAL-1', NOW + 4));
        assert.deepEqual(
          events.map((event) => [event.item.id, event.outcome, event.item.status]),
          [
            [sent, 'sent', 'sent'],
            [refused, 'refused', 'refused'],
            [skipped, 'skipped', 'skipped'],
            [resolved, 'resolved', 'resolved'],
          ],
        );
        assert.deepEqual(events[0]!.answer, ok, "a 200's balance, as the sender read it, reaches the hook");
        assert.deepEqual(events[1]!.answer, refusal);
        assert.match(events[2]!.answer.detail, /refused \(INSUFFICIENT_FUNDS\)/);
        assert.equal(events[3]!.item.resolution, 'WAL-1');
        assert.match(events[3]!.answer.detail, /WAL-1/);
        // What the hook wrote in each outcome's transaction committed with it.
        assert.deepEqual(
          await db.notes(),
          events.map((event) => ({ itemId: event.item.id, outcome: event.outcome })),
        );
        // Final once: a second answer applies nothing and calls nothing.
        assert.equal(await hooked.sent(sent!, 'a', ok, NOW + 5), false);
        assert.equal(events.length, 4);
      });

      test('a hook that throws rolls its outcome back: the item stays pending and is sent again after its lease', async () => {
        let fail = true;
        const hooked = db.node({
          onFinal: () => {
            if (fail) throw new Error('the caller could not record it');
          },
        });
        const [bet] = await enqueue(item('r-1', 'bet'), item('r-1', 'win'));
        await hooked.claim(NOW, 'a', LIMITS);
        await assert.rejects(hooked.sent(bet!, 'a', OK, NOW), /could not record it/);
        await assert.rejects(hooked.refused(bet!, 'a', { status: 409, detail: 'no' }, NOW), /could not record it/);
        assert.equal((await nodeB.item(bet!))?.status, 'pending');
        assert.deepEqual(await nodeB.list({ status: 'skipped' }), [], 'the refusal skipped nothing');
        assert.deepEqual(await db.notes(), [], "the hook's own writes rolled back with it");
        assert.deepEqual(await nodeB.claim(NOW + LIMITS.leaseMs - 1, 'b', LIMITS), []);
        const [again] = await nodeB.claim(NOW + LIMITS.leaseMs, 'b', LIMITS);
        assert.equal(again?.id, bet);
        fail = false;
        assert.ok(await hooked.sent(bet!, 'b', OK, NOW + LIMITS.leaseMs + 1));
        assert.deepEqual(await db.notes(), [{ itemId: bet, outcome: 'sent' }]);
      });
    });
  });
}
