/**
 * The one table of the wallet store's operations. Each entry names an
 * operation, its argument and outcome types, and how it runs; from it derive
 * the WalletStore interface (below), the SQLite writer's read/write split
 * and its typed handlers (sqlite/sqlite-operations.ts), and PostgreSQL's hot
 * path (postgres/ledger-transfers.ts, HotCall). Adding an operation takes an entry
 * here and the ledger function of each backend; the compiler asks for
 * whatever else must name it: each backend's line in its typed handler
 * table (<backend>-operations.ts), and each store's one-line method
 * (<backend>-store.ts), which `implements WalletStore` holds to the entry's
 * types.
 *
 * Outcomes are values: an operation resolves with its success or a Refusal
 * of the codes its entry lists. A failure of storage is never an outcome:
 * every backend rejects with an UnavailableError (store.ts).
 */
import type { Refusal } from '../protocol/errors.js';
import type { AuditEntry, StaffListing, StaffTokenFound } from '../access/staff.js';
import type {
  AddIntegrationCommand,
  AddStaffCommand,
  AuditPage,
  IntegrationChanged,
  IntegrationRemoved,
  IntegrationsListing,
  RemoveIntegrationCommand,
  UpdateIntegrationCommand,
  AuditPageRequest,
  RevokeStaffCommand,
  StaffAdded,
  StaffRevoked,
  AdjustCommand,
  AuthenticateCommand,
  BalanceOutcome,
  BlockCommand,
  CreatePlayerCommand,
  GgrReport,
  GgrRequest,
  LaunchKeyCommand,
  LaunchKeyView,
  PageOf,
  PageRequest,
  PayoutCommand,
  PlayersPage,
  PlayersRequest,
  PlayerView,
  RoundView,
  SessionOutcome,
  TransactionCommand,
  TransferView,
  VerifyReport,
} from './store.js';

/** How an operation runs: data that each backend reads, instead of asking which operation it holds. */
export interface OperationSpec {
  /**
   * 'write' may change stored state, and one that commits shows that
   * writing works again (the stores' /health tracking, ping); 'read'
   * changes nothing.
   */
  access: 'read' | 'write';
  /**
   * The database transaction it needs. 'shared': it may run inside one
   * that other calls share, behind a savepoint of its own, so that a group
   * commit pays one commit for many (every wallet write). 'own': it begins
   * and ends one itself, so it runs outside any other (the write probe).
   * 'snapshot': it reads many tables and must see them as of one moment, so
   * it runs in a read transaction of its own (verify). 'none': reads that
   * need no transaction. SQLite's batch writer runs everything but 'shared'
   * before its batch's database transaction.
   */
  dbTx: 'shared' | 'own' | 'snapshot' | 'none';
  /**
   * How a store offers it. 'forward': WalletStore has a method of its name,
   * and each store writes it as one line that hands the call, as it is, to
   * the store's call path and so to the backend's typed handler
   * (<backend>-operations.ts). 'own': WalletStore has a method of its name
   * that each store writes in full, because how it runs differs by backend
   * (verify reads beside the writer, ping probes writes while they fail).
   * 'none': not part of WalletStore; a backend's own methods use it.
   */
  method: 'forward' | 'own' | 'none';
  /**
   * Called for nearly every request (/transaction, /payout): PostgreSQL
   * group-commits these (its HotBatcher and LedgerTransfers.applyBatch).
   */
  hot: boolean;
}

/** An entry of the table: its spec, and its types, which exist for the compiler only. */
export type Operation<Args, Outcome, Spec extends OperationSpec = OperationSpec> = Spec & {
  /** Never set: carries the argument and outcome types from the entry to everything derived from it. */
  readonly types?: { args: Args; outcome: Outcome };
};

/** `operation<Args, Outcome>()({ ...spec })`: curried so that the spec's literal types are kept. */
function operation<Args, Outcome>() {
  return <const Spec extends OperationSpec>(spec: Spec): Operation<Args, Outcome, Spec> => spec;
}

export const OPERATIONS = {
  /**
   * Outcomes: balance | SESSION_NOT_FOUND | SESSION_MISMATCH | INVALID_REQUEST (amounts) | DUPLICATE_CONFLICT
   * | ROUND_MISMATCH | ROUND_CLOSED | SESSION_EXPIRED | PLAYER_BLOCKED | CAMPAIGN_FINISHED | INSUFFICIENT_FUNDS.
   * A refusal of FINAL_REFUSAL_CODES (rules.ts) is kept in the same database transaction, with the request's
   * new ids: those ids answer it again ever after (docs/protocol.md §6.4).
   */
  transact: operation<TransactionCommand, BalanceOutcome | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: true }),
  /** Outcomes: balance | SESSION_NOT_FOUND | INVALID_REQUEST | DUPLICATE_CONFLICT */
  payout: operation<PayoutCommand, BalanceOutcome | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: true }),
  /** Outcomes: session | INVALID_LAUNCH_KEY | SESSION_MISMATCH | PLAYER_BLOCKED */
  authenticate: operation<AuthenticateCommand, SessionOutcome | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: player | PLAYER_EXISTS | UNSUPPORTED_CURRENCY | INVALID_REQUEST */
  createPlayer: operation<CreatePlayerCommand, PlayerView | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: player | PLAYER_NOT_FOUND */
  getPlayer: operation<string, PlayerView | Refusal>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /** Outcomes: key | PLAYER_NOT_FOUND */
  createLaunchKey: operation<LaunchKeyCommand, LaunchKeyView | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: balance | PLAYER_NOT_FOUND | INVALID_REQUEST | DUPLICATE_CONFLICT | INSUFFICIENT_FUNDS */
  adjust: operation<AdjustCommand, BalanceOutcome | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: player | PLAYER_NOT_FOUND */
  setBlocked: operation<BlockCommand, PlayerView | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: page | PLAYER_NOT_FOUND | INVALID_REQUEST (a cursor that is not one of this player's; newest first) */
  listRounds: operation<PageRequest, PageOf<RoundView> | Refusal>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /** Outcomes: page | PLAYER_NOT_FOUND | INVALID_REQUEST (a cursor that is not one of this player's; newest first) */
  listTransfers: operation<PageRequest, PageOf<TransferView> | Refusal>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /** Outcomes: page (no refusals: every filter and cursor is a plain text, and one that matches nothing gives an empty page). */
  listPlayers: operation<PlayersRequest, PlayersPage>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /** Outcomes: report (no refusals: its caller keeps the span within GGR_DAYS_MAX, store.ts). */
  ggr: operation<GgrRequest, GgrReport>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /** Outcomes: the account with its token | STAFF_EXISTS (a name is never reused, revoked or not). Writes its audit row with it. */
  addStaff: operation<AddStaffCommand, StaffAdded | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: what was revoked | STAFF_NOT_FOUND. Writes its audit row with it. */
  revokeStaff: operation<RevokeStaffCommand, StaffRevoked | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: every account with its tokens (never their hashes), by name. */
  listStaff: operation<void, StaffListing[]>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /** Outcomes: the account and token stored under a token's hash, valid or not (access/staff.ts decides), or null. */
  findStaffToken: operation<string, StaffTokenFound | null>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /** Outcomes: ok. One audit row of a call that changed nothing (refused, failed); the table refuses UPDATE and DELETE. */
  appendAudit: operation<AuditEntry, { ok: true }>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: a page of the audit log, newest first. */
  listAudit: operation<AuditPageRequest, AuditPage>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /** Outcomes: every stored integration (sealed secrets and token hashes as stored), by id, and the version they were read at. */
  listIntegrations: operation<void, IntegrationsListing>()({ access: 'read', dbTx: 'snapshot', method: 'forward', hot: false }),
  /** Outcomes: the version of the stored integrations: one row read, cheap enough for every node to poll. */
  integrationsVersion: operation<void, number>()({ access: 'read', dbTx: 'none', method: 'forward', hot: false }),
  /**
   * Outcomes: the integration as stored | INTEGRATION_EXISTS | STATE_CONFLICT (INTEGRATIONS_MAX reached). Moves the
   * version and writes its audit row with it.
   */
  addIntegration: operation<AddIntegrationCommand, IntegrationChanged | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /**
   * Outcomes: the integration as stored | INTEGRATION_NOT_FOUND | STATE_CONFLICT (changed since the revision named).
   * Moves the version and writes its audit row with it.
   */
  updateIntegration: operation<UpdateIntegrationCommand, IntegrationChanged | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /** Outcomes: the id removed | INTEGRATION_NOT_FOUND. Moves the version and writes its audit row with it. */
  removeIntegration: operation<RemoveIntegrationCommand, IntegrationRemoved | Refusal>()({ access: 'write', dbTx: 'shared', method: 'forward', hot: false }),
  /**
   * Proves that every transfer balances and every kept balance equals the
   * sum of its postings, with sums exact at any size. No refusals: a proof
   * that cannot be finished rejects with an UnavailableError naming why.
   * It reads the whole ledger, so each backend runs it beside its other
   * calls where it can (SQLite: on a thread and connection of its own;
   * PostgreSQL: on a connection of its own, with no call deadline).
   */
  verify: operation<void, VerifyReport>()({ access: 'read', dbTx: 'snapshot', method: 'own', hot: false }),
  /**
   * Resolves when the database answers and takes writes; rejects with an
   * UnavailableError naming why otherwise (/health's 503). It only reads,
   * unless the last call failed for a reason that stops writes (a full
   * disk, an I/O error, a read-only standby): then it tries a write probe
   * (probeWrite), and resolves once one commits, so that health comes back
   * without other traffic.
   */
  ping: operation<void, void>()({ access: 'read', dbTx: 'none', method: 'own', hot: false }),
  /**
   * A small write of the store's own that leaves nothing behind (each
   * backend's write-probe.ts), for ping. No refusals: it resolves once it
   * committed and rejects when writing fails.
   */
  probeWrite: operation<void, void>()({ access: 'write', dbTx: 'own', method: 'none', hot: false }),
};

type Table = typeof OPERATIONS;
export type OperationName = keyof Table;

/** Each operation's argument type: the correlated map that typed handler tables index. */
export type OperationArgs = { [K in OperationName]: NonNullable<Table[K]['types']>['args'] };
/** Each operation's outcome type: its success, or a Refusal where it lists any. */
export type OperationOutcome = { [K in OperationName]: NonNullable<Table[K]['types']>['outcome'] };

/** The operations WalletStore has a method for. */
export type StoreOperationName = { [K in OperationName]: Table[K]['method'] extends 'none' ? never : K }[OperationName];
/** The operations whose store method hands the call on as it is, to the backend's typed handler. */
export type ForwardOperationName = { [K in OperationName]: Table[K]['method'] extends 'forward' ? K : never }[OperationName];
/** The operations PostgreSQL group-commits. */
export type HotOperationName = { [K in OperationName]: Table[K]['hot'] extends true ? K : never }[OperationName];

/** WalletStore's methods, one per operation it offers (mapped over the table's own keys, so each keeps its entry's comment). */
export type StoreMethods = {
  [K in keyof Table as Table[K]['method'] extends 'none' ? never : K]: (args: OperationArgs[K]) => Promise<OperationOutcome[K]>;
};

/**
 * A wallet store: one method per operation of the table in operations.ts,
 * which lists each one's argument, outcomes and how it runs. Each store
 * class writes every method itself and declares `implements WalletStore`,
 * so that an operation without its method, or a method whose argument or
 * outcome differs from its entry's, does not build.
 */
export interface WalletStore extends StoreMethods {
  readonly backend: string;
  close(): Promise<void>;
  /**
   * Called after each batch that committed, with the seconds from its
   * COMMIT until it was durable: the disk's share of every answer in it, and
   * the first place to look when the tail latency rises. Stores that do not
   * time their commits leave it out.
   */
  onCommit?(listener: (seconds: number) => void): void;
}

export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];
