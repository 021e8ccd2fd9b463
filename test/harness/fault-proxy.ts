/**
 * A fault-injecting HTTP proxy for tests over real sockets: it stands
 * between the providers and an operator and, for each request, draws one
 * fate from a seeded plan. The faults are the ones a network and a load
 * balancer really produce, chosen for what each proves about delivery:
 *
 * - `drop`: the connection is closed before the request reaches the
 *   operator (nothing booked; the sender sees a network error);
 * - `delay`: the request reaches the operator late (ordering under delay);
 * - `unavailable`: 503 without `Retry-After` (the sender's own back-off);
 * - `unavailable-retry-after`: 503 with `Retry-After` (honoured);
 * - `reset-after-commit`: the request is forwarded and answered, then the
 *   connection is reset instead of relaying the answer (the operator booked
 *   it; the sender must resend the same bytes and be answered as booked);
 * - `late-answer`: forwarded and answered, the answer relayed only after
 *   `lateAnswerMs`, past the sender's wait for one attempt (the same, with a
 *   time-out instead of a reset);
 * - `pass`: forwarded as it is.
 *
 * An operator that cannot be reached is answered 502, as a load balancer
 * would. The body is forwarded byte for byte, with the headers that carry
 * the signature and the token, so what the operator checks is what the
 * sender signed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { mulberry32 } from './seeded-random.js';

export const FAULTS = ['drop', 'delay', 'unavailable', 'unavailable-retry-after', 'reset-after-commit', 'late-answer'] as const;
export type Fault = (typeof FAULTS)[number];
export type Fate = Fault | 'pass';

/** Each fault's share of the requests, from 0 to 1; together at most 1, the rest pass. */
export type FaultPlan = Partial<Record<Fault, number>>;

export interface FaultProxyOptions {
  /** The operator's origin, e.g. http://127.0.0.1:8080. */
  target: string;
  plan: FaultPlan;
  /** The draws are a function of this seed and the order requests arrive in. */
  seed: number;
  /** A delayed request waits this long before it is forwarded (ms). */
  delayMs?: number;
  /** A late answer is relayed this long after it arrived (ms): longer than the sender's wait for one attempt. */
  lateAnswerMs?: number;
  /** Seconds a 503's Retry-After asks for. */
  retryAfterSeconds?: number;
  /** Only requests whose path is listed meet faults; the rest pass. Default: every path. */
  paths?: readonly string[];
}

/** Headers a hop must not forward (RFC 9110 §7.6.1), and the ones undici sets itself. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'content-length']);

export class FaultProxy {
  /** How many requests met each fate. */
  readonly counts: Record<Fate, number> = {
    pass: 0,
    drop: 0,
    delay: 0,
    unavailable: 0,
    'unavailable-retry-after': 0,
    'reset-after-commit': 0,
    'late-answer': 0,
  };
  private plan: FaultPlan;
  private readonly random: () => number;
  private readonly upstream = new Agent({ keepAliveTimeout: 10_000 });

  private constructor(
    private readonly server: Server,
    private readonly options: FaultProxyOptions,
  ) {
    this.plan = options.plan;
    this.random = mulberry32(options.seed);
  }

  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const total = Object.values(options.plan).reduce((sum, share) => sum + (share ?? 0), 0);
    if (total > 1) throw new Error(`the faults' shares add up to ${total}, over 1`);
    let proxy: FaultProxy | undefined;
    const server = createServer((req, res) => void proxy!.handle(req, res));
    proxy = new FaultProxy(server, options);
    server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    return proxy;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Another plan from now on (e.g. none, to let a backlog drain). */
  setPlan(plan: FaultPlan): void {
    this.plan = plan;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.upstream.close();
  }

  private draw(path: string): Fate {
    if (this.options.paths !== undefined && !this.options.paths.includes(path)) return 'pass';
    let point = this.random();
    for (const fault of FAULTS) {
      point -= this.plan[fault] ?? 0;
      if (point < 0) return fault;
    }
    return 'pass';
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const fate = this.draw(new URL(req.url ?? '/', 'http://proxy').pathname);
    this.counts[fate]++;
    switch (fate) {
      case 'drop':
        req.socket.destroy();
        return;
      case 'unavailable':
      case 'unavailable-retry-after': {
        const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
        if (fate === 'unavailable-retry-after') headers['retry-after'] = String(this.options.retryAfterSeconds ?? 1);
        res
          .writeHead(503, headers)
          .end(
            JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'SERVICE_UNAVAILABLE', detail: 'injected by the proxy' }),
          );
        return;
      }
      case 'delay':
        await sleep(this.options.delayMs ?? 200);
        break;
      default:
        break;
    }
    let answer: { status: number; headers: Record<string, string>; body: Buffer };
    try {
      answer = await this.forward(req, body);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'application/problem+json' }).end(
        JSON.stringify({
          type: 'about:blank',
          title: 'Bad Gateway',
          status: 502,
          code: 'SERVICE_UNAVAILABLE',
          detail: `the operator cannot be reached: ${(error as Error).message}`,
        }),
      );
      return;
    }
    if (fate === 'reset-after-commit') {
      req.socket.resetAndDestroy();
      return;
    }
    if (fate === 'late-answer') await sleep(this.options.lateAnswerMs ?? 6_000);
    if (res.destroyed) return;
    res.writeHead(answer.status, answer.headers).end(answer.body);
  }

  private async forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
    }
    const response = await request(new URL(req.url ?? '/', this.options.target), {
      method: req.method as 'POST',
      headers,
      ...(body.length === 0 ? {} : { body }),
      dispatcher: this.upstream,
    });
    const answerBody = Buffer.from(await response.body.arrayBuffer());
    const answerHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (!HOP_HEADERS.has(name) && typeof value === 'string') answerHeaders[name] = value;
    }
    return { status: response.statusCode, headers: answerHeaders, body: answerBody };
  }
}
