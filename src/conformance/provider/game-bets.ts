/**
 * /game-bets (docs/protocol.md §8.2): the ladder of each game in each
 * currency asked for, one member per game and per currency, amounts
 * strictly ascending and exact in the currency's decimals, written as
 * docs/protocol.md §4.4 writes amounts; and its refusals, all or nothing,
 * in the order of checks: wallet, games, currencies.
 */
import { minorOfToken } from '../check.js';
import type { KeptAnswer, ProviderContext, ProviderExpect } from './model.js';
import {
  bets,
  type CaseSpec,
  detailNames,
  gameBets,
  providerCases,
  refusal,
  UNKNOWN_GAME,
  UNKNOWN_OPERATOR,
  UNKNOWN_WALLET,
  UNOFFERED_CURRENCY,
} from './define.js';

/** docs/protocol.md §4.4: digits, at most one point, no exponent, no trailing zeros after the point. */
const EXACT_NUMBER = /^(0|[1-9]\d*)(\.\d*[1-9])?$/;

/** The number tokens of a JSON text, in order, as written (strings skipped). */
function numberTokens(text: string): string[] {
  const tokens: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      const match = /^-?[0-9][0-9.eE+-]*/.exec(text.slice(i, i + 64))!;
      tokens.push(match[0]);
      i += match[0].length - 1;
    }
  }
  return tokens;
}

/**
 * Why a 200 of /game-bets is not the ladders of `games` in `currencies`: a
 * member per game (once each), a member per currency, each a non-empty
 * array of amounts, strictly ascending, exact in the currency's decimals
 * and written exactly. Amounts are read from the answer's number text,
 * never through a double.
 */
function ladderProblems(answer: KeptAnswer, ctx: ProviderContext, games: readonly string[], currencies: readonly string[]): string[] {
  const body = answer.body!;
  const problems: string[] = [];
  const wantedGames = [...new Set(games)];
  const wantedCurrencies = [...new Set(currencies)];
  const gamesGot = Object.keys(body);
  if (gamesGot.length !== wantedGames.length || wantedGames.some((game) => !gamesGot.includes(game))) {
    return [`the answer's games are ${JSON.stringify(gamesGot)}, not one member for each of ${JSON.stringify(wantedGames)} (docs/protocol.md §8.2)`];
  }
  // The tokens come in the order of the text; member order is that of the text too, unless a name is an array index.
  const tokens = numberTokens(answer.text);
  let next = 0;
  for (const game of gamesGot) {
    const byCurrency = body[game];
    if (byCurrency === null || typeof byCurrency !== 'object' || Array.isArray(byCurrency)) {
      problems.push(`${game} is ${JSON.stringify(byCurrency)}, not an object of ladders by currency (docs/protocol.md §8.2)`);
      continue;
    }
    const currenciesGot = Object.keys(byCurrency);
    if (currenciesGot.length !== wantedCurrencies.length || wantedCurrencies.some((currency) => !currenciesGot.includes(currency))) {
      problems.push(
        `${game}'s currencies are ${JSON.stringify(currenciesGot)}, not one member for each of ${JSON.stringify(wantedCurrencies)} (docs/protocol.md §8.2)`,
      );
    }
    for (const currency of currenciesGot) {
      const ladder = (byCurrency as Record<string, unknown>)[currency];
      if (!Array.isArray(ladder) || ladder.length === 0) {
        problems.push(`${game} ${currency} is ${JSON.stringify(ladder)}, not a non-empty array of amounts (docs/protocol.md §8.2)`);
        next += Array.isArray(ladder) ? ladder.filter((each) => typeof each === 'number').length : typeof ladder === 'number' ? 1 : 0;
        continue;
      }
      if (!ladder.every((each) => typeof each === 'number')) {
        problems.push(`${game} ${currency}: ${JSON.stringify(ladder)} holds something that is not a JSON number (docs/protocol.md §4.1)`);
        next += ladder.filter((each) => typeof each === 'number').length;
        continue;
      }
      const decimals = wantedCurrencies.includes(currency) ? ctx.decimals(currency) : 0;
      const written = tokens.slice(next, next + ladder.length);
      next += ladder.length;
      let previous: bigint | undefined;
      for (const token of written) {
        const minor = minorOfToken(token, decimals);
        if (minor === undefined || minor <= 0n) {
          problems.push(
            `${game} ${currency}: ${token} is not an amount of ${currency} greater than 0 with at most ${decimals} decimals (docs/protocol.md §4.2)`,
          );
          break;
        }
        if (!EXACT_NUMBER.test(token)) {
          problems.push(
            `${game} ${currency}: ${token} is not written exactly: digits, one point at most, no exponent, no trailing zeros (docs/protocol.md §4.4)`,
          );
          break;
        }
        if (previous !== undefined && minor <= previous) {
          problems.push(`${game} ${currency}: ${written.join(', ')} is not strictly ascending (docs/protocol.md §8.2)`);
          break;
        }
        previous = minor;
      }
    }
  }
  return problems;
}

const ladders = (games: (ctx: ProviderContext) => readonly string[], currencies: (ctx: ProviderContext) => readonly string[]): ProviderExpect => ({
  status: 200,
  check: (answer, ctx) => ladderProblems(answer, ctx, games(ctx), currencies(ctx)),
});

export const GAME_BETS_CASES = providerCases('game-bets', [
  {
    id: 'ladders',
    title: "the ladder of the game in each currency: one member each, strictly ascending, exact in the currency's decimals",
    clause: 'docs/protocol.md §8.2',
    steps: [
      bets(
        "ask for the game in the target's currencies",
        (ctx) => gameBets(ctx),
        ladders(
          (ctx) => [ctx.game()],
          (ctx) => ctx.currencies(),
        ),
      ),
    ],
  },
  ...[0, 1, 2].map((index): CaseSpec => ({
    id: `ladder-currency-${index + 1}`,
    title: `the ladder in the target's ${['first', 'second', 'third'][index]} currency alone, exact in its decimals`,
    clause: 'docs/protocol.md §4.4',
    needs: index === 0 ? [] : [index === 1 ? 'currencies-2' : 'currencies-3'],
    steps: [
      bets(
        `ask for the game in currency ${index + 1} alone`,
        (ctx) => gameBets(ctx, { currencies: [ctx.currencies()[index]] }),
        ladders(
          (ctx) => [ctx.game()],
          (ctx) => [ctx.currencies()[index]!],
        ),
      ),
    ],
  })),
  {
    id: 'repeated',
    title: 'a game and a currency named twice appear once each',
    clause: 'docs/protocol.md §8.2',
    steps: [
      bets(
        'ask for the game twice in its first currency twice',
        (ctx) => gameBets(ctx, { games: [ctx.game(), ctx.game()], currencies: [ctx.currencies()[0], ctx.currencies()[0]] }),
        ladders(
          (ctx) => [ctx.game()],
          (ctx) => [ctx.currencies()[0]!],
        ),
      ),
    ],
  },
  {
    id: 'unknown-game',
    title: 'an unknown game is refused with 404 GAME_NOT_FOUND naming it',
    clause: 'docs/protocol.md §8.2',
    steps: [
      bets(
        'ask for the game and one no provider offers',
        (ctx) => gameBets(ctx, { games: [ctx.game(), UNKNOWN_GAME] }),
        refusal(
          'GAME_NOT_FOUND',
          detailNames(() => UNKNOWN_GAME, 'docs/protocol.md §8.2: listing them'),
        ),
      ),
    ],
  },
  {
    id: 'unknown-wallet',
    title: 'a walletId not registered to the operator is refused with 404 WALLET_NOT_FOUND',
    clause: 'docs/protocol.md §8.2',
    steps: [bets('ask with a wallet the provider never issued', (ctx) => gameBets(ctx, { walletId: UNKNOWN_WALLET }), refusal('WALLET_NOT_FOUND'))],
  },
  {
    id: 'unoffered-currency',
    title: `a currency without a ladder (${UNOFFERED_CURRENCY}) is refused with 422 UNSUPPORTED_CURRENCY naming it, even beside one that has a ladder: all or nothing`,
    clause: 'docs/protocol.md §8.2',
    steps: [
      bets(
        `ask for the game in the target's first currency and ${UNOFFERED_CURRENCY}`,
        (ctx) => gameBets(ctx, { currencies: [ctx.currencies()[0], UNOFFERED_CURRENCY] }),
        refusal(
          'UNSUPPORTED_CURRENCY',
          detailNames(() => UNOFFERED_CURRENCY, 'docs/protocol.md §8.2: listing each game and currency'),
        ),
      ),
    ],
  },
  {
    id: 'wallet-before-game',
    title: 'an unknown wallet and an unknown game together are refused for the wallet: the order of checks',
    clause: 'docs/protocol.md §8.2',
    steps: [
      bets(
        'ask for an unknown game with an unknown wallet',
        (ctx) => gameBets(ctx, { walletId: UNKNOWN_WALLET, games: [UNKNOWN_GAME] }),
        refusal('WALLET_NOT_FOUND'),
      ),
    ],
  },
  {
    id: 'game-before-currency',
    title: 'an unknown game and a currency without a ladder together are refused for the game: the order of checks',
    clause: 'docs/protocol.md §8.2',
    steps: [
      bets(
        `ask for an unknown game in ${UNOFFERED_CURRENCY}`,
        (ctx) => gameBets(ctx, { games: [UNKNOWN_GAME], currencies: [UNOFFERED_CURRENCY] }),
        refusal('GAME_NOT_FOUND'),
      ),
    ],
  },
  {
    id: 'signer-before-wallet',
    title: 'an operator that did not sign and an unknown wallet together are refused 401 INVALID_SIGNATURE: the wallet is not looked at',
    clause: 'docs/protocol.md §8.2',
    steps: [
      bets(
        "ask with another operator's id and an unknown wallet",
        (ctx) => gameBets(ctx, { operatorId: UNKNOWN_OPERATOR, walletId: UNKNOWN_WALLET }),
        refusal('INVALID_SIGNATURE'),
      ),
    ],
  },
]);
