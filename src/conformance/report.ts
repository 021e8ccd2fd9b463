/**
 * A run's result, as the runner returns it and as `--report result.json`
 * writes it: one schema, so that the JSON report is documented by its
 * TypeBox definition here (docs/conformance.md shows it) and a test checks
 * every report against it. The other reports render the same value.
 */
import { Type, type Static } from '@sinclair/typebox';

/** Bumped when a member changes meaning or goes; adding a member keeps it. */
const REPORT_VERSION = 1;

export const SentRequest = Type.Object({
  /** POST, but for a case about another method and the GET that opens a launch URL. */
  method: Type.Union([Type.Literal('POST'), Type.Literal('GET')]),
  url: Type.String(),
  /** Lower-case names; the access token shows as ${ACCESS_TOKEN}. */
  headers: Type.Record(Type.String(), Type.String()),
  /** The body as UTF-8 text, cut at BODY_SHOWN_MAX characters; `curl` holds every byte. */
  body: Type.String(),
  bodyBytes: Type.Integer({ minimum: 0 }),
  /** Set when the body is not UTF-8: `body` then shows it with U+FFFD in place of the bad bytes. */
  bodyBase64: Type.Optional(Type.String()),
  bodyCut: Type.Optional(Type.Boolean()),
});
export type SentRequest = Static<typeof SentRequest>;

export const ReceivedAnswer = Type.Object({
  status: Type.Optional(Type.Integer()),
  contentType: Type.Optional(Type.String()),
  /** The answer's body, cut at BODY_SHOWN_MAX characters. */
  body: Type.Optional(Type.String()),
  /** Why no answer came (a network error, a time-out). */
  error: Type.Optional(Type.String()),
});
export type ReceivedAnswer = Static<typeof ReceivedAnswer>;

export const CaseFailure = Type.Object({
  /** The step that failed, counted from 1; 0 is the set-up (players, sessions, balances). */
  step: Type.Integer({ minimum: 0 }),
  say: Type.String(),
  /** What was wrong, one line each. */
  problems: Type.Array(Type.String(), { minItems: 1 }),
  /** The request of the step (several for a parallel step). */
  requests: Type.Array(SentRequest),
  answer: Type.Optional(ReceivedAnswer),
  /** The shell command that sends the request again, exactly. */
  curl: Type.String(),
});
export type CaseFailure = Static<typeof CaseFailure>;

const CaseOutcome = Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('skipped')]);
type CaseOutcome = Static<typeof CaseOutcome>;

export const CaseResult = Type.Object({
  id: Type.String(),
  side: Type.Union([Type.Literal('operator'), Type.Literal('provider')]),
  area: Type.String(),
  title: Type.String(),
  /** `docs/protocol.md §N.N`. */
  clause: Type.String(),
  needs: Type.Array(Type.String()),
  outcome: CaseOutcome,
  durationMs: Type.Number({ minimum: 0 }),
  /** Why a case was skipped. */
  reason: Type.Optional(Type.String()),
  failure: Type.Optional(CaseFailure),
});
export type CaseResult = Static<typeof CaseResult>;

const PreflightOutcome = Type.Union([Type.Literal('passed'), Type.Literal('failed')]);

/**
 * The check before any case: on the operator's side, that each player of
 * the fixtures opens a session in the currency they say; on the provider's,
 * that /game-bets answers the game's ladders in the currencies given. What
 * it finds wrong is a finding like a case's: the run fails (exit 1), the
 * reports are written, and every case is skipped as not run.
 */
export const Preflight = Type.Object({
  outcome: PreflightOutcome,
  /** Why it failed: step 0, what it was doing, its problems, and the request and answer when it had them. */
  failure: Type.Optional(CaseFailure),
});
export type Preflight = Static<typeof Preflight>;

export const RunReport = Type.Object({
  kit: Type.Literal('wagerlink-conformance'),
  reportVersion: Type.Literal(REPORT_VERSION),
  side: Type.Union([Type.Literal('operator'), Type.Literal('provider')]),
  endpoint: Type.String(),
  /** Where the players and launch keys came from. */
  fixtures: Type.String(),
  /** The areas or case ids of --only, if any. */
  only: Type.Array(Type.String()),
  startedAt: Type.String({ format: 'date-time' }),
  durationMs: Type.Number({ minimum: 0 }),
  preflight: Preflight,
  summary: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    passed: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0 }),
  }),
  cases: Type.Array(CaseResult),
});
export type RunReport = Static<typeof RunReport>;

/** A run's report from its results: the summary is counted here, for both sides alike. */
export function runReport(run: {
  side: RunReport['side'];
  endpoint: string;
  fixtures: string;
  only: readonly string[];
  startedAt: Date;
  durationMs: number;
  preflight: Preflight;
  results: CaseResult[];
}): RunReport {
  const count = (outcome: CaseResult['outcome']) => run.results.filter((result) => result.outcome === outcome).length;
  return {
    kit: 'wagerlink-conformance',
    reportVersion: REPORT_VERSION,
    side: run.side,
    endpoint: run.endpoint,
    fixtures: run.fixtures,
    only: [...run.only],
    startedAt: run.startedAt.toISOString(),
    durationMs: Math.round(run.durationMs),
    preflight: run.preflight,
    summary: { total: run.results.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    cases: run.results,
  };
}

/** The skip reason of every case of a run whose check before any case failed. */
export const PREFLIGHT_FAILED_REASON = 'not run: the check before any case failed';

/** A run fails (exit 1) when a case failed or the check before any case did. */
export function runFailed(report: RunReport): boolean {
  return report.preflight.outcome === 'failed' || report.summary.failed > 0;
}

/**
 * The check before any case, when it failed, as a failed case: the reports
 * that list failures show it first, in an area of its own, and name the
 * clause whose answer every case needs (an operator's session, §5; a
 * provider's ladders, §8.2).
 */
export function preflightCase(report: RunReport): CaseResult | undefined {
  const failure = report.preflight.failure;
  if (failure === undefined) return undefined;
  return {
    id: 'preflight',
    side: report.side,
    area: 'preflight',
    title: 'before any case, the endpoint and the fixtures give what every case needs',
    clause: report.side === 'operator' ? 'docs/protocol.md §5' : 'docs/protocol.md §8.2',
    needs: [],
    outcome: 'failed',
    durationMs: 0,
    failure,
  };
}
