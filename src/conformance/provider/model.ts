/**
 * What a conformance case of the provider's side is: data, like an
 * operator's case (../case-model.ts), naming its clause of docs/protocol.md
 * and its steps, each a request to /generate-launch-url or /game-bets (or,
 * to see that the errors of the HTTP layer are problem+json too, another
 * path or method) with the status and code it must be answered, and what
 * else a 200 must hold. The provider keeps no balance the kit could read,
 * so a provider case has no players or sessions: what it starts from is
 * the target's operator, wallet, game and currencies (ProviderContext).
 */
import type { ErrorCode } from '../../protocol/errors.js';
import type { Body, Headers } from '../case-model.js';

/** The areas of the provider's cases, in the order a run takes them. */
export const PROVIDER_AREAS = ['auth', 'ip-whitelist', 'validation', 'launch-url', 'game-bets', 'errors'] as const;
export type ProviderArea = (typeof PROVIDER_AREAS)[number];

/** The provider's endpoints of the interface (docs/protocol.md §8). */
export type ProviderEndpoint = '/generate-launch-url' | '/game-bets';

/**
 * What a case needs beyond the target, which not every run gives: a case
 * whose needs are not met is skipped, saying why.
 * - `next-secret`: the operator's next secret during a rotation (docs/protocol.md §2.2);
 * - `currencies-2`, `currencies-3`: the target names at least that many currencies;
 * - `outside-whitelist`: the kit calls from an address the provider does not
 *   admit for the operator (docs/protocol.md §2.5). Such a run checks the
 *   whitelist's refusal, and skips every other case that calls
 *   /generate-launch-url, which only a whitelisted caller can pass.
 */
export type ProviderNeed = 'next-secret' | 'currencies-2' | 'currencies-3' | 'outside-whitelist';

/** What a step learns from the run: the target's ids, signatures, and the answers of earlier steps. */
export interface ProviderContext {
  operatorId(): string;
  walletId(): string;
  /** The game the target names; it must be one the provider offers. */
  game(): string;
  /** The currencies the provider offers the operator for the game (at least one). */
  currencies(): readonly string[];
  /** The decimals of a currency (docs/protocol.md §4.2). */
  decimals(currency: string): number;
  /** A launch key as an operator would mint one (docs/protocol.md §5.1): the provider only carries it. */
  launchKey(): string;
  /** X-Server-Authorization of these bytes under the operator's secret, or its next one (docs/protocol.md §2.1, §2.2). */
  sign(body: string | Uint8Array, secret?: 'current' | 'next'): string;
  /** Whether the text holds the operator's secret, as it is or percent-encoded (it never travels, docs/protocol.md §2.2). */
  holdsSecret(text: string): boolean;
  /** The answer a step kept under `name`. */
  answer(name: string): KeptAnswer;
}

/** An answer as the kit received it: its status, content type and text, and its JSON object when it is one. */
export interface KeptAnswer {
  status: number;
  contentType: string;
  text: string;
  body: Record<string, unknown> | undefined;
}

export interface ProviderExpect {
  status: number;
  /** The problem's code; required whenever status is not 200. */
  code?: ErrorCode;
  /** More that the answer must hold (a 200's members, a refusal's detail): why not, one line each, or nothing. */
  check?: (answer: KeptAnswer, ctx: ProviderContext) => string[];
}

export interface ProviderCallStep {
  kind: 'call';
  say: string;
  /** An endpoint of the interface, or another path (a case about what the HTTP layer answers). */
  endpoint: ProviderEndpoint | `/${string}`;
  /** POST unless a case is about another method. */
  method?: 'POST' | 'GET';
  body: (ctx: ProviderContext) => Body;
  /** Changes the headers of a well-formed signed call (content type, signature, X-Forwarded-For). */
  headers?: (headers: Headers, bytes: Uint8Array, ctx: ProviderContext) => Headers;
  /** Keeps the answer under this name for a later step's check, and a launch URL it holds for an `open` step. */
  keep?: string;
  expect: ProviderExpect;
}

/** Opens, as a browser would (GET, following redirects), the launch URL of the answer kept under `answer`: it must answer 200 with HTML. */
export interface OpenStep {
  kind: 'open';
  say: string;
  answer: string;
}

export type ProviderStep = ProviderCallStep | OpenStep;

export interface ProviderCase {
  /** `area.slug`, stable across versions: reports and --only name cases by it. */
  id: string;
  side: 'provider';
  area: ProviderArea;
  title: string;
  /** The rule checked: `docs/protocol.md §N.N`. */
  clause: string;
  needs: readonly ProviderNeed[];
  steps: readonly ProviderStep[];
}

/** The currency of a run that names none: the protocol's examples are in it, and every provider of the examples offers it. */
export const DEFAULT_CURRENCIES: readonly string[] = ['EUR'];
