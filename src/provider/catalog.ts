/**
 * The games on offer and their bet ladders per currency: the ladder written
 * in the config, or one derived from the game's base ladder (ladders.ts).
 * Derived ladders are computed once per game and currency; both sets are
 * bounded by the config and the known currencies.
 */
import { formatMinor, type Currencies } from '../protocol/money.js';
import { deriveLadder, type Rational } from './ladders.js';

/**
 * What the catalog reads of a game. The config's game settings
 * (provider-config.ts) are one; the config builds a catalog to check its own
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

  private derive(game: G, currency: string): bigint[] | undefined {
    if (game.baseLadder === undefined || !this.rates) return undefined;
    const targetDecimals = this.currencies.decimals(currency);
    const target = this.rates.rates.get(currency);
    const base = this.rates.rates.get(game.baseLadder);
    const baseLadder = game.ladders.get(game.baseLadder);
    const baseDecimals = this.currencies.decimals(game.baseLadder);
    if (targetDecimals === undefined || !target || !base || !baseLadder || baseDecimals === undefined) return undefined;
    // target units per base-ladder unit = rate(target) / rate(base currency)
    const ratio = { num: target.num * base.den, den: target.den * base.num };
    const ladder = deriveLadder(baseLadder, baseDecimals, ratio, targetDecimals);
    return ladder.length > 0 ? ladder : undefined;
  }
}

/** Why a game's amounts in a currency cannot be bet by an operator's players: the refusal's detail. */
export function noLadderDetail(slug: string, currency: string, operatorId: string): string {
  return `game ${slug} has no bet ladder for ${currency} at operator ${operatorId}`;
}

/** An amount that is not on a ladder, and the amounts that are: the refusal's detail, after the member's name. */
export function offLadderDetail(amount: string, slug: string, currency: string, ladder: readonly bigint[], decimals: number): string {
  return `${amount} is not on the ${slug} ${currency} bet ladder (${ladder.map((step) => formatMinor(step, decimals)).join(', ')})`;
}
