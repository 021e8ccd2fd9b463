/**
 * What a wallet store of either backend takes besides where its database
 * is. Only types live here, so that naming them loads no database driver.
 * PostgreSQL's pool and time-outs are the platform's
 * (src/platform/postgres/settings.ts), shared with the provider's store.
 */

import type { RulesConfig } from '../ledger/rules.js';

/** Each backend names its own defaults. */
export interface StoreOptions {
  rules?: RulesConfig;
  /** Decimals of the crypto currencies the wallet holds (protocol/money.ts). */
  cryptoDecimals?: Record<string, number>;
  /**
   * Calls in flight at once in this process; past this the store answers 503
   * at once instead of queueing without bound (INFLIGHT_CALLS_MAX of each
   * backend: a few seconds of its work).
   */
  inflightCallsMax?: number;
  /** /transaction and /payout calls that share one commit (group commit); BATCH_CALLS_MAX of each backend. */
  batchCallsMax?: number;
}
