/**
 * The IP whitelist of /generate-launch-url (docs/protocol.md §2.5). From an
 * address the provider admits: the caller's address is the TCP peer's, so
 * an X-Forwarded-For header from a peer that is not a trusted proxy changes
 * nothing. From an address it does not admit (a run with
 * --outside-whitelist, the `outside-whitelist` need): a launch signed and
 * formed as well as any is refused 403 IP_NOT_ALLOWED, and /game-bets,
 * which has no address rule, still answers.
 */
import { bets, launch, LAUNCHED, providerCases, realLaunch } from './define.js';

/** An address of the documentation range (RFC 5737): on no whitelist. */
const FOREIGN_ADDRESS = '203.0.113.7';

export const IP_WHITELIST_CASES = providerCases('ip-whitelist', [
  {
    id: 'forwarded-for-untrusted',
    title: 'X-Forwarded-For from a peer that is not a trusted proxy is ignored: a whitelisted caller naming another address is still admitted',
    clause: 'docs/protocol.md §2.5',
    steps: [
      launch(`launch with X-Forwarded-For: ${FOREIGN_ADDRESS}`, (ctx) => realLaunch(ctx), LAUNCHED, {
        headers: (h) => ({ ...h, 'x-forwarded-for': FOREIGN_ADDRESS }),
      }),
    ],
  },
  {
    id: 'refused-outside',
    title: 'a well-formed, correctly signed launch from an address the whitelist does not admit is refused 403 IP_NOT_ALLOWED',
    clause: 'docs/protocol.md §2.5',
    needs: ['outside-whitelist'],
    steps: [launch('launch from outside the whitelist', (ctx) => realLaunch(ctx), { status: 403, code: 'IP_NOT_ALLOWED' })],
  },
  {
    id: 'game-bets-outside',
    title: '/game-bets has no address rule: it answers a caller outside the whitelist',
    clause: 'docs/protocol.md §2.5',
    needs: ['outside-whitelist'],
    steps: [
      bets(
        'game-bets from outside the whitelist',
        (ctx) => ({ walletId: ctx.walletId(), operatorId: ctx.operatorId(), games: [ctx.game()], currencies: [...ctx.currencies()] }),
        { status: 200 },
      ),
    ],
  },
]);
