/**
 * The provider's config file as data: the JSON Schema (TypeBox) a parsed
 * file is checked against at start, before any member is read for meaning
 * (provider-config.ts), with the bounds it sets on each limit. Amounts,
 * rates and the RTP may be written as JSON numbers or as decimal strings
 * ("0.10"); the readers of config-values.ts read either exactly.
 */
import { Type, type Static } from '@sinclair/typebox';
import { VOLATILITIES } from '../game/dice.js';
import { CRYPTO_DECIMALS_MAX } from '../protocol/money.js';
import { CurrencyCode, GameSlug, PlayerId, Uuid } from '../protocol/schemas.js';
import { inWords } from '../protocol/validate.js';
import { CampaignExpiresAt } from './provider-schemas.js';
import { SEED_KEY_ID_PATTERN } from './seed-keyring.js';

const DecimalText = Type.Union(
  [Type.String({ pattern: inWords('^\\s*\\d{1,20}(\\.\\d{1,18})?\\s*$', 'decimal text such as "0.10"') }), Type.Number({ minimum: 0 })],
  {
    description: 'A non-negative decimal: a JSON number, or a string such as "0.10".',
  },
);
const Secret = Type.String({ minLength: 1, maxLength: 1024 });
const HttpUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'An absolute http(s) URL.' });
const Count = (description: string, maximum = 1_000_000) => Type.Integer({ minimum: 1, maximum, description });

/** The longest horizon a config may set (s): 30 days; past that a person should have been asked long before. */
export const DISPATCH_HORIZON_SECONDS_MAX = 30 * 24 * 3600;
/**
 * The largest `limits.playerCallsPerAddressMax` and `limits.roundCallsPerLaunchMax`
 * (calls per window): ten million a second over the shortest window, more
 * than any node answers, so a config can lift either limit out of the way
 * (the bench's end-to-end rows do) without switching it off.
 */
export const PLAYER_CALLS_LIMIT_MAX = 100_000_000;
/** The longest `limits.roundCompletionSeconds`: a week; a round must not stay open longer than a player's absence can be. */
export const ROUND_COMPLETION_SECONDS_MAX = 7 * 24 * 3600;
/** The largest `limits.operatorInFlightMax`: beyond it a node's sockets, not the operator, are the bound. */
export const OPERATOR_IN_FLIGHT_LIMIT_MAX = 1_024;

const ProviderLimitsSchema = Type.Object(
  {
    bodyBytesMax: Type.Optional(Count('Request body limit, bytes. Default 262144 (docs/protocol.md §9).', 16 * 1024 * 1024)),
    launchTokenTtlMinutes: Type.Optional(Count('How long a launch URL can open a new game session, minutes. Default 10, the life of a launch key.', 24 * 60)),
    sessionIdleMinutes: Type.Optional(Count('A game session left idle this long cannot be reopened from its URL, minutes. Default 30.', 7 * 24 * 60)),
    operatorAnswerMsMax: Type.Optional(Count('The wait for one operator answer before it counts as failed, ms. Default 5000 (docs/protocol.md §9).', 600_000)),
    retryDelayMsMin: Type.Optional(Count('First retry back-off, ms. Default 500.', 600_000)),
    retryDelayMsMax: Type.Optional(Count('Largest retry back-off, ms. Default 60000.', 3_600_000)),
    dispatchHorizonSeconds: Type.Optional(
      Count(
        'How long the outbox resends a round or a payout the operator has not answered for good before it parks it for a person, seconds. Default 259200 (72 h).',
        DISPATCH_HORIZON_SECONDS_MAX,
      ),
    ),
    operatorInFlightMax: Type.Optional(
      Count("Requests to one operator in flight at once, across every node on the provider's database. Default 64.", OPERATOR_IN_FLIGHT_LIMIT_MAX),
    ),
    roundSettleMsMax: Type.Optional(
      Count("How long a player's play request keeps retrying the operator before the round is left pending, ms. Default 20000.", 600_000),
    ),
    roundCompletionSeconds: Type.Optional(
      Count(
        'A reels round whose free spins the player left unplayed this long is completed by the provider, seconds. Default 600.',
        ROUND_COMPLETION_SECONDS_MAX,
      ),
    ),
    roundCompletionMinutes: Type.Optional(
      Count('roundCompletionSeconds in minutes, as earlier versions read it; a config sets one of the two.', ROUND_COMPLETION_SECONDS_MAX / 60),
    ),
    refreshIntervalSeconds: Type.Optional(Count('How often the game page calls urls.refresh, seconds. Default 300.', 24 * 3600)),
    requestTimeoutMs: Type.Optional(
      Count(
        "A request's headers and body must arrive within this, else 408; also the keep-alive idle time-out, ms. Default 10000 (docs/protocol.md §9).",
        600_000,
      ),
    ),
    shutdownTimeoutMs: Type.Optional(
      Count('On SIGTERM or SIGINT, the time to finish answering before open connections are closed, ms. Default 10000 (docs/protocol.md §9).', 600_000),
    ),
    playerRateWindowSeconds: Type.Optional(
      Count("The window the game pages' API counts calls over, seconds; a caller over a limit is answered 429 until it ends. Default 10.", 3600),
    ),
    playerCallsPerAddressMax: Type.Optional(
      Count("Calls of the game pages' API from one address (an IPv6 /64) per window; over it, 429 RATE_LIMITED. Default 2000.", PLAYER_CALLS_LIMIT_MAX),
    ),
    roundCallsPerLaunchMax: Type.Optional(
      Count('Plays and free spins of one launch per window; over it, 429 RATE_LIMITED. Default 500.', PLAYER_CALLS_LIMIT_MAX),
    ),
  },
  { description: 'Limits and time-outs; each has a default.' },
);

const OperatorSchema = Type.Object({
  operatorId: Type.String({ minLength: 1, maxLength: 128 }),
  walletIds: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 1000 }),
  secret: Secret,
  secretNext: Type.Optional(Secret),
  ipWhitelist: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    maxItems: 1000,
    description: 'Addresses and CIDR ranges allowed to call /generate-launch-url.',
  }),
  trustedProxies: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 })),
  endpoint: HttpUrl,
  pageOrigins: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
      maxItems: 100,
      description:
        "The origins (scheme://host[:port]) of the operator's pages that frame the game page (its lobby) and that the page may call (urls.refresh). None: no page of the operator may frame the game.",
    }),
  ),
  accessToken: Secret,
  currencies: Type.Array(CurrencyCode, { minItems: 1, maxItems: 200 }),
});

export const GAME_KINDS = ['dice', 'reels'] as const;
export type GameKind = (typeof GAME_KINDS)[number];

const GameSchema = Type.Object({
  slug: GameSlug,
  title: Type.String({ minLength: 1, maxLength: 80 }),
  kind: Type.Optional(
    Type.Union(
      GAME_KINDS.map((k) => Type.Literal(k)),
      { description: 'Which game this is; default dice.' },
    ),
  ),
  rtp: DecimalText,
  volatility: Type.Optional(
    Type.Union(
      VOLATILITIES.map((v) => Type.Literal(v)),
      { description: 'Dice only, and required there.' },
    ),
  ),
  ladders: Type.Record(Type.String(), Type.Array(DecimalText, { minItems: 1, maxItems: 100 })),
  baseLadder: Type.Optional(CurrencyCode),
  jackpot: Type.Optional(
    Type.Object(
      {
        share: DecimalText,
        seeds: Type.Optional(Type.Record(Type.String(), DecimalText)),
      },
      { description: 'Reels only: the share of every bet that feeds the jackpot (of the rtp), and the amount a pool starts from, per currency.' },
    ),
  ),
});

const CampaignSchema = Type.Object({
  id: Uuid,
  operatorId: Type.String({ minLength: 1, maxLength: 128 }),
  game: GameSlug,
  currency: CurrencyCode,
  betAmount: DecimalText,
  rounds: Count('Free rounds per player.', 10_000),
  players: Type.Array(PlayerId, { minItems: 1, maxItems: 100_000 }),
  expiresAt: Type.Optional(CampaignExpiresAt),
});

const SeedKeysSchema = Type.Object(
  {
    current: Type.String({
      pattern: inWords(SEED_KEY_ID_PATTERN, 'a key id of 1 to 32 letters, digits, _ or -'),
      description: 'The id of the key that seals new seeds.',
    }),
    keys: Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 128 }), {
      description:
        'Key id to key: 32 random bytes as base64 (`openssl rand -base64 32`) or 64 hex digits. Older keys stay while rounds sealed under them are open.',
    }),
  },
  {
    additionalProperties: false,
    description: "The keys that seal the server seeds of rounds not yet played (docs/games.md): never in the provider's database.",
  },
);

export const ProviderConfigSchema = Type.Object({
  host: Type.Optional(Type.String({ minLength: 1 })),
  port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535 })),
  publicBaseUrl: HttpUrl,
  database: Type.String({ minLength: 1 }),
  databaseSchema: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  /** PostgreSQL's pool and time-outs; each value is checked as the operator's WAGERLINK_PG_* are (src/platform/postgres/settings.ts). */
  postgres: Type.Optional(
    Type.Object(
      {
        poolSize: Type.Optional(Type.Number()),
        statementTimeoutMs: Type.Optional(Type.Number()),
        idleTimeoutS: Type.Optional(Type.Number()),
        connectTimeoutS: Type.Optional(Type.Number()),
      },
      { additionalProperties: false },
    ),
  ),
  logLevel: Type.Optional(Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
  launchTokenSecret: Type.String({ minLength: 16, maxLength: 1024 }),
  launchTokenSecretPrevious: Type.Optional(Type.String({ minLength: 16, maxLength: 1024 })),
  adminToken: Type.Optional(Type.String({ minLength: 16, maxLength: 1024 })),
  staffLimits: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.String()))),
  seedKeys: Type.Optional(SeedKeysSchema),
  metricsToken: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 1024,
      description: "Bearer token that reads /metrics and nothing else (a scraper's); the admin token reads it too. Neither set: /metrics answers nobody.",
    }),
  ),
  limits: Type.Optional(ProviderLimitsSchema),
  cryptoDecimals: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z0-9]{2,10}$' }), Type.Integer({ minimum: 0, maximum: CRYPTO_DECIMALS_MAX }))),
  fun: Type.Optional(Type.Object({ currency: CurrencyCode, balance: DecimalText })),
  exchangeRates: Type.Optional(Type.Object({ base: CurrencyCode, rates: Type.Record(Type.String(), DecimalText) })),
  operators: Type.Array(OperatorSchema, { minItems: 1, maxItems: 1000 }),
  games: Type.Array(GameSchema, { minItems: 1, maxItems: 1000 }),
  campaigns: Type.Optional(Type.Array(CampaignSchema, { maxItems: 10_000 })),
});
export type ProviderConfigFile = Static<typeof ProviderConfigSchema>;
