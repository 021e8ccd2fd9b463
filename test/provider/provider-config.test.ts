/**
 * Proves the provider's config file: examples/provider.json is complete,
 * valid and pairs with the operator's documented local set-up
 * (examples/operator.env); defaults apply where members are left out; and
 * every kind of mistake is refused with a message that names the member.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '../../src/provider/config-limits.js';
import { OPERATOR_IN_FLIGHT_LIMIT_MAX, ROUND_COMPLETION_SECONDS_MAX, PLAYER_CALLS_LIMIT_MAX } from '../../src/provider/config-schema.js';
import { ProviderConfigError } from '../../src/provider/config-values.js';
import { parseProviderConfig, readProviderConfig, resolveProviderConfig } from '../../src/provider/provider-config.js';
import { PLAYER_CALLS_PER_ADDRESS_MAX, PLAYER_RATE_WINDOW_S, ROUND_CALLS_PER_LAUNCH_MAX } from '../../src/http/limits.js';
import { tempDir } from '../helpers.js';
import { EXAMPLE_CONFIG_URL, exampleConfigFile, type ConfigFile } from './provider-helpers.js';
import { roundSchedule } from '../../src/provider/round-delivery.js';
import { DISPATCH_SCHEDULE } from '../../src/dispatch/retry-schedule.js';
import { OPERATOR_IN_FLIGHT_MAX } from '../../src/dispatch/outbox.js';
import { DEFAULT_POSTGRES_SETTINGS } from '../../src/platform/postgres/settings.js';

function operatorEnv(): Record<string, string> {
  const text = readFileSync(new URL('../../../examples/operator.env', import.meta.url), 'utf8');
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

test('examples/provider.json is valid and pairs with examples/operator.env', () => {
  const config = readProviderConfig(EXAMPLE_CONFIG_URL.pathname);
  const env = operatorEnv();
  const [operator] = config.operators;
  assert.ok(operator);
  assert.equal(operator.secrets[0], env.WAGERLINK_SECRET);
  assert.ok(env.WAGERLINK_ACCESS_TOKENS?.split(',').includes(operator.accessToken));
  assert.equal(operator.endpoint, `http://${env.WAGERLINK_HOST}:${env.WAGERLINK_PORT}`);
  assert.equal(operator.operatorId, env.WAGERLINK_OPERATOR_ID);
  assert.ok(operator.walletIds.includes(env.WAGERLINK_WALLET_ID!));
  assert.equal(env.WAGERLINK_PROVIDER_URL, `http://${config.host}:${config.port}`);
  assert.equal(config.publicBaseUrl, env.WAGERLINK_PROVIDER_URL);
  assert.ok(operator.ipWhitelist.includes('127.0.0.1'));
  // The operator's README plays "dice"; the example offers it.
  assert.ok(config.games.some((game) => game.slug === 'dice'));
  // The second game: rounds of several calls, with a jackpot seeded per currency.
  const reels = config.games.find((game) => game.slug === 'reels');
  assert.equal(reels?.kind, 'reels');
  assert.deepEqual(reels.rules, { rtpBp: 9_600, jackpotBp: 100 });
  assert.equal(reels.jackpotSeeds.get('EUR'), 10_000n);
  assert.equal(config.limits.roundCompletionMs, 10 * 60_000);
});

test('left-out members take their defaults', () => {
  const file = exampleConfigFile();
  delete file.limits;
  delete file.host;
  delete file.port;
  delete file.fun;
  delete file.logLevel;
  const config = resolveProviderConfig(file);
  assert.deepEqual(config.limits, DEFAULT_LIMITS);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8090);
  assert.deepEqual(config.fun, { currency: 'EUR', balanceMinor: 100_000n });
});

test('a retired limit is accepted, read as nothing, and named in a warning with what replaced it', () => {
  const file = exampleConfigFile();
  file.limits = { ...(file.limits as object), outboxIntervalSeconds: 30 };
  const config = resolveProviderConfig(file);
  assert.equal(config.warnings.length, 1);
  assert.match(config.warnings[0]!, /^limits\.outboxIntervalSeconds is no longer read: rounds are delivered by the durable outbox/);
  assert.deepEqual(config.limits, resolveProviderConfig(exampleConfigFile()).limits);
  assert.deepEqual(resolveProviderConfig(exampleConfigFile()).warnings, []);
});

test('an operator without pageOrigins is named in a warning: no page of its may frame the game', () => {
  const file = exampleConfigFile();
  delete file.operators[0]!.pageOrigins;
  const config = resolveProviderConfig(file);
  assert.deepEqual(config.operators[0]!.pageOrigins, []);
  assert.equal(config.warnings.length, 1);
  assert.match(config.warnings[0]!, /^operators\[local-demo-operator\]\.pageOrigins is empty: no page of this operator may frame the game page/);
  assert.deepEqual(resolveProviderConfig(exampleConfigFile()).operators[0]!.pageOrigins, ['http://127.0.0.1:8080', 'http://localhost:8080']);
});

const MISTAKES: [string, (file: ConfigFile) => void, RegExp][] = [
  ['a missing member', (f) => delete f.publicBaseUrl, /^publicBaseUrl: is required/],
  ['a missing operator secret', (f) => delete f.operators[0]!.secret, /^operators\[0\]\.secret: is required/],
  [
    'a whitelist entry that is no address',
    (f) => (f.operators[0]!.ipWhitelist as string[]).push('nope'),
    /^operators\[0\]\.ipWhitelist\[2\]: nope is not an IP address or CIDR range/,
  ],
  ['a bad CIDR range', (f) => (f.operators[0]!.ipWhitelist = ['10.0.0.0/40']), /^operators\[0\]\.ipWhitelist\[0\]:/],
  [
    'a page origin with a path',
    (f) => (f.operators[0]!.pageOrigins = ['https://casino.example/lobby']),
    /^operators\[0\]\.pageOrigins\[0\]: https:\/\/casino\.example\/lobby must be an origin/,
  ],
  [
    'a page origin that is no URL',
    (f) => (f.operators[0]!.pageOrigins = ['casino.example']),
    /^operators\[0\]\.pageOrigins\[0\]: casino\.example is not an origin/,
  ],
  ['a page origin of another scheme', (f) => (f.operators[0]!.pageOrigins = ['ftp://casino.example']), /^operators\[0\]\.pageOrigins\[0\]:/],
  ['a page origin naming an IPv6 address', (f) => (f.operators[0]!.pageOrigins = ['http://[::1]:8080']), /^operators\[0\]\.pageOrigins\[0\]: .*IPv6/],
  ['a trusted proxy that is no address', (f) => (f.operators[0]!.trustedProxies = ['proxy.local']), /^operators\[0\]\.trustedProxies\[0\]:/],
  ['an endpoint that is not http(s)', (f) => (f.operators[0]!.endpoint = 'ftp://127.0.0.1'), /^operators\[0\]\.endpoint: .* must be http or https/],
  ['an endpoint that is not a URL', (f) => (f.operators[0]!.endpoint = 'localhost:8080/x y'), /^operators\[0\]\.endpoint:/],
  ['an unknown currency', (f) => (f.operators[0]!.currencies = ['EUR', 'XYZ']), /^operators\[0\]\.currencies\[1\]: XYZ is not a known currency/],
  [
    'a duplicate operatorId',
    (f) => f.operators.push({ ...f.operators[0]!, walletIds: ['w2'] }),
    /^operators\[1\]: operatorId local-demo-operator appears twice/,
  ],
  [
    'a walletId under two operators',
    (f) => f.operators.push({ ...f.operators[0]!, operatorId: 'second' }),
    /^operators\[1\]\.walletIds\[0\]: local-demo-wallet is already a wallet of operator local-demo-operator/,
  ],
  [
    'a ladder amount with too many decimals',
    (f) => ((f.games[0]!.ladders as Record<string, unknown[]>).EUR![2] = '0.015'),
    /^games\[0\]\.ladders\.EUR\[2\]: 0\.015 has more decimals than EUR allows \(2\)/,
  ],
  [
    'a ladder that does not ascend',
    (f) => ((f.games[0]!.ladders as Record<string, unknown[]>).EUR = ['1', '0.5']),
    /^games\[0\]\.ladders\.EUR\[1\]: must be greater than the amount before it/,
  ],
  [
    'a ladder amount of zero',
    (f) => ((f.games[0]!.ladders as Record<string, unknown[]>).EUR = [0, 1]),
    /^games\[0\]\.ladders\.EUR\[0\]: must be greater than 0/,
  ],
  ['a ladder amount that is no decimal', (f) => ((f.games[0]!.ladders as Record<string, unknown[]>).EUR = ['1,50']), /^games\[0\]\.ladders\.EUR\[0\]:/],
  [
    'a ladder in an unknown currency',
    (f) => ((f.games[0]!.ladders as Record<string, unknown[]>).ABC = ['1']),
    /^games\[0\]\.ladders\.ABC: ABC is not a known currency/,
  ],
  ['an RTP above 1', (f) => (f.games[0]!.rtp = '1.2'), /^games\[0\]\.rtp: must be between 0\.5 and 1/],
  ['an RTP with more than basis points', (f) => (f.games[0]!.rtp = 0.97123), /^games\[0\]\.rtp: has more than 4 decimals/],
  ['an unknown volatility', (f) => (f.games[0]!.volatility = 'wild'), /^games\[0\]\.volatility:/],
  ['a base ladder the game does not have', (f) => (f.games[0]!.baseLadder = 'GBP'), /^games\[0\]\.baseLadder: GBP has no ladder/],
  ['a base ladder without exchange rates', (f) => delete f.exchangeRates, /^games\[0\]\.baseLadder: deriving ladders needs exchangeRates/],
  ['a duplicate slug', (f) => (f.games[1]!.slug = 'dice'), /^games\[1\]: slug dice appears twice/],
  ['the reserved slug', (f) => (f.games[1]!.slug = 'assets'), /^games\[1\]\.slug: "assets" is reserved/],
  [
    'a zero exchange rate',
    (f) => ((f.exchangeRates as { rates: Record<string, unknown> }).rates.USD = '0'),
    /^exchangeRates\.rates\.USD: must be greater than 0/,
  ],
  [
    'a campaign of an unknown game',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.game = 'poker'),
    /^campaigns\[0\]\.game: poker is not a configured game/,
  ],
  [
    'a campaign of an unknown operator',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.operatorId = 'nobody'),
    /^campaigns\[0\]\.operatorId: nobody is not a configured operator/,
  ],
  ['a campaign id that is no UUID', (f) => ((f.campaigns as Record<string, unknown>[])[0]!.id = 'free-1'), /^campaigns\[0\]\.id:/],
  ['a campaign expiresAt of "1"', (f) => ((f.campaigns as Record<string, unknown>[])[0]!.expiresAt = '1'), /^campaigns\[0\]\.expiresAt:/],
  [
    'a campaign expiresAt in month 13',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.expiresAt = '2026-13-01T00:00:00Z'),
    /^campaigns\[0\]\.expiresAt:/,
  ],
  ['a campaign expiresAt of "tomorrow"', (f) => ((f.campaigns as Record<string, unknown>[])[0]!.expiresAt = 'tomorrow'), /^campaigns\[0\]\.expiresAt:/],
  [
    'a campaign expiresAt on February 30',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.expiresAt = '2026-02-30T00:00:00Z'),
    /^campaigns\[0\]\.expiresAt:/,
  ],
  [
    'a campaign expiresAt without an offset',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.expiresAt = '2026-12-01T00:00:00'),
    /^campaigns\[0\]\.expiresAt:/,
  ],
  [
    'a campaign in a currency the game has no ladder for',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.currency = 'NOK'),
    /^campaigns\[0\]\.currency: game dice has no bet ladder for NOK at operator local-demo-operator$/,
  ],
  [
    'a campaign in a currency the operator does not offer',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.currency = 'CHF'),
    /^campaigns\[0\]\.currency: game dice has no bet ladder for CHF at operator local-demo-operator$/,
  ],
  [
    'a campaign bet that is not on the ladder',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.betAmount = '0.30'),
    /^campaigns\[0\]\.betAmount: 0\.30 is not on the dice EUR bet ladder \(0\.1, 0\.2, 0\.5, 1, 2, 5, 10, 20, 50, 100\)$/,
  ],
  [
    'a campaign bet above the largest on the ladder',
    (f) => ((f.campaigns as Record<string, unknown>[])[0]!.betAmount = 500),
    /^campaigns\[0\]\.betAmount: 500 is not on the dice EUR bet ladder/,
  ],
  ['a short launch-token secret', (f) => (f.launchTokenSecret = 'short'), /^launchTokenSecret:/],
  ['no seed keys', (f) => delete f.seedKeys, /^seedKeys: is required: the server seeds of rounds not yet played are kept sealed .*openssl rand -base64 32/],
  [
    'a seed key of 31 bytes',
    (f) => (f.seedKeys = { current: 'k', keys: { k: Buffer.alloc(31, 7).toString('base64') } }),
    /^seedKeys\.keys\.k: must be 32 bytes as base64/,
  ],
  [
    'a seed key that is not base64 or hex',
    (f) => (f.seedKeys = { current: 'k', keys: { k: 'correct horse battery staple, forty-three!!' } }),
    /^seedKeys\.keys\.k: must be 32 bytes/,
  ],
  [
    'a current seed key not in the ring',
    (f) => (f.seedKeys = { current: 'new', keys: { old: Buffer.alloc(32, 1).toString('hex') } }),
    /^seedKeys\.current: new is not a key of seedKeys\.keys$/,
  ],
  [
    'a seed key id with a dot',
    (f) => (f.seedKeys = { current: 'k.1', keys: { 'k.1': Buffer.alloc(32, 1).toString('hex') } }),
    /^seedKeys\.current: must be a key id/,
  ],
  [
    'more seed keys than a ring holds',
    (f) => (f.seedKeys = { current: 'k0', keys: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, Buffer.alloc(32, i).toString('base64')])) }),
    /^seedKeys\.keys: holds at most 16 keys/,
  ],
  [
    'back-off bounds the wrong way round',
    (f) => (f.limits = { retryDelayMsMin: 5000, retryDelayMsMax: 1000 }),
    /^limits\.retryDelayMsMin: must not exceed limits\.retryDelayMsMax/,
  ],
  ['a limit of zero', (f) => (f.limits = { operatorAnswerMsMax: 0 }), /^limits\.operatorAnswerMsMax:/],
  [
    'a fun balance with too many decimals',
    (f) => (f.fun = { currency: 'JPY', balance: '10.5' }),
    /^fun\.balance: 10\.5 has more decimals than JPY allows \(0\)/,
  ],
  ['no games', (f) => (f.games = []), /^games:/],
  ['a dice game without a volatility', (f) => delete f.games[0]!.volatility, /^games\[0\]\.volatility: a dice game needs one of low, medium, high$/],
  ['a dice game with a jackpot', (f) => (f.games[0]!.jackpot = { share: '0.01' }), /^games\[0\]\.jackpot: only a reels game has a jackpot$/],
  ['an unknown game kind', (f) => (f.games[2]!.kind = 'poker'), /^games\[2\]\.kind:/],
  ['a reels game with a volatility', (f) => (f.games[2]!.volatility = 'high'), /^games\[2\]\.volatility: a reels game has no volatility setting/],
  ['a reels RTP below its floor', (f) => (f.games[2]!.rtp = '0.75'), /^games\[2\]\.rtp: a reels game's rtp must be between 0\.8 and 1, got 0\.75$/],
  [
    'a jackpot share above 5 %',
    (f) => (f.games[2]!.jackpot = { share: '0.06' }),
    /^games\[2\]\.jackpot\.share: must be at most 0\.05 of every bet, got 0\.06$/,
  ],
  ['a jackpot share finer than basis points', (f) => (f.games[2]!.jackpot = { share: '0.00001' }), /^games\[2\]\.jackpot\.share: has more than 4 decimals/],
  [
    'a jackpot seed in an unknown currency',
    (f) => (f.games[2]!.jackpot = { share: '0.01', seeds: { ABC: '1' } }),
    /^games\[2\]\.jackpot\.seeds\.ABC: ABC is not a known currency/,
  ],
  [
    'a jackpot seed with too many decimals',
    (f) => (f.games[2]!.jackpot = { share: '0.01', seeds: { JPY: '1.5' } }),
    /^games\[2\]\.jackpot\.seeds\.JPY: 1\.5 has more decimals than JPY allows \(0\)/,
  ],
];

for (const [name, mistake, message] of MISTAKES) {
  test(`refused, naming the member: ${name}`, () => {
    const file = exampleConfigFile();
    mistake(file);
    assert.throws(
      () => resolveProviderConfig(file),
      (error: Error) => error instanceof ProviderConfigError && message.test(error.message),
      `expected ${message}`,
    );
  });
}

test('campaigns: a bet on a derived ladder, and an expiresAt already past, are accepted', () => {
  const file = exampleConfigFile();
  const [first] = file.campaigns as Record<string, unknown>[];
  (file.campaigns as Record<string, unknown>[]).push({ ...first, id: '5b0c7a52-2d1e-4c55-9c1a-7f0e3c2b9a11', currency: 'JPY', betAmount: '2500' });
  // Past: the campaign offers nothing, but a config that started the server before that moment still starts it.
  first!.expiresAt = '2020-01-01T00:00:00.000+01:00';
  const config = resolveProviderConfig(file);
  assert.equal(config.campaigns[0]!.expiresAt, Date.parse('2019-12-31T23:00:00Z'));
  assert.equal(config.campaigns[1]!.betMinor, 2500n);
});

test('numbers a double cannot hold exactly are refused; text that is not JSON is refused', () => {
  const text = JSON.stringify(exampleConfigFile()).replace('"rtp":"0.97"', '"rtp":0.97000000000000001');
  assert.throws(() => parseProviderConfig(text), /more than 15 significant digits/);
  assert.throws(() => parseProviderConfig('{"port": 80'), /not valid JSON/);
});

test('a file error names the file', () => {
  const { dir, cleanup } = tempDir();
  try {
    assert.throws(() => readProviderConfig(join(dir, 'missing.json')), /cannot read .*missing\.json/);
    const path = join(dir, 'bad.json');
    const file = exampleConfigFile();
    file.operators[0]!.ipWhitelist = ['256.0.0.1'];
    writeFileSync(path, JSON.stringify(file));
    assert.throws(
      () => readProviderConfig(path),
      (error: Error) => error.message.startsWith(`${path}: operators[0].ipWhitelist[0]:`),
    );
  } finally {
    cleanup();
  }
});

test('dispatchHorizonSeconds sets the outbox horizon of every kind; operatorInFlightMax is bounded; databaseSchema needs PostgreSQL and a plain name', () => {
  const file = exampleConfigFile();
  file.limits = { ...(file.limits as object), dispatchHorizonSeconds: 90 };
  const config = resolveProviderConfig(file);
  assert.equal(config.limits.dispatchHorizonMs, 90_000);
  assert.deepEqual(roundSchedule(config).horizonMs, { bet: 90_000, win: 90_000, payout: 90_000 });
  assert.deepEqual(roundSchedule(resolveProviderConfig(exampleConfigFile())).horizonMs, DISPATCH_SCHEDULE.horizonMs, "the default is the protocol schedule's");
  file.limits = { ...(file.limits as object), dispatchHorizonSeconds: 0 };
  assert.throws(() => resolveProviderConfig(file), ProviderConfigError);

  assert.equal(
    resolveProviderConfig(exampleConfigFile()).limits.operatorInFlightMax,
    OPERATOR_IN_FLIGHT_MAX,
    "the operator's in-flight limit defaults to the outbox's",
  );
  for (const refused of [0, OPERATOR_IN_FLIGHT_LIMIT_MAX + 1]) {
    assert.throws(() => resolveProviderConfig({ ...exampleConfigFile(), limits: { operatorInFlightMax: refused } }), /operatorInFlightMax/);
  }

  const onPostgres = { ...exampleConfigFile(), database: 'postgres://db.internal/wagerlink', databaseSchema: 'provider_eu' };
  assert.equal(resolveProviderConfig(onPostgres).databaseSchema, 'provider_eu');
  assert.throws(
    () => resolveProviderConfig({ ...onPostgres, databaseSchema: 'Provider-EU' }),
    /databaseSchema: "Provider-EU" must be 1 to 63 lower-case letters/,
  );
  assert.throws(() => resolveProviderConfig({ ...onPostgres, database: 'provider.db' }), /databaseSchema: a schema needs a postgres:\/\/ database/);
  assert.equal(resolveProviderConfig(exampleConfigFile()).databaseSchema, undefined);
});

test('roundCompletionSeconds sets the completion time in seconds; roundCompletionMinutes is its older name; a config sets one of the two', () => {
  const withLimits = (limits: Record<string, number>) => {
    const file = exampleConfigFile();
    const { roundCompletionSeconds: _seconds, roundCompletionMinutes: _minutes, ...others } = file.limits as Record<string, number>;
    file.limits = { ...others, ...limits };
    return file;
  };
  assert.equal(resolveProviderConfig(withLimits({ roundCompletionSeconds: 45 })).limits.roundCompletionMs, 45_000);
  assert.equal(resolveProviderConfig(withLimits({ roundCompletionMinutes: 2 })).limits.roundCompletionMs, 120_000);
  assert.equal(resolveProviderConfig(withLimits({})).limits.roundCompletionMs, DEFAULT_LIMITS.roundCompletionMs);
  assert.throws(
    () => resolveProviderConfig(withLimits({ roundCompletionSeconds: 60, roundCompletionMinutes: 1 })),
    /limits\.roundCompletionMinutes: is roundCompletionSeconds in minutes: set one of the two/,
  );
  for (const refused of [0, 1.5, ROUND_COMPLETION_SECONDS_MAX + 1]) {
    assert.throws(() => resolveProviderConfig(withLimits({ roundCompletionSeconds: refused })), /limits\.roundCompletionSeconds/);
  }
  assert.equal(
    resolveProviderConfig(withLimits({ roundCompletionSeconds: ROUND_COMPLETION_SECONDS_MAX })).limits.roundCompletionMs,
    ROUND_COMPLETION_SECONDS_MAX * 1000,
  );
});

test("the game pages' call limits: defaults, set in limits, and bounded", () => {
  const defaults = resolveProviderConfig(exampleConfigFile()).limits;
  assert.deepEqual(
    { window: defaults.playerRateWindowMs, perAddress: defaults.playerCallsPerAddressMax, perLaunch: defaults.roundCallsPerLaunchMax },
    { window: PLAYER_RATE_WINDOW_S * 1000, perAddress: PLAYER_CALLS_PER_ADDRESS_MAX, perLaunch: ROUND_CALLS_PER_LAUNCH_MAX },
  );
  const file = exampleConfigFile();
  file.limits = { ...(file.limits as object), playerRateWindowSeconds: 60, playerCallsPerAddressMax: 7, roundCallsPerLaunchMax: PLAYER_CALLS_LIMIT_MAX };
  const set = resolveProviderConfig(file).limits;
  assert.deepEqual([set.playerRateWindowMs, set.playerCallsPerAddressMax, set.roundCallsPerLaunchMax], [60_000, 7, PLAYER_CALLS_LIMIT_MAX]);
  for (const [member, refused] of [
    ['playerCallsPerAddressMax', 0],
    ['roundCallsPerLaunchMax', PLAYER_CALLS_LIMIT_MAX + 1],
    ['playerRateWindowSeconds', 0],
  ] as const) {
    assert.throws(() => resolveProviderConfig({ ...exampleConfigFile(), limits: { [member]: refused } }), new RegExp(`limits\\.${member}`));
  }
});

test("postgres takes the operator's pool and time-outs, checked by the same rule, each left out taking the operator's default", () => {
  assert.deepEqual(resolveProviderConfig(exampleConfigFile()).postgres, DEFAULT_POSTGRES_SETTINGS);
  const onPostgres = { ...exampleConfigFile(), database: 'postgres://db.internal/wagerlink' };
  const set = resolveProviderConfig({ ...onPostgres, postgres: { poolSize: 12, statementTimeoutMs: 750, idleTimeoutS: 30, connectTimeoutS: 1 } });
  assert.deepEqual(set.postgres, { poolSize: 12, statementTimeoutMs: 750, idleTimeoutS: 30, connectTimeoutS: 1 });
  assert.deepEqual(resolveProviderConfig({ ...onPostgres, postgres: { poolSize: 2 } }).postgres, { ...DEFAULT_POSTGRES_SETTINGS, poolSize: 2 });
  for (const [key, value] of [
    ['poolSize', 0],
    ['statementTimeoutMs', -5],
    ['idleTimeoutS', 1.5],
    ['connectTimeoutS', 2 ** 60],
  ] as const) {
    assert.throws(
      () => resolveProviderConfig({ ...onPostgres, postgres: { [key]: value } }),
      (error: Error) => error instanceof ProviderConfigError && error.message.startsWith(`postgres.${key} must be a positive whole number`),
      `${key}=${value}`,
    );
  }
  assert.throws(() => resolveProviderConfig({ ...onPostgres, postgres: { poolSize: '4' } }), ProviderConfigError, 'numbers, as JSON writes them');
  assert.throws(() => resolveProviderConfig({ ...onPostgres, postgres: { pool: 4 } }), ProviderConfigError, 'an unknown setting is a mistake');
});
