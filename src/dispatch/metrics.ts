/**
 * Prometheus series of an outbox and its dispatcher, in the registry of the
 * server that runs them: what waits (items pending and parked per operator,
 * and the age of the oldest pending one, read from the outbox when scraped,
 * so that they are the whole outbox's and not one node's), what each
 * attempt got (per operator, HTTP status, problem code and decision), and
 * where an item's time went: the operator's answer, against the whole
 * delivery from the item's enqueueing to its final answer (the difference
 * is the provider's own: its commit and sync, the claim, back-off).
 *
 * Alerts a studio would set: parked items above zero (a person must
 * resolve them); the oldest pending item older than a few minutes (an
 * operator down); refusals rising for one operator and code; an
 * operator's answers slowing.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Delivery } from './dispatcher.js';
import type { BacklogEntry, Outbox } from './outbox.js';

export const ANSWER_METRIC = 'wagerlink_dispatch_answer_seconds';
export const DELIVERY_METRIC = 'wagerlink_dispatch_delivery_seconds';

/** An operator answers in milliseconds when well, and an attempt gives up at 5 s (docs/protocol.md §9). */
export const ANSWER_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** A round is delivered while its player waits (tens of milliseconds), or after an outage (minutes to the 72 h horizon). */
export const DELIVERY_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3_600, 86_400];

/** The child of `key`, made once by `make`. */
function childOf<T>(children: Map<string, T>, key: string, make: () => T): T {
  let child = children.get(key);
  if (child === undefined) children.set(key, (child = make()));
  return child;
}

export class DispatchMetrics {
  private readonly attempts: Counter<'operator' | 'kind' | 'status' | 'code' | 'decision'>;
  /** Labelled children by label values: prom-client hashes a label object on every call otherwise. */
  private readonly attemptChildren = new Map<string, { inc: () => void }>();
  private readonly answers: Histogram<'operator'>;
  private readonly answerChildren = new Map<string, { observe: (seconds: number) => void }>();
  private readonly deliveries: Histogram<'operator' | 'kind'>;
  private readonly deliveryChildren = new Map<string, { observe: (seconds: number) => void }>();

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
    this.answers = new Histogram({
      name: ANSWER_METRIC,
      help: "How long each attempt of this process waited for the operator's answer (or for its failure), by operator.",
      labelNames: ['operator'],
      buckets: ANSWER_BUCKETS_S,
      registers: [registry],
    });
    this.deliveries = new Histogram({
      name: DELIVERY_METRIC,
      help: 'How long each item this process delivered took from its enqueueing to its final answer (sent or refused), by operator and item kind.',
      labelNames: ['operator', 'kind'],
      buckets: DELIVERY_BUCKETS_S,
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

  /** Counts one attempt's outcome and times it (Dispatcher.onDelivery). */
  observe({ item, attempt, decision, applied, answerMs, at }: Delivery): void {
    this.countAttempt(item, attempt, decision);
    childOf(this.answerChildren, item.operatorId, () => this.answers.labels({ operator: item.operatorId })).observe(answerMs / 1000);
    if (applied && (decision.kind === 'sent' || decision.kind === 'refused')) {
      const child = childOf(this.deliveryChildren, `${item.operatorId} ${item.kind}`, () =>
        this.deliveries.labels({ operator: item.operatorId, kind: item.kind }),
      );
      child.observe(Math.max(0, at - item.createdAt) / 1000);
    }
  }

  private countAttempt(item: Delivery['item'], attempt: Delivery['attempt'], decision: Delivery['decision']): void {
    const status = attempt.kind === 'failed' ? 'none' : String(attempt.status);
    const code = attempt.kind === 'answered' ? (attempt.code ?? (attempt.status === 200 ? 'OK' : 'none')) : 'none';
    const key = `${item.operatorId} ${item.kind} ${status} ${code} ${decision.kind}`;
    childOf(this.attemptChildren, key, () => this.attempts.labels({ operator: item.operatorId, kind: item.kind, status, code, decision: decision.kind })).inc();
  }
}
