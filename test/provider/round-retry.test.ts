/**
 * Proves how a real round reaches the operator (docs/protocol.md §3, §9),
 * through the durable outbox, with the network mocked (undici MockAgent) and
 * the clock injected: the round is enqueued with its pending record and sent
 * only once that is durable; network errors, time-outs, 429 and 5xx are
 * resent with the same body, signature and ids after a full-jitter back-off
 * doubling from 0.5 s, and at least as long as Retry-After asks (seconds or
 * an HTTP date); other answers are final and never resent. A round whose
 * player stopped waiting stays in the outbox, survives a restart, and is
 * delivered without its player, byte for byte; a node killed with it in
 * flight and restarted on its port sends it at once; the launch's next round
 * waits until it is settled or refused. With real time, a round left
 * pending by an outage is settled by the next attempt after the operator's
 * return, with no player request. A round is answered only once the
 * operator's answer is durable.
 * On every provider store backend (PROVIDER_BACKENDS).
 */
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { MockAgent, type MockPool } from 'undici';
import { OPERATOR_PROBE_MS } from '../../src/dispatch/dispatcher.js';
import { CLAIM_LIMITS, leaseOwner, type OutboxItem } from '../../src/dispatch/outbox.js';
import { sign } from '../../src/protocol/signing.js';
import { ACCESS_TOKEN, SECRET, type TestClock } from '../helpers.js';
import {
  assertProblem,
  launchOf,
  type Answer,
  makeProvider,
  operatorCall,
  pageCall,
  PROVIDER_ADMIN_TOKEN,
  PROVIDER_BACKENDS,
  ManualPlayerTimer,
  realClock,
  realLaunchBody,
  type Provider,
} from './provider-helpers.js';

const ORIGIN = 'http://operator.test';
/** The delivery's wait between claims in these tests (ms): a due round is claimed within it. */
const IDLE_MS = 10;
/** How long a test waits for the delivery to reach a state (ms), on a loaded machine. */
const STATE_WAIT_MS = 10_000;

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`rounds resent to the operator: ${backend.name}`, { skip: backend.unavailable }, () => {
    let agent: MockAgent;
    let pool: MockPool;
    let provider: Provider;

    interface Sent {
      body: string;
      headers: Record<string, string>;
    }
    let sent: Sent[] = [];
    /** Called as each /transaction is answered, after it is recorded in `sent`. */
    let onSent: (() => void) | undefined;

    function authenticates(on: ReturnType<MockAgent['get']>): void {
      on.intercept({ path: '/authenticate', method: 'POST' })
        .reply(200, JSON.stringify({ sessionId: randomUUID(), playerId: 'p-1', currency: 'EUR', balance: 100, country: 'DE' }), {
          headers: { 'content-type': 'application/json' },
        })
        .persist();
    }

    before(async () => {
      agent = new MockAgent();
      agent.disableNetConnect();
      pool = agent.get(ORIGIN);
      authenticates(pool);
      provider = await makeProvider({ endpoint: ORIGIN, dispatcher: agent, deliveryLimits: { idleMs: IDLE_MS }, backend: backend.name });
    });

    after(async () => {
      await provider.close();
      await agent.close();
    });

    beforeEach(() => {
      sent = [];
    });

    type Reply = { status: number; body?: string; type?: string; headers?: () => Record<string, string> } | 'network-error';

    /** Queues answers for the next /transaction calls, in order, recording what each call sent. */
    function answerTransactions(...replies: Reply[]): void {
      for (const reply of replies) {
        const scope = pool.intercept({ path: '/transaction', method: 'POST' });
        if (reply === 'network-error') {
          scope.replyWithError(Object.assign(new Error('socket hang up'), { code: 'UND_ERR_SOCKET' }));
          continue;
        }
        scope.reply((options) => {
          sent.push({ body: String(options.body), headers: options.headers as Record<string, string> });
          onSent?.();
          return {
            statusCode: reply.status,
            data: reply.body ?? (reply.status === 200 ? '{"balance":99}' : problem(reply.status)),
            responseOptions: {
              headers: { 'content-type': reply.type ?? (reply.status === 200 ? 'application/json' : 'application/problem+json'), ...reply.headers?.() },
            },
          };
        });
      }
    }

    function problem(status: number): string {
      const code = status === 429 ? 'RATE_LIMITED' : status === 503 ? 'SERVICE_UNAVAILABLE' : status === 409 ? 'DUPLICATE_CONFLICT' : 'INTERNAL_ERROR';
      return JSON.stringify({ type: 'urn:x', title: 't', status, code, detail: `answered ${status}`, balance: 99 });
    }

    async function openLaunch() {
      const answer = await operatorCall(provider.app, '/generate-launch-url', realLaunchBody());
      assert.equal(answer.status, 200, answer.raw);
      const launch = launchOf(answer.body.url as string);
      const opened = await pageCall(provider.app, `${launch.path}/api/open`, { token: launch.token });
      assert.equal(opened.status, 200, opened.raw);
      return launch;
    }

    const play = (launch: { path: string; token: string }) =>
      pageCall(provider.app, `${launch.path}/api/play`, { token: launch.token, bet: '1', chancePct: 50, clientSeed: 'retry' });

    /** A play answered before its round's final answer: 202, the round pending with nothing of its outcome, the balance as last known. */
    function assertPendingView(answer: Answer): void {
      assert.equal(answer.status, 202, answer.raw);
      const round = answer.body.round as Record<string, unknown>;
      assert.equal(round.status, 'pending');
      for (const hidden of ['roll', 'win', 'serverSeed']) assert.equal(round[hidden], undefined, `${hidden} is not revealed`);
      assert.equal(answer.body.balance, '100', 'the balance the casino last gave');
      assert.equal(typeof (answer.body.fairness as { serverSeedHash: string }).serverSeedHash, 'string');
    }

    const state = (launch: { path: string; token: string }) => pageCall(provider.app, `${launch.path}/api/state`, { token: launch.token });

    async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
      const deadline = Date.now() + STATE_WAIT_MS;
      for (;;) {
        const found = await probe();
        if (found !== undefined) return found;
        assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
        await sleep(IDLE_MS);
      }
    }

    /** The one pending item once the outcome of its `attempts`-th attempt has been applied (its lease given back). */
    const pendingAfter = (attempts: number) =>
      until(`the pending item's attempt ${attempts} was answered`, async () => {
        const pending = await provider.store.outbox.list({ status: 'pending' });
        assert.ok(pending.length <= 1, 'one round pending at a time in these tests');
        const [item] = pending;
        return item !== undefined && item.attempts === attempts && item.leaseOwner === undefined ? item : undefined;
      });

    /** Moves the test's clock to the item's next attempt and answers the back-off it had waited. */
    function advanceTo(item: OutboxItem): number {
      const wait = item.nextAttemptAt - provider.clock.now;
      provider.clock.advance(wait);
      return wait;
    }

    /** A provider whose players wait until the test ends their patience, on the test's clock unless given another. */
    const providerWithPatience = (endpoint: string, dispatcher: MockAgent, patience: ManualPlayerTimer, clock?: TestClock) =>
      makeProvider({
        endpoint,
        dispatcher,
        deliveryLimits: { idleMs: IDLE_MS },
        backend: backend.name,
        playerTimer: patience,
        ...(clock === undefined ? {} : { clock }),
      });

    /** A play whose player stops waiting for the rounds before it, or for its own, once the wait has begun. */
    async function playGivingUp(launch: { path: string; token: string }, patience: ManualPlayerTimer): Promise<Answer> {
      const playing = play(launch);
      await patience.waiting();
      patience.expire();
      return playing;
    }

    const finished = (pk: number) =>
      until(`round ${pk} is finished`, async () => {
        const round = await provider.store.round(pk);
        return round.status === 'pending' ? undefined : round;
      });

    // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
    describe('resent with the same body', () => {
      test('503, 500 and a network error are retried after 0.5 s and 1 s doubling with full jitter, then 200 settles', async () => {
        const launch = await openLaunch();
        answerTransactions({ status: 503 }, { status: 500 }, 'network-error', { status: 200 });
        const playing = play(launch);
        const waits: number[] = [];
        for (let attempt = 1; attempt <= 3; attempt++) waits.push(advanceTo(await pendingAfter(attempt)));
        const answer = await playing;
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.balance, '99');
        // Jitter is uniform in [0, ceiling]; the test's random() is 0.5.
        assert.deepEqual(waits, [250, 500, 1000]);
        assert.equal(sent.length, 3); // the network error never reached a reply
        for (const each of sent) {
          assert.equal(each.body, sent[0]!.body);
          assert.equal(each.headers['x-server-authorization'], sign(SECRET, sent[0]!.body));
          assert.equal(each.headers.authorization, `Bearer ${ACCESS_TOKEN}`);
        }
        const [round] = await provider.store.listRounds(1);
        assert.equal(round?.status, 'settled');
        assert.equal(round?.attempts, 4);
        assert.equal(round?.requestBody, sent[0]!.body);
        const item = await provider.store.outbox.item(round!.dispatchItemId!);
        assert.equal(item?.status, 'sent');
        assert.equal(item?.body.toString('utf8'), sent[0]!.body);
      });

      test('429 honours Retry-After in seconds as the least wait', async () => {
        const launch = await openLaunch();
        answerTransactions({ status: 429, headers: () => ({ 'retry-after': '3' }) }, { status: 200 });
        const playing = play(launch);
        assert.equal(advanceTo(await pendingAfter(1)), 3_000);
        assert.equal((await playing).status, 200);
      });

      test('503 honours Retry-After as an HTTP date, read against the clock', async () => {
        const launch = await openLaunch();
        let asked = 0;
        answerTransactions(
          {
            status: 503,
            headers: () => {
              // An IMF-fixdate names whole seconds: 7 s ahead of the clock, and the part of a second it has run into.
              const at = Math.floor(provider.clock.now / 1000) * 1000 + 7_000;
              asked = at - provider.clock.now;
              return { 'retry-after': new Date(at).toUTCString() };
            },
          },
          { status: 200 },
        );
        const playing = play(launch);
        const waited = advanceTo(await pendingAfter(1));
        assert.ok(asked > 6_000 && asked <= 7_000, String(asked));
        assert.equal(waited, asked);
        assert.equal((await playing).status, 200);
      });

      test('409 is final: never resent, the round is refused and the page gets the code', async () => {
        const launch = await openLaunch();
        answerTransactions({ status: 409 });
        const answer = await play(launch);
        assertProblem(answer, 'DUPLICATE_CONFLICT', 99);
        assert.equal(sent.length, 1);
        const [round] = await provider.store.listRounds(1);
        assert.equal(round?.status, 'refused');
        assert.equal((await provider.store.outbox.item(round!.dispatchItemId!))?.status, 'refused');
        // Nothing is pending: the next round is sent as usual, and the refused one never again.
        provider.clock.advance(60_000);
        answerTransactions({ status: 200 });
        const next = await play(launch);
        assert.equal(next.status, 200, next.raw);
        assert.equal(sent.length, 2);
        assert.notEqual(sent[1]!.body, sent[0]!.body);
      });

      test('a final answer that is not problem+json is refused as unavailable, never resent', async () => {
        const launch = await openLaunch();
        answerTransactions({ status: 404, body: '<html>not here</html>', type: 'text/html' });
        assertProblem(await play(launch), 'SERVICE_UNAVAILABLE');
        assert.equal(sent.length, 1);
        assert.equal((await provider.store.listRounds(1))[0]?.refusalCode, 'HTTP_404');
      });

      test('a 200 whose balance a double cannot hold exactly is booked but not believed', async () => {
        const launch = await openLaunch();
        answerTransactions({ status: 200, body: '{"balance":12.3456789012345678}' });
        assertProblem(await play(launch), 'SERVICE_UNAVAILABLE');
        const [round] = await provider.store.listRounds(1);
        assert.equal(round?.status, 'settled');
        assert.equal(round?.balanceAfterMinor, null);
      });
    });

    // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
    describe('a round its player stopped waiting for', () => {
      /** The suite's provider, put back after these tests. */
      let shared: Provider;
      const patience = new ManualPlayerTimer();
      before(async () => {
        shared = provider;
        provider = await providerWithPatience(ORIGIN, agent, patience);
      });
      after(async () => {
        await provider.close();
        provider = shared;
      });

      /** A new launch whose round its player's wait left pending (one 503; the clock stands still): the launch, the round's pk and the body it sent. */
      async function leftPending(): Promise<{ launch: { path: string; token: string }; pk: number; body: string }> {
        const launch = await openLaunch();
        sent = [];
        answerTransactions({ status: 503 });
        const answer = await playGivingUp(launch, patience);
        assertPendingView(answer);
        const [pending] = await provider.store.listRounds(1);
        assert.equal(pending?.status, 'pending');
        assert.equal((answer.body.round as { roundId: string }).roundId, pending?.roundId);
        await pendingAfter(1);
        return { launch, pk: pending!.pk, body: sent[0]!.body };
      }

      test('stays in the outbox; the launch plays no round meanwhile; it is delivered without its player, byte for byte', async () => {
        const { launch, pk, body: firstBody } = await leftPending();
        const rounds = (await provider.store.listRounds(100)).length;

        // The next play waits for it, bounded, and is refused: nothing new is sent or played.
        const blocked = await playGivingUp(launch, patience);
        assertProblem(blocked, 'SERVICE_UNAVAILABLE');
        assert.match(blocked.body.detail as string, /previous round is still being settled/);
        assert.equal(sent.length, 1);
        assert.equal((await provider.store.listRounds(100)).length, rounds);

        // Its back-off passes and the operator answers: settled, with no player request.
        answerTransactions({ status: 200, body: '{"balance":98}' });
        advanceTo(await pendingAfter(1));
        const settled = await finished(pk);
        assert.equal(settled.status, 'settled');
        assert.equal(settled.attempts, 2);
        assert.equal(settled.balanceAfterMinor, 9_800n);
        assert.equal((await provider.store.session(settled.sessionPk)).balanceMinor, 9_800n);
        assert.deepEqual(
          sent.map((each) => each.body),
          [firstBody, firstBody],
        );
        // What the page polls shows it settled, with the balance the operator answered; nothing was asked of the operator.
        const followed = await state(launch);
        assert.equal(followed.status, 200, followed.raw);
        assert.equal(followed.body.balance, '98');
        const shown = (followed.body.rounds as { roundId: string; status: string; roll?: number }[])[0];
        assert.equal(shown?.roundId, settled.roundId);
        assert.equal(shown?.status, 'settled');
        assert.equal(shown?.roll, settled.roll);
        assert.equal(sent.length, 2);

        // The launch plays on; nothing is resent again.
        sent = [];
        answerTransactions({ status: 200, body: '{"balance":97}' });
        const next = await play(launch);
        assert.equal(next.status, 200, next.raw);
        assert.equal(next.body.balance, '97');
        assert.equal(sent.length, 1);
        assert.notEqual(sent[0]!.body, firstBody);
      });

      test("the launch's next play goes ahead once the previous round is settled within its wait", async () => {
        const { launch, pk } = await leftPending();
        answerTransactions({ status: 200, body: '{"balance":98}' }, { status: 200, body: '{"balance":97}' });
        const next = play(launch);
        // While the next play waits, the pending round's back-off passes.
        advanceTo(await pendingAfter(1));
        const answer = await next;
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.balance, '97');
        assert.equal((await provider.store.round(pk)).status, 'settled');
        assert.equal(sent.length, 3);
      });

      test('a refusal delivered without its player is final: the round is refused and the launch plays on', async () => {
        const { launch, pk } = await leftPending();
        const polled = await state(launch);
        assert.equal(polled.status, 200, polled.raw);
        assert.equal((polled.body.rounds as { status: string }[])[0]?.status, 'pending', 'the page sees it pending');
        answerTransactions({ status: 409 });
        advanceTo(await pendingAfter(1));
        const refused = await finished(pk);
        assert.equal(refused.status, 'refused');
        assert.equal(refused.refusalCode, 'DUPLICATE_CONFLICT');
        assert.equal(refused.balanceAfterMinor, 9_900n, "the balance the operator's problem carried");
        const opened = await pageCall(provider.app, `${launch.path}/api/open`, { token: launch.token });
        assert.ok(!(opened.body.rounds as { roundId: string }[]).some((round) => round.roundId === refused.roundId), 'a refused round is not shown as played');
        const after = await state(launch);
        assert.ok(!(after.body.rounds as { roundId: string }[]).some((round) => round.roundId === refused.roundId), 'nor on what the page polls');
        provider.clock.advance(60_000);
        answerTransactions({ status: 200 });
        assert.equal((await play(launch)).status, 200);
        assert.equal(sent.length, 3, 'the refused round was never resent');
      });

      test('survives a restart of the provider and is delivered after it, byte for byte', async () => {
        const { launch, pk, body: firstBody } = await leftPending();

        // A new app and delivery on the same database: the outbox is all they know.
        await provider.restart();
        sent = [];
        answerTransactions({ status: 200, body: '{"balance":98.06}' });
        advanceTo(await pendingAfter(1));
        const settled = await finished(pk);
        assert.equal(settled.status, 'settled');
        assert.deepEqual(
          sent.map((each) => each.body),
          [firstBody],
        );
        const reopened = await pageCall(provider.app, `${launch.path}/api/open`, { token: launch.token });
        assert.equal(reopened.status, 200, reopened.raw);
        assert.equal((reopened.body.rounds as { roundId: string; status: string }[])[0]?.roundId, settled.roundId);
        assert.equal((reopened.body.rounds as { status: string }[])[0]?.status, 'settled');
      });

      test('a node killed with the round in flight and restarted on its port sends it at once, its killed run’s lease not waited for; the launch plays on', async () => {
        const { launch, pk, body: firstBody } = await leftPending();
        // The killed run claimed the round's next attempt and died with it in flight. The clock stands still from
        // here: that lease never runs out, so only the restarted node knowing it for its own lets the round go.
        await provider.restart({ deliver: false });
        advanceTo(await pendingAfter(1));
        const killedRun = leaseOwner(provider.delivery.lastingName!, 'killed-run');
        const [claimed] = await provider.store.outbox.claim(provider.clock.now, killedRun, CLAIM_LIMITS);
        assert.equal(claimed?.leaseOwner, killedRun);

        sent = [];
        answerTransactions({ status: 200, body: '{"balance":98.06}' });
        await provider.restart();
        const settled = await finished(pk);
        assert.equal(settled.status, 'settled');
        assert.deepEqual(
          sent.map((each) => each.body),
          [firstBody],
        );
        answerTransactions({ status: 200, body: '{"balance":97.06}' });
        const next = await play(launch);
        assert.equal(next.status, 200, next.raw);
      });
    });

    describe('an operator down longer than the player waits, in real time', () => {
      const OUTAGE_ORIGIN = 'http://outage.test';
      /** Room for a loaded machine on top of the probe's interval. */
      const SLACK_MS = 1_000;
      let outageAgent: MockAgent;
      let shared: Provider;
      const patience = new ManualPlayerTimer();
      let down = true;
      const attempts: number[] = [];

      before(async () => {
        outageAgent = new MockAgent();
        outageAgent.disableNetConnect();
        const operator = outageAgent.get(OUTAGE_ORIGIN);
        authenticates(operator);
        operator
          .intercept({ path: '/transaction', method: 'POST' })
          .reply(() => {
            attempts.push(Date.now());
            return down
              ? { statusCode: 503, data: problem(503), responseOptions: { headers: { 'content-type': 'application/problem+json' } } }
              : { statusCode: 200, data: '{"balance":99}', responseOptions: { headers: { 'content-type': 'application/json' } } };
          })
          .persist();
        shared = provider;
        provider = await providerWithPatience(OUTAGE_ORIGIN, outageAgent, patience, realClock());
      });
      after(async () => {
        await provider.close();
        provider = shared;
        await outageAgent.close();
      });

      test('the round is settled within about a probe of the return, with no player request, and the operator was not flooded meanwhile', async () => {
        const launch = await openLaunch();
        const answer = await playGivingUp(launch, patience);
        assertPendingView(answer);
        const [round] = await provider.store.listRounds(1);
        // Down through the third attempt, well past the player's wait; back right after it.
        await pendingAfter(3);
        const downSince = attempts[0]!;
        down = false;
        const returned = Date.now();
        const settled = await finished(round!.pk);
        const after = settled.settledAt! - returned;
        assert.equal(settled.status, 'settled');
        assert.equal(settled.attempts, attempts.length, 'every attempt counted');
        // While down: the back-off's attempts and at most one probe per OPERATOR_PROBE_MS.
        assert.ok(attempts.length <= 3 + Math.ceil((returned - downSince) / OPERATOR_PROBE_MS) + 1, `${attempts.length} attempts`);
        assert.ok(after <= OPERATOR_PROBE_MS + SLACK_MS, `settled ${after} ms after the return`);
        // What an operator's on-call engineer would graph: every attempt by status and decision, nothing left waiting.
        // The delivery counts an attempt once its outcome is recorded and the operator's other items hastened:
        // on PostgreSQL the settled round can be read a round trip before that, so the count is awaited.
        const countIn = (metrics: string, labels: string) =>
          Number(metrics.match(new RegExp(`^wagerlink_dispatch_attempts_total\\{${labels}\\} (\\d+)$`, 'm'))?.[1] ?? 0);
        const sentLabels = 'operator="local-demo-operator",kind="bet",status="200",code="OK",decision="sent"';
        const metrics = await until('the final attempt is counted', async () => {
          const text = (await provider.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${PROVIDER_ADMIN_TOKEN}` } })).body;
          return countIn(text, sentLabels) > 0 ? text : undefined;
        });
        const count = (labels: string) => countIn(metrics, labels);
        assert.equal(count('operator="local-demo-operator",kind="bet",status="503",code="SERVICE_UNAVAILABLE",decision="retry"'), attempts.length - 1);
        assert.equal(count(sentLabels), 1);
        assert.doesNotMatch(metrics, /^wagerlink_outbox_items\{/m, 'nothing waits');
        assert.match(metrics, /^wagerlink_http_request_duration_seconds_count\{route="\/game\/:slug\/api\/play"/m);
        console.log(`# outage: settled ${after} ms after the operator's return (probe every ${OPERATOR_PROBE_MS} ms), no player request`);
      });
    });

    describe('durability', () => {
      test('a round is sent only after its pending record is synced, and answered only after its answer is', async () => {
        const launch = await openLaunch();
        const events: string[] = [];
        const store = provider.store;
        const sync = store.durable.bind(store);
        // Each wait records what the round log held when it began, and when the sync came back.
        store.durable = async () => {
          const [latest] = await store.listRounds(1);
          events.push(`wait: ${latest?.status ?? 'no round'}`);
          await sync();
          events.push('synced');
        };
        onSent = () => events.push('sent');
        answerTransactions({ status: 200, body: '{"balance":99}' });
        const answer = await play(launch).finally(() => {
          store.durable = sync;
          onSent = undefined;
        });
        assert.equal(answer.status, 200, answer.raw);
        // Before the send, only waits for the pending round's sync (the player's, and the claim's if it came first) and their syncs.
        const sentAt = events.indexOf('sent');
        const before = events.slice(0, sentAt);
        assert.equal(before[0], 'wait: pending', events.join(', '));
        assert.ok(before.includes('synced') && before.every((event) => event === 'wait: pending' || event === 'synced'), events.join(', '));
        assert.deepEqual(events.slice(sentAt), ['sent', 'wait: settled', 'synced']);
      });

      test('on a file, durable() waits for a sync off the thread', async () => {
        const store = provider.store;
        // durable() waits for a real fdatasync of the WAL: it resolves on a later turn, not at once.
        let resolved = false;
        const waiting = store.durable().then(() => (resolved = true));
        await Promise.resolve();
        assert.equal(resolved, false);
        await waiting;
        assert.equal(resolved, true);
      });
    });
  });
}
