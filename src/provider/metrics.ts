/**
 * Prometheus metrics of one provider: its HTTP requests
 * (src/http/request-metrics.ts) and its outbox (src/dispatch/metrics.ts).
 * Each app has its own registry, so several in one process (tests, a
 * sandbox) do not share counters.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import { DispatchMetrics } from '../dispatch/metrics.js';
import type { Outbox } from '../dispatch/outbox.js';
import { RequestMetrics } from '../http/request-metrics.js';

export interface ProviderMetricsOptions {
  /** The outbox whose backlog the scrape reads. */
  outbox: Pick<Outbox, 'backlog'>;
  /** Epoch ms. */
  clock: () => number;
  /** The process's own series (CPU, memory, event loop): a server's, not an app built in a test. Default false. */
  processMetrics?: boolean;
}

export class ProviderMetrics {
  readonly registry = new Registry();
  readonly requests: RequestMetrics;
  readonly dispatch: DispatchMetrics;

  constructor(options: ProviderMetricsOptions) {
    if (options.processMetrics ?? false) collectDefaultMetrics({ register: this.registry, prefix: 'wagerlink_' });
    this.requests = new RequestMetrics(this.registry);
    this.dispatch = new DispatchMetrics(this.registry, options.outbox, options.clock);
  }
}
