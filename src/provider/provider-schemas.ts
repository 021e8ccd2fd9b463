/**
 * Schemas of the provider's own JSON endpoints, beside the interface: the
 * game page's API (/game/api/*) and the provider's back office (/admin/*).
 * The interface's schemas stay in src/protocol.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CLIENT_SEED_PATTERN } from '../game/fairness.js';
import { CURSOR_PATTERN, CurrencyCode, GameSlug, LIMIT_PATTERN, Money, PlayerId, Uuid } from '../protocol/schemas.js';
import { inWords } from '../protocol/validate.js';
import { ITEM_STATUSES } from '../dispatch/outbox.js';
import { FINDING_KINDS, FINDINGS_LISTED_MAX, NOTE_KINDS } from '../rounds/books.js';
import { TOKEN_LENGTH_MAX } from './launch-token.js';

/** Decimal text of an amount ("0.50"), never rounded on the way. */
const DECIMAL_TEXT_PATTERN = inWords('^\\d{1,20}(\\.\\d{1,18})?$', 'decimal text such as "0.50"');

const Token = Type.String({ minLength: 1, maxLength: TOKEN_LENGTH_MAX, description: 'The launch token of the launch URL.' });

export const OpenGameRequest = Type.Object({ token: Token });
export type OpenGameRequest = Static<typeof OpenGameRequest>;

export const PlayRequest = Type.Object({
  token: Token,
  /** Decimal text of a ladder amount ("0.5"); ignored for a free round, whose bet is the campaign's. */
  bet: Type.String({ pattern: DECIMAL_TEXT_PATTERN }),
  chancePct: Type.Integer({ minimum: 1, maximum: 99 }),
  clientSeed: Type.String({ pattern: inWords(CLIENT_SEED_PATTERN, 'a client seed of 1 to 64 letters, digits, _ or -') }),
  free: Type.Optional(Type.Boolean()),
});
export type PlayRequest = Static<typeof PlayRequest>;

/** A reels play: a ladder bet, or a free round of a campaign (`free: true`, at the campaign's bet, `bet` left out). */
export const ReelsPlayRequest = Type.Object({
  token: Token,
  bet: Type.Optional(Type.String({ pattern: DECIMAL_TEXT_PATTERN })),
  clientSeed: Type.String({ pattern: inWords(CLIENT_SEED_PATTERN, 'a client seed of 1 to 64 letters, digits, _ or -') }),
  free: Type.Optional(Type.Boolean()),
});
export type ReelsPlayRequest = Static<typeof ReelsPlayRequest>;

/** The next free spin of a reels round of the launch. */
export const FreeSpinRequest = Type.Object({ token: Token, roundId: Uuid });
export type FreeSpinRequest = Static<typeof FreeSpinRequest>;

/**
 * The end of a campaign's free rounds (RFC 3339, with its offset). An instant
 * already past is accepted, as a campaign that offers nothing, not refused:
 * a creation retried after its campaign's end must answer as the first call
 * did (the call is idempotent), and a config file that started the server
 * yesterday must start it today.
 */
export const CampaignExpiresAt = Type.String({
  format: 'date-time',
  description: 'RFC 3339 date-time with an offset, e.g. 2026-12-01T00:00:00Z; a time already past makes a campaign that offers nothing.',
});

export const CampaignRequest = Type.Object({
  id: Uuid,
  operatorId: Type.String({ minLength: 1, maxLength: 128 }),
  game: GameSlug,
  currency: CurrencyCode,
  /** A JSON number, or decimal text ("0.50") as the config file takes it: text is never rounded on the way. */
  betAmount: Type.Union([Type.String({ pattern: DECIMAL_TEXT_PATTERN, description: 'Decimal text, e.g. "0.50".' }), Money]),
  rounds: Type.Integer({ minimum: 1, maximum: 10_000 }),
  players: Type.Array(PlayerId, { minItems: 1, maxItems: 10_000 }),
  expiresAt: Type.Optional(CampaignExpiresAt),
});
export type CampaignRequest = Static<typeof CampaignRequest>;

/** Decimal text of an amount ("50.00"), never rounded on the way. */
const AmountText = Type.String({ pattern: DECIMAL_TEXT_PATTERN, description: 'Decimal text, e.g. "50.00".' });

/**
 * A tournament prize for one player. Without `payoutId`, the id is derived
 * from operatorId, campaignId and playerId (payout-id.ts): the same prize
 * asked for twice is paid once.
 */
export const PayoutRequest = Type.Object({
  operatorId: Type.String({ minLength: 1, maxLength: 128 }),
  playerId: PlayerId,
  currency: CurrencyCode,
  /** A JSON number checked as the protocol's amounts are, or decimal text. */
  amount: Type.Union([AmountText, Money]),
  campaignId: Uuid,
  payoutId: Type.Optional(Uuid),
});
export type PayoutRequest = Static<typeof PayoutRequest>;

export const PAYOUT_STATUSES = ['pending', 'paid', 'refused'] as const;

export const PayoutsQuery = Type.Object({
  status: Type.Optional(Type.Union(PAYOUT_STATUSES.map((status) => Type.Literal(status)))),
  limit: Type.Optional(Type.String({ pattern: LIMIT_PATTERN })),
  cursor: Type.Optional(Type.String({ pattern: CURSOR_PATTERN })),
});
export type PayoutsQuery = Static<typeof PayoutsQuery>;

export const OutboxQuery = Type.Object({
  status: Type.Optional(Type.Union(ITEM_STATUSES.map((status) => Type.Literal(status)))),
  operatorId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  /** Items after this id: the previous page's nextCursor. */
  after: Type.Optional(Type.String({ pattern: inWords('^[0-9]{1,15}$', 'an outbox item id of up to 15 digits') })),
  limit: Type.Optional(Type.String({ pattern: LIMIT_PATTERN })),
  /** 1: each item's body, as the text sent. */
  body: Type.Optional(Type.Union([Type.Literal('0'), Type.Literal('1')])),
});
export type OutboxQuery = Static<typeof OutboxQuery>;

/** The operator's own reference of what it booked, for the record. */
export const OutboxResolveRequest = Type.Object({
  reference: Type.String({ minLength: 1, maxLength: 256, pattern: inWords('\\S', 'text that is not only spaces') }),
});
export type OutboxResolveRequest = Static<typeof OutboxResolveRequest>;

const Count = Type.Integer({ minimum: 0 });

function Finding<K extends string>(kinds: readonly K[], description: string) {
  return Type.Object(
    {
      kind: Type.Union(kinds.map((kind) => Type.Literal(kind))),
      ids: Type.Array(Type.String(), {
        description: '`round:<id>`, `call:<round id>#<n>`, `item:<n>`, `payout:<id>`, `pool:<operator>/<game>/<currency>`, `campaign:<id>`, `player:<id>`.',
      }),
      sentence: Type.String(),
    },
    { description },
  );
}

/** Counts per kind: a kind with none is left out. */
function Totals(kinds: readonly string[]) {
  return Type.Object(Object.fromEntries(kinds.map((kind) => [kind, Type.Optional(Count)])), { additionalProperties: false });
}

/**
 * The provider's verify (GET /admin/verify, `wagerlink provider verify
 * --json`): src/rounds/books.ts's verdict, each finding's kind a rule of
 * docs/provider.md, Verify.
 */
export const ProviderVerifyResponse = Type.Object({
  ok: Type.Boolean({ description: 'True when nothing disagrees; notes never make it false.' }),
  counted: Type.Object(
    { rounds: Count, realRounds: Count, items: Count, payouts: Count, pools: Count, campaignUses: Count },
    { description: "What was read: every round (fun ones included), the real ones, outbox items, payouts, jackpot pools, players' uses of campaigns." },
  ),
  totals: Totals(FINDING_KINDS),
  findings: Type.Array(Finding(FINDING_KINDS, 'What disagrees.'), {
    description: `At most ${FINDINGS_LISTED_MAX} of each kind, in the order read; totals counts them all.`,
  }),
  noteTotals: Totals(NOTE_KINDS),
  notes: Type.Array(Finding(NOTE_KINDS, 'What is worth knowing and is no disagreement.'), { description: `At most ${FINDINGS_LISTED_MAX} of each kind.` }),
});
