/**
 * The games of the provider's config: each one's ladders per currency, in
 * minor units and checked as a ladder must be (ladders.ts), the ladder
 * the others derive from and the exchange rates that derive them, and its
 * kind's rules within the game's bounds (src/game); and the money of fun
 * play. No slug twice.
 */
import { RTP_BP_MAX, RTP_BP_SCALE, VOLATILITIES, type DiceRules, type Volatility } from '../game/dice.js';
import { JACKPOT_BP_MAX, REELS_RTP_BP_MIN, type ReelsRules } from '../game/reels.js';
import { toMinor, type Currencies } from '../protocol/money.js';
import type { GameKind, ProviderConfigFile } from './config-schema.js';
import { decimalOf, fail, knownCurrency, minorOf, rationalOf, rtpBpOf, unique } from './config-values.js';
import { checkLadder, type Rational } from './ladders.js';

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

/** Units of each currency per unit of `base`. */
export interface ExchangeRates {
  base: string;
  rates: Map<string, Rational>;
}

type GameFile = ProviderConfigFile['games'][number];

/** The config's `exchangeRates`, its base at 1; undefined when it has none. */
export function exchangeRatesOf(ratesIn: ProviderConfigFile['exchangeRates'], currencies: Currencies): ExchangeRates | undefined {
  if (!ratesIn) return undefined;
  knownCurrency('exchangeRates.base', ratesIn.base, currencies);
  const rates = new Map<string, Rational>([[ratesIn.base, { num: 1n, den: 1n }]]);
  for (const [code, rate] of Object.entries(ratesIn.rates)) {
    knownCurrency(`exchangeRates.rates.${code}`, code, currencies);
    rates.set(code, rationalOf(`exchangeRates.rates.${code}`, rate));
  }
  return { base: ratesIn.base, rates };
}

/** The config's `games`, each read for meaning, then checked against each other. */
export function gamesOf(gamesIn: readonly GameFile[], currencies: Currencies, exchangeRates: ExchangeRates | undefined): GameSettings[] {
  const games = gamesIn.map((game, i) => gameOf(`games[${i}]`, game, currencies, exchangeRates));
  unique(
    'games',
    games.map((game) => game.slug),
    'slug',
  );
  return games;
}

function gameOf(member: string, game: GameFile, currencies: Currencies, exchangeRates: ExchangeRates | undefined): GameSettings {
  const ladders = laddersOf(member, game, currencies);
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
}

/** A game's ladders, in minor units, each a ladder by checkLadder's rules. */
function laddersOf(member: string, game: GameFile, currencies: Currencies): Map<string, bigint[]> {
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
  return ladders;
}

/** A reels game's RTP, jackpot share and seeds, each checked against the game's bounds (src/game/reels.ts). */
function reelsRulesOf(member: string, game: GameFile, currencies: Currencies): Pick<ReelsGameSettings, 'rules' | 'jackpotSeeds'> {
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

/** The play money of fun launches: the config's `fun`, or 1000 EUR. */
export function funOf(funIn: ProviderConfigFile['fun'], currencies: Currencies): { currency: string; balanceMinor: bigint } {
  const { currency, balance } = funIn ?? { currency: 'EUR', balance: '1000' };
  const decimals = knownCurrency('fun.currency', currency, currencies);
  return { currency, balanceMinor: minorOf('fun.balance', balance, currency, decimals) };
}
