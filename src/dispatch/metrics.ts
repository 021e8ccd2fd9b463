/**
 * Prometheus series of an outbox and its dispatcher, in the registry of the
 * server that runs them: what waits (items pending and parked per operator,
 * and the age of the oldest pending one, read from the outbox when scraped,
 * so that they are the whole outbox's and not one node's) and what each
 * attempt got (per operator, HTTP status, problem code and decision).
 *
 * Alerts a studio would set: parked items above zero (a person must
 * resolve them); the oldest pending item older than a few minutes (an
 * operator down); refusals rising for one operator and code.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Delivery } from './dispatcher.js';
import type { BacklogEntry, Outbox } from './outbox.js';

export class DispatchMetrics {
  private readonly attempts: Counter<'operator' | 'kind' | 'status' | 'code' | 'decision'>;
  /** Labelled children by label values: prom-client hashes a label object on every call otherwise. */
  private readonly attemptChildren = new Map<string, { inc: () => void }>();

  /** The backlog being read for the scrape in progress: the registry collects its gauges side by side, and one read serves both. */
  private reading: Promise<BacklogEntry[]> | undefined;

  /** `clock`: epoch ms, for the age of the oldest pending item. */
  constructor(registry: Registry, outbox: Pick<Outbox, 'backlog'>, clock: () => number) {
    const backlog = (): Promise<BacklogEntry[]> =>
      (this.reading ??= outbox.backlog().finally(() => {
        this.reading = undefined;
      }));
    this.attempts = new Counter({
      name: 'wagerlink_dispatch_attempts_total',
      help: "Attempts to deliver outbox items by this process, by operator, item kind, the operator's HTTP status (none: no answer) and problem code (OK for 200, none without one), and what was decided (sent, refused, retry, parked).",
      labelNames: ['operator', 'kind', 'status', 'code', 'decision'],
      registers: [registry],
    });
    new Gauge({
      name: 'wagerlink_outbox_items',
      help: 'Outbox items waiting, by operator and status: pending (to be sent) and parked (past their horizon, waiting for a person).',
      labelNames: ['operator', 'status'],
      registers: [registry],
      async collect() {
        const entries = await backlog();
        this.reset();
        for (const entry of entries) this.set({ operator: entry.operatorId, status: entry.status }, entry.count);
      },
    });
    new Gauge({
      name: 'wagerlink_outbox_oldest_pending_seconds',
      help: 'Age of the oldest pending outbox item, by operator (seconds since it was enqueued).',
      labelNames: ['operator'],
      registers: [registry],
      async collect() {
        const entries = await backlog();
        const now = clock();
        this.reset();
        for (const entry of entries) {
          if (entry.status === 'pending') this.set({ operator: entry.operatorId }, Math.max(0, now - entry.oldestCreatedAt) / 1000);
        }
      },
    });
  }

  /** Counts one attempt's outcome (Dispatcher.onDelivery). */
  observe({ item, attempt, decision }: Delivery): void {
    const status = attempt.kind === 'failed' ? 'none' : String(attempt.status);
    const code = attempt.kind === 'answered' ? (attempt.code ?? (attempt.status === 200 ? 'OK' : 'none')) : 'none';
    const key = `${item.operatorId} ${item.kind} ${status} ${code} ${decision.kind}`;
    let child = this.attemptChildren.get(key);
    if (child === undefined) {
      child = this.attempts.labels({ operator: item.operatorId, kind: item.kind, status, code, decision: decision.kind });
      this.attemptChildren.set(key, child);
    }
    child.inc();
  }
}
