/**
 * The loop that delivers an outbox: it claims due items, sends each through
 * an injected `send`, and applies what the retry schedule decides about the
 * answer (retry-schedule.ts). It knows requests, not games.
 *
 * Its owner starts and stops it; building it starts nothing. Sends run side
 * by side and are never awaited one after another: the loop claims again as
 * soon as a send ends or the idle wait is over, so a slow operator holds
 * only its own items (at most `operatorInFlightMax` across all nodes, a
 * limit the claim keeps) while the others go on. A node holds at most
 * `inFlightMax` sends at once.
 *
 * A claim is a short lease (LEASE_MS) that a heartbeat renews every
 * HEARTBEAT_MS while its send is in flight, so that a node that dies
 * leaves its items to the others within seconds. A node with a lasting
 * name (its host and port) takes back, when it starts, what its earlier
 * runs had claimed: a node killed and restarted alone resends at once.
 *
 * The clock, the sleep and the jitter's randomness are injected.
 */
import assert from 'node:assert/strict';
import type { Dispatcher as UndiciDispatcher } from 'undici';
import {
  ANSWER_MS_MAX,
  defaultDispatcher,
  exactNumberText,
  NO_RETRY,
  parseAnswer,
  REAL_CLIENT_WORLD,
  signedCall,
  type ClientWorld,
  type Transport,
} from '../clients/http-call.js';
import { CLAIM_BATCH_MAX, HEARTBEAT_MS, LEASE_MS, LEASE_OWNER_SEPARATOR, OPERATOR_IN_FLIGHT_MAX, type Answer, type Outbox, type OutboxItem } from './outbox.js';
import { decide, DISPATCH_SCHEDULE, type Decision, type DispatchSchedule, type SendAttempt } from './retry-schedule.js';

/** Sends one item once; never retries (the schedule is the outbox's). A rejection counts as a failed attempt. */
export type Send = (item: OutboxItem) => Promise<SendAttempt>;

export interface DispatcherLimits {
  /** Items one claim asks for (see CLAIM_BATCH_MAX). */
  batchSizeMax: number;
  /**
   * Sends of this node at once. 64 keeps a node's sockets and memory
   * small while several operators are served side by side.
   */
  inFlightMax: number;
  /** See OPERATOR_IN_FLIGHT_MAX. */
  operatorInFlightMax: number;
  /** See LEASE_MS. */
  leaseMs: number;
  /** See HEARTBEAT_MS; shorter than `leaseMs`. Left out with a `leaseMs` of the caller's, a third of it. */
  heartbeatMs: number;
  /**
   * The wait before claiming again when nothing was due (ms). 250 ms adds
   * little to a retry's own back-off, which starts at 0.5 s, and costs one
   * small query four times a second.
   */
  idleMs: number;
  /** See OPERATOR_PROBE_MS. */
  probeMs: number;
}

/**
 * While an operator is failing (its last answer on this node was none, or
 * one to resend), one of its waiting items is sent at least this often
 * (ms), whatever that item's own back-off, and the first final answer
 * makes the operator's other waiting items due at once (Outbox.hasten).
 * The back-off alone would leave a round of a long outage waiting up to
 * 60 s after the operator is back; the probe notices the return within
 * about a second, at the price of one request a second from each node to
 * an operator that is down. A Retry-After is still honoured: an item it
 * holds back is neither probed nor hastened.
 */
export const OPERATOR_PROBE_MS = 1_000;

/**
 * While claiming fails (the database is down, stuck or out of connections),
 * the loop waits twice as long after each failure, from the idle wait up to
 * this (ms). An outage costs a few claims a minute instead of four a second,
 * and the loop notices the database's return within 5 s; a send that ends or
 * a poke (a write went through, so the database is back) claims at once.
 */
export const CLAIM_BACKOFF_MS_MAX = 5_000;

export const DISPATCHER_LIMITS: DispatcherLimits = {
  batchSizeMax: CLAIM_BATCH_MAX,
  inFlightMax: 64,
  operatorInFlightMax: OPERATOR_IN_FLIGHT_MAX,
  leaseMs: LEASE_MS,
  heartbeatMs: HEARTBEAT_MS,
  idleMs: 250,
  probeMs: OPERATOR_PROBE_MS,
};

export interface DispatcherLog {
  error(details: object, message: string): void;
  /** One line per item parked or refused: each asks a person to look (parked) or is a round the player lost nothing on (refused). */
  warn(details: object, message: string): void;
  /** The end of an outage of storage, whose start was logged as an error: one line each. */
  info?(details: object, message: string): void;
}

export interface DispatcherOptions {
  outbox: Outbox;
  /** This node's name in leases (leaseOwner): unique among the nodes sharing the outbox. */
  node: string;
  /**
   * The part of `node` a restart of this node keeps (leaseOwner's
   * `lastingName`): once started, it gives up the leases its earlier runs
   * held, whose sends died with them, and claims their items at once. Left
   * out, such items wait for their leases to expire.
   */
  lastingName?: string;
  send: Send;
  schedule?: DispatchSchedule;
  limits?: Partial<DispatcherLimits>;
  world?: ClientWorld;
  log?: DispatcherLog;
}

/** What was decided about an item after one attempt, for an owner that watches (tests, metrics). */
export interface Delivery {
  item: OutboxItem;
  attempt: SendAttempt;
  decision: Decision;
  /** False when the outcome did not apply: another node's final answer came first, or the lease was lost. */
  applied: boolean;
  /** How long the attempt waited for its answer, or for its failure (ms, the world's clock). */
  answerMs: number;
  /** When the answer came (epoch ms, the world's clock): less the item's createdAt, how long its delivery took. */
  at: number;
}

function answerOf(attempt: SendAttempt): Answer {
  switch (attempt.kind) {
    case 'answered':
      return {
        status: attempt.status,
        ...(attempt.code === undefined ? {} : { code: attempt.code }),
        detail: attempt.detail ?? `HTTP ${attempt.status}`,
        ...(attempt.balance === undefined ? {} : { balance: attempt.balance }),
      };
    case 'invalid-answer':
      return { status: attempt.status, detail: `invalid answer: ${attempt.detail}` };
    case 'failed':
      return { detail: attempt.detail };
  }
}

export class Dispatcher {
  private readonly limits: DispatcherLimits;
  private readonly schedule: DispatchSchedule;
  private readonly world: ClientWorld;
  private readonly inFlight = new Set<Promise<void>>();
  /** The items of the sends in flight, whose leases the heartbeat renews. */
  private readonly sending = new Set<number>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** The renewal under way, if any: the next beat skips while one is. */
  private renewing: Promise<unknown> | undefined;
  /** Renewals that failed in a row (storage away): logged once, at the first. */
  private renewFailures = 0;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** A send ended, or the owner poked, while the loop was claiming: the next idle wait is skipped, since an item may have become due. */
  private woken = false;
  /** Claims that failed in a row (storage away): the loop backs off, and logs the outage once. */
  private claimFailures = 0;
  private readonly watchers = new Set<(delivery: Delivery) => void>();
  /** Operators whose last answer on this node was none or one to resend, with when each was last probed (OPERATOR_PROBE_MS). */
  private readonly failing = new Map<string, number>();

  constructor(private readonly options: DispatcherOptions) {
    // A lease of the caller's own is renewed three times within it, as the default is.
    const heartbeatMs = options.limits?.heartbeatMs ?? (options.limits?.leaseMs === undefined ? HEARTBEAT_MS : Math.floor(options.limits.leaseMs / 3));
    this.limits = { ...DISPATCHER_LIMITS, ...options.limits, heartbeatMs };
    this.schedule = options.schedule ?? DISPATCH_SCHEDULE;
    this.world = options.world ?? REAL_CLIENT_WORLD;
    const { batchSizeMax, inFlightMax, operatorInFlightMax, leaseMs, idleMs, probeMs } = this.limits;
    assert.ok(
      batchSizeMax >= 1 && inFlightMax >= 1 && operatorInFlightMax >= 1 && leaseMs >= 1 && idleMs >= 1 && probeMs >= 1 && heartbeatMs >= 1,
      'dispatcher limits are positive',
    );
    assert.ok(heartbeatMs < leaseMs, 'a lease is renewed before it expires');
    assert.ok(
      options.lastingName === undefined || options.node.startsWith(`${options.lastingName}${LEASE_OWNER_SEPARATOR}`),
      "a node's lease owner starts with its lasting name",
    );
  }

  /** Calls `watch` after each attempt's outcome is applied; answers a function that stops it. */
  onDelivery(watch: (delivery: Delivery) => void): () => void {
    this.watchers.add(watch);
    return () => this.watchers.delete(watch);
  }

  start(): void {
    assert.ok(!this.running && this.loopDone === undefined, 'a dispatcher is started once at a time');
    this.running = true;
    // On the host's timers, whatever a test's clock says; the leases it writes are read on the world's clock.
    // Unreferenced: the node's server keeps the process alive, not its heartbeat.
    this.heartbeat = setInterval(() => void this.renewLeases(), this.limits.heartbeatMs).unref();
    this.loopDone = this.loop();
  }

  /**
   * One beat of the heartbeat: the leases of this node's sends in flight
   * run LEASE_MS from the world's now. Skipped while the last beat's
   * renewal is still under way; a failure is logged once per outage (the
   * items may then be sent again by another node once their leases run
   * out, which is safe). Answers how many leases were renewed.
   */
  async renewLeases(): Promise<number> {
    if (this.renewing !== undefined || this.sending.size === 0) return 0;
    const { outbox, node, log } = this.options;
    const renewal = outbox.renew([...this.sending], node, this.world.clock() + this.limits.leaseMs);
    this.renewing = renewal;
    try {
      const renewed = await renewal;
      if (this.renewFailures > 0) log?.info?.({ failedRenewals: this.renewFailures }, 'dispatch: renewing leases works again');
      this.renewFailures = 0;
      return renewed;
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error;
      if (this.renewFailures === 0)
        log?.error({ err: error }, 'dispatch: renewing leases failed; another node may send the items in flight again once their leases run out');
      this.renewFailures += 1;
      return 0;
    } finally {
      this.renewing = undefined;
    }
  }

  /**
   * Claims again at once instead of after the idle wait: the owner has just
   * made an item due (a round enqueued and durable). A poke while the loop
   * is claiming makes it skip its next idle wait.
   */
  poke(): void {
    if (this.wake === undefined) this.woken = true;
    else this.wake();
  }

  /** Claims nothing more and resolves once the sends in flight have ended and their outcomes are applied. */
  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.loopDone;
    this.loopDone = undefined;
    // The heartbeat beats on until the last send's outcome is applied: a send that outlasts a lease keeps its claim.
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    await this.renewing;
  }

  /**
   * A restarted node's first work: the leases its earlier runs held are
   * given up, so that their items go now rather than once the leases run
   * out. A failure leaves them to run out.
   */
  private async releaseEarlierRuns(lastingName: string): Promise<void> {
    const { outbox, node, log } = this.options;
    try {
      const released = await outbox.releaseEarlierRuns(lastingName, node);
      if (released > 0) log?.info?.({ released, lastingName }, `dispatch: ${released} items an earlier run of this node had claimed are claimed again now`);
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error;
      log?.error({ err: error }, "dispatch: giving up an earlier run's leases failed; its items go once the leases run out");
    }
  }

  private async loop(): Promise<void> {
    const { outbox, node, log, lastingName } = this.options;
    if (lastingName !== undefined) await this.releaseEarlierRuns(lastingName);
    while (this.running) {
      // While claiming fails, a probe would fail as well: the operators' items keep their back-off until storage answers.
      if (this.claimFailures === 0) await this.probeFailing();
      const room = this.limits.inFlightMax - this.inFlight.size;
      let claimed: OutboxItem[] = [];
      if (room > 0) {
        try {
          claimed = await outbox.claim(this.world.clock(), node, {
            batchSizeMax: Math.min(this.limits.batchSizeMax, room),
            operatorInFlightMax: this.limits.operatorInFlightMax,
            leaseMs: this.limits.leaseMs,
          });
          if (this.claimFailures > 0) {
            log?.info?.({ failedClaims: this.claimFailures }, 'dispatch: claiming works again; delivery resumes');
            this.claimFailures = 0;
          }
        } catch (error) {
          // Storage may come back: the loop backs off and claims again. A broken invariant (an AssertionError) stops the process.
          if (error instanceof assert.AssertionError) throw error;
          // One line per outage, not one per attempt: the end of it is logged too.
          if (this.claimFailures === 0) log?.error({ err: error }, 'dispatch: claiming failed; backing off and trying again until storage answers');
          this.claimFailures += 1;
          await this.idle(Math.min(this.limits.idleMs * 2 ** Math.min(this.claimFailures, 30), CLAIM_BACKOFF_MS_MAX));
          continue;
        }
      }
      for (const item of claimed) this.launch(item);
      // A full batch may leave more due items: claim again at once. Otherwise wait for the idle time or a send's end.
      if (claimed.length === 0 || claimed.length < Math.min(this.limits.batchSizeMax, room)) await this.idle();
    }
  }

  /** Makes one waiting item due for each failing operator not probed within probeMs (OPERATOR_PROBE_MS). */
  private async probeFailing(): Promise<void> {
    const now = this.world.clock();
    for (const [operatorId, probedAt] of this.failing) {
      if (now - probedAt < this.limits.probeMs) continue;
      this.failing.set(operatorId, now);
      try {
        await this.options.outbox.hasten(operatorId, now, 1);
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
        this.options.log?.error({ err: error, operatorId }, 'dispatch: probing a failing operator failed; its items keep their back-off');
      }
    }
  }

  private idle(waitMs = this.limits.idleMs): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      void this.world.sleep(waitMs).then(resolve);
    }).finally(() => {
      this.wake = undefined;
    });
  }

  private launch(item: OutboxItem): void {
    const run = this.deliver(item)
      .catch((error: unknown) => {
        if (error instanceof assert.AssertionError) throw error;
        // The outcome was not stored: the lease runs out and the item is sent again, which is safe (§3.3).
        this.options.log?.error({ err: error, item: item.id }, 'dispatch: applying an outcome failed; the item is sent again after its lease');
      })
      .finally(() => {
        this.inFlight.delete(run);
        this.sending.delete(item.id);
        this.poke();
      });
    this.inFlight.add(run);
    this.sending.add(item.id);
  }

  private async deliver(item: OutboxItem): Promise<void> {
    const { outbox, node } = this.options;
    let attempt: SendAttempt;
    const sentAt = this.world.clock();
    try {
      attempt = await this.options.send(item);
    } catch (error) {
      attempt = { kind: 'failed', detail: `send failed: ${(error as Error).message}` };
    }
    const now = this.world.clock();
    const decision = decide(this.schedule, item, attempt, now, this.world.random);
    const answer = answerOf(attempt);
    let applied: boolean;
    switch (decision.kind) {
      case 'sent':
        applied = await outbox.sent(item.id, node, answer, now);
        break;
      case 'refused':
        applied = (await outbox.refused(item.id, node, answer, now)).applied;
        break;
      case 'retry':
        applied = await outbox.retryLater(item.id, node, decision.at, answer, decision.notBefore);
        break;
      case 'parked':
        applied = await outbox.park(item.id, node, answer, now);
        break;
    }
    if (decision.kind === 'sent' || decision.kind === 'refused') {
      // A final answer: the operator is up. What waited on its back-off goes now (within the operator's in-flight limit).
      if (this.failing.delete(item.operatorId)) {
        await outbox.hasten(item.operatorId, now);
        this.poke();
      }
    } else if (!this.failing.has(item.operatorId)) {
      this.failing.set(item.operatorId, now);
    }
    if (applied && (decision.kind === 'parked' || decision.kind === 'refused')) {
      const { id, operatorId, orderingKey, kind, attempts } = item;
      this.options.log?.warn(
        { item: id, operatorId, orderingKey, kind, attempts, answer },
        decision.kind === 'parked'
          ? `dispatch: item ${id} (${kind} ${orderingKey}) parked after ${attempts} attempts without a final answer from ${operatorId}: resolve it by hand`
          : `dispatch: item ${id} (${kind} ${orderingKey}) refused by ${operatorId}: ${answer.code ?? answer.status ?? ''} ${answer.detail}`,
      );
    }
    for (const watch of this.watchers) watch({ item, attempt, decision, applied, answerMs: now - sentAt, at: now });
  }
}

/** Where an operator's endpoint is and how to call it. */
export interface OperatorEndpoint {
  /** Base URL, e.g. https://wallet.example.com/api. */
  url: string;
  secret: string;
  accessToken: string;
}

export interface HttpSendOptions {
  /** The operator's endpoint by its id; undefined for an operator no longer configured (the attempt fails and is retried). */
  endpoint: (operatorId: string) => OperatorEndpoint | undefined;
  /** The wait for one answer (ms); default ANSWER_MS_MAX (docs/protocol.md §9). */
  answerMsMax?: number;
  /** A dispatcher of the caller's (a mock in tests); the caller closes it. */
  dispatcher?: UndiciDispatcher;
  /** The clock an HTTP date in `Retry-After` is read against; default REAL_CLIENT_WORLD. No attempt sleeps. */
  world?: ClientWorld;
}

/**
 * The real `send`: one signed call (src/clients/http-call.ts) with NO_RETRY,
 * so that the schedule is the outbox's and not the client's, sending the
 * item's stored bytes. A 200 is parsed here, once, and its balance handed
 * on as exact decimal text for the enqueuer's final hook (a round's or a
 * payout's balance after): both endpoints the outbox calls, /transaction
 * and /payout, answer one (docs/protocol.md §6, §7). A 200 that is JSON but
 * has no exact balance is still sent, with no balance: the operator booked
 * it. Answers `close` for the dispatcher it made.
 */
export function httpSend(options: HttpSendOptions): { send: Send; close: () => Promise<void> } {
  const answerMsMax = options.answerMsMax ?? ANSWER_MS_MAX;
  const dispatcher = options.dispatcher ?? defaultDispatcher(answerMsMax);
  const transport: Transport = { dispatcher, answerMsMax, world: options.world ?? REAL_CLIENT_WORLD, retry: NO_RETRY };
  const send: Send = async (item) => {
    const endpoint = options.endpoint(item.operatorId);
    if (endpoint === undefined) return { kind: 'failed', detail: `operator ${item.operatorId} has no endpoint configured` };
    const outcome = await signedCall(
      transport,
      `${endpoint.url.replace(/\/+$/, '')}${item.path}`,
      item.body.toString('utf8'),
      endpoint.secret,
      { authorization: `Bearer ${endpoint.accessToken}` },
      (text) => {
        const parsed = parseAnswer(text);
        return parsed.ok ? { ok: true, value: exactNumberText(parsed.value.balance, parsed.inexact) } : parsed;
      },
      NO_RETRY,
    );
    if (outcome.ok) return { kind: 'answered', status: 200, ...(outcome.value === undefined ? {} : { balance: outcome.value }) };
    if (outcome.kind === 'invalid-answer') return { kind: 'invalid-answer', status: outcome.status, detail: outcome.detail };
    const status = outcome.status;
    if (status === undefined) return { kind: 'failed', detail: outcome.detail };
    // An answer that is not 200: final (refused, with the balance a problem carried) or to be resent (with its Retry-After).
    return {
      kind: 'answered',
      status,
      ...(outcome.code === undefined ? {} : { code: outcome.code }),
      detail: outcome.detail,
      ...(outcome.kind === 'refused' && outcome.balance !== undefined ? { balance: outcome.balance } : {}),
      ...(outcome.kind === 'unavailable' && outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
    };
  };
  return { send, close: async () => (options.dispatcher === undefined ? dispatcher.close() : undefined) };
}
