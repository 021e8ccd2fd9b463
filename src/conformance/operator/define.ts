/**
 * How the operator's cases are written: `operatorCase` fills in what most
 * cases share, and the body builders write the requests of docs/protocol.md
 * §5–§7 from a few named parts, so that a case reads as the rule it checks.
 * Ids are named ("b1", "r1") and become UUIDs when the case runs, the same
 * UUID for every use of a name within the case.
 */
import { ERRORS, type ErrorCode } from '../../protocol/errors.js';
import type { RawJsonNumber } from '../../protocol/json.js';
import { raw } from '../../protocol/json.js';
import {
  DEFAULT_PLAYER,
  type BalanceExpectation,
  type CallStep,
  type CaseContext,
  type Expect,
  type Need,
  type OperatorArea,
  type OperatorCase,
  type PlayerNeed,
  type Role,
  type Step,
} from '../case-model.js';
import { JsonToken } from '../json-text.js';

export interface CaseSpec {
  id: string;
  title: string;
  clause: string;
  needs?: readonly Need[];
  players?: Partial<Record<Role, PlayerNeed>>;
  steps: readonly Step[];
}

/** A case of an area; its id is `area.` + the spec's id. */
export function operatorCases(area: OperatorArea, specs: readonly CaseSpec[]): OperatorCase[] {
  return specs.map((spec) => ({
    id: `${area}.${spec.id}`,
    side: 'operator',
    area,
    title: spec.title,
    clause: spec.clause,
    needs: spec.needs ?? [],
    players: { main: DEFAULT_PLAYER, ...spec.players },
    steps: spec.steps,
  }));
}

/**
 * An amount: decimal text as the case writes it ("1.5"), minor units of the
 * session's currency, minor units computed when the step runs, or a token in
 * a spelling of its own (`1e1`).
 */
type AmountSpec = string | bigint | ((ctx: CaseContext) => bigint) | JsonToken;

export interface TxSpec {
  /** The id's name; default a fresh id. */
  id?: string;
  type: 'bet' | 'win' | string;
  amount: AmountSpec;
  jpAmount?: AmountSpec;
  /** Members beside the protocol's. */
  extra?: Record<string, unknown>;
}

export interface TransactionSpec {
  /** The session whose id, player and game the body names; default `main`. */
  session?: string;
  transactions: TxSpec[];
  /** The round's name, or its name and `finished`; default a fresh round, finished. */
  round?: string | { id?: string; finished?: boolean | unknown };
  /** A campaign; its `id` is a name. */
  campaign?: { id?: string; type?: string; finished?: boolean };
  regulatory?: string;
  /** Members that replace the session's (a mismatch, a malformed value). */
  override?: Overrides;
  /** Members beside the protocol's. */
  extra?: Record<string, unknown>;
}

/** Members that replace those the builder writes: fixed, or made when the step runs. */
export type Overrides = Record<string, unknown> | ((ctx: CaseContext) => Record<string, unknown>);

function overrides(ctx: CaseContext, given: Overrides | undefined): Record<string, unknown> {
  return typeof given === 'function' ? given(ctx) : (given ?? {});
}

/** A sessionId nobody issued. */
export const UNKNOWN_SESSION: Overrides = (ctx) => ({ sessionId: ctx.id('session nobody issued') });

function roleOf(ctx: CaseContext, session: string | undefined): Role {
  return ctx.session(session).role;
}

function amountOf(ctx: CaseContext, spec: AmountSpec, role: Role): RawJsonNumber | JsonToken {
  if (spec instanceof JsonToken) return spec;
  if (typeof spec === 'string') return raw(spec);
  const minor = typeof spec === 'bigint' ? spec : spec(ctx);
  return ctx.amount(minor, role);
}

export function transaction(ctx: CaseContext, spec: TransactionSpec): Record<string, unknown> {
  const session = ctx.session(spec.session);
  const role = roleOf(ctx, spec.session);
  const round = typeof spec.round === 'string' ? { id: spec.round } : (spec.round ?? {});
  const body: Record<string, unknown> = {
    sessionId: session.sessionId,
    playerId: ctx.player(role).playerId,
    transactions: spec.transactions.map((tx) => ({
      id: tx.id === undefined ? ctx.fresh() : ctx.id(tx.id),
      type: tx.type,
      amount: amountOf(ctx, tx.amount, role),
      ...(tx.jpAmount === undefined ? {} : { jpAmount: amountOf(ctx, tx.jpAmount, role) }),
      ...tx.extra,
    })),
    game: session.game,
    round: { id: round.id === undefined ? ctx.fresh() : ctx.id(round.id), finished: 'finished' in round ? round.finished : true },
  };
  if (spec.campaign) {
    const { id, ...rest } = spec.campaign;
    body.campaign = { ...(id === undefined ? {} : { id: ctx.id(id) }), ...rest };
  }
  if (spec.regulatory !== undefined) body.regulatory = spec.regulatory;
  return { ...body, ...overrides(ctx, spec.override), ...spec.extra };
}

export interface PayoutSpec {
  session?: string;
  /** The payoutId's name; default a fresh id. */
  id?: string;
  amount: AmountSpec;
  /** The campaign's name; default a fresh id. */
  campaign?: string;
  campaignType?: string;
  override?: Overrides;
}

export function payout(ctx: CaseContext, spec: PayoutSpec): Record<string, unknown> {
  const session = ctx.session(spec.session);
  return {
    sessionId: session.sessionId,
    payoutId: spec.id === undefined ? ctx.fresh() : ctx.id(spec.id),
    amount: amountOf(ctx, spec.amount, session.role),
    campaign: { id: spec.campaign === undefined ? ctx.fresh() : ctx.id(spec.campaign), type: spec.campaignType ?? 'tournament' },
    ...overrides(ctx, spec.override),
  };
}

/** A reload of a session's key (docs/protocol.md §5.1), or another key and game. */
export function authenticate(ctx: CaseContext, spec: { session?: string; key?: string; game?: string } = {}): Record<string, unknown> {
  const session = spec.key === undefined ? ctx.session(spec.session) : undefined;
  return { key: spec.key ?? session!.key, game: spec.game ?? session?.game ?? ctx.game() };
}

// ----------------------------------------------------------- step helpers

type CallSpec = Omit<CallStep, 'kind'>;

export function call(spec: CallSpec): CallStep {
  return { kind: 'call', ...spec };
}

/** A /transaction call. */
export function tx(say: string, body: TransactionSpec, expect: CallStep['expect'], more: Partial<CallSpec> = {}): CallStep {
  return call({ say, endpoint: '/transaction', session: body.session, body: (ctx) => transaction(ctx, body), expect, ...more });
}

/** A /payout call. */
export function pay(say: string, body: PayoutSpec, expect: CallStep['expect'], more: Partial<CallSpec> = {}): CallStep {
  return call({ say, endpoint: '/payout', session: body.session, body: (ctx) => payout(ctx, body), expect, ...more });
}

/** The balance must be what the kit knows, changed by `change` (default: unchanged). */
export function probe(say = 'the balance is unchanged', change?: BalanceExpectation, player?: Role): Step {
  return { kind: 'probe', say, ...(change === undefined ? {} : { change }), ...(player === undefined ? {} : { player }) };
}

/**
 * A refusal: the code's status from the registry, and, when `balance` is
 * `unchanged`, an answer that must show the balance the player held. Left
 * out, a balance shown must still be that one (case-model.ts, Expect).
 */
export function refusal(code: ErrorCode, balance?: 'unchanged' | 'absent'): Expect {
  return { status: ERRORS[code].status, code, ...(balance === undefined ? {} : { balance }) };
}
