/**
 * The provider's configuration: one JSON file (`--config provider.json`),
 * checked at start against the schema below and then for meaning (known
 * currencies, exact ladders, references between members). Every error names
 * the member at fault, e.g. `games[0].ladders.EUR[2]: ...`.
 *
 * Amounts, rates and the RTP may be written as JSON numbers or as decimal
 * strings ("0.10"); either way they are read exactly.
 */
import { DEFAULT_STAFF_LIMITS, staffLimitsProblem, type StaffLimits } from '../access/limits.js';
import { isRole } from '../access/roles.js';
import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { VOLATILITIES, RTP_BP_MAX, RTP_BP_MIN, RTP_BP_SCALE, type DiceRules, type Volatility } from '../game/dice.js';
import { JACKPOT_BP_MAX, REELS_RTP_BP_MIN, type ReelsRules } from '../game/reels.js';
import {
  amountMinorMax,
  createCurrencies,
  CRYPTO_DECIMALS_MAX,
  decimalFromNumber,
  decimalFromString,
  DEFAULT_CRYPTO_DECIMALS,
  inexactNumbers,
  SIGNIFICANT_DIGITS_MAX,
  toMinor,
  type Currencies,
  type Decimal,
} from '../protocol/money.js';
import { CurrencyCode, GameSlug, PlayerId, Uuid } from '../protocol/schemas.js';
import {
  BODY_BYTES_MAX,
  PLAYER_CALLS_PER_ADDRESS_MAX,
  PLAYER_RATE_WINDOW_S,
  REQUEST_TIMEOUT_MS,
  ROUND_CALLS_PER_LAUNCH_MAX,
  SHUTDOWN_TIMEOUT_MS,
} from '../http/limits.js';
import { compile, inWords } from '../protocol/validate.js';
import { Catalog, noLadderDetail, offLadderDetail } from './catalog.js';
import { parseRange } from './ip-whitelist.js';
import { isPostgresUrl, readPostgresSettings, schemaNameProblem, type PostgresSettings } from '../platform/postgres/settings.js';
import { checkLadder, type Rational } from './ladders.js';
import { CampaignExpiresAt } from './provider-schemas.js';
import { SEED_KEY_ID_PATTERN, SEED_KEYS_MAX, SeedKeyring, seedKeyBytes } from './seed-keyring.js';

export class ProviderConfigError extends Error {
  override name = 'ProviderConfigError';
}

// ------------------------------------------------------------------ schema

const DecimalText = Type.Union(
  [Type.String({ pattern: inWords('^\\s*\\d{1,20}(\\.\\d{1,18})?\\s*$', 'decimal text such as "0.10"') }), Type.Number({ minimum: 0 })],
  {
    description: 'A non-negative decimal: a JSON number, or a string such as "0.10".',
  },
);
const Secret = Type.String({ minLength: 1, maxLength: 1024 });
const HttpUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'An absolute http(s) URL.' });
const Count = (description: string, maximum = 1_000_000) => Type.Integer({ minimum: 1, maximum, description });

/**
 * Members of `limits` earlier versions read and this one does not, and
 * what replaced each: a config that still sets one is accepted, and the
 * server names it in a warning at start instead of dropping it silently.
 */
export const RETIRED_LIMITS: Readonly<Record<string, string>> = {
  outboxIntervalSeconds:
    'rounds are delivered by the durable outbox, which sends each one as soon as it is written and resends it on the back-off of retryDelayMsMin and retryDelayMsMax until the operator answers (docs/provider.md)',
};

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

export const ProviderLimitsSchema = Type.Object(
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

export const OperatorSchema = Type.Object({
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

export const GameSchema = Type.Object({
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

export const CampaignSchema = Type.Object({
  id: Uuid,
  operatorId: Type.String({ minLength: 1, maxLength: 128 }),
  game: GameSlug,
  currency: CurrencyCode,
  betAmount: DecimalText,
  rounds: Count('Free rounds per player.', 10_000),
  players: Type.Array(PlayerId, { minItems: 1, maxItems: 100_000 }),
  expiresAt: Type.Optional(CampaignExpiresAt),
});

export const SeedKeysSchema = Type.Object(
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

// ----------------------------------------------------------- resolved form

export interface ProviderLimits {
  bodyBytesMax: number;
  launchTokenTtlMs: number;
  sessionIdleMs: number;
  operatorAnswerMsMax: number;
  retryDelayMsMin: number;
  retryDelayMsMax: number;
  dispatchHorizonMs: number;
  operatorInFlightMax: number;
  roundSettleMsMax: number;
  roundCompletionMs: number;
  refreshIntervalMs: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  playerRateWindowMs: number;
  playerCallsPerAddressMax: number;
  roundCallsPerLaunchMax: number;
}

export const DEFAULT_LIMITS: ProviderLimits = {
  bodyBytesMax: BODY_BYTES_MAX, // bytes: docs/protocol.md §9
  launchTokenTtlMs: 10 * 60_000, // ms: a launch key lives 10 minutes until first use
  sessionIdleMs: 30 * 60_000, // ms: the operator's session idle expiry
  operatorAnswerMsMax: 5_000, // ms: docs/protocol.md §9
  retryDelayMsMin: 500, // ms: docs/protocol.md §9
  retryDelayMsMax: 60_000, // ms: docs/protocol.md §9
  dispatchHorizonMs: 72 * 3600 * 1000, // ms: 72 h, a weekend's outage at an operator; the outbox's own DISPATCH_HORIZON_MS (retry-schedule.ts), which a test holds it to
  operatorInFlightMax: 64, // requests: the outbox's own OPERATOR_IN_FLIGHT_MAX (outbox.ts), which a test holds it to
  roundSettleMsMax: 20_000, // ms: a player waits this long at most, then the round is left pending
  // ms: a reload or a lost connection comes back well within 10 minutes; a player gone longer has left, and the round must not stay open for days
  roundCompletionMs: 10 * 60_000,
  refreshIntervalMs: 300_000, // ms: well inside a 30-minute session
  requestTimeoutMs: REQUEST_TIMEOUT_MS, // ms: docs/protocol.md §9
  shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, // ms: docs/protocol.md §9
  playerRateWindowMs: PLAYER_RATE_WINDOW_S * 1000, // ms: http/limits.ts
  playerCallsPerAddressMax: PLAYER_CALLS_PER_ADDRESS_MAX, // calls per window: http/limits.ts
  roundCallsPerLaunchMax: ROUND_CALLS_PER_LAUNCH_MAX, // calls per window: http/limits.ts
};

export interface OperatorSettings {
  operatorId: string;
  walletIds: string[];
  /** The current secret, then the next one during a rotation. */
  secrets: string[];
  ipWhitelist: string[];
  trustedProxies: string[];
  /** Base URL without a trailing slash. */
  endpoint: string;
  /** Origins of the operator's pages: they may frame the game page, which may call them (urls.refresh). */
  pageOrigins: string[];
  accessToken: string;
  currencies: string[];
}

interface GameSettingsOf<K extends GameKind, R> {
  slug: string;
  title: string;
  kind: K;
  rules: R;
  /** Ladders written in the config, minor units. */
  ladders: Map<string, bigint[]>;
  /** The currency whose ladder derives the others, if any. */
  baseLadder: string | undefined;
}

export type DiceGameSettings = GameSettingsOf<'dice', DiceRules>;

export interface ReelsGameSettings extends GameSettingsOf<'reels', ReelsRules> {
  /** What a jackpot pool starts from, and is reset to after a hit, per currency (minor units); a currency not written starts from 0. */
  jackpotSeeds: Map<string, bigint>;
}

export type GameSettings = DiceGameSettings | ReelsGameSettings;

export interface CampaignSettings {
  campaignId: string;
  operatorId: string;
  game: string;
  currency: string;
  betMinor: bigint;
  rounds: number;
  players: string[];
  expiresAt: number | null;
}

export interface ProviderConfig {
  host: string;
  port: number;
  publicBaseUrl: string;
  database: string;
  /** PostgreSQL: the schema of the provider's tables, made if missing; undefined: the URL's search_path. */
  databaseSchema: string | undefined;
  /** PostgreSQL: the pool and its time-outs (the operator's settings, read by the same code); unused on SQLite. */
  postgres: PostgresSettings;
  logLevel: string;
  launchTokenSecrets: string[];
  adminToken: string | undefined;
  /** Money limits of the staff roles per call and currency (access/limits.ts); default DEFAULT_STAFF_LIMITS. */
  staffLimits: StaffLimits;
  /** Seals the server seeds of rounds not yet played (seed-keyring.ts); its keys are shown nowhere. */
  seedKeys: SeedKeyring;
  /** Reads /metrics and nothing else; the admin token reads it too. */
  metricsToken: string | undefined;
  limits: ProviderLimits;
  currencies: Currencies;
  fun: { currency: string; balanceMinor: bigint };
  /** Units of each currency per unit of `base`. */
  exchangeRates: { base: string; rates: Map<string, Rational> } | undefined;
  operators: OperatorSettings[];
  games: GameSettings[];
  campaigns: CampaignSettings[];
  /** Settings that were given but mean nothing any more, each with what replaced it: `serve` logs each as a warning. */
  warnings: string[];
}

// --------------------------------------------------------------- resolving

const schemaCheck = compile(ProviderConfigSchema);

function fail(member: string, message: string): never {
  throw new ProviderConfigError(`${member}: ${message}`);
}

function decimalOf(member: string, value: string | number): Decimal {
  const decimal = typeof value === 'number' ? decimalFromNumber(value) : decimalFromString(value);
  if (!decimal) fail(member, `${JSON.stringify(value)} is not a non-negative decimal`);
  return decimal;
}

function minorOf(member: string, value: string | number, currency: string, decimals: number): bigint {
  const minor = toMinor(decimalOf(member, value), decimals);
  if (minor === undefined) fail(member, `${value} has more decimals than ${currency} allows (${decimals})`);
  if (minor > amountMinorMax(decimals)) fail(member, `${value} is over the amount limit`);
  return minor;
}

function rationalOf(member: string, value: string | number): Rational {
  const decimal = decimalOf(member, value);
  if (decimal.units === 0n) fail(member, 'must be greater than 0');
  return { num: decimal.units, den: 10n ** BigInt(decimal.scale) };
}

/** An origin as a Content-Security-Policy names one: http(s), a host, a port if not the default, and nothing after. */
function pageOrigin(member: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(member, `${text} is not an origin such as https://casino.example`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== text.replace(/\/$/, '').toLowerCase()) {
    fail(member, `${text} must be an origin, scheme://host[:port] with http or https and no path: ${url.origin}`);
  }
  if (url.hostname.startsWith('[')) fail(member, `${text}: a Content-Security-Policy cannot name an IPv6 address; use the pages' host name`);
  return url.origin;
}

function httpUrl(member: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(member, `${text} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(member, `${text} must be http or https`);
  if (url.search !== '' || url.hash !== '') fail(member, `${text} must not have a query or fragment`);
  return text.replace(/\/+$/, '');
}

function knownCurrency(member: string, code: string, currencies: Currencies): number {
  const decimals = currencies.decimals(code);
  if (decimals === undefined) fail(member, `${code} is not a known currency (ISO 4217, or a code of cryptoDecimals)`);
  return decimals;
}

function unique(member: string, values: readonly string[], what: string): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value)) fail(`${member}[${index}]`, `${what} ${value} appears twice`);
    seen.add(value);
  });
}

function rtpBpOf(member: string, value: string | number): number {
  const rtp = decimalOf(member, value);
  const bp = toMinor(rtp, 4);
  if (bp === undefined) fail(member, 'has more than 4 decimals (basis points)');
  if (bp < BigInt(RTP_BP_MIN) || bp > BigInt(RTP_BP_MAX)) {
    fail(member, `must be between ${RTP_BP_MIN / RTP_BP_SCALE} and ${RTP_BP_MAX / RTP_BP_SCALE}, got ${value}`);
  }
  return Number(bp);
}

/** A reels game's RTP, jackpot share and seeds, each checked against the game's bounds (src/game/reels.ts). */
function reelsRulesOf(member: string, game: Static<typeof GameSchema>, currencies: Currencies): Pick<ReelsGameSettings, 'rules' | 'jackpotSeeds'> {
  const rtp = toMinor(decimalOf(`${member}.rtp`, game.rtp), 4);
  if (rtp === undefined) fail(`${member}.rtp`, 'has more than 4 decimals (basis points)');
  if (rtp < BigInt(REELS_RTP_BP_MIN) || rtp > BigInt(RTP_BP_MAX)) {
    fail(`${member}.rtp`, `a reels game's rtp must be between ${REELS_RTP_BP_MIN / RTP_BP_SCALE} and ${RTP_BP_MAX / RTP_BP_SCALE}, got ${game.rtp}`);
  }
  const share = game.jackpot === undefined ? 0n : toMinor(decimalOf(`${member}.jackpot.share`, game.jackpot.share), 4);
  if (share === undefined) fail(`${member}.jackpot.share`, 'has more than 4 decimals (basis points)');
  if (share > BigInt(JACKPOT_BP_MAX)) {
    fail(`${member}.jackpot.share`, `must be at most ${JACKPOT_BP_MAX / RTP_BP_SCALE} of every bet, got ${game.jackpot!.share}`);
  }
  const jackpotSeeds = new Map<string, bigint>();
  for (const [code, amount] of Object.entries(game.jackpot?.seeds ?? {})) {
    const decimals = knownCurrency(`${member}.jackpot.seeds.${code}`, code, currencies);
    jackpotSeeds.set(code, minorOf(`${member}.jackpot.seeds.${code}`, amount, code, decimals));
  }
  return { rules: { rtpBp: Number(rtp), jackpotBp: Number(share) }, jackpotSeeds };
}

/**
 * The seed keyring of the config. Required: without it a server seed not
 * yet revealed would have to sit in the database as it is, where anyone
 * who reads the database could pick a client seed that wins (docs/games.md).
 */
function seedKeysOf(seedKeys: Static<typeof SeedKeysSchema> | undefined): SeedKeyring {
  if (seedKeys === undefined) {
    fail(
      'seedKeys',
      'is required: the server seeds of rounds not yet played are kept sealed under a key of this ring, outside the database; ' +
        'add e.g. "seedKeys": { "current": "k1", "keys": { "k1": "<the output of openssl rand -base64 32>" } } (docs/provider.md#configuration)',
    );
  }
  const entries = Object.entries(seedKeys.keys);
  if (entries.length === 0) fail('seedKeys.keys', 'needs at least the current key');
  if (entries.length > SEED_KEYS_MAX) fail('seedKeys.keys', `holds at most ${SEED_KEYS_MAX} keys: remove those no open round needs any more`);
  const keys = new Map<string, Buffer>();
  const idRe = new RegExp(SEED_KEY_ID_PATTERN);
  for (const [id, text] of entries) {
    if (!idRe.test(id)) fail(`seedKeys.keys.${id}`, 'a key id has 1 to 32 letters, digits, _ or -');
    const key = seedKeyBytes(text.trim());
    // The member is named, never its value: a config error may be printed or logged.
    if (key === undefined) fail(`seedKeys.keys.${id}`, 'must be 32 bytes as base64 (openssl rand -base64 32) or as 64 hex digits');
    keys.set(id, key);
  }
  if (!keys.has(seedKeys.current)) fail('seedKeys.current', `${seedKeys.current} is not a key of seedKeys.keys`);
  return new SeedKeyring(keys, seedKeys.current);
}

/** Checks a parsed config file and resolves it; throws ProviderConfigError naming the member at fault. */
/** The config's staffLimits: each role named replaces its defaults whole, as WAGERLINK_STAFF_LIMITS does on the operator. */
function staffLimitsOf(value: Record<string, Record<string, string>> | undefined): StaffLimits {
  if (value === undefined) return DEFAULT_STAFF_LIMITS;
  const problem = staffLimitsProblem(value, isRole);
  if (problem !== undefined) throw new ProviderConfigError(`staffLimits.${problem}`);
  return { ...DEFAULT_STAFF_LIMITS, ...value };
}

/** `limits.roundCompletionSeconds`, or its older name in minutes: one of the two, or the default. */
function roundCompletionMsOf(limitsIn: { roundCompletionSeconds?: number; roundCompletionMinutes?: number }): number {
  const { roundCompletionSeconds: seconds, roundCompletionMinutes: minutes } = limitsIn;
  if (seconds !== undefined && minutes !== undefined) fail('limits.roundCompletionMinutes', 'is roundCompletionSeconds in minutes: set one of the two');
  if (seconds !== undefined) return seconds * 1000;
  return minutes === undefined ? DEFAULT_LIMITS.roundCompletionMs : minutes * 60_000;
}

// eslint-disable-next-line max-lines-per-function -- reads each setting in the order of the config's table in docs/provider.md
export function resolveProviderConfig(input: unknown): ProviderConfig {
  const checked = schemaCheck.check(input);
  if (!checked.ok) throw new ProviderConfigError(checked.detail);
  const file = checked.value;
  const currencies = createCurrencies({ ...DEFAULT_CRYPTO_DECIMALS, ...(file.cryptoDecimals ?? {}) });

  const limitsIn = file.limits ?? {};
  const limits: ProviderLimits = {
    bodyBytesMax: limitsIn.bodyBytesMax ?? DEFAULT_LIMITS.bodyBytesMax,
    launchTokenTtlMs: (limitsIn.launchTokenTtlMinutes ?? DEFAULT_LIMITS.launchTokenTtlMs / 60_000) * 60_000,
    sessionIdleMs: (limitsIn.sessionIdleMinutes ?? DEFAULT_LIMITS.sessionIdleMs / 60_000) * 60_000,
    operatorAnswerMsMax: limitsIn.operatorAnswerMsMax ?? DEFAULT_LIMITS.operatorAnswerMsMax,
    retryDelayMsMin: limitsIn.retryDelayMsMin ?? DEFAULT_LIMITS.retryDelayMsMin,
    retryDelayMsMax: limitsIn.retryDelayMsMax ?? DEFAULT_LIMITS.retryDelayMsMax,
    dispatchHorizonMs: (limitsIn.dispatchHorizonSeconds ?? DEFAULT_LIMITS.dispatchHorizonMs / 1000) * 1000,
    operatorInFlightMax: limitsIn.operatorInFlightMax ?? DEFAULT_LIMITS.operatorInFlightMax,
    roundSettleMsMax: limitsIn.roundSettleMsMax ?? DEFAULT_LIMITS.roundSettleMsMax,
    roundCompletionMs: roundCompletionMsOf(limitsIn),
    refreshIntervalMs: (limitsIn.refreshIntervalSeconds ?? DEFAULT_LIMITS.refreshIntervalMs / 1000) * 1000,
    requestTimeoutMs: limitsIn.requestTimeoutMs ?? DEFAULT_LIMITS.requestTimeoutMs,
    shutdownTimeoutMs: limitsIn.shutdownTimeoutMs ?? DEFAULT_LIMITS.shutdownTimeoutMs,
    playerRateWindowMs: (limitsIn.playerRateWindowSeconds ?? DEFAULT_LIMITS.playerRateWindowMs / 1000) * 1000,
    playerCallsPerAddressMax: limitsIn.playerCallsPerAddressMax ?? DEFAULT_LIMITS.playerCallsPerAddressMax,
    roundCallsPerLaunchMax: limitsIn.roundCallsPerLaunchMax ?? DEFAULT_LIMITS.roundCallsPerLaunchMax,
  };
  if (limits.retryDelayMsMin > limits.retryDelayMsMax) fail('limits.retryDelayMsMin', 'must not exceed limits.retryDelayMsMax');

  const operators: OperatorSettings[] = file.operators.map((op, i) => {
    const member = `operators[${i}]`;
    op.ipWhitelist.forEach((entry, j) => {
      if (!parseRange(entry)) fail(`${member}.ipWhitelist[${j}]`, `${entry} is not an IP address or CIDR range`);
    });
    (op.trustedProxies ?? []).forEach((entry, j) => {
      if (!parseRange(entry)) fail(`${member}.trustedProxies[${j}]`, `${entry} is not an IP address or CIDR range`);
    });
    op.currencies.forEach((code, j) => knownCurrency(`${member}.currencies[${j}]`, code, currencies));
    unique(`${member}.currencies`, op.currencies, 'currency');
    return {
      operatorId: op.operatorId,
      walletIds: [...op.walletIds],
      secrets: op.secretNext === undefined ? [op.secret] : [op.secret, op.secretNext],
      ipWhitelist: [...op.ipWhitelist],
      trustedProxies: [...(op.trustedProxies ?? [])],
      endpoint: httpUrl(`${member}.endpoint`, op.endpoint),
      pageOrigins: (op.pageOrigins ?? []).map((text, j) => pageOrigin(`${member}.pageOrigins[${j}]`, text)),
      accessToken: op.accessToken,
      currencies: [...op.currencies],
    };
  });
  unique(
    'operators',
    operators.map((op) => op.operatorId),
    'operatorId',
  );
  // A walletId names one operator integration: the same id under two operators would be ambiguous.
  const walletOwners = new Map<string, string>();
  operators.forEach((op, i) =>
    op.walletIds.forEach((walletId, j) => {
      const owner = walletOwners.get(walletId);
      if (owner !== undefined) fail(`operators[${i}].walletIds[${j}]`, `${walletId} is already a wallet of operator ${owner}`);
      walletOwners.set(walletId, op.operatorId);
    }),
  );

  let exchangeRates: ProviderConfig['exchangeRates'];
  if (file.exchangeRates) {
    knownCurrency('exchangeRates.base', file.exchangeRates.base, currencies);
    const rates = new Map<string, Rational>([[file.exchangeRates.base, { num: 1n, den: 1n }]]);
    for (const [code, rate] of Object.entries(file.exchangeRates.rates)) {
      knownCurrency(`exchangeRates.rates.${code}`, code, currencies);
      rates.set(code, rationalOf(`exchangeRates.rates.${code}`, rate));
    }
    exchangeRates = { base: file.exchangeRates.base, rates };
  }

  const games: GameSettings[] = file.games.map((game, i) => {
    const member = `games[${i}]`;
    const ladders = new Map<string, bigint[]>();
    for (const [code, amounts] of Object.entries(game.ladders)) {
      const decimals = knownCurrency(`${member}.ladders.${code}`, code, currencies);
      const minor = amounts.map((amount, j) => minorOf(`${member}.ladders.${code}[${j}]`, amount, code, decimals));
      const problem = checkLadder(minor, decimals);
      if (problem) {
        const why = {
          'not-positive': 'must be greater than 0',
          'not-ascending': 'must be greater than the amount before it',
          'too-large': 'is over the amount limit',
        };
        fail(`${member}.ladders.${code}[${problem.index}]`, why[problem.problem]);
      }
      ladders.set(code, minor);
    }
    if (ladders.size === 0) fail(`${member}.ladders`, 'needs at least one currency');
    // /game/assets/* serves the page's files.
    if (game.slug === 'assets') fail(`${member}.slug`, '"assets" is reserved');
    if (game.baseLadder !== undefined) {
      if (!ladders.has(game.baseLadder)) fail(`${member}.baseLadder`, `${game.baseLadder} has no ladder in ${member}.ladders`);
      if (!exchangeRates) fail(`${member}.baseLadder`, 'deriving ladders needs exchangeRates');
      if (!exchangeRates.rates.has(game.baseLadder)) fail(`${member}.baseLadder`, `exchangeRates has no rate for ${game.baseLadder}`);
    }
    const common = { slug: game.slug, title: game.title, ladders, baseLadder: game.baseLadder };
    if ((game.kind ?? 'dice') === 'dice') {
      if (game.volatility === undefined) fail(`${member}.volatility`, `a dice game needs one of ${VOLATILITIES.join(', ')}`);
      if (game.jackpot !== undefined) fail(`${member}.jackpot`, 'only a reels game has a jackpot');
      return { ...common, kind: 'dice', rules: { rtpBp: rtpBpOf(`${member}.rtp`, game.rtp), volatility: game.volatility as Volatility } };
    }
    if (game.volatility !== undefined) fail(`${member}.volatility`, 'a reels game has no volatility setting: its volatility is its paytable (docs/games.md)');
    return { ...common, kind: 'reels', ...reelsRulesOf(member, game, currencies) };
  });
  unique(
    'games',
    games.map((game) => game.slug),
    'slug',
  );

  const funIn = file.fun ?? { currency: 'EUR', balance: '1000' };
  const funDecimals = knownCurrency('fun.currency', funIn.currency, currencies);
  const fun = { currency: funIn.currency, balanceMinor: minorOf('fun.balance', funIn.balance, funIn.currency, funDecimals) };

  // Campaigns follow the rules of POST /admin/campaigns: a free round is played on the game's ladder in that currency.
  const catalog = new Catalog({ games, currencies, exchangeRates });
  const campaigns: CampaignSettings[] = (file.campaigns ?? []).map((campaign, i) => {
    const member = `campaigns[${i}]`;
    const operator = operators.find((op) => op.operatorId === campaign.operatorId);
    if (!operator) fail(`${member}.operatorId`, `${campaign.operatorId} is not a configured operator`);
    if (!games.some((game) => game.slug === campaign.game)) fail(`${member}.game`, `${campaign.game} is not a configured game`);
    const decimals = knownCurrency(`${member}.currency`, campaign.currency, currencies);
    const ladder = catalog.offeredLadder(campaign.game, campaign.currency, operator);
    if (!ladder) fail(`${member}.currency`, noLadderDetail(campaign.game, campaign.currency, campaign.operatorId));
    const betMinor = minorOf(`${member}.betAmount`, campaign.betAmount, campaign.currency, decimals);
    if (betMinor === 0n) fail(`${member}.betAmount`, 'must be greater than 0');
    if (!ladder.includes(betMinor))
      fail(`${member}.betAmount`, offLadderDetail(String(campaign.betAmount).trim(), campaign.game, campaign.currency, ladder, decimals));
    return {
      campaignId: campaign.id.toLowerCase(),
      operatorId: campaign.operatorId,
      game: campaign.game,
      currency: campaign.currency,
      betMinor,
      rounds: campaign.rounds,
      players: [...new Set(campaign.players)],
      expiresAt: campaign.expiresAt === undefined ? null : Date.parse(campaign.expiresAt),
    };
  });
  unique(
    'campaigns',
    campaigns.map((c) => c.campaignId),
    'id',
  );
  if (file.databaseSchema !== undefined) {
    if (!isPostgresUrl(file.database)) fail('databaseSchema', 'a schema needs a postgres:// database');
    const problem = schemaNameProblem(file.databaseSchema);
    if (problem) fail('databaseSchema', problem);
  }

  return {
    host: file.host ?? '127.0.0.1',
    port: file.port ?? 8090,
    publicBaseUrl: httpUrl('publicBaseUrl', file.publicBaseUrl),
    database: file.database,
    databaseSchema: file.databaseSchema,
    postgres: readPostgresSettings({
      value: (key) => file.postgres?.[key],
      name: (key) => `postgres.${key}`,
      error: (message) => new ProviderConfigError(message),
    }),
    logLevel: file.logLevel ?? 'info',
    launchTokenSecrets: [file.launchTokenSecret, ...(file.launchTokenSecretPrevious === undefined ? [] : [file.launchTokenSecretPrevious])],
    adminToken: file.adminToken,
    staffLimits: staffLimitsOf(file.staffLimits),
    seedKeys: seedKeysOf(file.seedKeys),
    metricsToken: file.metricsToken,
    limits,
    currencies,
    fun,
    exchangeRates,
    operators,
    games,
    campaigns,
    warnings: [
      ...Object.entries(RETIRED_LIMITS)
        .filter(([name]) => Object.hasOwn(limitsIn, name))
        .map(([name, why]) => `limits.${name} is no longer read: ${why}`),
      ...operators
        .filter((op) => op.pageOrigins.length === 0)
        .map((op) => `operators[${op.operatorId}].pageOrigins is empty: no page of this operator may frame the game page, and its urls.refresh is not called`),
    ],
  };
}

/** Parses config text; numbers a double cannot hold exactly are refused, as on the wire. */
export function parseProviderConfig(text: string): ProviderConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ProviderConfigError(`the config is not valid JSON: ${(error as Error).message}`);
  }
  const inexact = inexactNumbers(text);
  if (inexact.length > 0) {
    throw new ProviderConfigError(`the number ${inexact[0]} has more than ${SIGNIFICANT_DIGITS_MAX} significant digits: write it as a string`);
  }
  return resolveProviderConfig(value);
}

export function readProviderConfig(path: string): ProviderConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ProviderConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseProviderConfig(text);
  } catch (error) {
    if (error instanceof ProviderConfigError) throw new ProviderConfigError(`${path}: ${error.message}`);
    throw error;
  }
}
