/**
 * Proves the provider's retry rule for a round (docs/protocol.md §3, §9) with
 * the network mocked (undici MockAgent) and the clock injected: network
 * errors, time-outs, 429 and 5xx are resent with the same body, signature
 * and ids after a full-jitter back-off doubling from 0.5 s; other answers
 * are final and never resent; a round whose answer did not come within the
 * player's request stays pending in the round log, survives a restart, and
 * is resent, byte for byte, before the launch's next round, and by the
 * outbox without its player once that request has given up. A round is sent
 * only once its pending record is durable, and answered only once the
 * operator's answer is.
 */
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MockAgent, type MockPool } from 'undici';
import { sign } from '../../src/protocol/signing.js';
import { ACCESS_TOKEN, SECRET } from '../helpers.js';
import { assertProblem, launchOf, makeProvider, operatorCall, pageCall, realLaunchBody, type Provider } from './provider-helpers.js';

const ORIGIN = 'http://operator.test';
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

before(async () => {
  agent = new MockAgent();
  agent.disableNetConnect();
  pool = agent.get(ORIGIN);
  pool
    .intercept({ path: '/authenticate', method: 'POST' })
    .reply(200, JSON.stringify({ sessionId: randomUUID(), playerId: 'p-1', currency: 'EUR', balance: 100, country: 'DE' }), {
      headers: { 'content-type': 'application/json' },
    })
    .persist();
  provider = await makeProvider({ endpoint: ORIGIN, dispatcher: agent });
});

after(async () => {
  await provider.close();
  await agent.close();
});

beforeEach(() => {
  sent = [];
  provider.world.sleeps.length = 0;
});

type Reply = { status: number; body?: string; type?: string } | 'network-error';

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
        responseOptions: { headers: { 'content-type': reply.type ?? (reply.status === 200 ? 'application/json' : 'application/problem+json') } },
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

/** A new launch whose round its player's request left pending (seven 503s): the launch, the round's pk and the body it sent. */
async function leftPending(): Promise<{ launch: { path: string; token: string }; pk: number; body: string }> {
  const launch = await openLaunch();
  sent = [];
  answerTransactions(...Array.from({ length: 7 }, () => ({ status: 503 })));
  assertProblem(await play(launch), 'SERVICE_UNAVAILABLE');
  const [pending] = provider.store.listRounds(1);
  return { launch, pk: pending!.pk, body: sent[0]!.body };
}

describe('resent with the same body', () => {
  test('503, 500 and a network error are retried after 0.5 s and 1 s doubling with full jitter, then 200 settles', async () => {
    const launch = await openLaunch();
    answerTransactions({ status: 503 }, { status: 500 }, 'network-error', { status: 200 });
    const answer = await play(launch);
    assert.equal(answer.status, 200, answer.raw);
    assert.equal(answer.body.balance, '99');
    // Jitter is uniform in [0, ceiling]; the test's random() is 0.5.
    assert.deepEqual(provider.world.sleeps, [250, 500, 1000]);
    assert.equal(sent.length, 3); // the network error never reached a reply
    for (const each of sent) {
      assert.equal(each.body, sent[0]!.body);
      assert.equal(each.headers['x-server-authorization'], sign(SECRET, sent[0]!.body));
      assert.equal(each.headers.authorization, `Bearer ${ACCESS_TOKEN}`);
    }
    const [round] = provider.store.listRounds(1);
    assert.equal(round?.status, 'settled');
    assert.equal(round?.attempts, 4);
    assert.equal(round?.requestBody, sent[0]!.body);
  });

  test('429 honours Retry-After as the least wait', async () => {
    const launch = await openLaunch();
    pool
      .intercept({ path: '/transaction', method: 'POST' })
      .reply(429, problem(429), { headers: { 'content-type': 'application/problem+json', 'retry-after': '3' } });
    answerTransactions({ status: 200 });
    const answer = await play(launch);
    assert.equal(answer.status, 200, answer.raw);
    assert.deepEqual(provider.world.sleeps, [3000]);
  });

  test('409 is final: never resent, the round is refused and the page gets the code', async () => {
    const launch = await openLaunch();
    answerTransactions({ status: 409 });
    const answer = await play(launch);
    assertProblem(answer, 'DUPLICATE_CONFLICT', 99);
    assert.equal(sent.length, 1);
    assert.deepEqual(provider.world.sleeps, []);
    assert.equal(provider.store.listRounds(1)[0]?.status, 'refused');
    // Nothing is pending: the next round is sent as usual.
    answerTransactions({ status: 200 });
    const next = await play(launch);
    assert.equal(next.status, 200, next.raw);
  });

  test('a final answer that is not problem+json is refused as unavailable, never resent', async () => {
    const launch = await openLaunch();
    answerTransactions({ status: 404, body: '<html>not here</html>', type: 'text/html' });
    assertProblem(await play(launch), 'SERVICE_UNAVAILABLE');
    assert.equal(sent.length, 1);
    assert.equal(provider.store.listRounds(1)[0]?.refusalCode, 'HTTP_404');
  });

  test('a 200 whose balance a double cannot hold exactly is booked but not believed', async () => {
    const launch = await openLaunch();
    answerTransactions({ status: 200, body: '{"balance":12.3456789012345678}' });
    assertProblem(await play(launch), 'SERVICE_UNAVAILABLE');
    const [round] = provider.store.listRounds(1);
    assert.equal(round?.status, 'settled');
    assert.equal(round?.balanceAfterMinor, null);
  });
});

describe('a round left pending', () => {
  test('is kept when the answer does not come within the player request, and resent first next time', async () => {
    const launch = await openLaunch();
    // 0.25 + 0.5 + 1 + 2 + 4 + 8 = 15.75 s of back-off; the next (16 s) would end past the 20 s budget.
    answerTransactions(...Array.from({ length: 7 }, () => ({ status: 503 })));
    const answer = await play(launch);
    assertProblem(answer, 'SERVICE_UNAVAILABLE');
    assert.match(answer.body.detail as string, /kept and will be settled/);
    assert.deepEqual(provider.world.sleeps, [250, 500, 1000, 2000, 4000, 8000]);
    const [pending] = provider.store.listRounds(1);
    assert.equal(pending?.status, 'pending');
    assert.equal(pending?.attempts, 7);
    const firstBody = sent[0]!.body;

    // The next play resends the pending round as it was, then plays a new one.
    sent = [];
    answerTransactions({ status: 200, body: '{"balance":98}' }, { status: 200, body: '{"balance":97}' });
    const next = await play(launch);
    assert.equal(next.status, 200, next.raw);
    assert.equal(sent.length, 2);
    assert.equal(sent[0]!.body, firstBody);
    assert.notEqual(sent[1]!.body, firstBody);
    assert.equal(next.body.balance, '97');
    const [newer, older] = provider.store.listRounds(2);
    assert.equal(older?.roundId, pending?.roundId);
    assert.equal(older?.status, 'settled');
    assert.equal(older?.attempts, 8);
    assert.equal(newer?.status, 'settled');
  });

  test('survives a restart of the provider and is settled when the game is opened again', async () => {
    const { launch, pk, body: firstBody } = await leftPending();

    // A new app on the same database: the round log is all it knows.
    await provider.restart();
    sent = [];
    answerTransactions({ status: 200, body: '{"balance":98.06}' });
    const reopened = await pageCall(provider.app, `${launch.path}/api/open`, { token: launch.token });
    assert.equal(reopened.status, 200, reopened.raw);
    assert.deepEqual(sent.map((each) => each.body), [firstBody]);
    assert.equal(provider.store.round(pk).status, 'settled');
    assert.equal(reopened.body.balance, '98.06');
    assert.equal((reopened.body.rounds as { status: string }[])[0]?.status, 'settled');
  });
});

describe('the outbox', () => {
  /** The suite's provider, put back after these tests. */
  let shared: Provider;
  before(async () => {
    shared = provider;
    provider = await makeProvider({
      endpoint: ORIGIN,
      dispatcher: agent,
      edit: (file) => {
        file.limits = { ...(file.limits as object), outboxIntervalSeconds: 1 };
      },
    });
  });
  after(async () => {
    await provider.close();
    provider = shared;
  });

  /** Waits, in real time, for a round to leave `pending` (the outbox runs every second). */
  async function finishedWithin(pk: number, ms: number): Promise<boolean> {
    for (const started = Date.now(); Date.now() - started < ms; await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (provider.store.round(pk).status !== 'pending') return true;
    }
    return false;
  }

  test('resends a round left pending without its player, byte for byte, once its player request has given up on it', async () => {
    const { launch, pk, body: firstBody } = await leftPending();

    // Left pending for less than roundSettleMsMax (the sleeps took 15.75 s of it): not the outbox's yet.
    sent = [];
    answerTransactions({ status: 200, body: '{"balance":98}' });
    assert.equal(await finishedWithin(pk, 1_500), false);
    assert.equal(sent.length, 0, "nothing was resent");

    provider.clock.advance(provider.config.limits.roundSettleMsMax);
    assert.equal(await finishedWithin(pk, 5_000), true, 'the outbox settled the round');
    assert.deepEqual(sent.map((each) => each.body), [firstBody]);
    const settled = provider.store.round(pk);
    assert.equal(settled.status, 'settled');
    assert.equal(settled.attempts, 8);
    assert.equal(settled.balanceAfterMinor, 9_800n);
    // The launch plays on as usual; nothing is resent again.
    sent = [];
    answerTransactions({ status: 200, body: '{"balance":97}' });
    const next = await play(launch);
    assert.equal(next.status, 200, next.raw);
    assert.equal(sent.length, 1);
    assert.notEqual(sent[0]!.body, firstBody);
  });

  test('tries each round once a pass, and a final answer ends it', async () => {
    const { pk } = await leftPending();
    provider.clock.advance(provider.config.limits.roundSettleMsMax);
    sent = [];
    // One pass: one attempt, no back-off within it; the next pass gets a final 409.
    answerTransactions({ status: 503 }, { status: 409 });
    assert.equal(await finishedWithin(pk, 5_000), true);
    assert.equal(sent.length, 2);
    assert.equal(sent[0]!.body, sent[1]!.body);
    const refused = provider.store.round(pk);
    assert.equal(refused.status, 'refused');
    assert.equal(refused.refusalCode, 'DUPLICATE_CONFLICT');
    assert.equal(refused.attempts, 9);
  });

  test('an operator that gives no final answer is left alone for the rest of the pass', async () => {
    const first = await leftPending();
    const second = await leftPending();
    provider.clock.advance(provider.config.limits.roundSettleMsMax);
    sent = [];
    // The first launch's resend gets a 503: the second is not tried in that pass, and both go in the next.
    answerTransactions({ status: 503 }, { status: 200 }, { status: 200 });
    assert.equal(await finishedWithin(second.pk, 5_000), true);
    assert.equal(await finishedWithin(first.pk, 5_000), true);
    assert.deepEqual(sent.map((each) => each.body), [first.body, first.body, second.body]);
  });

  test("an operator's Retry-After holds the outbox back that long", async () => {
    const round = await leftPending();
    provider.clock.advance(provider.config.limits.roundSettleMsMax);
    sent = [];
    pool
      .intercept({ path: '/transaction', method: 'POST' })
      .reply(429, problem(429), { headers: { 'content-type': 'application/problem+json', 'retry-after': '60' } });
    answerTransactions({ status: 200 });
    // The 429 comes on the first pass; the passes after it, a second apart, leave the operator alone.
    assert.equal(await finishedWithin(round.pk, 2_500), false);
    assert.equal(sent.length, 0, 'nothing but the 429 was sent');
    provider.clock.advance(60_000);
    assert.equal(await finishedWithin(round.pk, 5_000), true);
    assert.deepEqual(sent.map((each) => each.body), [round.body]);
    assert.equal(provider.store.round(round.pk).attempts, 9);
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
      const [latest] = store.listRounds(1);
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
    assert.deepEqual(events, ['wait: pending', 'synced', 'sent', 'wait: settled', 'synced']);
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
