/**
 * /generate-launch-url (docs/protocol.md §8.1): real and fun launches
 * answer an absolute URL that opens the game (a GET answers 200 with HTML),
 * the same request twice answers twice, the URL never carries the secret,
 * a launch in a currency the game has bets in opens and one in a currency
 * it has none in is refused before any page opens, and each rule has its
 * refusal in the order of checks: the game before the wallet.
 */
import { detailNames, funLaunch, LAUNCHED, launch, providerCases, realLaunch, refusal, UNKNOWN_GAME, UNKNOWN_WALLET, UNOFFERED_CURRENCY } from './define.js';

const GAME_LISTED = detailNames((ctx) => ctx.game(), 'docs/protocol.md §8.1: the detail of GAME_NOT_FOUND lists the games');
const CURRENCY_NAMED = detailNames(() => UNOFFERED_CURRENCY, 'docs/protocol.md §8.1: the refusal names the game and the currency');

export const LAUNCH_URL_CASES = providerCases('launch-url', [
  {
    id: 'real',
    title: 'a real-mode launch answers 200 with an absolute URL, which opens the game page',
    clause: 'docs/protocol.md §8.1',
    steps: [
      launch('launch the game in real mode', (ctx) => realLaunch(ctx), LAUNCHED, { keep: 'launch' }),
      { kind: 'open', say: 'open the launch URL as a browser does', answer: 'launch' },
    ],
  },
  {
    id: 'fun',
    title: 'a fun-mode launch needs no wallet, operator, key or country, and its URL opens the game page',
    clause: 'docs/protocol.md §8.1',
    steps: [
      launch('launch the game in fun mode', (ctx) => funLaunch(ctx), LAUNCHED, { keep: 'launch' }),
      { kind: 'open', say: 'open the launch URL as a browser does', answer: 'launch' },
    ],
  },
  {
    id: 'with-urls',
    title: 'a launch with urls.lobby, urls.refresh and urls.deposit answers 200',
    clause: 'docs/protocol.md §8.1',
    steps: [
      launch(
        "launch with the casino's lobby, refresh and deposit addresses",
        (ctx) =>
          realLaunch(ctx, {
            language: 'de-CH',
            urls: { lobby: 'https://casino.example/lobby', refresh: 'https://casino.example/session/refresh', deposit: 'http://casino.example/deposit' },
          }),
        LAUNCHED,
      ),
    ],
  },
  {
    id: 'twice',
    title: 'the same request sent twice is answered 200 twice, each with a URL that opens',
    clause: 'docs/protocol.md §3.3',
    steps: [
      launch('launch in real mode', (ctx) => realLaunch(ctx, { key: 'conformance-kit-same-key' }), LAUNCHED, { keep: 'first' }),
      launch('send the same bytes again', (ctx) => realLaunch(ctx, { key: 'conformance-kit-same-key' }), LAUNCHED, { keep: 'second' }),
      { kind: 'open', say: 'open the second launch URL', answer: 'second' },
    ],
  },
  {
    id: 'secret-not-in-url',
    title: "the launch URL does not carry the operator's secret",
    clause: 'docs/protocol.md §8.1',
    steps: [
      launch('launch in real mode', (ctx) => realLaunch(ctx), {
        status: 200,
        check: (answer, ctx) => {
          return ctx.holdsSecret(String(answer.body?.url)) ? ["the launch URL holds the operator's secret (docs/protocol.md §2.2, §8.1)"] : [];
        },
      }),
    ],
  },
  {
    id: 'currency',
    title: 'a launch naming a currency the game has bets in answers 200, in real and in fun mode, and each URL opens the game page',
    clause: 'docs/protocol.md §8.1',
    steps: [
      launch('launch in real mode in the first currency of the game', (ctx) => realLaunch(ctx, { currency: ctx.currencies()[0] }), LAUNCHED, { keep: 'real' }),
      { kind: 'open', say: 'open the real launch URL', answer: 'real' },
      launch('launch in fun mode in the same currency', (ctx) => funLaunch(ctx, { currency: ctx.currencies()[0] }), LAUNCHED, { keep: 'fun' }),
      { kind: 'open', say: 'open the fun launch URL', answer: 'fun' },
    ],
  },
  {
    id: 'currency-unoffered',
    title: `a launch naming a currency the game has no bets in (${UNOFFERED_CURRENCY}) is refused with 422 UNSUPPORTED_CURRENCY naming it, in real and in fun mode, before any page opens`,
    clause: 'docs/protocol.md §8.1',
    steps: [
      launch(
        `launch in real mode in ${UNOFFERED_CURRENCY}`,
        (ctx) => realLaunch(ctx, { currency: UNOFFERED_CURRENCY }),
        refusal('UNSUPPORTED_CURRENCY', CURRENCY_NAMED),
      ),
      launch(
        `launch in fun mode in ${UNOFFERED_CURRENCY}`,
        (ctx) => funLaunch(ctx, { currency: UNOFFERED_CURRENCY }),
        refusal('UNSUPPORTED_CURRENCY', CURRENCY_NAMED),
      ),
    ],
  },
  {
    id: 'unknown-game',
    title: 'a launch of a game the provider does not offer is refused with 404 GAME_NOT_FOUND, listing the games',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch a game no provider offers', (ctx) => realLaunch(ctx, { game: UNKNOWN_GAME }), refusal('GAME_NOT_FOUND', GAME_LISTED))],
  },
  {
    id: 'unknown-game-fun',
    title: 'a fun launch of a game the provider does not offer is refused with 404 GAME_NOT_FOUND',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch a game no provider offers, in fun mode', (ctx) => funLaunch(ctx, { game: UNKNOWN_GAME }), refusal('GAME_NOT_FOUND', GAME_LISTED))],
  },
  {
    id: 'unknown-wallet',
    title: 'a walletId not registered to the operator is refused with 404 WALLET_NOT_FOUND',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch for a wallet the provider never issued', (ctx) => realLaunch(ctx, { walletId: UNKNOWN_WALLET }), refusal('WALLET_NOT_FOUND'))],
  },
  {
    id: 'unknown-wallet-fun',
    title: 'a fun launch naming a walletId not registered to the operator is refused with 404 WALLET_NOT_FOUND: whenever present, it is checked',
    clause: 'docs/protocol.md §8.1',
    steps: [
      launch('launch in fun mode for a wallet the provider never issued', (ctx) => funLaunch(ctx, { walletId: UNKNOWN_WALLET }), refusal('WALLET_NOT_FOUND')),
    ],
  },
  {
    id: 'game-before-wallet',
    title: 'an unknown game and an unknown wallet together are refused for the game: the order of checks',
    clause: 'docs/protocol.md §8.1',
    steps: [
      launch(
        'launch an unknown game for an unknown wallet',
        (ctx) => realLaunch(ctx, { game: UNKNOWN_GAME, walletId: UNKNOWN_WALLET }),
        refusal('GAME_NOT_FOUND'),
      ),
    ],
  },
  {
    id: 'members-before-game',
    title: 'a malformed member and an unknown game together are refused for the member (400 before 404)',
    clause: 'docs/protocol.md §8.1',
    steps: [launch('launch an unknown game with country "de"', (ctx) => realLaunch(ctx, { game: UNKNOWN_GAME, country: 'de' }), refusal('INVALID_REQUEST'))],
  },
]);
