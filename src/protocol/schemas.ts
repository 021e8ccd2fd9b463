/**
 * Wire schemas of every request and response of docs/protocol.md §5–§8 and
 * §5 and §11. One TypeBox definition gives the runtime validator, the
 * TypeScript type and the published OpenAPI document.
 *
 * Unknown members are allowed everywhere (docs/protocol.md §1: receivers ignore
 * them), so no object here sets `additionalProperties: false`.
 */
import { FormatRegistry, Type, type Static, type TSchema } from '@sinclair/typebox';
import { INTEGRATION_ID_PATTERN } from './integration-id.js';
import { playerIdProblem } from './player-id.js';
import { formatInWords, inWords } from './validate.js';

const UUID_PATTERN = inWords('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', 'a UUID in its 8-4-4-4-12 hexadecimal form');
const UUID_RE = new RegExp(UUID_PATTERN);
// Formats are declared for the OpenAPI document; the validator knows them too.
FormatRegistry.Set('uuid', (value) => UUID_RE.test(value));
/** RFC 3339 §5.6 date-time, with its offset. */
const DATE_TIME_RE = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;
/**
 * An RFC 3339 date-time. Date.parse alone reads almost anything ("1", a date
 * without an offset in the server's zone); and Date turns 02-30 into 03-02,
 * so the date must read back as written. Leap seconds are refused: a Date
 * cannot hold them.
 */
function isDateTime(value: string): boolean {
  return DATE_TIME_RE.test(value) && new Date(value.slice(0, 10)).toISOString().startsWith(value.slice(0, 10));
}
FormatRegistry.Set('date-time', isDateTime);

export const Uuid = Type.String({
  pattern: UUID_PATTERN,
  format: 'uuid',
  description: 'A UUID in its canonical 8-4-4-4-12 hexadecimal form.',
});

/** Amounts are JSON numbers in major units of the player's currency (docs/protocol.md §4). */
export const Money = Type.Number({
  minimum: 0,
  description: "Amount in major units of the player's currency, with at most the currency's decimals, at most 10^12 and at most 15 significant digits.",
});

export const BalanceNumber = Type.Number({ description: "The player's balance in major units, exact." });

/** Printable text without control characters. */
/** An integration's id (§2.6), as the back office's filters and reports name a studio. */
export const INTEGRATION_ID_TEXT = inWords(INTEGRATION_ID_PATTERN, 'an id of 1 to 63 of a-z, 0-9 and -, starting with a letter or digit');
const IntegrationIdText = { pattern: INTEGRATION_ID_TEXT };

const TEXT_PATTERN = inWords('^[^\\u0000-\\u001f\\u007f]+$', 'text without control characters');

const PLAYER_ID_FORMAT = formatInWords('player-id', 'a player id as docs/protocol.md §5.4 defines it', playerIdProblem);

/** A player id (docs/protocol.md §5.4), as every request that names a player, and every new player, must write it. */
export const PlayerId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: TEXT_PATTERN,
  format: PLAYER_ID_FORMAT,
  description:
    "The operator's id of the player (docs/protocol.md §5.4): no control, format or invisible characters, no space at either end, in Unicode NFC, its letters of one script (or Latin with Han, Kana, Bopomofo or Hangul); compared exactly, code point by code point.",
});

/**
 * An id that names a player already stored: the back office's paths, and
 * the cursor and prefix of its players list. Ids stored before §5.4's rule
 * are kept as they were, so these ask only what ids always had to be.
 */
export const StoredPlayerId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: TEXT_PATTERN,
  description: 'The id of a player the operator holds, as stored.',
});
export const GameSlug = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: inWords('^[A-Za-z0-9][A-Za-z0-9._:-]*$', 'a game slug of letters, digits and . _ : -, starting with a letter or digit'),
  description: 'Game identifier (game slug).',
});
export const CurrencyCode = Type.String({
  pattern: inWords('^[A-Z0-9]{2,10}$', 'a currency code of 2 to 10 capital letters or digits'),
  description: 'ISO 4217 code, or a configured crypto code.',
});
/** A page's size and its cursor, as query strings carry them. */
export const LIMIT_PATTERN = inWords('^[0-9]{1,4}$', 'a whole number of 1 to 4 digits');
export const CURSOR_PATTERN = inWords('^[0-9]{1,19}$', 'the cursor of a previous page, up to 19 digits');

export const CountryCode = Type.String({
  pattern: inWords('^[A-Z]{2}$', 'a country code of 2 capital letters (ISO 3166-1 alpha-2)'),
  description: 'ISO 3166-1 alpha-2 code, upper case.',
});

/** Regulatory metadata is stored verbatim; the body limit bounds it, this keeps one row sane. */
export const REGULATORY_LENGTH_MAX = 16_384;

// --- /transaction (docs/protocol.md §6) ---

export const WalletTransaction = Type.Object({
  id: Uuid,
  type: Type.Union([Type.Literal('bet'), Type.Literal('win')]),
  amount: Money,
  jpAmount: Type.Optional(Money),
});

export const Round = Type.Object({
  id: Uuid,
  finished: Type.Boolean(),
});

export const TransactionCampaign = Type.Object({
  id: Type.Optional(Uuid),
  type: Type.Optional(Type.Literal('freeBets')),
  finished: Type.Optional(Type.Boolean()),
});

/** Default of docs/protocol.md §9; the server may be configured lower or higher. */
export const TRANSACTIONS_PER_REQUEST_MAX = 100;

export const TransactionRequest = Type.Object({
  sessionId: Uuid,
  playerId: PlayerId,
  transactions: Type.Array(WalletTransaction, { minItems: 1 }),
  game: GameSlug,
  round: Round,
  campaign: Type.Optional(TransactionCampaign),
  regulatory: Type.Optional(Type.String({ maxLength: REGULATORY_LENGTH_MAX })),
});
export type TransactionRequest = Static<typeof TransactionRequest>;

export const BalanceResponse = Type.Object({ balance: BalanceNumber });
export type BalanceResponse = Static<typeof BalanceResponse>;

// --- /payout (docs/protocol.md §7) ---

export const PayoutRequest = Type.Object({
  sessionId: Uuid,
  payoutId: Uuid,
  amount: Money,
  campaign: Type.Object({ id: Uuid, type: Type.Literal('tournament') }),
});
export type PayoutRequest = Static<typeof PayoutRequest>;

// --- /authenticate (docs/protocol.md §5) ---

export const AuthenticateRequest = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 256 }),
  game: GameSlug,
});
export type AuthenticateRequest = Static<typeof AuthenticateRequest>;

export const AuthenticateResponse = Type.Object({
  sessionId: Uuid,
  playerId: PlayerId,
  currency: CurrencyCode,
  balance: BalanceNumber,
  country: Type.String(),
});
export type AuthenticateResponse = Static<typeof AuthenticateResponse>;

// --- /generate-launch-url (docs/protocol.md §8.1) ---

export const LaunchUrls = Type.Object({
  lobby: Type.Optional(Type.String({ maxLength: 2048 })),
  refresh: Type.Optional(Type.String({ maxLength: 2048 })),
  deposit: Type.Optional(Type.String({ maxLength: 2048 })),
});

export const GenerateLaunchUrlRequest = Type.Object({
  mode: Type.Union([Type.Literal('real'), Type.Literal('fun')]),
  game: GameSlug,
  language: Type.String({ minLength: 1, maxLength: 64, description: 'BCP 47 language tag.' }),
  walletId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  operatorId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  key: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  country: Type.Optional(CountryCode),
  /** The player's currency, where the operator knows it: a launch the game has no bets for is refused at once; in fun mode, the currency of the play money (docs/protocol.md §8.1). */
  currency: Type.Optional(CurrencyCode),
  urls: Type.Optional(LaunchUrls),
});
export type GenerateLaunchUrlRequest = Static<typeof GenerateLaunchUrlRequest>;

export const GenerateLaunchUrlResponse = Type.Object({ url: Type.String() });

// --- /game-bets (docs/protocol.md §8.2) ---

export const GameBetsRequest = Type.Object({
  walletId: Type.String({ minLength: 1, maxLength: 128 }),
  operatorId: Type.String({ minLength: 1, maxLength: 128 }),
  games: Type.Array(GameSlug, { minItems: 1, maxItems: 1000 }),
  currencies: Type.Array(CurrencyCode, { minItems: 1, maxItems: 200 }),
});
export type GameBetsRequest = Static<typeof GameBetsRequest>;

export const GameBetsResponse = Type.Record(
  Type.String({ description: 'Game slug.' }),
  Type.Record(Type.String({ description: 'Currency code.' }), Type.Array(Type.Number())),
);

// --- Errors (docs/protocol.md §3) ---

export const ProblemResponse = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  code: Type.String(),
  detail: Type.String(),
  balance: Type.Optional(BalanceNumber),
});

// --- Back office (docs/protocol.md §11) ---

export const CreatePlayerRequest = Type.Object({
  playerId: PlayerId,
  currency: CurrencyCode,
  balance: Money,
  country: Type.Optional(CountryCode),
});
export type CreatePlayerRequest = Static<typeof CreatePlayerRequest>;

export const PlayerResponse = Type.Object({
  playerId: StoredPlayerId,
  currency: CurrencyCode,
  balance: BalanceNumber,
  blocked: Type.Boolean(),
  country: Type.Optional(Type.String()),
});

export const CreateLaunchKeyRequest = Type.Object({
  playerId: PlayerId,
  game: GameSlug,
  integration: Type.Optional(
    Type.String({
      ...IntegrationIdText,
      description: "The studio whose game it launches (§2.6): only that integration's /authenticate opens the key; absent: any.",
    }),
  ),
});
export type CreateLaunchKeyRequest = Static<typeof CreateLaunchKeyRequest>;

export const LaunchKeyResponse = Type.Object({ key: Type.String(), expiresAt: Type.String({ format: 'date-time' }) });

export const AdjustmentRequest = Type.Object({
  id: Uuid,
  type: Type.Union([Type.Literal('deposit'), Type.Literal('withdrawal')]),
  amount: Money,
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type AdjustmentRequest = Static<typeof AdjustmentRequest>;

export const BlockRequest = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1024 })) });

export const PageQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: LIMIT_PATTERN })),
  cursor: Type.Optional(Type.String({ pattern: CURSOR_PATTERN })),
});

/** GET /admin/players: every filter optional; they narrow together. */
export const PlayersQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: LIMIT_PATTERN })),
  cursor: Type.Optional(Type.String({ ...StoredPlayerId, description: 'nextCursor of the previous page: the last player id it listed.' })),
  currency: Type.Optional(CurrencyCode),
  blocked: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  prefix: Type.Optional(Type.String({ ...StoredPlayerId, description: 'Only players whose id starts with this text.' })),
});

export const PlayerItem = Type.Object({
  playerId: StoredPlayerId,
  currency: CurrencyCode,
  balance: BalanceNumber,
  blocked: Type.Boolean(),
  country: Type.Union([Type.String(), Type.Null()]),
});

/** A UTC calendar day, as GGR reports name their days. */
export const Day = Type.String({ pattern: inWords('^[0-9]{4}-[0-9]{2}-[0-9]{2}$', 'a day as YYYY-MM-DD'), description: 'A day (UTC), YYYY-MM-DD.' });

export const GgrQuery = Type.Object({
  from: Type.Optional(Day),
  to: Type.Optional(Day),
  integration: Type.Optional(Type.String({ ...IntegrationIdText, description: "One studio's games only (§2.6); absent: every studio's." })),
});

export const GgrRowItem = Type.Object({
  day: Day,
  integration: Type.String({ ...IntegrationIdText, description: 'The studio whose game it is (§2.6): the same slug at two studios is two games, two rows.' }),
  game: GameSlug,
  currency: CurrencyCode,
  bets: Type.Number({ description: 'Bets the players paid (free bets excluded), major units, exact.' }),
  freeBets: Type.Number({ description: "Bets paid by the operator's free-bet campaigns." }),
  wins: Type.Number({ description: 'Every win, of free bets too.' }),
  ggr: Type.Number({ description: 'bets − wins; negative when the games paid out more than they took.' }),
  rounds: Type.Integer({ description: 'Rounds with a bet or win that day.' }),
});

export const GgrResponse = Type.Object({ from: Day, to: Day, rows: Type.Array(GgrRowItem) });

export const RoundItem = Type.Object({
  roundId: Uuid,
  integration: Type.String({ ...IntegrationIdText, description: "The studio whose call opened the round (§2.6); `default` for the environment's." }),
  game: GameSlug,
  finished: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const TransferItem = Type.Object({
  id: Uuid,
  kind: Type.Union(['bet', 'win', 'payout', 'deposit', 'withdrawal'].map((k) => Type.Literal(k))),
  amount: BalanceNumber,
  jpAmount: BalanceNumber,
  freeBet: Type.Boolean(),
  roundId: Type.Union([Uuid, Type.Null()]),
  integration: Type.Union([Type.String(IntegrationIdText), Type.Null()], {
    description: "The studio whose call booked it (§2.6): a bet's or win's round's, a payout's tournament's; null for an adjustment.",
  }),
  game: Type.Union([Type.String(), Type.Null()]),
  campaignId: Type.Union([Uuid, Type.Null()]),
  regulatory: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export function Page<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) });
}

export const VerifyResponse = Type.Object({
  ok: Type.Boolean(),
  transfers: Type.Integer(),
  accounts: Type.Integer(),
  problems: Type.Array(Type.String()),
});

export const HealthResponse = Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') });
