/**
 * Proves that the fault-injecting proxy does what the delivery proofs rely
 * on, against a small upstream that counts what reaches it: each fault
 * reaches (or does not reach) the upstream as its name says, the sender
 * sees what it would see on a real network, a passed request and its answer
 * cross byte for byte with the signature's headers, the same seed draws the
 * same fates, and an upstream that is down is answered 502.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { FaultProxy, type Fault } from './fault-proxy.js';

let upstream: Server;
let upstreamOrigin: string;
const received: { path: string; body: string; signature: string | undefined }[] = [];

before(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers['x-server-authorization'] as string | undefined,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":1.5}');
    });
  });
  upstream.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => upstream.once('listening', resolve));
  upstreamOrigin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

after(async () => {
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

/** One POST through the proxy on a fresh connection: its status and body, or the network error's code. */
async function send(origin: string, body: string, timeoutMs = 5_000): Promise<{ status?: number; text?: string; retryAfter?: string; error?: string }> {
  const agent = new Agent();
  try {
    const response = await request(`${origin}/transaction`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-server-authorization': 'abc123' },
      body,
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const retryAfter = response.headers['retry-after'] as string | undefined;
    return { status: response.statusCode, text: await response.body.text(), ...(retryAfter === undefined ? {} : { retryAfter }) };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  } finally {
    await agent.close().catch(() => {});
  }
}

async function withProxy<T>(fault: Fault | 'pass', work: (proxy: FaultProxy) => Promise<T>): Promise<T> {
  const proxy = await FaultProxy.start({
    target: upstreamOrigin,
    plan: fault === 'pass' ? {} : { [fault]: 1 },
    seed: 1,
    delayMs: 50,
    lateAnswerMs: 400,
    retryAfterSeconds: 3,
  });
  try {
    return await work(proxy);
  } finally {
    await proxy.close();
  }
}

test('pass: the body and the signature header reach the operator byte for byte, and its answer comes back', async () => {
  await withProxy('pass', async (proxy) => {
    const before = received.length;
    const body = '{"amount":1.10,"name":"Zoë"}';
    const answer = await send(proxy.origin, body);
    assert.deepEqual(answer, { status: 200, text: '{"balance":1.5}' });
    assert.deepEqual(received.slice(before), [{ path: '/transaction', body, signature: 'abc123' }]);
    assert.equal(proxy.counts.pass, 1);
  });
});

test('drop: nothing reaches the operator; the sender sees the connection closed', async () => {
  await withProxy('drop', async (proxy) => {
    const before = received.length;
    const answer = await send(proxy.origin, '{}');
    assert.ok(answer.error !== undefined, JSON.stringify(answer));
    assert.equal(received.length, before);
  });
});

test('503 with and without Retry-After: nothing reaches the operator', async () => {
  for (const fault of ['unavailable', 'unavailable-retry-after'] as const) {
    await withProxy(fault, async (proxy) => {
      const before = received.length;
      const answer = await send(proxy.origin, '{}');
      assert.equal(answer.status, 503);
      assert.equal(answer.retryAfter, fault === 'unavailable' ? undefined : '3');
      assert.equal(received.length, before);
    });
  }
});

test('reset after commit: the operator gets the request, the sender gets a reset instead of its answer', async () => {
  await withProxy('reset-after-commit', async (proxy) => {
    const before = received.length;
    const answer = await send(proxy.origin, '{"n":1}');
    assert.ok(answer.error !== undefined, JSON.stringify(answer));
    assert.equal(received.length, before + 1);
  });
});

test('late answer: the operator gets the request at once; a sender that waits less than lateAnswerMs times out', async () => {
  await withProxy('late-answer', async (proxy) => {
    const before = received.length;
    const answer = await send(proxy.origin, '{"n":2}', 150);
    assert.ok(answer.error !== undefined, JSON.stringify(answer));
    assert.equal(received.length, before + 1);
  });
});

test('delay: the request is forwarded late and answered', async () => {
  await withProxy('delay', async (proxy) => {
    const answer = await send(proxy.origin, '{"n":3}');
    assert.equal(answer.status, 200);
    assert.equal(proxy.counts.delay, 1);
  });
});

test('the same seed draws the same fates; the shares are about as planned', async () => {
  const fates = async () => {
    const proxy = await FaultProxy.start({ target: upstreamOrigin, plan: { unavailable: 0.3, 'unavailable-retry-after': 0.2 }, seed: 42 });
    try {
      const seen: number[] = [];
      for (let i = 0; i < 200; i++) seen.push((await send(proxy.origin, '{}')).status!);
      return { seen, counts: { ...proxy.counts } };
    } finally {
      await proxy.close();
    }
  };
  const first = await fates();
  const second = await fates();
  assert.deepEqual(first.seen, second.seen);
  // 200 draws at 0.5: the passes are within a wide band around 100 whatever the seed's luck.
  assert.ok(first.counts.pass > 60 && first.counts.pass < 140, JSON.stringify(first.counts));
  assert.equal(first.counts.pass + first.counts.unavailable + first.counts['unavailable-retry-after'], 200);
});

test('an operator that cannot be reached is answered 502, as a load balancer would', async () => {
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => closed.once('listening', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const proxy = await FaultProxy.start({ target: `http://127.0.0.1:${port}`, plan: {}, seed: 1 });
  try {
    const answer = await send(proxy.origin, '{}');
    assert.equal(answer.status, 502);
  } finally {
    await proxy.close();
  }
});

test('shares over 1 are refused', async () => {
  await assert.rejects(FaultProxy.start({ target: upstreamOrigin, plan: { drop: 0.6, delay: 0.6 }, seed: 1 }), /over 1/);
});
