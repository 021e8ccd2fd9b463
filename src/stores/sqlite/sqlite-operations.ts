/**
 * How the SQLite writer carries out each operation of the table in
 * operations.ts: a typed handler per operation (the ledger's function, or
 * the write probe), and how its calls and answers cross between the HTTP
 * thread and the writer thread (handoff.ts). The compiler holds this table
 * to the operations table: an operation without a handler, or a handler
 * whose types differ from its entry's, does not build.
 *
 * When each call runs (before the batch's database transaction, or inside
 * it behind a savepoint) is not decided here but by the entry's dbTx
 * (batch-writer.ts).
 */
import type Database from 'better-sqlite3';
import type { OperationArgs, OperationName, OperationOutcome } from '../operations.js';
import type { HandoffCodec } from './handoff-codec.js';
import { PACKED_BALANCE, PACKED_PAYOUT_COMMAND, PACKED_TRANSACTION_COMMAND } from './packed-codecs.js';
import type { SqliteLedger } from './sqlite-ledger.js';
import type { SqliteStaff } from '../../staff/sqlite-staff.js';
import type { SqliteIntegrations } from './integrations.js';
import { probeWrite } from './write-probe.js';

/** One call, as the store queues it and the writer runs it. */
export interface CallOf<K extends OperationName> {
  id: number;
  op: K;
  args: OperationArgs[K];
}
export type Call = { [K in OperationName]: CallOf<K> }[OperationName];

/**
 * The writer's answer to one call: its outcome, or, when storage failed it,
 * why, in the storage's own words (nothing of it was applied). The store
 * rejects the latter with an UnavailableError (store.ts).
 */
export type ReplyOf<K extends OperationName> = { id: number; op: K; result: OperationOutcome[K] } | { id: number; op: K; failed: string };
/** Any reply; the store reads its outcome as the answer to the call of the same id. */
export type Reply = ReplyOf<OperationName>;

/** What a handler runs on: the writer's connection and its ledger (PostgreSQL's PostgresHandlerContext is the same for its store). */
export interface SqliteHandlerContext {
  readonly db: Database.Database;
  readonly ledger: SqliteLedger;
  readonly staff: SqliteStaff;
  readonly integrations: SqliteIntegrations;
}

export interface SqliteOperation<K extends OperationName> {
  /** Carries the call out; throws when storage fails (the batch writer answers that for it). */
  run: (writer: SqliteHandlerContext, args: OperationArgs[K]) => OperationOutcome[K];
  handoff: HandoffCodec<OperationArgs[K], OperationOutcome[K]>;
}

/** Plain JSON carries the call and its answer exactly (strings, finite numbers, booleans, null, arrays, plain objects). */
const AS_JSON = { json: true } as const;
/** A batch holding such a call crosses by structured clone. */
const CLONED = { json: false } as const;

export const SQLITE_OPERATIONS: { [K in OperationName]: SqliteOperation<K> } = {
  // Nearly every request is one of these: they cross as flat arrays (packed-codecs.ts), their amounts exact decimals.
  transact: {
    run: ({ ledger }, command) => ledger.transfers.transact(command),
    handoff: { json: true, args: PACKED_TRANSACTION_COMMAND, outcome: PACKED_BALANCE },
  },
  payout: { run: ({ ledger }, command) => ledger.transfers.payout(command), handoff: { json: true, args: PACKED_PAYOUT_COMMAND, outcome: PACKED_BALANCE } },
  authenticate: { run: ({ ledger }, command) => ledger.players.authenticate(command), handoff: AS_JSON },
  // A back-office write's audit row is written inside the call's savepoint, so it commits with the change
  // (staff.audited writes it only when the change was made).
  createPlayer: { run: ({ ledger, staff }, command) => staff.audited(command.audit, ledger.players.createPlayer(command)), handoff: AS_JSON },
  getPlayer: { run: ({ ledger }, playerId) => ledger.players.getPlayer(playerId), handoff: AS_JSON },
  createLaunchKey: { run: ({ ledger, staff }, command) => staff.audited(command.audit, ledger.players.createLaunchKey(command)), handoff: AS_JSON },
  adjust: {
    run: ({ ledger, staff }, command) => staff.audited(command.audit, ledger.players.adjust(command)),
    handoff: { json: true, outcome: PACKED_BALANCE },
  },
  setBlocked: { run: ({ ledger, staff }, command) => staff.audited(command.audit, ledger.players.setBlocked(command)), handoff: AS_JSON },
  // Page cursors are bigints, which JSON cannot carry.
  listRounds: { run: ({ ledger }, page) => ledger.reads.listRounds(page), handoff: CLONED },
  listTransfers: { run: ({ ledger }, page) => ledger.reads.listTransfers(page), handoff: CLONED },
  listPlayers: { run: ({ ledger }, page) => ledger.reads.listPlayers(page), handoff: AS_JSON },
  ggr: { run: ({ ledger }, span) => ledger.reads.ggr(span), handoff: AS_JSON },
  addStaff: { run: ({ staff }, command) => staff.addStaff(command), handoff: AS_JSON },
  revokeStaff: { run: ({ staff }, command) => staff.revokeStaff(command), handoff: AS_JSON },
  listStaff: { run: ({ staff }) => staff.listStaff(), handoff: AS_JSON },
  findStaffToken: { run: ({ staff }, tokenHash) => staff.findStaffToken(tokenHash), handoff: AS_JSON },
  appendAudit: { run: ({ staff }, entry) => staff.appendAudit(entry), handoff: AS_JSON },
  listAudit: { run: ({ staff }, page) => staff.listAudit(page), handoff: AS_JSON },
  listIntegrations: { run: ({ integrations }) => integrations.list(), handoff: AS_JSON },
  integrationsVersion: { run: ({ integrations }) => integrations.version(), handoff: AS_JSON },
  addIntegration: { run: ({ integrations }, command) => integrations.add(command), handoff: AS_JSON },
  updateIntegration: { run: ({ integrations }, command) => integrations.update(command), handoff: AS_JSON },
  removeIntegration: { run: ({ integrations }, command) => integrations.remove(command), handoff: AS_JSON },
  // Only an in-memory database proves its books on the writer (a file's are proved beside it,
  // verify-worker.ts): too rare to be worth the JSON path, so its report is cloned as it is.
  verify: { run: ({ ledger }) => ledger.reads.verify(), handoff: CLONED },
  ping: { run: ({ ledger }) => ledger.reads.ping(), handoff: AS_JSON },
  probeWrite: { run: ({ db }) => probeWrite(db), handoff: AS_JSON },
};

/** Runs one call through its handler. */
export function runCall<K extends OperationName>(writer: SqliteHandlerContext, call: CallOf<K>): OperationOutcome[K] {
  return SQLITE_OPERATIONS[call.op].run(writer, call.args);
}
