/**
 * Answers of the HTTP layer, before any endpoint sees a request, are
 * problem+json with registered codes too (docs/protocol.md §1.1, §1.4,
 * §3.1): a path that does not exist is 404 NOT_FOUND, and a method other
 * than POST on an endpoint of the interface is 405 METHOD_NOT_ALLOWED.
 */
import { call, gameBets, providerCases, refusal } from './define.js';

export const ERRORS_CASES = providerCases('errors', [
  {
    id: 'unknown-path',
    title: 'a POST to a path that does not exist is answered 404 NOT_FOUND as problem+json',
    clause: 'docs/protocol.md §1.1',
    steps: [call('POST a signed body to /no-such-endpoint', '/no-such-endpoint', (ctx) => gameBets(ctx), refusal('NOT_FOUND'))],
  },
  {
    id: 'get-game-bets',
    title: 'a GET of /game-bets is answered 405 METHOD_NOT_ALLOWED as problem+json: the interface takes POST only',
    clause: 'docs/protocol.md §1.1',
    steps: [call('GET /game-bets', '/game-bets', () => '', refusal('METHOD_NOT_ALLOWED'), { method: 'GET' })],
  },
]);
