/**
 * How the PostgreSQL store carries out each operation of the table in
 * operations.ts that its methods hand on as they are ('forward'): a typed
 * handler per operation, which the store's one-line method of the same name
 * runs (postgres-store.ts, call). The hot ones (operations.ts: hot) queue for the group
 * batcher (hot-batcher.ts), which runs them in batches through
 * LedgerTransfers.applyBatch (ledger-transfers.ts); the others are one database transaction of the
 * ledger's own. verify and ping are the store's own methods
 * (postgres-store.ts), and the write probe is ping's (write-probe.ts). The
 * compiler holds this table to the operations table: an operation without
 * a handler, or a handler whose types differ from its entry's, does not
 * build.
 */
import type { ForwardOperationName, OperationArgs, OperationOutcome } from '../operations.js';
import type { CallSignal } from '../../platform/postgres/call-deadlines.js';
import type { HotBatcher } from './hot-batcher.js';
import type { HotCall, HotResult, PostgresLedger } from './postgres-ledger.js';
import type { PostgresStaff } from '../../staff/postgres-staff.js';
import type { PostgresIntegrations } from './integrations.js';

/** What a handler runs on. */
export interface PostgresHandlerContext {
  readonly ledger: PostgresLedger;
  readonly batcher: HotBatcher<HotCall, HotResult>;
  readonly staff: PostgresStaff;
  readonly integrations: PostgresIntegrations;
}

/**
 * How one operation runs (the SQLite writer's table has the same shape,
 * sqlite-operations.ts, plus how each call crosses to its thread).
 */
export interface PostgresOperation<K extends ForwardOperationName> {
  /** Carries one call out. `signal` aborts when the caller stops waiting: a hot call still queued is then dropped (HotBatcher.submit). */
  run: (context: PostgresHandlerContext, args: OperationArgs[K], signal: CallSignal) => Promise<OperationOutcome[K]>;
}

export const POSTGRES_OPERATIONS: { [K in ForwardOperationName]: PostgresOperation<K> } = {
  transact: { run: ({ batcher }, command, signal) => batcher.submit({ kind: 'transact', command }, signal) },
  payout: { run: ({ batcher }, command, signal) => batcher.submit({ kind: 'payout', command }, signal) },
  authenticate: { run: ({ ledger }, command) => ledger.players.authenticate(command) },
  createPlayer: { run: ({ ledger }, command) => ledger.players.createPlayer(command) },
  getPlayer: { run: ({ ledger }, playerId) => ledger.players.getPlayer(playerId) },
  createLaunchKey: { run: ({ ledger }, command) => ledger.players.createLaunchKey(command) },
  adjust: { run: ({ ledger }, command) => ledger.players.adjust(command) },
  setBlocked: { run: ({ ledger }, command) => ledger.players.setBlocked(command) },
  listRounds: { run: ({ ledger }, page) => ledger.reads.listRounds(page) },
  listTransfers: { run: ({ ledger }, page) => ledger.reads.listTransfers(page) },
  listPlayers: { run: ({ ledger }, page) => ledger.reads.listPlayers(page) },
  ggr: { run: ({ ledger }, span) => ledger.reads.ggr(span) },
  addStaff: { run: ({ staff }, command) => staff.addStaff(command) },
  revokeStaff: { run: ({ staff }, command) => staff.revokeStaff(command) },
  listStaff: { run: ({ staff }) => staff.listStaff() },
  findStaffToken: { run: ({ staff }, tokenHash) => staff.findStaffToken(tokenHash) },
  appendAudit: { run: ({ staff }, entry) => staff.appendAudit(entry) },
  listAudit: { run: ({ staff }, page) => staff.listAudit(page) },
  listIntegrations: { run: ({ integrations }) => integrations.list() },
  integrationsVersion: { run: ({ integrations }) => integrations.version() },
  addIntegration: { run: ({ integrations }, command) => integrations.add(command) },
  updateIntegration: { run: ({ integrations }, command) => integrations.update(command) },
  removeIntegration: { run: ({ integrations }, command) => integrations.remove(command) },
};
