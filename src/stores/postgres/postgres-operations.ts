/**
 * How the PostgreSQL store carries out each operation of the table in
 * operations.ts that its methods hand on as they are: a typed handler per
 * operation. The hot ones (operations.ts: hot) queue for the group
 * batcher (hot-batcher.ts), which runs them in batches through
 * PostgresLedger.applyBatch; the others are one database transaction of the
 * ledger's own. verify and ping are the store's own methods
 * (postgres-store.ts), and the write probe is ping's (write-probe.ts). The
 * compiler holds this table to the operations table: an operation without
 * a handler, or a handler whose types differ from its entry's, does not
 * build.
 */
import type { DerivedOperationName, OperationArgs, OperationOutcome } from '../operations.js';
import type { CallSignal } from './call-deadlines.js';
import type { HotBatcher } from './hot-batcher.js';
import type { HotCall, HotResult, PostgresLedger } from './postgres-ledger.js';

/** What a handler runs on. */
export interface PostgresHandlerContext {
  readonly ledger: PostgresLedger;
  readonly batcher: HotBatcher<HotCall, HotResult>;
}

/**
 * Carries one call out. `signal` aborts when the caller stops waiting: a
 * hot call still queued is then dropped (HotBatcher.submit).
 */
export type PostgresHandler<K extends DerivedOperationName> = (
  context: PostgresHandlerContext,
  args: OperationArgs[K],
  signal: CallSignal,
) => Promise<OperationOutcome[K]>;

export const POSTGRES_OPERATIONS: { [K in DerivedOperationName]: PostgresHandler<K> } = {
  transact: ({ batcher }, command, signal) => batcher.submit({ kind: 'transact', command }, signal),
  payout: ({ batcher }, command, signal) => batcher.submit({ kind: 'payout', command }, signal),
  authenticate: ({ ledger }, command) => ledger.authenticate(command),
  createPlayer: ({ ledger }, command) => ledger.createPlayer(command),
  getPlayer: ({ ledger }, playerId) => ledger.getPlayer(playerId),
  createLaunchKey: ({ ledger }, command) => ledger.createLaunchKey(command),
  adjust: ({ ledger }, command) => ledger.adjust(command),
  setBlocked: ({ ledger }, command) => ledger.setBlocked(command),
  listRounds: ({ ledger }, page) => ledger.listRounds(page),
  listTransfers: ({ ledger }, page) => ledger.listTransfers(page),
};
