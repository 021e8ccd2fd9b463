/**
 * Shorthands the provider's cases are written with: the bodies of a
 * well-formed call to each endpoint, a call step, a refusal, and the checks
 * of a 200's members. A case changes one thing of a well-formed call, so
 * that what it is refused for is that one thing.
 */
import { ERRORS, type ErrorCode } from '../../protocol/errors.js';
import type { Body, Headers } from '../case-model.js';
import type {
  KeptAnswer,
  ProviderArea,
  ProviderCallStep,
  ProviderCase,
  ProviderContext,
  ProviderEndpoint,
  ProviderExpect,
  ProviderNeed,
  ProviderStep,
} from './model.js';

/** A game slug no provider offers: well-formed, so that it is refused as unknown, not as malformed. */
export const UNKNOWN_GAME = 'conformance-kit-no-such-game';
/** A wallet id no provider issues. */
export const UNKNOWN_WALLET = 'conformance-kit-no-such-wallet';
/** An operator id no provider knows. */
export const UNKNOWN_OPERATOR = 'conformance-kit-no-such-operator';
/** A currency code of the right form (docs/protocol.md §8.2) that is no ISO 4217 code and no crypto code anyone configures. */
export const UNOFFERED_CURRENCY = 'QQQ';
/** A secret the provider cannot hold for the operator: the kit never learns its other secrets. */
export const WRONG_SECRET = 'conformance-kit-not-the-secret';
export const SIGNATURE = 'x-server-authorization';

export type Json = Record<string, unknown>;

/** A real-mode launch of the target's game for the target's wallet (docs/protocol.md §8.1), with `change` applied. */
export function realLaunch(ctx: ProviderContext, change: Json = {}): Json {
  return drop({
    mode: 'real',
    game: ctx.game(),
    language: 'en',
    walletId: ctx.walletId(),
    operatorId: ctx.operatorId(),
    key: ctx.launchKey(),
    country: 'DE',
    ...change,
  });
}

/** A fun-mode launch: no wallet, operator, key or country (docs/protocol.md §8.1). */
export function funLaunch(ctx: ProviderContext, change: Json = {}): Json {
  return drop({ mode: 'fun', game: ctx.game(), language: 'de', ...change });
}

/** A /game-bets of the target's game in its currencies (docs/protocol.md §8.2). */
export function gameBets(ctx: ProviderContext, change: Json = {}): Json {
  return drop({ walletId: ctx.walletId(), operatorId: ctx.operatorId(), games: [ctx.game()], currencies: [...ctx.currencies()], ...change });
}

/** Members set to undefined by a change are left out. */
function drop(body: Json): Json {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

export function refusal(code: ErrorCode, check?: ProviderExpect['check']): ProviderExpect {
  return { status: ERRORS[code].status, code, ...(check === undefined ? {} : { check }) };
}

export function call(
  say: string,
  endpoint: ProviderCallStep['endpoint'],
  body: (ctx: ProviderContext) => Body,
  expect: ProviderExpect,
  extra: Partial<Pick<ProviderCallStep, 'headers' | 'keep' | 'method'>> = {},
): ProviderCallStep {
  return { kind: 'call', say, endpoint, body, expect, ...extra };
}

export function launch(
  say: string,
  body: (ctx: ProviderContext) => Body,
  expect: ProviderExpect,
  extra: Partial<Pick<ProviderCallStep, 'headers' | 'keep'>> = {},
): ProviderCallStep {
  return call(say, '/generate-launch-url', body, expect, extra);
}

export function bets(
  say: string,
  body: (ctx: ProviderContext) => Body,
  expect: ProviderExpect,
  extra: Partial<Pick<ProviderCallStep, 'headers' | 'keep'>> = {},
): ProviderCallStep {
  return call(say, '/game-bets', body, expect, extra);
}

export function without(headers: Headers, name: string): Headers {
  const { [name]: _dropped, ...rest } = headers;
  return rest;
}

/** A 200 of /generate-launch-url: `url` is an absolute http(s) URL (docs/protocol.md §8.1). */
export const LAUNCHED: ProviderExpect = { status: 200, check: (answer) => launchUrlProblems(answer) };

function launchUrlProblems(answer: KeptAnswer): string[] {
  const url = answer.body?.url;
  if (typeof url !== 'string') return [`url is ${JSON.stringify(url)}, not a string (docs/protocol.md §8.1)`];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [`url ${JSON.stringify(url)} is not an absolute URL (docs/protocol.md §8.1)`];
  }
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? [] : [`url ${url} is not http(s) (docs/protocol.md §8.1)`];
}

/** The problem's detail names `text` (a member at fault, the games, the currencies), as docs/protocol.md says it must. */
export function detailNames(text: (ctx: ProviderContext) => string, why: string): ProviderExpect['check'] {
  return (answer, ctx) => {
    const detail = answer.body?.detail;
    const wanted = text(ctx);
    return typeof detail === 'string' && detail.includes(wanted) ? [] : [`the detail ${JSON.stringify(detail)} does not name ${wanted} (${why})`];
  };
}

export interface CaseSpec {
  id: string;
  title: string;
  clause: string;
  needs?: readonly ProviderNeed[];
  steps: readonly ProviderStep[];
}

export function providerCases(area: ProviderArea, specs: readonly CaseSpec[]): ProviderCase[] {
  return specs.map((spec) => ({
    id: `${area}.${spec.id}`,
    side: 'provider',
    area,
    title: spec.title,
    clause: spec.clause,
    needs: spec.needs ?? [],
    steps: spec.steps,
  }));
}

/** Both endpoints, for a rule that holds for each: one case per endpoint, `-launch` and `-bets`. */
export function onBoth(spec: (endpoint: ProviderEndpoint, body: (ctx: ProviderContext) => Json, name: string) => CaseSpec): CaseSpec[] {
  return [spec('/generate-launch-url', (ctx) => realLaunch(ctx), 'launch'), spec('/game-bets', (ctx) => gameBets(ctx), 'bets')];
}
