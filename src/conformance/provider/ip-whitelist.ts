/**
 * The IP whitelist of /generate-launch-url (docs/protocol.md §2.5), as far
 * as the kit can check it from an address the provider admits: the
 * caller's address is the TCP peer's, so an X-Forwarded-For header from a
 * peer that is not a trusted proxy changes nothing. A refusal (403
 * IP_NOT_ALLOWED) needs a call from an address the provider does not admit:
 * docs/conformance.md says how to check it by hand.
 */
import { launch, LAUNCHED, providerCases, realLaunch } from './define.js';

/** An address of the documentation range (RFC 5737): on no whitelist. */
const FOREIGN_ADDRESS = '203.0.113.7';

export const IP_WHITELIST_CASES = providerCases('ip-whitelist', [
  {
    id: 'forwarded-for-untrusted',
    title: 'X-Forwarded-For from a peer that is not a trusted proxy is ignored: a whitelisted caller naming another address is still admitted',
    clause: 'docs/protocol.md §2.5',
    steps: [launch(`launch with X-Forwarded-For: ${FOREIGN_ADDRESS}`, (ctx) => realLaunch(ctx), LAUNCHED, { headers: (h) => ({ ...h, 'x-forwarded-for': FOREIGN_ADDRESS }) })],
  },
]);
