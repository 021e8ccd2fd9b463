/**
 * The outbox on SQLite (better-sqlite3). The table lives in the caller's own
 * database file, so that the caller's state and the outbox row commit in one
 * database transaction: `enqueue` takes the handle that transaction is open
 * on and only inserts; a rollback leaves nothing, and nothing reads the row
 * before the commit but that same connection, where `claim` refuses to run
 * inside an open transaction.
 *
 * The other way round, a final outcome (sent, refused, skipped, resolved)
 * is applied in one database transaction with the caller's hook (`onFinal`),
 * so that what the caller records of it (a round settled or refused) and
 * the item's status commit together or not at all. A retry or resolve by
 * hand takes, last, work of the caller's own to run in its database
 * transaction the same way (`SqliteAlongside`: the audit row of the call).
 *
 * Nodes are connections on one file: a claim takes the write lock first
 * (BEGIN IMMEDIATE), so two nodes never lease the same item. better-sqlite3
 * is synchronous, so a claim has no await inside its transaction.
 *
 * A store that shares its file with the outbox appends OUTBOX_MIGRATION to
 * its own list of versions (each store numbers its own, src/platform/sqlite/
 * migrate.ts); `openOutboxDatabase` is for a file the outbox has to itself.
 */
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { migrate, type Migration } from '../../platform/sqlite/migrate.js';
import { openDatabase } from '../../platform/sqlite/open-database.js';
import {
  LEASE_OWNER_SEPARATOR,
  LIST_MAX,
  type AfterRefusal,
  type Answer,
  type BacklogEntry,
  type ClaimLimits,
  type FinalHook,
  type ItemStatus,
  type ListFilter,
  type NewItem,
  type Outbox,
  type OutboxItem,
} from '../outbox.js';
import type { ItemKind } from '../retry-schedule.js';

export const OUTBOX_MIGRATION: Omit<Migration, 'version'> = {
  name: 'dispatch-outbox',
  sql: `
CREATE TABLE dispatch_items (
  id               INTEGER PRIMARY KEY,
  operator_id      TEXT NOT NULL,
  ordering_key     TEXT NOT NULL,
  sequence         INTEGER NOT NULL CHECK (sequence >= 1),
  kind             TEXT NOT NULL CHECK (kind IN ('bet', 'win', 'payout')),
  path             TEXT NOT NULL,
  -- The exact body, UTF-8 JSON; every attempt sends these bytes.
  body             BLOB NOT NULL,
  after_refusal    TEXT NOT NULL CHECK (after_refusal IN ('skip-rest', 'continue')),
  status           TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'refused', 'skipped', 'parked', 'resolved')),
  attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at  INTEGER NOT NULL,
  last_status      INTEGER,
  last_code        TEXT,
  last_detail      TEXT,
  -- In flight while status is pending and lease_expires_at is in the future.
  lease_owner      TEXT,
  lease_expires_at INTEGER,
  -- The earliest next attempt an answer's Retry-After allows: the operator's return (hasten) does not bring it forward.
  not_before       INTEGER,
  resolution       TEXT,
  created_at       INTEGER NOT NULL,
  finished_at      INTEGER,
  UNIQUE (operator_id, ordering_key, sequence)
);
CREATE INDEX dispatch_items_due ON dispatch_items (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX dispatch_items_by_status ON dispatch_items (status, operator_id, id);
`,
};

/** Opens (and migrates) a database file that holds the outbox alone. */
export function openOutboxDatabase(path: string): Database.Database {
  const db = openDatabase(path);
  migrate(db, [{ version: 1, ...OUTBOX_MIGRATION }]);
  return db;
}

interface Row {
  id: number;
  operator_id: string;
  ordering_key: string;
  sequence: number;
  kind: ItemKind;
  path: string;
  body: Buffer;
  after_refusal: AfterRefusal;
  status: ItemStatus;
  attempts: number;
  next_attempt_at: number;
  last_status: number | null;
  last_code: string | null;
  last_detail: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  not_before: number | null;
  resolution: string | null;
  created_at: number;
  finished_at: number | null;
}

function itemOf(row: Row): OutboxItem {
  const lastAnswer: Answer | undefined =
    row.last_detail === null
      ? undefined
      : {
          ...(row.last_status === null ? {} : { status: row.last_status }),
          ...(row.last_code === null ? {} : { code: row.last_code }),
          detail: row.last_detail,
        };
  return {
    id: row.id,
    operatorId: row.operator_id,
    orderingKey: row.ordering_key,
    sequence: row.sequence,
    kind: row.kind,
    path: row.path,
    body: row.body,
    afterRefusal: row.after_refusal,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    notBefore: row.not_before ?? undefined,
    lastAnswer,
    leaseOwner: row.lease_owner ?? undefined,
    leaseExpiresAt: row.lease_expires_at ?? undefined,
    resolution: row.resolution ?? undefined,
    createdAt: row.created_at,
    finishedAt: row.finished_at ?? undefined,
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function bodyBytes(body: string | Uint8Array): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  // The sender signs and sends the body as UTF-8 text (docs/protocol.md §1); bytes that are not would change on the way.
  utf8.decode(bytes);
  return bytes;
}

function answerParams(answer: Answer): { status: number | null; code: string | null; detail: string } {
  return { status: answer.status ?? null, code: answer.code ?? null, detail: answer.detail };
}

const INSERT = `
INSERT INTO dispatch_items
  (operator_id, ordering_key, sequence, kind, path, body, after_refusal, status, next_attempt_at, created_at)
SELECT :operatorId, :orderingKey, COALESCE(MAX(sequence), 0) + 1, :kind, :path, :body, :afterRefusal, 'pending', :now, :now
FROM dispatch_items WHERE operator_id = :operatorId AND ordering_key = :orderingKey`;

/** Statements of the caller's connection for `enqueue`, prepared once per connection. */
const insertsOf = new WeakMap<Database.Database, { insert: Database.Statement; sequence: Database.Statement }>();

/**
 * Due items within the limits: the first undone item of each key (no
 * earlier item of its key pending or parked), not leased or whose lease ran
 * out, with an id up to `idMax` (see SqliteOutboxOptions), at most
 * `operatorMax` in flight per operator counting the leases already held,
 * oldest due first.
 */
const CLAIMABLE = `
WITH busy AS (
  SELECT operator_id, COUNT(*) AS n FROM dispatch_items
  WHERE status = 'pending' AND lease_expires_at > :now
  GROUP BY operator_id
),
due AS (
  SELECT i.id, i.operator_id, i.next_attempt_at,
         ROW_NUMBER() OVER (PARTITION BY i.operator_id ORDER BY i.next_attempt_at, i.id) AS place
  FROM dispatch_items i
  WHERE i.status = 'pending' AND i.next_attempt_at <= :now AND i.id <= :idMax
    AND (i.lease_expires_at IS NULL OR i.lease_expires_at <= :now)
    AND NOT EXISTS (
      SELECT 1 FROM dispatch_items e
      WHERE e.operator_id = i.operator_id AND e.ordering_key = i.ordering_key
        AND e.sequence < i.sequence AND e.status IN ('pending', 'parked'))
)
SELECT due.id FROM due LEFT JOIN busy USING (operator_id)
WHERE due.place + COALESCE(busy.n, 0) <= :operatorMax
ORDER BY due.next_attempt_at, due.id
LIMIT :batch`;

/**
 * Work of the caller's own for the database transaction of a change made by
 * hand (`retryNow`, `resolve`): run on the same connection once the change
 * applied (never when it did not), so that what it writes (the back
 * office's audit row of the call) commits with the change or neither does.
 * Synchronous, as FinalHook is; one that throws rolls the change back, and
 * the error reaches the caller.
 */
export type SqliteAlongside = () => void;

export interface SqliteOutboxOptions {
  /** Called in the database transaction that applies each final outcome (see FinalHook). */
  onFinal?: FinalHook;
  /**
   * The largest item id a claim may take; by default every committed item.
   * For a caller whose commits reach the disk later (a group commit that
   * syncs after it commits), so that nothing is sent that a power cut could
   * still take back: it answers the largest id it knows durable.
   */
  claimableIdMax?: () => number;
}

export class SqliteOutbox implements Outbox {
  private readonly statements;
  private readonly claimAll: (now: number, node: string, limits: ClaimLimits) => OutboxItem[];
  private readonly refuse: (id: number, answer: Answer, now: number) => { applied: boolean; skipped: number };
  private readonly finish: (id: number, outcome: 'sent' | 'refused', answer: Answer, now: number) => boolean;
  private readonly retryNowTx: (id: number, now: number, alongside: SqliteAlongside | undefined) => boolean;
  private readonly resolveTx: (id: number, reference: string, now: number, alongside: SqliteAlongside | undefined) => boolean;
  private readonly onFinal: FinalHook;

  /** `db`: this node's connection, its schema migrated (OUTBOX_MIGRATION). */
  // eslint-disable-next-line max-lines-per-function -- prepares every statement of the outbox once, beside the others
  constructor(
    private readonly db: Database.Database,
    options: SqliteOutboxOptions = {},
  ) {
    this.onFinal = options.onFinal ?? (() => {});
    const claimableIdMax = options.claimableIdMax ?? (() => Number.MAX_SAFE_INTEGER);
    // Ids and epoch milliseconds are well within 2^53: plain numbers, whatever the connection's default.
    const prepare = (sql: string) => db.prepare(sql).safeIntegers(false);
    this.statements = {
      claimable: prepare(CLAIMABLE).pluck(),
      // Both answer the row as they left it: a claim and an outcome each read their item once.
      lease: prepare(`UPDATE dispatch_items SET lease_owner = :node, lease_expires_at = :until, attempts = attempts + 1
        WHERE id = :id AND status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= :now)
        RETURNING *`),
      item: prepare('SELECT * FROM dispatch_items WHERE id = ?'),
      // :ids is a JSON array of item ids: the sends this node has in flight.
      renew: prepare(`UPDATE dispatch_items SET lease_expires_at = :until
        WHERE id IN (SELECT value FROM json_each(:ids)) AND status = 'pending' AND lease_owner = :node`),
      // :prefix is the lasting name and the separator: substr, not LIKE, so that no character of a name is a pattern.
      releaseEarlierRuns: prepare(`UPDATE dispatch_items SET lease_owner = NULL, lease_expires_at = NULL
        WHERE status = 'pending' AND substr(lease_owner, 1, length(:prefix)) = :prefix AND lease_owner <> :node`),
      finish: prepare(`UPDATE dispatch_items SET status = :status, last_status = :answerStatus, last_code = :code, last_detail = :detail,
          lease_owner = NULL, lease_expires_at = NULL, finished_at = :now
        WHERE id = :id AND status = 'pending'
        RETURNING *`),
      skipRest: prepare(`UPDATE dispatch_items SET status = 'skipped', last_status = NULL, last_code = NULL, last_detail = :detail, finished_at = :now
        WHERE operator_id = :operatorId AND ordering_key = :orderingKey AND sequence > :sequence AND status IN ('pending', 'parked')
        RETURNING *`),
      retryLater: prepare(`UPDATE dispatch_items SET next_attempt_at = :at, not_before = :notBefore, last_status = :status, last_code = :code,
          last_detail = :detail, lease_owner = NULL, lease_expires_at = NULL
        WHERE id = :id AND status = 'pending' AND lease_owner = :node`),
      hasten: prepare(`UPDATE dispatch_items SET next_attempt_at = :now
        WHERE id IN (SELECT id FROM dispatch_items
          WHERE status = 'pending' AND operator_id = :operatorId AND next_attempt_at > :now
            AND (not_before IS NULL OR not_before <= :now) AND (lease_expires_at IS NULL OR lease_expires_at <= :now)
          ORDER BY next_attempt_at, id LIMIT :limit)`),
      park: prepare(`UPDATE dispatch_items SET status = 'parked', last_status = :status, last_code = :code, last_detail = :detail,
          lease_owner = NULL, lease_expires_at = NULL, finished_at = :now
        WHERE id = :id AND status = 'pending' AND lease_owner = :node`),
      retryNow: prepare(`UPDATE dispatch_items SET status = 'pending', next_attempt_at = :now, not_before = NULL, finished_at = NULL
        WHERE id = :id AND (status = 'parked' OR (status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= :now)))`),
      resolve: prepare(`UPDATE dispatch_items SET status = 'resolved', resolution = :reference, lease_owner = NULL, lease_expires_at = NULL, finished_at = :now
        WHERE id = :id AND (status = 'parked' OR (status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= :now)))`),
      list: prepare(`SELECT * FROM dispatch_items WHERE status = :status AND (:operatorId IS NULL OR operator_id = :operatorId) AND id > :afterId
        ORDER BY status, operator_id, id LIMIT :limit`),
      backlog: prepare(`SELECT operator_id AS operatorId, status, COUNT(*) AS count, MIN(created_at) AS oldestCreatedAt
        FROM dispatch_items WHERE status IN ('pending', 'parked') GROUP BY status, operator_id`),
      // :scope is a JSON array of operator ids (a staff account's scope), or NULL for every operator.
      listAll: prepare(`SELECT * FROM dispatch_items WHERE status = :status AND id > :afterId
        AND (:scope IS NULL OR operator_id IN (SELECT value FROM json_each(:scope))) ORDER BY status, id LIMIT :limit`),
    };
    const { claimable, lease, item } = this.statements;
    const claimTx = db.transaction((now: number, node: string, limits: ClaimLimits): OutboxItem[] => {
      const ids = claimable.all({ now, operatorMax: limits.operatorInFlightMax, batch: limits.batchSizeMax, idMax: claimableIdMax() }) as number[];
      return ids.map((id) => {
        const leased = lease.get({ id, node, now, until: now + limits.leaseMs }) as Row | undefined;
        // Under the write lock nothing changed the row between the choice and the lease.
        assert.ok(leased !== undefined, `item ${id} was leased as chosen`);
        return itemOf(leased);
      });
    });
    // IMMEDIATE: the write lock is taken before the choice, so two nodes never choose the same item.
    this.claimAll = (now, node, limits) => claimTx.immediate(now, node, limits);
    // Each final outcome and its hook in one database transaction (a savepoint inside the caller's open one).
    this.finish = db.transaction((id: number, outcome: 'sent' | 'refused', answer: Answer, now: number) => {
      const finished = this.statements.finish.get({ id, status: outcome, now, ...this.answerOf(answer) }) as Row | undefined;
      if (finished !== undefined) this.onFinal({ item: itemOf(finished), outcome, answer });
      return finished !== undefined;
    });
    this.refuse = db.transaction((id: number, answer: Answer, now: number) => {
      const applied = this.finish(id, 'refused', answer, now);
      if (!applied) return { applied, skipped: 0 };
      const refused = itemOf(item.get(id) as Row);
      if (refused.afterRefusal !== 'skip-rest') return { applied, skipped: 0 };
      const detail = `skipped: item ${id} of this key was refused (${answer.code ?? answer.status ?? 'no code'})`;
      const skipped = (
        this.statements.skipRest.all({ operatorId: refused.operatorId, orderingKey: refused.orderingKey, sequence: refused.sequence, detail, now }) as Row[]
      ).map(itemOf);
      for (const one of skipped) this.onFinal({ item: one, outcome: 'skipped', answer: { detail } });
      return { applied, skipped: skipped.length };
    });
    // A change by hand and the caller's work alongside it in one database transaction (a savepoint inside the caller's open one).
    this.retryNowTx = db.transaction((id: number, now: number, alongside: SqliteAlongside | undefined) => {
      const applied = this.statements.retryNow.run({ id, now }).changes === 1;
      if (applied) alongside?.();
      return applied;
    });
    this.resolveTx = db.transaction((id: number, reference: string, now: number, alongside: SqliteAlongside | undefined) => {
      const applied = this.statements.resolve.run({ id, reference, now }).changes === 1;
      if (!applied) return false;
      this.onFinal({ item: itemOf(item.get(id) as Row), outcome: 'resolved', answer: { detail: `resolved by hand: ${reference}` } });
      alongside?.();
      return true;
    });
  }

  /**
   * Adds an item inside the caller's open database transaction on `dbTx`
   * (the connection the caller writes its own state on), due at `now`.
   * Answers the new item's id and its sequence within its key.
   */
  static enqueue(dbTx: Database.Database, item: NewItem, now: number): { id: number; sequence: number } {
    assert.ok(dbTx.inTransaction, 'an item is enqueued inside the database transaction that writes its cause');
    let statements = insertsOf.get(dbTx);
    if (statements === undefined) {
      statements = {
        insert: dbTx.prepare(INSERT).safeIntegers(false),
        sequence: dbTx.prepare('SELECT sequence FROM dispatch_items WHERE id = ?').safeIntegers(false).pluck(),
      };
      insertsOf.set(dbTx, statements);
    }
    const result = statements.insert.run({
      operatorId: item.operatorId,
      orderingKey: item.orderingKey,
      kind: item.kind,
      path: item.path,
      body: bodyBytes(item.body),
      afterRefusal: item.afterRefusal ?? 'skip-rest',
      now,
    });
    const id = Number(result.lastInsertRowid);
    const sequence = statements.sequence.get(id) as number;
    return { id, sequence };
  }

  private answerOf(answer: Answer): { answerStatus: number | null; code: string | null; detail: string } {
    const { status, code, detail } = answerParams(answer);
    return { answerStatus: status, code, detail };
  }

  async claim(now: number, node: string, limits: ClaimLimits): Promise<OutboxItem[]> {
    // Inside an open transaction the claim would see, and send, rows that may still roll back.
    assert.ok(!this.db.inTransaction, 'claims run outside any open database transaction of this connection');
    assert.ok(limits.batchSizeMax >= 1 && limits.operatorInFlightMax >= 1 && limits.leaseMs >= 1, 'claim limits are positive');
    return this.claimAll(now, node, limits);
  }

  async renew(ids: readonly number[], node: string, until: number): Promise<number> {
    if (ids.length === 0) return 0;
    return this.statements.renew.run({ ids: JSON.stringify(ids), node, until }).changes;
  }

  async releaseEarlierRuns(lastingName: string, node: string): Promise<number> {
    return this.statements.releaseEarlierRuns.run({ prefix: `${lastingName}${LEASE_OWNER_SEPARATOR}`, node }).changes;
  }

  async sent(id: number, _node: string, answer: Answer, now: number): Promise<boolean> {
    return this.finish(id, 'sent', answer, now);
  }

  async refused(id: number, _node: string, answer: Answer, now: number): Promise<{ applied: boolean; skipped: number }> {
    return this.refuse(id, answer, now);
  }

  async retryLater(id: number, node: string, at: number, answer: Answer, notBefore?: number): Promise<boolean> {
    return this.statements.retryLater.run({ id, node, at, notBefore: notBefore ?? null, ...answerParams(answer) }).changes === 1;
  }

  async backlog(): Promise<BacklogEntry[]> {
    return this.statements.backlog.all() as BacklogEntry[];
  }

  async hasten(operatorId: string, now: number, limit?: number): Promise<number> {
    // SQLite reads a negative LIMIT as none.
    return this.statements.hasten.run({ operatorId, now, limit: limit ?? -1 }).changes;
  }

  async park(id: number, node: string, answer: Answer, now: number): Promise<boolean> {
    return this.statements.park.run({ id, node, now, ...answerParams(answer) }).changes === 1;
  }

  async item(id: number): Promise<OutboxItem | undefined> {
    const row = this.statements.item.get(id) as Row | undefined;
    return row === undefined ? undefined : itemOf(row);
  }

  async list(filter: ListFilter): Promise<OutboxItem[]> {
    const limit = Math.min(filter.limit ?? LIST_MAX, LIST_MAX);
    const params = { status: filter.status, afterId: filter.afterId ?? 0, limit };
    const rows =
      filter.operatorId === undefined
        ? this.statements.listAll.all({ ...params, scope: filter.operatorIds === undefined ? null : JSON.stringify(filter.operatorIds) })
        : this.statements.list.all({ ...params, operatorId: filter.operatorId });
    return (rows as Row[]).map(itemOf);
  }

  /** `alongside`: the caller's work in the retry's database transaction (see SqliteAlongside). */
  async retryNow(id: number, now: number, alongside?: SqliteAlongside): Promise<boolean> {
    return this.retryNowTx(id, now, alongside);
  }

  /** `alongside`: the caller's work in the resolve's database transaction, after the final hook (see SqliteAlongside). */
  async resolve(id: number, reference: string, now: number, alongside?: SqliteAlongside): Promise<boolean> {
    assert.ok(reference.trim().length > 0, "an item is resolved with the operator's reference");
    return this.resolveTx(id, reference, now, alongside);
  }
}
