/**
 * The provider's side of the conformance runner (runner.ts runs the cases):
 * before any case is judged, a well-formed /game-bets of the target is
 * answered 200; each step's request is then signed as the target's
 * operator signs and judged, and a launch URL is opened as a browser opens
 * it. The report is the same value as the operator's side, so the same
 * reporters write it. Only the protocol module and the clients are used:
 * the kit sees a provider the way an operator does.
 */
import { randomBytes } from 'node:crypto';
import { CURRENCIES } from '../protocol/money.js';
import { SIGNATURE_HEADER, sign } from '../protocol/signing.js';
import type { Headers } from './case-model.js';
import { judgeShape } from './check.js';
import type { KitRequest } from './kit-send.js';
import { toBytes } from './shown.js';
import { PROVIDER_CASES } from './provider/index.js';
import type { KeptAnswer, OpenStep, ProviderCallStep, ProviderCase, ProviderContext, ProviderStep } from './provider/model.js';
import { DEFAULT_CURRENCIES } from './provider/model.js';
import type { RunReport } from './report.js';
import { couldNotReach } from '../clients/unreachable.js';
import { runConformance, RunNotStarted, StepFailed, type CaseRun, type CommonRunOptions, type KitSide, type KitWire } from './runner.js';

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

/** A launch key the kit sends is this many random bytes, hex: as unguessable as an operator's (docs/protocol.md §5.1). */
const LAUNCH_KEY_BYTES = 16;
/**
 * A secret shorter than this is not looked for in a launch URL (characters):
 * it would turn up in any URL by chance, and the check would say nothing.
 */
const SECRET_SOUGHT_LENGTH_MIN = 8;
/** Redirects followed when a launch URL is opened: a browser follows more, a game page needs few. */
const REDIRECTS_MAX = 5;

export interface ProviderRunOptions extends CommonRunOptions {
  target: ProviderTarget;
  /** Default: every provider case. */
  cases?: readonly ProviderCase[];
}

/** The target's currencies, checked: the kit must know each one's decimals to judge its amounts. */
function targetCurrencies(target: ProviderTarget): string[] {
  const currencies = [...new Set(target.currencies ?? DEFAULT_CURRENCIES)];
  if (currencies.length === 0) throw new RunNotStarted('name at least one currency the provider offers');
  const unknown = currencies.filter((code) => CURRENCIES.decimals(code) === undefined);
  if (unknown.length > 0) throw new RunNotStarted(`the kit knows no decimals for ${unknown.join(', ')} (docs/protocol.md §4.2)`);
  return currencies;
}

export async function runProviderConformance(options: ProviderRunOptions): Promise<RunReport> {
  return runConformance('provider', { ...options, cases: options.cases ?? PROVIDER_CASES }, async (wire) => {
    const target = { ...options.target, endpoint: options.target.endpoint.replace(/\/+$/, ''), currencies: targetCurrencies(options.target) };
    return new ProviderKit(target, wire);
  });
}

type Target = ProviderTarget & { currencies: string[] };

class ProviderKit implements KitSide<ProviderCase> {
  constructor(
    readonly target: Target,
    readonly wire: KitWire,
  ) {}

  get endpoint(): string {
    return this.target.endpoint;
  }

  get fixtures(): string {
    return `operator ${this.target.operatorId}, wallet ${this.target.walletId}, game ${this.target.game}, ${this.target.currencies.join(', ')}`;
  }

  /** Headers of a well-formed signed call of these bytes (docs/protocol.md §8). */
  headersFor(bytes: Uint8Array): Headers {
    return { 'content-type': 'application/json', [SIGNATURE_HEADER]: sign(this.target.secret, bytes) };
  }

  get preflightSay(): string {
    return `ask /game-bets for the ladders of ${this.target.game} in ${this.target.currencies.join(', ')}`;
  }

  /**
   * The target must work before any case is judged: a well-formed
   * /game-bets of the game in the target's currencies is answered 200 with
   * a ladder of the game in each. Otherwise nothing a case says would be
   * about the provider's rules.
   */
  async preflight(): Promise<void> {
    const { game, currencies } = this.target;
    const bytes = toBytes({ walletId: this.target.walletId, operatorId: this.target.operatorId, games: [game], currencies });
    const url = `${this.target.endpoint}/game-bets`;
    const request: KitRequest = { method: 'POST', url, headers: this.headersFor(bytes), bytes };
    const attempt = await this.wire.send(request);
    if (attempt.kind === 'failed') throw new RunNotStarted(`${couldNotReach(url, attempt.detail, attempt.detail)}: check the endpoint`);
    const { problems, body } = judgeShape(attempt, 200);
    if (body !== undefined) {
      const ladders = body[game];
      for (const currency of currencies) {
        const ladder = ladders !== null && typeof ladders === 'object' ? (ladders as Record<string, unknown>)[currency] : undefined;
        if (!Array.isArray(ladder)) problems.push(`/game-bets answered no ladder of ${game} in ${currency} (docs/protocol.md §8.2)`);
      }
    }
    if (problems.length > 0) {
      throw new StepFailed(
        [...problems, 'every case needs the game in these currencies: check the endpoint, --secret, --operator-id, --wallet-id, --game and --currency'],
        [request],
        attempt,
      );
    }
  }

  unmetNeed(each: ProviderCase): string | undefined {
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

  caseRun(each: ProviderCase): ProviderCaseRun {
    return new ProviderCaseRun(this, each);
  }
}

class ProviderCaseRun implements ProviderContext, CaseRun<ProviderStep> {
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
    const secrets = [this.kit.target.secret, this.kit.target.nextSecret].filter(
      (each): each is string => each !== undefined && each.length >= SECRET_SOUGHT_LENGTH_MIN,
    );
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
    const sent: KitRequest = {
      method,
      url: `${this.kit.target.endpoint}${step.endpoint}`,
      headers: step.headers === undefined ? defaults : step.headers(defaults, bytes, this),
      bytes,
    };
    const attempt = await this.kit.wire.send(sent);
    const shape = judgeShape(attempt, step.expect.status, step.expect.code);
    if (shape.problems.length > 0 || attempt.kind === 'failed') throw new StepFailed(shape.problems, [sent], attempt);
    const answer: KeptAnswer = { status: attempt.status, contentType: attempt.contentType, text: attempt.text, body: shape.body };
    const problems = step.expect.check?.(answer, this) ?? [];
    if (problems.length > 0) throw new StepFailed(problems, [sent], attempt);
    if (step.keep !== undefined) this.kept.set(step.keep, answer);
  }

  /** Opens a launch URL as a browser does: GET, without the fragment (never sent), following redirects. */
  private async open(step: OpenStep): Promise<void> {
    const url = this.answer(step.answer).body?.url;
    if (typeof url !== 'string') throw new Error(`case ${this.each.id}: the answer ${step.answer} holds no url`);
    let current = url;
    for (let redirects = 0; ; redirects++) {
      const sent: KitRequest = { method: 'GET', url: current.split('#')[0]!, headers: { accept: 'text/html' }, bytes: new Uint8Array() };
      const attempt = await this.kit.wire.send(sent);
      if (attempt.kind === 'answer' && attempt.status >= 300 && attempt.status < 400 && redirects < REDIRECTS_MAX && this.kit.wire.location !== undefined) {
        const location = await this.kit.wire.location(sent);
        if (location !== undefined) {
          current = new URL(location, sent.url).toString();
          continue;
        }
      }
      if (attempt.kind === 'failed') throw new StepFailed([`the launch URL does not open: ${attempt.detail} (docs/protocol.md §8.1)`], [sent], attempt);
      const problems: string[] = [];
      if (attempt.status !== 200) problems.push(`GET of the launch URL answered ${attempt.status}, not 200 (docs/protocol.md §8.1: the URL opens the game)`);
      else if (!/^text\/html(;|$)/i.test(attempt.contentType))
        problems.push(`the launch URL answered Content-Type "${attempt.contentType}", not a page (text/html)`);
      if (problems.length > 0) throw new StepFailed(problems, [sent], attempt);
      return;
    }
  }
}
