/**
 * Prometheus metrics of one operator app. Each app has its own registry, so
 * several apps in one process (tests, a sandbox) do not share counters.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { childFor, RequestMetrics } from '../http/request-metrics.js';
import type { Booked } from '../stores/store.js';

/** The store's commit times; the bench reads it too (bench/commit-times.ts). */
export const COMMIT_METRIC = 'wagerlink_store_commit_seconds';
/** Commit buckets (seconds): a healthy disk syncs in under a millisecond; a stalled one, for hundreds. */
export const COMMIT_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class OperatorMetrics {
  readonly registry = new Registry();
  /** HTTP requests by route, status and problem code (src/http/request-metrics.ts). */
  readonly requests: RequestMetrics;
  private readonly transfers: Counter<'kind' | 'currency' | 'integration'>;
  private readonly amounts: Counter<'kind' | 'currency' | 'integration'>;
  private readonly commits: Histogram;

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'wagerlink_' });
    this.requests = new RequestMetrics(this.registry);
    this.transfers = new Counter({
      name: 'wagerlink_ledger_transfers_total',
      help: 'Transfers booked by this process, by kind, currency and the integration whose call booked them, empty for the back office (replays are not counted).',
      labelNames: ['kind', 'currency', 'integration'],
      registers: [this.registry],
    });
    this.commits = new Histogram({
      name: COMMIT_METRIC,
      help: 'Batches committed by the store, by the time from COMMIT until they were durable (every answer of a batch waits for it); empty for a store that does not time its commits (PostgreSQL).',
      buckets: COMMIT_BUCKETS_S,
      registers: [this.registry],
    });
    this.amounts = new Counter({
      name: 'wagerlink_ledger_amount_total',
      help: 'Sum of amounts booked by this process, in major units of the currency, by kind, currency and integration (for dashboards; the ledger is exact).',
      labelNames: ['kind', 'currency', 'integration'],
      registers: [this.registry],
    });
  }

  /** Labelled children by label values: prom-client hashes a label object on every call otherwise. */
  private readonly bookedChildren = new Map<string, { transfers: { inc: () => void }; amounts: { inc: (value: number) => void } }>();

  observeCommit(seconds: number): void {
    this.commits.observe(seconds);
  }

  /**
   * What a call booked, counted under the integration whose call it was (docs/protocol.md §2.6); a back-office
   * adjustment, which no studio makes, under the empty one, which Prometheus reads as no label.
   */
  observeBooked(currency: string, booked: readonly Booked[], integration = ''): void {
    for (const { kind, amount } of booked) {
      const children = childFor(this.bookedChildren, `${kind} ${currency} ${integration}`, () => ({
        transfers: this.transfers.labels({ kind, currency, integration }),
        amounts: this.amounts.labels({ kind, currency, integration }),
      }));
      children.transfers.inc();
      children.amounts.inc(Number(amount));
    }
  }
}
