/**
 * The conformance kit's one runner, for both sides: it selects the cases
 * (--only), checks before any case that the endpoint and the fixtures give
 * what every case needs (a failure there is reported like a case's, and no
 * case runs), runs them one after another (a concurrency case sends its own
 * requests at once) through the transport, each case's steps in order, the
 * first step that fails ending the case with its requests kept and the curl
 * command that sends them again, skips with its reason a case the run
 * cannot check, stops at the first failure under --bail, and returns the
 * report every reporter writes. What differs per side comes from a
 * `KitSide`: the operator's (operator-runner.ts) makes the players, sessions
 * and balances a case starts from with the fixtures and judges balances;
 * the provider's (provider-runner.ts) signs as the target's operator and
 * opens launch URLs. Only the protocol module, the clients' transport and
 * undici are used: the kit sees each side the way the other side does.
 */
import { performance } from 'node:perf_hooks';
import { request as undiciRequest } from 'undici';
import { ANSWER_MS_MAX, defaultDispatcher, postOnce, REAL_CLIENT_WORLD, type Attempt } from '../clients/http-call.js';
import type { Side } from './case-model.js';
import { curlCommand, getCurl, parallelCurl } from './curl.js';
import type { KitTransport } from './fixtures.js';
import type { KitRequest, KitSend } from './kit-send.js';
import { shownAnswer, shownRequest } from './shown.js';
import { PREFLIGHT_FAILED_REASON, runReport, type CaseFailure, type CaseResult, type Preflight, type RunReport } from './report.js';

export type RunEvent =
  | { type: 'start'; side: Side; total: number; endpoint: string; fixtures: string }
  /** The check before any case failed: no case runs, each is reported skipped. */
  | { type: 'preflight-failed'; failure: CaseFailure }
  | { type: 'case-start'; index: number; total: number; id: string; title: string }
  | { type: 'case-end'; index: number; total: number; result: CaseResult }
  | { type: 'end'; report: RunReport };

/** The options of a run on either side; each side adds its target (and the operator's its fixtures and clock). */
export interface CommonRunOptions {
  /**
   * Default: over HTTP, with the protocol's wait for an answer. A test
   * suite passes one that hands each request (the cases' and, on the
   * operator's side, the back office's) to an app in-process, so that the
   * same cases are its rule tests (docs/testing.md: one scenario, two
   * runners).
   */
  send?: KitSend;
  /** Areas or case ids; default all. */
  only?: readonly string[];
  /** Stop after the first case that fails; the rest are reported as not run. */
  bail?: boolean;
  /** The wait for one answer (ms); default the protocol's (docs/protocol.md §9). */
  answerMsMax?: number;
  onEvent?: (event: RunEvent) => void;
}

/**
 * The run cannot start, and nothing is judged (exit 2): --only names
 * nothing, the fixtures' settings cannot work, or the endpoint does not
 * answer at all. An endpoint that answers wrongly before any case is a
 * finding instead (the preflight's StepFailed).
 */
export class RunNotStarted extends Error {
  override name = 'RunNotStarted';
}

/** A step failed: what was wrong, and the requests (several for a parallel step) and answer to show. */
export class StepFailed {
  constructor(
    readonly problems: string[],
    readonly requests: readonly KitRequest[],
    readonly attempt?: Attempt,
    readonly parallel = false,
  ) {}
}

/** The run cannot give what a case needs, found only once it runs (a fixture that fails): it is skipped, saying why. */
export class CaseSkipped {
  constructor(readonly reason: string) {}
}

/** What the runner needs of a case, on either side. */
export interface KitCase {
  id: string;
  side: Side;
  area: string;
  title: string;
  clause: string;
  needs: readonly string[];
  steps: readonly { say: string }[];
}

/** One case's run on its side: the state its steps share, and their context. */
export interface CaseRun<S> {
  /** Brings the case to what it starts from; a failure here is reported as step 0. */
  setUp?(): Promise<void>;
  /** Runs one step; throws StepFailed when its answer is wrong, CaseSkipped when the run cannot give what it needs. */
  step(step: S): Promise<void>;
  /** Undoes what the case changed and must not outlive it (a blocked player), however it ended. */
  cleanUp?(): Promise<void>;
}

/** What differs per side, once the side is open against its endpoint and its fixtures work. */
export interface KitSide<C extends KitCase> {
  endpoint: string;
  /** What the run starts from, as the report names it: the fixtures, or the target's ids. */
  fixtures: string;
  /** What a failure of the set-up (step 0) says it was doing, when its cases have one. */
  setUpSay?: string;
  /** What the check before any case does, as a report says it. */
  preflightSay: string;
  /**
   * The check before any case: throws StepFailed when the endpoint's answers
   * (or the fixtures) cannot give what every case needs, which the report
   * shows as a finding, and RunNotStarted when the endpoint does not answer.
   */
  preflight(): Promise<void>;
  /** Why the run cannot check this case (the fixtures or the target lack what it needs), or nothing. */
  unmetNeed(each: C): string | undefined;
  caseRun(each: C): CaseRun<C['steps'][number]>;
  /** A request as a report and its curl command show it (the operator's access token out of it); default as sent. */
  shown?(request: KitRequest): KitRequest;
}

/** The transport a side opens with: the clients' HTTP settings (for its fixtures' own calls) and how a request travels. */
export interface KitWire {
  http: KitTransport;
  send: KitSend;
  /**
   * The Location a redirect answers to this GET (a second request: `send`
   * keeps no headers); set over HTTP only, as a transport a test gives
   * follows no redirect.
   */
  location?: (request: KitRequest) => Promise<string | undefined>;
}

/** The cases `only` names, by area or id, in their order; every entry must name something. */
export function selectCases<C extends { area: string; id: string }>(cases: readonly C[], only: readonly string[] = []): C[] {
  if (only.length === 0) return [...cases];
  const unknown = only.filter((entry) => !cases.some((each) => each.area === entry || each.id === entry));
  if (unknown.length > 0) {
    const areas = [...new Set(cases.map((each) => each.area))];
    throw new RunNotStarted(`--only ${unknown.join(', ')}: no such area or case; the areas are ${areas.join(', ')}`);
  }
  return cases.filter((each) => only.includes(each.area) || only.includes(each.id));
}

/**
 * Runs a side's cases: `open` makes the side ready over the wire (it throws
 * RunNotStarted when its settings cannot work), its check before any case
 * runs, then every selected case in turn, and the report counts their
 * outcomes. A check before any case that fails is reported as such, every
 * case skipped as not run.
 */
export async function runConformance<C extends KitCase>(
  side: Side,
  options: CommonRunOptions & { cases: readonly C[] },
  open: (wire: KitWire) => Promise<KitSide<C>>,
): Promise<RunReport> {
  const cases = selectCases(options.cases, options.only);
  const answerMsMax = options.answerMsMax ?? ANSWER_MS_MAX;
  const dispatcher = defaultDispatcher(answerMsMax);
  const startedAt = new Date();
  const started = performance.now();
  const emit = options.onEvent ?? (() => undefined);
  try {
    const kit = await open(wireOf({ dispatcher, answerMsMax, world: REAL_CLIENT_WORLD }, options.send));
    emit({ type: 'start', side, total: cases.length, endpoint: kit.endpoint, fixtures: kit.fixtures });
    const preflight = await preflightOf(kit);
    let results: CaseResult[];
    if (preflight.failure === undefined) results = await runCases(kit, cases, options.bail === true, emit);
    else {
      emit({ type: 'preflight-failed', failure: preflight.failure });
      results = cases.map((each) => skipped(each, 0, PREFLIGHT_FAILED_REASON));
    }
    const report = runReport({
      side,
      endpoint: kit.endpoint,
      fixtures: kit.fixtures,
      only: options.only ?? [],
      startedAt,
      durationMs: performance.now() - started,
      preflight,
      results,
    });
    emit({ type: 'end', report });
    return report;
  } finally {
    await dispatcher.close();
  }
}

/** The check before any case, as the report holds it. */
async function preflightOf<C extends KitCase>(kit: KitSide<C>): Promise<Preflight> {
  try {
    await kit.preflight();
    return { outcome: 'passed' };
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
    return { outcome: 'failed', failure: failure(0, kit.preflightSay, error, (request) => kit.shown?.(request) ?? request) };
  }
}

/** Every case in turn; after a failure under --bail, the rest are reported as not run. */
async function runCases<C extends KitCase>(kit: KitSide<C>, cases: readonly C[], bail: boolean, emit: (event: RunEvent) => void): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  let stopped = false;
  for (const [index, each] of cases.entries()) {
    let result: CaseResult;
    if (stopped) {
      result = skipped(each, 0, 'not run: --bail stopped the run at the first failure');
    } else {
      emit({ type: 'case-start', index, total: cases.length, id: each.id, title: each.title });
      result = await runCase(kit, each);
      stopped = bail && result.outcome === 'failed';
    }
    results.push(result);
    emit({ type: 'case-end', index, total: cases.length, result });
  }
  return results;
}

async function runCase<C extends KitCase>(kit: KitSide<C>, each: C): Promise<CaseResult> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const missing = kit.unmetNeed(each);
  if (missing !== undefined) return skipped(each, 0, missing);
  const run = kit.caseRun(each);
  let stepIndex = 0;
  let say = kit.setUpSay ?? '';
  try {
    await run.setUp?.();
    for (const [index, step] of each.steps.entries()) {
      stepIndex = index + 1;
      say = step.say;
      await run.step(step);
    }
    return { ...resultOf(each, elapsed()), outcome: 'passed' };
  } catch (error) {
    if (error instanceof CaseSkipped) return skipped(each, elapsed(), error.reason);
    const failed = error instanceof StepFailed ? error : new StepFailed([`the case could not run: ${(error as Error).stack ?? String(error)}`], []);
    return { ...resultOf(each, elapsed()), outcome: 'failed', failure: failure(stepIndex, say, failed, (request) => kit.shown?.(request) ?? request) };
  } finally {
    await run.cleanUp?.();
  }
}

function resultOf(each: KitCase, durationMs: number): Omit<CaseResult, 'outcome'> {
  return { id: each.id, side: each.side, area: each.area, title: each.title, clause: each.clause, needs: [...each.needs], durationMs: Math.round(durationMs) };
}

function skipped(each: KitCase, durationMs: number, reason: string): CaseResult {
  return { ...resultOf(each, durationMs), outcome: 'skipped', reason };
}

/** A failure as the report shows it: the requests (as the side shows them), the answer, and the curl command that sends them again. */
function failure(step: number, say: string, failed: StepFailed, shown: (request: KitRequest) => KitRequest): CaseFailure {
  const requests = failed.requests.map(shown);
  const last = requests[requests.length - 1];
  const curl = last === undefined ? '' : failed.parallel ? parallelCurl(requests) : last.method === 'GET' ? getCurl(last) : curlCommand(last);
  return {
    step,
    say,
    problems: failed.problems,
    requests: requests.map(shownRequest),
    ...(failed.attempt === undefined ? {} : { answer: shownAnswer(failed.attempt) }),
    curl,
  };
}

/** The transport of a run: the one a test gives, or HTTP (a POST with the clients' postOnce, a GET as a browser sends it). */
function wireOf(http: KitTransport, given: KitSend | undefined): KitWire {
  if (given !== undefined)
    return { http, send: (request) => given({ method: request.method, url: request.url, headers: { ...request.headers }, bytes: request.bytes }) };
  const get = (request: KitRequest) =>
    undiciRequest(request.url, { method: 'GET', headers: request.headers, dispatcher: http.dispatcher, signal: AbortSignal.timeout(http.answerMsMax) });
  return {
    http,
    async send(request) {
      if (request.method === 'POST') return postOnce(http, request.url, { ...request.headers }, request.bytes);
      try {
        const response = await get(request);
        const text = await response.body.text();
        return { kind: 'answer', status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text, retryAfterMs: undefined };
      } catch (error) {
        const err = error as Error & { code?: string };
        return { kind: 'failed', detail: `${err.code ?? err.name}: ${err.message}` };
      }
    },
    async location(request) {
      try {
        const response = await get(request);
        await response.body.dump();
        const location = response.headers.location;
        return Array.isArray(location) ? location[0] : location;
      } catch {
        return undefined;
      }
    },
  };
}
