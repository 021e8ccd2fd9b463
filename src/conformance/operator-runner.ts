/**
 * The operator's side of the conformance runner (runner.ts runs the cases):
 * before any case is judged, every player of the fixtures opens a session;
 * each case then starts from the players it asks for, made with the
 * fixtures, a session opened for each and each balance brought to what the
 * case says, and its steps are judged with the balance each player holds.
 * Only the protocol module and the clients are used: the kit sees an
 * operator the way a provider does.
 */
import { randomUUID } from 'node:crypto';
import type { Attempt } from '../clients/http-call.js';
import { raw, type RawJsonNumber } from '../protocol/json.js';
import { amountMinorMax, CURRENCIES, decimalFromString, formatMinor, toMinor } from '../protocol/money.js';
import { SIGNATURE_HEADER, sign } from '../protocol/signing.js';
import type {
  BalanceExpectation,
  Body,
  CallStep,
  CaseContext,
  Expect,
  Headers,
  OperatorCase,
  OperatorEndpoint,
  ParallelAnswer,
  ParallelStep,
  ProbeStep,
  Role,
  SessionStep,
  Step,
  WaitStep,
} from './case-model.js';
import { judge, type BalanceWanted } from './check.js';
import { ACCESS_TOKEN_PLACEHOLDER } from './curl.js';
import { fixtureSource, type FixtureSource, type FixturesSetting } from './fixtures.js';
import type { KitRequest, KitSend } from './kit-send.js';
import { toBytes } from './shown.js';
import { OPERATOR_CASES } from './operator/index.js';
import type { RunReport } from './report.js';
import { couldNotReach } from '../clients/unreachable.js';
import { CaseSkipped, runConformance, RunNotStarted, StepFailed, type CaseRun, type CommonRunOptions, type KitSide } from './runner.js';

export interface OperatorTarget {
  /** The operator endpoint's base URL, e.g. https://wallet.example/provider-x. */
  endpoint: string;
  /** The integration's shared secret (docs/protocol.md §2.2). */
  secret: string;
  /** An access token the operator accepts (docs/protocol.md §2.4). */
  accessToken: string;
}

/** How the kit waits: injected so that a test can run the expiry cases against an operator on a clock of its own. */
export interface KitWorld {
  sleep(ms: number): Promise<void>;
}

const REAL_KIT_WORLD: KitWorld = { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * An expiry case waits this much past a life the fixtures give (ms): two
 * machines' clocks and an operator's own timers are that close on any test
 * system, and a second costs little beside the lives waited for.
 */
const CLOCK_MARGIN_MS = 1_000;

export interface RunOptions extends CommonRunOptions {
  target: OperatorTarget;
  fixtures: FixturesSetting;
  /** Default: every operator case. */
  cases?: readonly OperatorCase[];
  world?: KitWorld;
}

export async function runOperatorConformance(options: RunOptions): Promise<RunReport> {
  return runConformance('operator', { ...options, cases: options.cases ?? OPERATOR_CASES }, async (wire) => {
    const endpoint = options.target.endpoint.replace(/\/+$/, '');
    const source = fixtureSource(options.fixtures, endpoint, wire.http, options.send);
    return new OperatorKit({ ...options.target, endpoint }, source, options.world ?? REAL_KIT_WORLD, wire.send);
  });
}

/**
 * The fixtures could not give what the check before any case needs: a
 * finding in words, unless the endpoint did not answer at all (the run
 * could not start).
 */
function notSupplied(supply: { reason: string; unreachable?: boolean }, what: string): StepFailed | RunNotStarted {
  if (supply.unreachable === true) return new RunNotStarted(`${what}: ${supply.reason}: check the endpoint`);
  return new StepFailed([`${what}: ${supply.reason}`], []);
}

/** The fixtures could not give what a case needs: it is skipped, saying why. */
function shortfall(reason: string): CaseSkipped {
  return new CaseSkipped(`fixtures: ${reason}`);
}

interface SessionRecord {
  sessionId: string;
  key: string;
  role: Role;
  game: string;
}

/** A request of a case, with the endpoint it went to (a kept request is judged as that endpoint's when it is sent again). */
interface Kept extends KitRequest {
  endpoint: OperatorEndpoint;
}

class OperatorKit implements KitSide<OperatorCase> {
  readonly setUpSay = 'set up the players, their sessions and balances';

  constructor(
    readonly target: OperatorTarget,
    readonly source: FixtureSource,
    readonly world: KitWorld,
    readonly send: KitSend,
  ) {}

  get endpoint(): string {
    return this.target.endpoint;
  }

  get fixtures(): string {
    return this.source.label;
  }

  /** Headers of a well-formed signed call of these bytes. */
  headersFor(bytes: Uint8Array): Headers {
    return { 'content-type': 'application/json', authorization: `Bearer ${this.target.accessToken}`, [SIGNATURE_HEADER]: sign(this.target.secret, bytes) };
  }

  readonly preflightSay = 'open a session for each player of the fixtures, with a fresh launch key, in the currency the fixtures give it';

  /**
   * The fixtures must work before any case is judged: each player of a
   * fixtures file (or one the back office makes) opens a session with a
   * fresh key, answered as docs/protocol.md §5 says, in the currency the
   * fixtures say. Otherwise nothing a case says would be about the
   * operator's rules. What is wrong is said in words, player by player.
   */
  async preflight(): Promise<void> {
    const players = this.source.players.length > 0 ? this.source.players : [await this.madePlayer()];
    for (const player of players) {
      const key = await this.source.launchKey(player.playerId, this.source.games[0]!);
      if (!key.ok) throw notSupplied(key, `the fixtures give no launch key for ${player.playerId}`);
      const bytes = toBytes({ key: key.value, game: this.source.games[0] });
      const url = `${this.target.endpoint}/authenticate`;
      const request: KitRequest = { method: 'POST', url, headers: this.headersFor(bytes), bytes };
      const attempt = await this.send(request);
      if (attempt.kind === 'failed') throw new RunNotStarted(`${couldNotReach(url, attempt.detail, attempt.detail)}: check the endpoint`);
      // A file's currencies are checked known when it is read (fixtures.ts); the back office's player is EUR.
      const decimals = CURRENCIES.decimals(player.currency)!;
      const judged = judge(attempt, { endpoint: '/authenticate', status: 200, balance: { kind: 'none' }, player: { ...player, decimals } });
      if (judged.problems.length === 0 && judged.balance === undefined)
        judged.problems.push(`/authenticate answered no balance in ${player.currency} (docs/protocol.md §5)`);
      if (judged.problems.length > 0) {
        const problems = judged.problems.map((problem) => `${player.playerId}: ${problem}`);
        throw new StepFailed(
          [...problems, 'every case opens sessions as this one: check the endpoint, --secret, --token and the fixtures'],
          [request],
          attempt,
        );
      }
    }
  }

  private async madePlayer(): Promise<{ playerId: string; currency: string }> {
    const made = await this.source.player('EUR', 0n, new Set());
    if (!made.ok) throw notSupplied(made, 'the fixtures give no player to start with');
    return made.value;
  }

  unmetNeed(each: OperatorCase): string | undefined {
    for (const need of each.needs) {
      if (need === 'clock' && this.source.expiry === undefined) {
        return 'needs a clock: the fixtures give no expiry (how long launch keys and idle sessions live) to wait for';
      }
      if (need === 'second-game' && this.source.games.length < 2) return 'needs a second game: the fixtures name one game';
      if (need === 'block' && !this.source.canBlock) return 'needs to block a player: the fixtures give no blockCommand (or use --admin-token)';
    }
    for (const [role, player] of Object.entries(each.players)) {
      if (CURRENCIES.decimals(player.currency) === undefined) return `the ${role} player's currency ${player.currency} is not one the kit knows`;
    }
    return undefined;
  }

  caseRun(each: OperatorCase): OperatorCaseRun {
    return new OperatorCaseRun(this, each);
  }

  /** The request with the access token in its headers replaced by ${ACCESS_TOKEN}, so that a report can travel without the credential. */
  shown(request: KitRequest): KitRequest {
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, value.replaceAll(this.target.accessToken, ACCESS_TOKEN_PLACEHOLDER)]),
    );
    return { ...request, headers };
  }
}

/** One case's state: its ids, players, sessions, kept requests and the balances the kit knows. */
class OperatorCaseRun implements CaseContext, CaseRun<Step> {
  private readonly ids = new Map<string, string>();
  private readonly players = new Map<Role, { playerId: string; currency: string; decimals: number }>();
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly keys = new Map<string, string>();
  private readonly known = new Map<Role, bigint>();
  private readonly kept = new Map<string, Kept>();
  private readonly blocked = new Set<Role>();

  constructor(
    private readonly kit: OperatorKit,
    private readonly each: OperatorCase,
  ) {}

  // ------------------------------------------------------------ context

  id(name: string): string {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = randomUUID();
      this.ids.set(name, id);
    }
    return id;
  }

  fresh(): string {
    return randomUUID();
  }

  player(role: Role = 'main') {
    const player = this.players.get(role);
    if (player === undefined) throw new Error(`case ${this.each.id} has no ${role} player`);
    return player;
  }

  session(name = 'main'): SessionRecord {
    const session = this.sessions.get(name);
    if (session === undefined) throw new Error(`case ${this.each.id} opened no session ${name}`);
    return session;
  }

  key(name: string): string {
    const key = this.keys.get(name);
    if (key === undefined) throw new Error(`case ${this.each.id} minted no key ${name}`);
    return key;
  }

  game(which: 'main' | 'other' = 'main'): string {
    const game = this.kit.source.games[which === 'main' ? 0 : 1];
    if (game === undefined) throw new Error(`the fixtures name no ${which} game`);
    return game;
  }

  balance(role: Role = 'main'): bigint {
    const balance = this.known.get(role);
    if (balance === undefined) throw new Error(`case ${this.each.id}: the ${role} player's balance is not known yet`);
    return balance;
  }

  amount(minor: bigint, role: Role = 'main'): RawJsonNumber {
    return raw(formatMinor(minor, this.player(role).decimals));
  }

  minor(text: string, role: Role = 'main'): bigint {
    return minorOf(text, this.player(role).decimals);
  }

  sign(body: string | Uint8Array): string {
    return sign(this.kit.target.secret, body);
  }

  // ------------------------------------------------------------ set-up

  async setUp(): Promise<void> {
    const taken = new Set<string>();
    for (const role of ['main', 'other'] as const) {
      const need = this.each.players[role];
      if (need === undefined) continue;
      const decimals = CURRENCIES.decimals(need.currency)!;
      const target = minorOf(need.balance, decimals);
      const player = await this.kit.source.player(need.currency, target, taken);
      if (!player.ok) throw shortfall(player.reason);
      taken.add(player.value.playerId);
      this.players.set(role, { playerId: player.value.playerId, currency: need.currency, decimals });
      await this.open(role, role, 'main', player.value.balanceSet ? target : undefined);
      if (!player.value.balanceSet) await this.bringBalance(role, target);
    }
  }

  /** Mints a key and, if `open`, opens a session with it; `balance` is what the answer must show (else it is learnt from it). */
  private async open(name: string, role: Role, which: 'main' | 'other', balance: bigint | undefined, open = true): Promise<void> {
    const game = this.game(which);
    const key = await this.kit.source.launchKey(this.player(role).playerId, game);
    if (!key.ok) throw shortfall(key.reason);
    this.keys.set(name, key.value);
    if (!open) return;
    const request = this.request('/authenticate', { key: key.value, game });
    const attempt = await this.kit.send(request);
    const wanted: BalanceWanted = balance === undefined ? { kind: 'none' } : { kind: 'value', minor: balance, required: true, exactText: false };
    const judgement = judge(attempt, { endpoint: '/authenticate', status: 200, balance: wanted, player: this.player(role) });
    if (judgement.problems.length === 0 && [...this.sessions.values()].some((each) => each.sessionId.toLowerCase() === judgement.sessionId?.toLowerCase())) {
      judgement.problems.push(`a new key answered the session ${judgement.sessionId}, which another key opened (docs/protocol.md §5.1)`);
    }
    if (judgement.problems.length > 0) throw new StepFailed(judgement.problems, [request], attempt);
    const shown = balance ?? judgement.balance;
    if (shown === undefined) throw new StepFailed([`the session's balance is not an amount of ${this.player(role).currency}`], [request], attempt);
    if (!this.known.has(role)) this.known.set(role, shown);
    this.sessions.set(name, { sessionId: judgement.sessionId!, key: key.value, role, game });
  }

  /** A player of the fixtures file holds what earlier runs left: a win or a bet of the difference, in rounds of their own, brings it to `target`. */
  private async bringBalance(role: Role, target: bigint): Promise<void> {
    const { decimals } = this.player(role);
    const largest = amountMinorMax(decimals);
    for (;;) {
      const difference = target - this.balance(role);
      if (difference === 0n) return;
      const step = difference > 0n ? (difference > largest ? largest : difference) : -difference > largest ? -largest : difference;
      const body = {
        sessionId: this.session(role).sessionId,
        playerId: this.player(role).playerId,
        transactions: [{ id: randomUUID(), type: step > 0n ? 'win' : 'bet', amount: this.amount(step > 0n ? step : -step, role) }],
        game: this.session(role).game,
        round: { id: randomUUID(), finished: true },
      };
      await this.call({
        kind: 'call',
        say: "bring the balance to the case's",
        endpoint: '/transaction',
        session: role,
        body: () => body,
        expect: { status: 200, balance: (() => step) as BalanceExpectation },
      });
    }
  }

  /** A player left blocked by a case that ended early is unblocked, so that the next case finds it as it should. */
  async cleanUp(): Promise<void> {
    for (const role of this.blocked) await this.kit.source.setBlocked(this.player(role).playerId, false);
    this.blocked.clear();
  }

  // ------------------------------------------------------------ steps

  async step(step: Step): Promise<void> {
    switch (step.kind) {
      case 'call':
        return this.call(step);
      case 'parallel':
        return this.parallel(step);
      case 'probe':
        return this.probe(step);
      case 'session':
        return this.sessionStep(step);
      case 'wait':
        return this.wait(step);
      case 'block':
      case 'unblock': {
        const role = step.player ?? 'main';
        const done = await this.kit.source.setBlocked(this.player(role).playerId, step.kind === 'block');
        if (!done.ok) throw shortfall(done.reason);
        if (step.kind === 'block') this.blocked.add(role);
        else this.blocked.delete(role);
        return;
      }
    }
  }

  private request(endpoint: OperatorEndpoint, body: Body, headers?: CallStep['headers']): Kept {
    const bytes = toBytes(body);
    const defaults = this.kit.headersFor(bytes);
    return {
      endpoint,
      method: 'POST',
      url: `${this.kit.target.endpoint}${endpoint}`,
      headers: headers === undefined ? defaults : headers(defaults, bytes, this),
      bytes,
    };
  }

  private wanted(expect: Expect, role: Role): BalanceWanted {
    const known = this.balance(role);
    const given = expect.balance;
    const exactText = expect.exactText === true;
    if (given === 'any') return { kind: 'none' };
    if (given === 'absent') return { kind: 'absent' };
    // Unstated, the balance is the one held: a 200 must show it, a refusal may (docs/protocol.md §3.1).
    if (given === undefined) return { kind: 'value', minor: known, required: expect.status === 200, exactText };
    const change = given === 'unchanged' ? 0n : typeof given === 'function' ? given(this) : signedMinorOf(given, this.player(role).decimals);
    return { kind: 'value', minor: known + change, required: true, exactText };
  }

  private async call(step: CallStep): Promise<void> {
    let request: Kept;
    if (step.resend !== undefined) {
      const kept = this.kept.get(step.resend);
      if (kept === undefined) throw new Error(`case ${this.each.id} kept no request ${step.resend}`);
      request = step.tamper === undefined ? kept : { ...kept, bytes: step.tamper(kept.bytes) };
    } else {
      if (step.body === undefined) throw new Error(`case ${this.each.id}: a call step needs a body or resend`);
      request = this.request(step.endpoint, step.body(this), step.headers);
    }
    if (step.keep !== undefined) this.kept.set(step.keep, request);
    const role = step.expect.player ?? (this.sessions.has(step.session ?? 'main') ? this.session(step.session).role : 'main');
    const wanted = this.wanted(step.expect, role);
    const attempt = await this.kit.send(request);
    const judgement = judge(attempt, {
      endpoint: request.endpoint,
      status: step.expect.status,
      ...(step.expect.code === undefined ? {} : { code: step.expect.code }),
      balance: wanted,
      player: this.player(role),
    });
    const session = step.expect.session;
    if (judgement.problems.length === 0 && session !== undefined) {
      const answered = judgement.sessionId?.toLowerCase();
      if (session === 'new') {
        if ([...this.sessions.values()].some((each) => each.sessionId.toLowerCase() === answered))
          judgement.problems.push(`expected a new session, got ${answered}, which the case opened before`);
      } else if (answered !== this.session(session.sameAs).sessionId.toLowerCase()) {
        judgement.problems.push(`expected the session ${this.session(session.sameAs).sessionId} again, got ${answered} (docs/protocol.md §5.1)`);
      }
    }
    if (judgement.problems.length > 0) throw new StepFailed(judgement.problems, [request], attempt);
    if (wanted.kind === 'value') this.known.set(role, wanted.minor);
  }

  private async parallel(step: ParallelStep): Promise<void> {
    const requests = step.requests(this).map((each) => this.request(each.endpoint, each.body));
    const attempts = await Promise.all(requests.map((request) => this.kit.send(request)));
    const { decimals } = this.player('main');
    const answers: ParallelAnswer[] = attempts.map((attempt) => answerOf(attempt, decimals));
    const failedToAnswer = attempts.flatMap((attempt, i) => (attempt.kind === 'failed' ? [`request ${i + 1}: no answer: ${attempt.detail}`] : []));
    const problems = failedToAnswer.length > 0 ? failedToAnswer : step.check(answers, this);
    if (problems.length > 0) throw new StepFailed(problems, requests, undefined, true);
    if (step.change !== undefined) this.known.set('main', this.balance('main') + step.change(answers, this));
  }

  private async probe(step: ProbeStep): Promise<void> {
    const role = step.player ?? 'main';
    const change = step.change ?? 'unchanged';
    let body: Record<string, unknown>;
    if (step.fresh === true) {
      const name = `probe-${randomUUID()}`;
      await this.open(name, role, 'main', undefined, false);
      body = { key: this.key(name), game: this.game() };
    } else {
      body = { key: this.session(role).key, game: this.session(role).game };
    }
    // A blocked player's reload is refused, and the refusal still shows the balance (docs/protocol.md §5.1, §3.1).
    const expect: Expect = this.blocked.has(role)
      ? { status: 403, code: 'PLAYER_BLOCKED', balance: change, player: role }
      : { status: 200, balance: change, player: role, ...(step.fresh === true ? { session: 'new' as const } : {}) };
    await this.call({ kind: 'call', say: step.say, endpoint: '/authenticate', body: () => body, expect });
  }

  private async sessionStep(step: SessionStep): Promise<void> {
    const role = step.player ?? 'main';
    await this.open(step.name, role, step.game ?? 'main', step.open === false ? undefined : this.balance(role), step.open !== false);
  }

  private async wait(step: WaitStep): Promise<void> {
    const expiry = this.kit.source.expiry!;
    const lifeMs = (step.until === 'launch-key-expired' ? expiry.launchKeySeconds : expiry.sessionIdleSeconds) * 1000;
    await this.kit.world.sleep(step.fraction === undefined ? lifeMs + CLOCK_MARGIN_MS : Math.round(lifeMs * step.fraction));
  }
}

/** A parallel answer: its status, its problem's code, its balance in minor units. */
function answerOf(attempt: Attempt, decimals: number): ParallelAnswer {
  if (attempt.kind === 'failed') return { status: 0, code: undefined, balance: undefined };
  const judged = judge(attempt, {
    endpoint: '/transaction',
    status: attempt.status,
    balance: { kind: 'none' },
    player: { playerId: '', currency: '', decimals },
  });
  let code: string | undefined;
  try {
    const value = JSON.parse(attempt.text) as { code?: unknown };
    code = typeof value.code === 'string' ? value.code : undefined;
  } catch {
    code = undefined;
  }
  return { status: attempt.status, code, balance: judged.balance };
}

/** Minor units of a decimal text, for amounts the kit itself writes (a case's bug if it does not fit the currency). */
function minorOf(text: string, decimals: number): bigint {
  const decimal = decimalFromString(text);
  const minor = decimal === undefined ? undefined : toMinor(decimal, decimals);
  if (minor === undefined) throw new Error(`${text} is not an amount with ${decimals} decimals`);
  return minor;
}

/** "+2.5", "-1", "0.3": a signed change in minor units. */
function signedMinorOf(text: string, decimals: number): bigint {
  const negative = text.startsWith('-');
  const minor = minorOf(text.replace(/^[+-]/, ''), decimals);
  return negative ? -minor : minor;
}
