/**
 * Proves the dispatcher (src/dispatch/dispatcher.ts) end to end, on every
 * outbox backend (outbox-backends.ts: SQLite, and PostgreSQL when
 * DATABASE_URL is set): two nodes (two connections on one SQLite file, two
 * pools on one PostgreSQL schema) deliver through the real sender
 * (signedCall with NO_RETRY) to a local HTTP server that drops connections
 * before and after booking, answers late, answers 503 with and without
 * Retry-After, then 200. Every item is booked exactly once and in key
 * order, resent with the same signed bytes; Retry-After is waited for; a
 * 4xx is final, never resent, and skips the rest of its key; a 200's text
 * reaches whoever watches the outcome. With the send injected: one slow
 * operator does not stall another, an item past its horizon is parked,
 * building a dispatcher starts nothing, a poke claims at once instead
 * of after the idle wait, a heartbeat renews the leases of the sends in
 * flight, a node restarted under its lasting name sends at once what its
 * killed run had claimed, and an outage of storage (claims failing) is
 * logged once, backed off from, and recovered from with nothing lost or
 * sent twice.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROTOCOL_RETRY, REAL_CLIENT_WORLD } from '../../src/clients/http-call.js';
import { CLAIM_BACKOFF_MS_MAX, Dispatcher, httpSend, type Delivery, type Send } from '../../src/dispatch/dispatcher.js';
import { CLAIM_LIMITS, HEARTBEAT_MS, leaseOwner, type NewItem, type Outbox, type OutboxItem } from '../../src/dispatch/outbox.js';
import { DISPATCH_SCHEDULE, type DispatchSchedule, type SendAttempt } from '../../src/dispatch/retry-schedule.js';
import { sign } from '../../src/protocol/signing.js';
import { ACCESS_TOKEN, SECRET } from '../helpers.js';
import { OUTBOX_BACKENDS, type OutboxDatabase } from './outbox-backends.js';

/** A schedule shortened for tests: the same rules, milliseconds instead of seconds. */
const FAST: DispatchSchedule = {
  ...DISPATCH_SCHEDULE,
  retry: { ...PROTOCOL_RETRY, retryDelayMsMin: 20, retryDelayMsMax: 80 },
  retryAfterMsMax: 300,
};

async function enqueueAll(db: OutboxDatabase, items: NewItem[]): Promise<void> {
  await db.enqueue(items, Date.now());
}

async function until(what: string, done: () => Promise<boolean>, msMax = 20_000): Promise<void> {
  const deadline = Date.now() + msMax;
  while (!(await done())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The senders' wait for an answer (ms). Every scripted answer but the late
 * one must arrive within it, on a busy host too: one lost to a stalled event
 * loop would be sent again and meet the next scripted answer, and the test
 * would fail. So it is generous: three heartbeats (HEARTBEAT_MS), which
 * renew a node's claim while its send waits, however long. The late answer
 * does not race it: it is held until its sender has given up.
 */
const ANSWER_MS_MAX = 3 * HEARTBEAT_MS;

/** The wait for the whole scenario (ms): the late item alone waits ANSWER_MS_MAX; only an event that never comes reaches it. */
const SCENARIO_MS_MAX = 10 * ANSWER_MS_MAX;

/** What the operator does on each attempt at an id, in order; after the list, it books and answers 200. */
type Behaviour = 'drop-before' | 'drop-after' | 'late' | '503' | '503-retry-after' | '402';

for (const backend of OUTBOX_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`two nodes against a real HTTP operator: ${backend.name}`, { skip: backend.unavailable }, () => {
    let server: Server;
    let url: string;
    const script = new Map<string, Behaviour[]>();
    const attempts = new Map<string, { body: string; signature: string }[]>();
    /** The late answers held back, by id, each with the end of its connection: see 'late' below. */
    const heldLate = new Map<string, { res: ServerResponse; gone: Promise<void> }>();
    const booked = new Map<string, number>();
    const lastSeq = new Map<string, number>();
    const outOfOrder: string[] = [];
    const badAuth: string[] = [];

    function book(body: { id: string; key: string; seq: number }): void {
      if (booked.has(body.id)) return; // idempotent, as the operator is (docs/protocol.md §6.4)
      if ((lastSeq.get(body.key) ?? 0) !== body.seq - 1) outOfOrder.push(`${body.id} booked after seq ${lastSeq.get(body.key) ?? 0}`);
      lastSeq.set(body.key, body.seq);
      booked.set(body.id, (booked.get(body.id) ?? 0) + 1);
    }

    async function answer(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
      const body = JSON.parse(text) as { id: string; key: string; seq: number };
      const signature = String(req.headers['x-server-authorization'] ?? '');
      if (signature !== sign(SECRET, text) || req.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) badAuth.push(body.id);
      const seen = attempts.get(body.id) ?? [];
      seen.push({ body: text, signature });
      attempts.set(body.id, seen);
      const held = heldLate.get(body.id);
      if (held !== undefined) {
        // The next attempt is here: the late answer goes now, once its sender has hung up (it gave up waiting), so it is lost.
        heldLate.delete(body.id);
        await held.gone;
        held.res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":1}');
      }
      const behaviour = script.get(body.id)?.[seen.length - 1];
      const problem = (status: number, code: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
        res.end(JSON.stringify({ type: 'about:blank', title: code, status, code, detail: code }));
      };
      switch (behaviour) {
        case 'drop-before':
          req.socket.destroy();
          return;
        case 'drop-after':
          book(body);
          req.socket.destroy();
          return;
        case 'late':
          book(body);
          // Held until the sender's next attempt at the id arrives, which it sends only once it gave up on this one: on any
          // machine, however loaded, this answer comes after the sender stopped waiting for it.
          heldLate.set(body.id, { res, gone: new Promise<void>((resolve) => res.once('close', resolve)) });
          return;
        case '503':
          return problem(503, 'SERVICE_UNAVAILABLE');
        case '503-retry-after':
          return problem(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' });
        case '402':
          return problem(402, 'INSUFFICIENT_FUNDS');
        case undefined:
          book(body);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":1}');
      }
    }

    before(async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => void answer(req, res, Buffer.concat(chunks).toString('utf8')));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    // eslint-disable-next-line max-lines-per-function -- a test: one scenario told in order, which splitting would scatter
    test('every item booked exactly once and in key order; Retry-After waited for; a 4xx final', async () => {
      const db = await backend.open('dispatcher');
      const plan: [key: string, operatorId: string, kind: NewItem['kind'], behaviours: Behaviour[]][] = [
        ['k1', 'op-1', 'bet', ['drop-before']],
        ['k1', 'op-1', 'win', ['503']],
        ['k2', 'op-2', 'bet', ['late']],
        ['k2', 'op-2', 'win', ['drop-after']],
        ['k3', 'op-1', 'bet', ['503-retry-after']],
        ['k3', 'op-1', 'win', ['503-retry-after', '503']],
        ['k4', 'op-2', 'bet', ['402']],
        ['k4', 'op-2', 'win', []],
        ['k5', 'op-1', 'bet', []],
        ['k5', 'op-1', 'win', ['drop-before', 'drop-after']],
        ['p1', 'op-2', 'payout', ['503', 'drop-before']],
      ];
      const seqs = new Map<string, number>();
      const items = plan.map(([key, operatorId, kind, behaviours]) => {
        const seq = (seqs.get(key) ?? 0) + 1;
        seqs.set(key, seq);
        const id = `${key}-${seq}`;
        script.set(id, behaviours);
        const body = JSON.stringify({ id, key, seq, note: 'ünïcode' });
        return { operatorId, orderingKey: key, kind, path: kind === 'payout' ? '/payout' : '/transaction', body };
      });
      await enqueueAll(db, items);

      const senders = [0, 1].map(() =>
        httpSend({ endpoint: () => ({ url: `${url}/`, secret: SECRET, accessToken: ACCESS_TOKEN }), answerMsMax: ANSWER_MS_MAX }),
      );
      // The nodes' one clock, which never goes back: the Retry-After check below compares readings of it.
      let latest = 0;
      const world = { ...REAL_CLIENT_WORLD, clock: () => (latest = Math.max(latest, Date.now())) };
      const limits = { idleMs: 10 };
      const nodes = [
        new Dispatcher({ outbox: db.node(), node: 'a', send: senders[0]!.send, schedule: FAST, world, limits }),
        new Dispatcher({ outbox: db.node(), node: 'b', send: senders[1]!.send, schedule: FAST, world, limits }),
      ];
      const reader = db.node();
      const answered: (string | undefined)[] = [];
      const deliveries: Delivery[] = [];
      for (const node of nodes) {
        node.onDelivery((delivery) => {
          deliveries.push(delivery);
          const { attempt, decision } = delivery;
          if (decision.kind === 'sent' && attempt.kind === 'answered') answered.push(attempt.balance);
        });
        node.start();
      }
      try {
        await until('no item is pending', async () => (await reader.list({ status: 'pending' })).length === 0, SCENARIO_MS_MAX);
      } finally {
        for (const node of nodes) await node.stop();
        for (const sender of senders) await sender.close();
      }

      assert.deepEqual(outOfOrder, []);
      assert.deepEqual(badAuth, []);
      const expectedBooked = [...script.keys()].filter((id) => !id.startsWith('k4-')).sort();
      assert.deepEqual([...booked.keys()].sort(), expectedBooked);
      for (const [id, count] of booked) assert.equal(count, 1, `${id} booked once`);
      for (const [id, seen] of attempts) {
        assert.ok(
          seen.every((one) => one.body === seen[0]!.body && one.signature === seen[0]!.signature),
          `${id}: the same bytes each time`,
        );
        assert.ok(seen.length >= (script.get(id)?.length ?? 0), `${id}: each scripted answer was met`);
      }
      // A final refusal is never resent, and the rest of its key never goes.
      assert.equal(attempts.get('k4-1')?.length, 1);
      assert.equal(attempts.get('k4-2'), undefined);
      // The late answer was lost: its sender gave up waiting (no answer), then sent again.
      const idOf = (delivery: Delivery) => (JSON.parse(delivery.item.body.toString('utf8')) as { id: string }).id;
      assert.deepEqual(
        deliveries.filter((one) => idOf(one) === 'k2-1').map((one) => one.attempt.kind),
        ['failed', 'answered'],
      );
      // Retry-After: 1 s asked, bounded to the schedule's 300 ms: on the nodes' clock, never resent sooner.
      for (const id of ['k3-1', 'k3-2']) {
        const [first, second] = deliveries.filter((one) => idOf(one) === id);
        const notBefore = first?.decision.kind === 'retry' ? first.decision.notBefore : undefined;
        assert.equal(notBefore, first!.at + FAST.retryAfterMsMax, `${id}: the Retry-After is kept, bounded`);
        const resentAt = second!.at - second!.answerMs;
        assert.ok(resentAt >= notBefore!, `${id}: resent at ${resentAt}, before ${notBefore}`);
      }

      assert.ok(answered.length >= expectedBooked.length && answered.every((balance) => balance === '1'), JSON.stringify(answered));
      const sent = await reader.list({ status: 'sent' });
      assert.deepEqual(sent.map((one) => `${one.orderingKey}-${one.sequence}`).sort(), expectedBooked);
      const [refused] = await reader.list({ status: 'refused' });
      assert.deepEqual(refused?.lastAnswer, { status: 402, code: 'INSUFFICIENT_FUNDS', detail: 'INSUFFICIENT_FUNDS' });
      assert.deepEqual(
        (await reader.list({ status: 'skipped' })).map((one) => one.orderingKey),
        ['k4'],
      );
      await db.close();
    });
  });

  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`with the send injected: ${backend.name}`, { skip: backend.unavailable }, () => {
    async function setUp(items: NewItem[]): Promise<{ db: OutboxDatabase; outbox: Outbox }> {
      const db = await backend.open('dispatcher');
      await enqueueAll(db, items);
      return { db, outbox: db.node() };
    }
    const bet = (operatorId: string, key: string): NewItem => ({ operatorId, orderingKey: key, kind: 'bet', path: '/transaction', body: '{}' });

    test('one slow operator holds only its own items; the others are delivered meanwhile', async () => {
      const { db, outbox } = await setUp([
        ...Array.from({ length: 5 }, (_, i) => bet('slow', `s${i}`)),
        ...Array.from({ length: 20 }, (_, i) => bet('fast', `f${i}`)),
      ]);
      const slowSends: (() => void)[] = [];
      const send: Send = (item) =>
        item.operatorId === 'slow'
          ? new Promise<SendAttempt>((resolve) => slowSends.push(() => resolve({ kind: 'answered', status: 200 })))
          : Promise.resolve({ kind: 'answered', status: 200 });
      const dispatcher = new Dispatcher({ outbox, node: 'a', send, schedule: FAST, limits: { idleMs: 5, operatorInFlightMax: 2, batchSizeMax: 3 } });
      dispatcher.start();
      try {
        await until('every fast item is sent', async () => (await outbox.list({ status: 'sent', operatorId: 'fast' })).length === 20);
        assert.equal(slowSends.length, 2, 'the slow operator has its limit in flight, no more');
        assert.equal((await outbox.list({ status: 'sent', operatorId: 'slow' })).length, 0);
        // Released one by one, the slow operator's items follow.
        await until('every slow item is sent', async () => {
          slowSends.splice(0).forEach((release) => release());
          return (await outbox.list({ status: 'sent', operatorId: 'slow' })).length === 5;
        });
      } finally {
        // A failed assertion must not leave stop() waiting for sends nobody releases.
        const stopped = dispatcher.stop();
        slowSends.splice(0).forEach((release) => release());
        await stopped;
        await db.close();
      }
    });

    test('an item whose next attempt falls past its horizon is parked, not dropped; stop waits for sends in flight', async () => {
      const { db, outbox } = await setUp([bet('op-1', 'r-1'), { ...bet('op-1', 'r-1'), kind: 'win' }]);
      const schedule = { ...FAST, horizonMs: { ...FAST.horizonMs, bet: 150 } };
      let sends = 0;
      const send: Send = async () => {
        sends += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { kind: 'failed', detail: 'ECONNREFUSED' };
      };
      const dispatcher = new Dispatcher({ outbox, node: 'a', send, schedule, limits: { idleMs: 5 } });
      dispatcher.start();
      try {
        await until('the bet is parked', async () => (await outbox.list({ status: 'parked' })).length === 1);
      } finally {
        await dispatcher.stop();
      }
      const [parked] = await outbox.list({ status: 'parked' });
      assert.equal(parked?.kind, 'bet');
      assert.equal(parked?.attempts, sends);
      assert.deepEqual(parked?.lastAnswer, { detail: 'ECONNREFUSED' });
      assert.equal(parked?.leaseOwner, undefined, 'stop waited for the last send and applied it');
      assert.deepEqual(
        (await outbox.list({ status: 'pending' })).map((one) => one.kind),
        ['win'],
        'the win waits behind its parked bet',
      );
      await db.close();
    });

    test('a poke claims at once instead of after the idle wait', async () => {
      const { db, outbox } = await setUp([]);
      const seen: OutboxItem[] = [];
      // An idle wait far longer than the test waits: only the poke can bring the item out in time.
      const idleMs = 60_000;
      let idling!: () => void;
      const idle = new Promise<void>((resolve) => (idling = resolve));
      const world = { ...REAL_CLIENT_WORLD, sleep: (ms: number) => (idling(), new Promise<void>((resolve) => setTimeout(resolve, ms).unref())) };
      const send: Send = async (item) => (seen.push(item), { kind: 'answered', status: 200 });
      const dispatcher = new Dispatcher({ outbox, node: 'a', send, world, limits: { idleMs } });
      dispatcher.start();
      try {
        // The loop found nothing and is in its idle wait.
        await idle;
        await enqueueAll(db, [bet('op-1', 'r-1')]);
        dispatcher.poke();
        await until('the item is sent', async () => seen.length === 1, idleMs / 4);
      } finally {
        await dispatcher.stop();
        await db.close();
      }
    });

    test('a failing operator is probed once per probeMs of its clock, one item at a time, and its return sends what waited on the back-off at once', async () => {
      const keys = Array.from({ length: 8 }, (_, i) => `r-${i}`);
      const { db, outbox } = await setUp(keys.map((key) => bet('op-1', key)));
      // A back-off far longer than the clock is moved (the jitter at its top): only the probe and the return can bring items out.
      const schedule: DispatchSchedule = { ...FAST, retry: { ...FAST.retry, retryDelayMsMin: 60_000, retryDelayMsMax: 60_000 } };
      // The dispatcher's clock moves only when the test moves it; each idle wait is a turn of the loop, counted, and ends at once.
      let now = Date.now();
      let turns = 0;
      const turnWaiters: (() => void)[] = [];
      const sleep = (_ms: number) => {
        turns += 1;
        turnWaiters.splice(0).forEach((wake) => wake());
        return new Promise<void>((resolve) => setTimeout(resolve, 1));
      };
      const afterTurns = async (count: number) => {
        const target = turns + count;
        while (turns < target) await new Promise<void>((resolve) => turnWaiters.push(resolve));
      };
      const world = { clock: () => now, sleep, random: () => 0.999 };
      let up = false;
      let attemptsWhileDown = 0;
      const send: Send = async () => {
        if (up) return { kind: 'answered', status: 200 };
        attemptsWhileDown += 1;
        return { kind: 'failed', detail: 'ECONNREFUSED' };
      };
      const probeMs = 100;
      const dispatcher = new Dispatcher({ outbox, node: 'a', send, schedule, world, limits: { idleMs: 10, probeMs } });
      dispatcher.start();
      try {
        await until('every item was tried once', async () => attemptsWhileDown >= keys.length);
        const pendingNow = async () => (await outbox.list({ status: 'pending' })).filter((item) => item.leaseOwner === undefined).length;
        await until('every attempt is recorded', async () => (await pendingNow()) === keys.length);
        assert.equal(attemptsWhileDown, keys.length);
        // Short of probeMs, however many turns the loop takes, nothing is tried again.
        now += probeMs - 1;
        await afterTurns(20);
        assert.equal(attemptsWhileDown, keys.length, 'no probe before probeMs has passed');
        // Each probeMs brings out one item, never the whole backlog.
        for (let probe = 1; probe <= 4; probe += 1) {
          now += probeMs;
          await until(`probe ${probe} is sent`, async () => attemptsWhileDown === keys.length + probe);
          await until(`probe ${probe} is recorded`, async () => (await pendingNow()) === keys.length);
          await afterTurns(20);
          assert.equal(attemptsWhileDown, keys.length + probe, `one item on probe ${probe}`);
        }
        up = true;
        now += probeMs;
        // The clock stays 60 s short of the back-off: only the return can send the rest.
        await until('every item is sent', async () => (await outbox.list({ status: 'sent' })).length === keys.length);
      } finally {
        await dispatcher.stop();
        await db.close();
      }
    });

    test('an outage of storage: claims fail, the loop backs off and logs once, then resumes and sends each item once', async () => {
      const keys = Array.from({ length: 6 }, (_, i) => `r-${i}`);
      const { db, outbox } = await setUp(keys.map((key) => bet('op-1', key)));
      let down = true;
      let failedClaims = 0;
      // The database away: every claim fails as the store fails it (the connection refused).
      const claim: Outbox['claim'] = async (...args) => {
        if (!down) return outbox.claim(...args);
        failedClaims += 1;
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      };
      const failing = new Proxy(outbox, {
        get: (target, name, receiver) => (name === 'claim' ? claim : (Reflect.get(target, name, receiver) as unknown)),
      });
      const lines: { level: string; message: string }[] = [];
      const log = {
        error: (_: object, message: string) => lines.push({ level: 'error', message }),
        warn: (_: object, message: string) => lines.push({ level: 'warn', message }),
        info: (_: object, message: string) => lines.push({ level: 'info', message }),
      };
      // The waits are recorded and kept short, so that the back-off shows without the test waiting for it.
      const waits: number[] = [];
      const world = { ...REAL_CLIENT_WORLD, sleep: (ms: number) => (waits.push(ms), new Promise<void>((resolve) => setTimeout(resolve, 2).unref())) };
      const sends = new Map<string, number>();
      const send: Send = async (item) => (sends.set(item.orderingKey, (sends.get(item.orderingKey) ?? 0) + 1), { kind: 'answered', status: 200 });
      const idleMs = 5;
      const dispatcher = new Dispatcher({ outbox: failing, node: 'a', send, world, log, limits: { idleMs } });
      dispatcher.start();
      try {
        await until('ten claims have failed', async () => failedClaims >= 10);
        assert.equal(sends.size, 0, 'nothing is sent while claiming fails');
        assert.deepEqual(
          lines,
          [{ level: 'error', message: 'dispatch: claiming failed; backing off and trying again until storage answers' }],
          'one line for the outage',
        );
        const backoff = waits.slice(0, 10);
        assert.deepEqual(
          backoff,
          backoff.map((_, i) => Math.min(idleMs * 2 ** (i + 1), CLAIM_BACKOFF_MS_MAX)),
          'each wait doubles, up to the limit',
        );
        down = false;
        await until('every item is sent', async () => sends.size === keys.length);
        await until('every item is recorded as sent', async () => (await outbox.list({ status: 'sent' })).length === keys.length);
        await dispatcher.stop();
        assert.deepEqual(
          [...sends.values()],
          keys.map(() => 1),
          'each item sent once',
        );
        assert.equal(lines.length, 2);
        assert.deepEqual(lines[1], { level: 'info', message: 'dispatch: claiming works again; delivery resumes' });
      } finally {
        await dispatcher.stop();
        await db.close();
      }
    });

    test('a node restarted under its lasting name sends at once what its killed run had claimed, its lease not waited for', async () => {
      const { db, outbox } = await setUp([bet('op-1', 'r-1'), bet('op-1', 'r-2')]);
      // The clock never reaches the leases' end: only giving them up lets the items go.
      const now = Date.now();
      const world = { ...REAL_CLIENT_WORLD, clock: () => now };
      const [killed] = await outbox.claim(now, leaseOwner('host-1:8090', '4242-aaaa'), { ...CLAIM_LIMITS, batchSizeMax: 1 });
      const [elsewhere] = await outbox.claim(now, leaseOwner('host-2:8090', '4242-bbbb'), { ...CLAIM_LIMITS, batchSizeMax: 1 });
      const seen: number[] = [];
      const lines: string[] = [];
      const log = { error: () => {}, warn: () => {}, info: (_: object, message: string) => lines.push(message) };
      const send: Send = async (item) => (seen.push(item.id), { kind: 'answered', status: 200 });
      const dispatcher = new Dispatcher({
        outbox,
        node: leaseOwner('host-1:8090', '5151-cccc'),
        lastingName: 'host-1:8090',
        send,
        world,
        log,
        limits: { idleMs: 5 },
      });
      dispatcher.start();
      try {
        await until('the killed run’s item is sent', async () => (await outbox.item(killed!.id))?.status === 'sent');
        assert.deepEqual(seen, [killed!.id], "another node's claim is left to its lease");
        assert.equal((await outbox.item(elsewhere!.id))?.leaseOwner, leaseOwner('host-2:8090', '4242-bbbb'));
        assert.deepEqual(lines, ['dispatch: 1 items an earlier run of this node had claimed are claimed again now']);
      } finally {
        await dispatcher.stop();
        await db.close();
      }
    });

    test('the heartbeat renews the lease of a send in flight, so that another node does not take it while the node lives', async () => {
      const { db, outbox } = await setUp([bet('op-1', 'r-1')]);
      let now = Date.now();
      const world = { ...REAL_CLIENT_WORLD, clock: () => now };
      const leaseMs = 1_000;
      let answer!: () => void;
      let started!: () => void;
      const sending = new Promise<void>((resolve) => (started = resolve));
      const send: Send = () => (started(), new Promise<SendAttempt>((resolve) => (answer = () => resolve({ kind: 'answered', status: 200 }))));
      // Beats every few real milliseconds, each renewing to the world's now plus the lease.
      const dispatcher = new Dispatcher({ outbox, node: 'a', send, world, limits: { idleMs: 5, leaseMs, heartbeatMs: 5 } });
      dispatcher.start();
      const other = db.node();
      try {
        await sending;
        const [item] = await outbox.list({ status: 'pending' });
        const claimedAt = now;
        now = claimedAt + leaseMs - 1;
        await until('the lease is renewed', async () => (await outbox.item(item!.id))?.leaseExpiresAt === now + leaseMs);
        assert.deepEqual(
          await other.claim(claimedAt + leaseMs, 'b', { ...CLAIM_LIMITS, leaseMs }),
          [],
          "past the claim's own lease, the item is still node a's",
        );
        answer();
        await until('the answer is recorded', async () => (await outbox.item(item!.id))?.status === 'sent');
        assert.equal((await outbox.item(item!.id))?.attempts, 1, 'sent once');
      } finally {
        const stopped = dispatcher.stop();
        answer?.();
        await stopped;
        await db.close();
      }
    });

    test('building a dispatcher sends nothing until it is started', async () => {
      const { db, outbox } = await setUp([bet('op-1', 'r-1')]);
      const seen: OutboxItem[] = [];
      const dispatcher = new Dispatcher({
        outbox,
        node: 'a',
        send: async (item) => (seen.push(item), { kind: 'answered', status: 200 }),
        limits: { idleMs: 5 },
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(seen.length, 0);
      dispatcher.start();
      await until('the item is sent', async () => seen.length === 1);
      await dispatcher.stop();
      assert.equal((await outbox.item(seen[0]!.id))?.status, 'sent');
      await db.close();
    });
  });
}
