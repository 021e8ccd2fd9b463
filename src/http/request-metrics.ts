/**
 * The Prometheus series every server of ours keeps of its HTTP requests,
 * and the /metrics route that exposes a registry: one histogram by route,
 * method, status and problem code (OK for 2xx), whose _count series counts
 * the requests. Each app has its own registry, so several apps in one
 * process (tests, a sandbox) do not share counters.
 */
import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';
import { bearerToken, tokenAccepted } from '../protocol/signing.js';
import { sendProblem } from './json-api.js';

/** Latency buckets (seconds): sub-millisecond to the provider's 5 s wait for an answer. */
const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The child kept under `key`, made on first use: prom-client hashes a label object on every call otherwise. */
export function childFor<C>(children: Map<string, C>, key: string, make: () => C): C {
  let child = children.get(key);
  if (child === undefined) {
    child = make();
    children.set(key, child);
  }
  return child;
}

export class RequestMetrics {
  private readonly latency: Histogram<'route' | 'method' | 'status' | 'code'>;
  private readonly children = new Map<string, { observe: (value: number) => void }>();

  constructor(registry: Registry) {
    this.latency = new Histogram({
      name: 'wagerlink_http_request_duration_seconds',
      help: 'HTTP requests by route, status and problem code (OK for 2xx); the _count series counts them.',
      labelNames: ['route', 'method', 'status', 'code'],
      buckets: LATENCY_BUCKETS_S,
      registers: [registry],
    });
  }

  observe(route: string, method: string, status: number, code: string, seconds: number): void {
    childFor(this.children, `${route} ${method} ${status} ${code}`, () => this.latency.labels({ route, method, status: String(status), code })).observe(
      seconds,
    );
  }
}

/**
 * Counts every request of `app` once answered, and serves `registry` at GET
 * /metrics to a caller with `Authorization: Bearer` and one of `tokens` (a
 * scraper's metrics token, the admin token); with none, to nobody. The
 * series are the business's own (turnover per currency, request rates), not
 * for whoever reaches the port; Prometheus sends a bearer token from its
 * scrape config (`authorization: { credentials_file: ... }`), so the port
 * stays one.
 */
export function exposeMetrics(app: FastifyInstance, requests: RequestMetrics, registry: Registry, tokens: readonly string[]): void {
  const accepted = tokens.filter((token) => token.length > 0).map((token) => Buffer.from(token));
  // A callback hook rather than an async one: it runs on every request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const code = reply.problemCode ?? (reply.statusCode < 400 ? 'OK' : 'OTHER');
    requests.observe(route, request.method, reply.statusCode, code, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', async (request, reply) => {
    if (!tokenAccepted(accepted, bearerToken(request.headers.authorization))) {
      return sendProblem(reply, 'INVALID_TOKEN', 'Authorization must be Bearer with the metrics token or the admin token');
    }
    const text = await registry.metrics();
    return reply.code(200).header('content-type', registry.contentType).header('cache-control', 'no-store').send(text);
  });
}
