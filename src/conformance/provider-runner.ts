/**
 * Runs the provider's conformance cases (provider/) against a provider
 * endpoint over HTTP, one case after another, as the operator's runner
 * (runner.ts) does for an operator: each step's request is signed as the
 * target's operator signs, sent byte for byte, and its answer judged; the
 * first step that fails ends the case, and its request is kept with the
 * curl command that sends it again. The report is the same value, so the
 * same reporters write it. Only the protocol module, the clients' transport
 * and undici are used: the kit sees a provider the way an operator does.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { ANSWER_MS_MAX, defaultDispatcher, postOnce, REAL_CLIENT_WORLD, type Attempt } from '../clients/http-call.js';
import { CURRENCIES } from '../protocol/money.js';
import { SIGNATURE_HEADER, sign } from '../protocol/signing.js';
import type { Headers } from './case-model.js';
import { describeAnswer, judgeShape } from './check.js';
import { curlCommand, shellQuote } from './curl.js';
import type { KitRequest, KitSend } from './kit-send.js';
import { shownAnswer, shownRequest, toBytes } from './shown.js';
import { PROVIDER_CASES } from './provider/index.js';
import type { KeptAnswer, OpenStep, ProviderCallStep, ProviderCase, ProviderContext, ProviderStep } from './provider/model.js';
import { runReport, type CaseFailure, type CaseResult, type RunReport } from './report.js';
import { RunNotStarted, selectCases, type RunEvent } from './runner.js';

export interface ProviderTarget {
  /** The provider endpoint's base URL: its /generate-launch-url and /game-bets are checked. */
  endpoint: string;
  /** The operator's secret at the provider (docs/protocol.md §2.2). */
  secret: string;
  /** The next secret during a rotation, if the provider holds one for the operator: the rotation cases need it. */
  nextSecret?: string;
  /** The operator's id at the provider, and a wallet id the provider issued to it. */
  operatorId: string;
  walletId: string;
  /** A game the provider offers the operator. */
  game: string;
  /** Currencies the provider offers the operator for the game; default EUR. */
  currencies?: readonly string[];
  /**
   * The kit calls from an address the provider's whitelist does not admit
   * for the operator: the whitelist's refusal is checked, and the other
   * cases of /generate-launch-url are skipped (a run from an admitted
   * address checks them).
   */
  outsideWhitelist?: boolean;
}

/** The currency of a run that names none: the protocol's examples are in it, and every provider of the examples offers it. */
export const DEFAULT_CURRENCIES: readonly string[] = ['EUR'];
/** A launch key the kit sends is this many random bytes, hex: as unguessable as an operator's (docs/protocol.md §5.1). */
const LAUNCH_KEY_BYTES = 16;
/**
 * A secret shorter than this is not looked for in a launch URL (characters):
 * it would turn up in any URL by chance, and the check would say nothing.
 */
const SECRET_SOUGHT_LENGTH_MIN = 8;
/** Redirects followed when a launch URL is opened: a browser follows more, a game page needs few. */
const REDIRECTS_MAX = 5;

export interface ProviderRunOptions {
  target: ProviderTarget;
  /** Default: over HTTP, with the protocol's wait for an answer. */
  send?: KitSend;
  /** Default: every provider case. */
  cases?: readonly ProviderCase[];
  /** Areas or case ids; default all. */
  only?: readonly string[];
  /** Stop after the first case that fails; the rest are reported as not run. */
  bail?: boolean;
  /** The wait for one answer (ms); default the protocol's (docs/protocol.md §9). */
  answerMsMax?: number;
  onEvent?: (event: RunEvent) => void;
}

/** The target's currencies, checked: the kit must know each one's decimals to judge its amounts. */
export function targetCurrencies(target: ProviderTarget): string[] {
  const currencies = [...new Set(target.currencies ?? DEFAULT_CURRENCIES)];
  if (currencies.length === 0) throw new RunNotStarted('name at least one currency the provider offers');
  const unknown = currencies.filter((code) => CURRENCIES.decimals(code) === undefined);
  if (unknown.length > 0) throw new RunNotStarted(`the kit knows no decimals for ${unknown.join(', ')} (docs/protocol.md §4.2)`);
  return currencies;
}

export async function runProviderConformance(options: ProviderRunOptions): Promise<RunReport> {
  const cases = selectCases(options.cases ?? PROVIDER_CASES, options.only);
  const answerMsMax = options.answerMsMax ?? ANSWER_MS_MAX;
  const dispatcher = defaultDispatcher(answerMsMax);
  const target = { ...options.target, endpoint: options.target.endpoint.replace(/\/+$/, ''), currencies: targetCurrencies(options.target) };
  const startedAt = new Date();
  const started = performance.now();
  const emit = options.onEvent ?? (() => undefined);
  try {
    const kit = new ProviderKit(target, dispatcher, answerMsMax, options.send);
    await kit.preflight();
    const label = `operator ${target.operatorId}, wallet ${target.walletId}, game ${target.game}, ${target.currencies.join(', ')}`;
    emit({ type: 'start', total: cases.length, endpoint: target.endpoint, fixtures: label });
    const results: CaseResult[] = [];
    let stopped = false;
    for (const [index, each] of cases.entries()) {
      let result: CaseResult;
      if (stopped) {
        result = skipped(each, 'not run: --bail stopped the run at the first failure');
      } else {
        emit({ type: 'case-start', index, total: cases.length, id: each.id, title: each.title });
        result = await kit.run(each);
        stopped = options.bail === true && result.outcome === 'failed';
      }
      results.push(result);
      emit({ type: 'case-end', index, total: cases.length, result });
    }
    const report = runReport({
      side: 'provider',
      endpoint: target.endpoint,
      fixtures: label,
      only: options.only ?? [],
      startedAt,
      durationMs: performance.now() - started,
      results,
    });
    emit({ type: 'end', report });
    return report;
  } finally {
    await dispatcher.close();
  }
}

function resultOf(each: ProviderCase, durationMs: number): Omit<CaseResult, 'outcome'> {
  return { id: each.id, side: 'provider', area: each.area, title: each.title, clause: each.clause, needs: [...each.needs], durationMs: Math.round(durationMs) };
}

function skipped(each: ProviderCase, reason: string): CaseResult {
  return { ...resultOf(each, 0), outcome: 'skipped', reason };
}

type Sent = KitRequest;

class StepFailed {
  constructor(
    readonly problems: string[],
    readonly sent: Sent | undefined,
    readonly attempt?: Attempt,
  ) {}
}

type Target = ProviderTarget & { currencies: string[] };

class ProviderKit {
  constructor(
    readonly target: Target,
    readonly dispatcher: Dispatcher,
    readonly answerMsMax: number,
    private readonly sendOver?: KitSend,
  ) {}

  /** Whether requests go over HTTP (redirects of a launch URL can then be followed). */
  get overHttp(): boolean {
    return this.sendOver === undefined;
  }

  /** Headers of a well-formed signed call of these bytes (docs/protocol.md §8). */
  headersFor(bytes: Uint8Array): Headers {
    return { 'content-type': 'application/json', [SIGNATURE_HEADER]: sign(this.target.secret, bytes) };
  }

  async send(sent: Sent): Promise<Attempt> {
    if (this.sendOver !== undefined) return this.sendOver(sent);
    if (sent.method === 'POST') return postOnce({ dispatcher: this.dispatcher, answerMsMax: this.answerMsMax, world: REAL_CLIENT_WORLD }, sent.url, { ...sent.headers }, sent.bytes);
    try {
      const response = await request(sent.url, { method: 'GET', headers: sent.headers, dispatcher: this.dispatcher, signal: AbortSignal.timeout(this.answerMsMax) });
      const text = await response.body.text();
      return { kind: 'answer', status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text, retryAfterMs: undefined };
    } catch (error) {
      const err = error as Error & { code?: string };
      return { kind: 'failed', detail: `${err.code ?? err.name}: ${err.message}` };
    }
  }

  /**
   * The target must work before any case is judged: a well-formed
   * /game-bets of the game in the target's currencies is answered 200.
   * Otherwise nothing a case says would be about the provider's rules.
   */
  async preflight(): Promise<void> {
    const bytes = toBytes({ walletId: this.target.walletId, operatorId: this.target.operatorId, games: [this.target.game], currencies: this.target.currencies });
    const url = `${this.target.endpoint}/game-bets`;
    const attempt = await this.send({ method: 'POST', url, headers: this.headersFor(bytes), bytes });
    if (attempt.kind === 'failed' || attempt.status !== 200) {
      throw new RunNotStarted(`POST ${url} of ${this.target.game} in ${this.target.currencies.join(', ')} answered ${describeAnswer(attempt)}: check the endpoint, --secret, --operator-id, --wallet-id, --game and --currency`);
    }
  }

  async run(each: ProviderCase): Promise<CaseResult> {
    const started = performance.now();
    const missing = this.unmetNeed(each);
    if (missing !== undefined) return skipped(each, missing);
    const run = new ProviderCaseRun(this, each);
    let stepIndex = 0;
    let say = '';
    try {
      for (const [index, step] of each.steps.entries()) {
        stepIndex = index + 1;
        say = step.say;
        await run.step(step);
      }
      return { ...resultOf(each, performance.now() - started), outcome: 'passed' };
    } catch (error) {
      const failed = error instanceof StepFailed ? error : new StepFailed([`the case could not run: ${(error as Error).stack ?? String(error)}`], undefined);
      return { ...resultOf(each, performance.now() - started), outcome: 'failed', failure: failure(stepIndex, say, failed) };
    }
  }

  private unmetNeed(each: ProviderCase): string | undefined {
    const outside = this.target.outsideWhitelist === true;
    if (each.needs.includes('outside-whitelist') !== outside) {
      if (!outside) return 'needs a call from an address the provider does not whitelist: run the kit from one with --outside-whitelist';
      if (each.steps.some((step) => step.kind === 'call' && step.endpoint === '/generate-launch-url')) {
        return 'calls /generate-launch-url, which refuses this address: run the kit from a whitelisted address to check it';
      }
    }
    for (const need of each.needs) {
      if (need === 'next-secret' && this.target.nextSecret === undefined) return 'needs the next secret of a rotation: give --next-secret';
      if (need === 'currencies-2' && this.target.currencies.length < 2) return 'needs a second currency: give --currency with two or more';
      if (need === 'currencies-3' && this.target.currencies.length < 3) return 'needs a third currency: give --currency with three or more';
    }
    return undefined;
  }
}

class ProviderCaseRun implements ProviderContext {
  private readonly kept = new Map<string, KeptAnswer>();

  constructor(
    private readonly kit: ProviderKit,
    private readonly each: ProviderCase,
  ) {}

  operatorId(): string {
    return this.kit.target.operatorId;
  }

  walletId(): string {
    return this.kit.target.walletId;
  }

  game(): string {
    return this.kit.target.game;
  }

  currencies(): readonly string[] {
    return this.kit.target.currencies;
  }

  decimals(currency: string): number {
    const decimals = CURRENCIES.decimals(currency);
    if (decimals === undefined) throw new Error(`case ${this.each.id}: the kit knows no decimals for ${currency}`);
    return decimals;
  }

  launchKey(): string {
    return randomBytes(LAUNCH_KEY_BYTES).toString('hex');
  }

  sign(body: string | Uint8Array, secret: 'current' | 'next' = 'current'): string {
    const key = secret === 'current' ? this.kit.target.secret : this.kit.target.nextSecret;
    if (key === undefined) throw new Error(`case ${this.each.id} signs with a next secret the run does not have`);
    return sign(key, body);
  }

  holdsSecret(text: string): boolean {
    const secrets = [this.kit.target.secret, this.kit.target.nextSecret].filter((each): each is string => each !== undefined && each.length >= SECRET_SOUGHT_LENGTH_MIN);
    return secrets.some((secret) => text.includes(secret) || text.includes(encodeURIComponent(secret)));
  }

  answer(name: string): KeptAnswer {
    const answer = this.kept.get(name);
    if (answer === undefined) throw new Error(`case ${this.each.id} kept no answer ${name}`);
    return answer;
  }

  async step(step: ProviderStep): Promise<void> {
    return step.kind === 'call' ? this.call(step) : this.open(step);
  }

  private async call(step: ProviderCallStep): Promise<void> {
    const method = step.method ?? 'POST';
    const bytes = method === 'GET' ? new Uint8Array() : toBytes(step.body(this));
    const defaults = method === 'GET' ? {} : this.kit.headersFor(bytes);
    const sent: Sent = { method, url: `${this.kit.target.endpoint}${step.endpoint}`, headers: step.headers === undefined ? defaults : step.headers(defaults, bytes, this), bytes };
    const attempt = await this.kit.send(sent);
    const shape = judgeShape(attempt, step.expect.status, step.expect.code);
    if (shape.problems.length > 0 || attempt.kind === 'failed') throw new StepFailed(shape.problems, sent, attempt);
    const answer: KeptAnswer = { status: attempt.status, contentType: attempt.contentType, text: attempt.text, body: shape.body };
    const problems = step.expect.check?.(answer, this) ?? [];
    if (problems.length > 0) throw new StepFailed(problems, sent, attempt);
    if (step.keep !== undefined) this.kept.set(step.keep, answer);
  }

  /** Opens a launch URL as a browser does: GET, without the fragment (never sent), following redirects. */
  private async open(step: OpenStep): Promise<void> {
    const url = this.answer(step.answer).body?.url;
    if (typeof url !== 'string') throw new Error(`case ${this.each.id}: the answer ${step.answer} holds no url`);
    let current = url;
    for (let redirects = 0; ; redirects++) {
      const sent: Sent = { method: 'GET', url: current.split('#')[0]!, headers: { accept: 'text/html' }, bytes: new Uint8Array() };
      const attempt = await this.kit.send(sent);
      if (attempt.kind === 'answer' && attempt.status >= 300 && attempt.status < 400 && redirects < REDIRECTS_MAX && this.kit.overHttp) {
        const location = await this.location(sent);
        if (location !== undefined) {
          current = new URL(location, sent.url).toString();
          continue;
        }
      }
      if (attempt.kind === 'failed') throw new StepFailed([`the launch URL does not open: ${attempt.detail} (docs/protocol.md §8.1)`], sent, attempt);
      const problems: string[] = [];
      if (attempt.status !== 200) problems.push(`GET of the launch URL answered ${attempt.status}, not 200 (docs/protocol.md §8.1: the URL opens the game)`);
      else if (!/^text\/html(;|$)/i.test(attempt.contentType)) problems.push(`the launch URL answered Content-Type "${attempt.contentType}", not a page (text/html)`);
      if (problems.length > 0) throw new StepFailed(problems, sent, attempt);
      return;
    }
  }

  /** The Location of a redirect (a second request: the kit's GET keeps no headers). */
  private async location(sent: Sent): Promise<string | undefined> {
    try {
      const response = await request(sent.url, { method: 'GET', headers: sent.headers, dispatcher: this.kit.dispatcher, signal: AbortSignal.timeout(this.kit.answerMsMax) });
      await response.body.dump();
      const location = response.headers.location;
      return Array.isArray(location) ? location[0] : location;
    } catch {
      return undefined;
    }
  }
}

function failure(step: number, say: string, failed: StepFailed): CaseFailure {
  return {
    step,
    say,
    problems: failed.problems,
    requests: failed.sent === undefined ? [] : [shownRequest(failed.sent)],
    ...(failed.attempt === undefined ? {} : { answer: shownAnswer(failed.attempt) }),
    curl: failed.sent === undefined ? '' : failed.sent.method === 'GET' ? getCurl(failed.sent) : curlCommand(failed.sent),
  };
}

function getCurl(sent: Sent): string {
  return [`curl -sS -i -L ${shellQuote(sent.url)}`, ...Object.entries(sent.headers).map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`)].join(' \\\n  ');
}
