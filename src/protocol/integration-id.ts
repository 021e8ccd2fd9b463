/**
 * What names an integration, the studio calling the wallet (docs/protocol.md
 * §2.6): its id's form, and the id of the one the single-integration
 * environment variables make. Here, below both the access rules and the
 * wallet rules, since each judges by it.
 */

/** An integration's id: plain, short, fit for a URL path, a CLI argument and a log line. */
export const INTEGRATION_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';

/** The integration the single-integration environment variables make (WAGERLINK_SECRET, WAGERLINK_ACCESS_TOKENS): never stored. */
export const ENV_INTEGRATION_ID = 'default';
