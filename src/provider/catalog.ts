/**
 * The games on offer and their bet ladders per currency: the ladder written
 * in the config, or one derived from the game's base ladder (ladders.ts).
 * Derived ladders are computed once per game and currency; both sets are
 * bounded by the config and the known currencies.
 */
import { formatMinor, type Currencies } from '../protocol/money.js';
import { convertNice, deriveLadder, type Rational } from './ladders.js';

/**
 * What the catalog reads of a game. The config's game settings
 * (config-games.ts) are one; the config builds a catalog to check its own
 * campaigns, so the catalog names only what it needs and imports nothing of
 * the config.
 */
export interface CatalogGame {
  slug: string;
  /** Ladders written in the config, minor units. */
  ladders: Map<string, bigint[]>;
  /** The currency whose ladder derives the others, if any. */
  baseLadder: string | undefined;
}

/** What the catalog is built from: the games, the known currencies, and the rates that derive ladders. */
export interface CatalogSource<G extends CatalogGame> {
  games: readonly G[];
  currencies: Currencies;
  exchangeRates: { base: string; rates: Map<string, Rational> } | undefined;
}

export class Catalog<G extends CatalogGame = CatalogGame> {
  private readonly games: Map<string, G>;
  private readonly derived = new Map<string, bigint[] | null>();
  private readonly currencies: Currencies;
  private readonly rates: CatalogSource<G>['exchangeRates'];

  constructor(config: CatalogSource<G>) {
    this.games = new Map(config.games.map((game) => [game.slug, game]));
    this.currencies = config.currencies;
    this.rates = config.exchangeRates;
  }

  game(slug: string): G | undefined {
    return this.games.get(slug);
  }

  slugs(): string[] {
    return [...this.games.keys()];
  }

  decimals(currency: string): number | undefined {
    return this.currencies.decimals(currency);
  }

  /** The ladder of a game in a currency (minor units, strictly ascending), or undefined if it has none. */
  ladder(slug: string, currency: string): readonly bigint[] | undefined {
    const game = this.games.get(slug);
    if (!game) return undefined;
    const written = game.ladders.get(currency);
    if (written) return written;
    const key = `${slug}\u0000${currency}`;
    const cached = this.derived.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const made = this.derive(game, currency);
    this.derived.set(key, made ?? null);
    return made;
  }

  /**
   * The ladder an operator's players bet on for a game in a currency: none
   * if the operator does not offer the currency (docs/protocol.md §8), as
   * /game-bets answers it and as a free-bet campaign must be played.
   */
  offeredLadder(slug: string, currency: string, operator: { currencies: readonly string[] }): readonly bigint[] | undefined {
    if (!operator.currencies.includes(currency) || this.currencies.decimals(currency) === undefined) return undefined;
    return this.ladder(slug, currency);
  }

  /**
   * An amount (minor units) of `from` in `to`, as a derived ladder's step
   * is converted (ladders.ts: at the configured rates, to the nearest nice
   * amount); the amount itself in its own currency. Undefined without a
   * rate for either currency, or past the amount limit of `to`.
   */
  converted(amount: bigint, from: string, to: string): bigint | undefined {
    if (from === to) return amount;
    const ratio = this.ratio(from, to);
    if (!ratio) return undefined;
    return amount === 0n ? 0n : convertNice(amount, ratio.fromDecimals, ratio, ratio.toDecimals);
  }

  /** Units of `to` per unit of `from` (major), with both currencies' decimals; undefined without a rate or decimals for either. */
  private ratio(from: string, to: string): (Rational & { fromDecimals: number; toDecimals: number }) | undefined {
    const fromRate = this.rates?.rates.get(from);
    const toRate = this.rates?.rates.get(to);
    const fromDecimals = this.currencies.decimals(from);
    const toDecimals = this.currencies.decimals(to);
    if (!fromRate || !toRate || fromDecimals === undefined || toDecimals === undefined) return undefined;
    // to units per from unit = rate(to) / rate(from)
    return { num: toRate.num * fromRate.den, den: toRate.den * fromRate.num, fromDecimals, toDecimals };
  }

  private derive(game: G, currency: string): bigint[] | undefined {
    if (game.baseLadder === undefined) return undefined;
    const ratio = this.ratio(game.baseLadder, currency);
    const baseLadder = game.ladders.get(game.baseLadder);
    if (!ratio || !baseLadder) return undefined;
    const ladder = deriveLadder(baseLadder, ratio.fromDecimals, ratio, ratio.toDecimals);
    return ladder.length > 0 ? ladder : undefined;
  }
}

/** What fun mode plays with: the config's play money, a balance in one currency. */
export interface PlayMoney {
  currency: string;
  balanceMinor: bigint;
}

/**
 * The play money a fun session starts with in `currency` (minor units):
 * the config's balance in its own currency, else that balance converted as
 * a derived ladder's step is (1000 EUR at 1.08 is 1000 USD, at 160 is
 * 200000 JPY). Undefined when it cannot be converted: the provider has no
 * rate for the currency.
 */
export function playMoneyIn(fun: PlayMoney, catalog: Pick<Catalog, 'converted'>, currency: string): bigint | undefined {
  return catalog.converted(fun.balanceMinor, fun.currency, currency);
}

/** Why a game's amounts in a currency cannot be bet by an operator's players: the refusal's detail. */
export function noLadderDetail(slug: string, currency: string, operatorId: string): string {
  return `game ${slug} has no bet ladder for ${currency} at operator ${operatorId}`;
}

/** An amount that is not on a ladder, and the amounts that are: the refusal's detail, after the member's name. */
export function offLadderDetail(amount: string, slug: string, currency: string, ladder: readonly bigint[], decimals: number): string {
  return `${amount} is not on the ${slug} ${currency} bet ladder (${ladder.map((step) => formatMinor(step, decimals)).join(', ')})`;
}

/**
 * What a fun launch plays with (docs/protocol.md §8.1): in the currency it
 * names, which the game must have bets in at the operator, as a real
 * launch's must, with the play money converted into it; naming none, in
 * the config's play-money currency. A text says why it cannot be played:
 * the detail of 422 UNSUPPORTED_CURRENCY.
 */
export function funPlay(
  catalog: Pick<Catalog, 'ladder' | 'offeredLadder' | 'converted'>,
  fun: PlayMoney,
  operator: { operatorId: string; currencies: readonly string[] },
  game: string,
  named: string | undefined,
): PlayMoney | string {
  if (named === undefined) {
    return catalog.ladder(game, fun.currency) ? fun : `game ${game} has no bet ladder for the play-money currency ${fun.currency}`;
  }
  if (!catalog.offeredLadder(game, named, operator)) return noLadderDetail(game, named, operator.operatorId);
  const balanceMinor = playMoneyIn(fun, catalog, named);
  return balanceMinor === undefined
    ? `the provider holds no play money in ${named}: it has no exchange rate from ${fun.currency} to it`
    : { currency: named, balanceMinor };
}
