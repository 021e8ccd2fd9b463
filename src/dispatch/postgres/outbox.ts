/**
 * The outbox on PostgreSQL (postgres.js), for any number of provider nodes
 * sharing one database. The table lives in the caller's own schema, so that
 * the caller's state and the outbox row commit in one database transaction:
 * `enqueue` takes the handle of that open transaction and only inserts; a
 * rollback leaves nothing, and no other connection sees the row before the
 * commit.
 *
 * The other way round, a final outcome (sent, refused, skipped, resolved)
 * is applied in one database transaction with the caller's hook (`onFinal`),
 * which gets that transaction's handle, so that what the caller records of
 * it (a round settled or refused) and the item's status commit together or
 * not at all. A retry or resolve by hand takes, last, work of the caller's
 * own to run in its database transaction the same way (`PostgresAlongside`:
 * the audit row of the call).
 *
 * Claims are made safe across nodes in two ways (see `claim`): each
 * operator's claims are serialised by a transaction-scoped advisory lock, so
 * that two nodes never together exceed its limit in flight; and the rows are
 * leased under `FOR UPDATE SKIP LOCKED`, so that a row another transaction is
 * writing (an outcome being applied) is passed over, never waited for.
 *
 * A store that owns its schema appends OUTBOX_MIGRATION to its own list of
 * versions (src/platform/postgres/migrate.ts); `openOutboxDatabase` is for a
 * schema the outbox has to itself.
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import { migrate, type Migration } from '../../platform/postgres/migrate.js';
import { openDatabase } from '../../platform/postgres/open-database.js';
import type { PostgresSettings } from '../../platform/postgres/settings.js';
import { isConflict } from '../../platform/postgres/errors.js';
import {
  LEASE_OWNER_SEPARATOR,
  LIST_MAX,
  type AfterRefusal,
  type Answer,
  type BacklogEntry,
  type ClaimLimits,
  type FinalEvent,
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
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  operator_id      text NOT NULL,
  ordering_key     text NOT NULL,
  sequence         integer NOT NULL CHECK (sequence >= 1),
  kind             text NOT NULL CHECK (kind IN ('bet', 'win', 'payout')),
  path             text NOT NULL,
  -- The exact body, UTF-8 JSON; every attempt sends these bytes.
  body             bytea NOT NULL,
  after_refusal    text NOT NULL CHECK (after_refusal IN ('skip-rest', 'continue')),
  status           text NOT NULL CHECK (status IN ('pending', 'sent', 'refused', 'skipped', 'parked', 'resolved')),
  attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- Epoch ms, as every time below.
  next_attempt_at  bigint NOT NULL,
  last_status      integer,
  last_code        text,
  last_detail      text,
  -- In flight while status is pending and lease_expires_at is in the future.
  lease_owner      text,
  lease_expires_at bigint,
  -- The earliest next attempt an answer's Retry-After allows: the operator's return (hasten) does not bring it forward.
  not_before       bigint,
  resolution       text,
  created_at       bigint NOT NULL,
  finished_at      bigint,
  UNIQUE (operator_id, ordering_key, sequence)
);
CREATE INDEX dispatch_items_due ON dispatch_items (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX dispatch_items_by_status ON dispatch_items (status, operator_id, id);
`,
};

/** What pg_stat_activity shows for a pool the outbox has to itself. */
export const OUTBOX_APPLICATION_NAME = 'wagerlink-outbox';

/**
 * Opens (and migrates) a pool on a database or schema that holds the outbox
 * alone; the caller ends it (`sql.end()`).
 */
export async function openOutboxDatabase(url: string, settings: PostgresSettings): Promise<postgres.Sql> {
  const sql = openDatabase(url, settings, OUTBOX_APPLICATION_NAME);
  try {
    await migrate(sql, [{ version: 1, ...OUTBOX_MIGRATION }]);
  } catch (error) {
    await sql.end({ timeout: 5 });
    throw error;
  }
  return sql;
}

/**
 * Called inside the database transaction that applies a final outcome, with
 * that transaction's handle, so that the enqueuer's own state (a round's
 * settlement) commits with it or not at all. A hook that throws (or rejects)
 * rolls the outcome back: the item stays as it was, and is sent again after
 * its lease. It runs SQL on `dbTx` only, and waits for nothing else: the
 * transaction holds the item's row lock meanwhile. It may run more than
 * once for one outcome (a conflict runs the transaction again, see
 * CONFLICT_RETRIES_MAX), and a run may be rolled back after it returns:
 * whatever it does outside the database waits for the outcome's promise.
 */
export type PostgresFinalHook = (dbTx: postgres.TransactionSql, event: FinalEvent) => Promise<void>;

/**
 * Work of the caller's own for the database transaction of a change made by
 * hand (`retryNow`, `resolve`), with that transaction's handle: run once
 * the change applied (never when it did not), so that what it writes (the
 * back office's audit row of the call) commits with the change or neither
 * does. One that throws (or rejects) rolls the change back, and the error
 * reaches the caller. As a final hook, it runs SQL on `dbTx` only, and may
 * run more than once for one change (CONFLICT_RETRIES_MAX).
 */
export type PostgresAlongside = (dbTx: postgres.TransactionSql) => Promise<void>;

export interface PostgresOutboxOptions {
  /** Called in the database transaction that applies each final outcome (see PostgresFinalHook). */
  onFinal?: PostgresFinalHook;
}

/**
 * Times a transaction PostgreSQL aborted for a serialization failure or a
 * deadlock is run again before the error reaches the caller. Outcomes run
 * the caller's hook, whose own rows may meet another transaction's; a
 * conflict that repeats this often is load to report, not to retry without
 * end. The dispatcher treats the error as it treats storage down: the item
 * is sent again after its lease.
 */
export const CONFLICT_RETRIES_MAX = 3;

/** A row as postgres.js reads it: int8 columns arrive as text, bytea as a Buffer. */
interface Row {
  id: string;
  operator_id: string;
  ordering_key: string;
  sequence: number;
  kind: ItemKind;
  path: string;
  body: Buffer;
  after_refusal: AfterRefusal;
  status: ItemStatus;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_code: string | null;
  last_detail: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  not_before: string | null;
  resolution: string | null;
  created_at: string;
  finished_at: string | null;
}

/** Ids and epoch milliseconds are well within 2^53: plain numbers, checked. */
function int(text: string): number {
  const value = Number(text);
  assert.ok(Number.isSafeInteger(value), `${text} is a safe integer`);
  return value;
}

function intOrUndefined(text: string | null): number | undefined {
  return text === null ? undefined : int(text);
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
    id: int(row.id),
    operatorId: row.operator_id,
    orderingKey: row.ordering_key,
    sequence: row.sequence,
    kind: row.kind,
    path: row.path,
    body: row.body,
    afterRefusal: row.after_refusal,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: int(row.next_attempt_at),
    notBefore: intOrUndefined(row.not_before),
    lastAnswer,
    leaseOwner: row.lease_owner ?? undefined,
    leaseExpiresAt: intOrUndefined(row.lease_expires_at),
    resolution: row.resolution ?? undefined,
    createdAt: int(row.created_at),
    finishedAt: intOrUndefined(row.finished_at),
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function bodyBytes(body: string | Uint8Array): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  // The sender signs and sends the body as UTF-8 text (docs/protocol.md §1); bytes that are not would change on the way.
  utf8.decode(bytes);
  return bytes;
}

/** A transaction handle, as opposed to the pool: only a transaction has savepoints. */
function isTransaction(dbTx: postgres.Sql | postgres.TransactionSql): dbTx is postgres.TransactionSql {
  return typeof (dbTx as Partial<postgres.TransactionSql>).savepoint === 'function';
}

export class PostgresOutbox implements Outbox {
  private readonly onFinal: PostgresFinalHook;

  /** `sql`: this node's pool, its schema migrated (OUTBOX_MIGRATION). The caller ends it. */
  constructor(
    private readonly sql: postgres.Sql,
    options: PostgresOutboxOptions = {},
  ) {
    this.onFinal = options.onFinal ?? (async () => {});
  }

  /**
   * Adds an item inside the caller's open database transaction `dbTx` (the
   * one the caller writes its own state in), due at `now`. Answers the new
   * item's id and its sequence within its key.
   *
   * The sequence is the key's largest plus one. A key's items are written
   * one after another by their cause (a round's bet, then its win); should
   * two open transactions add to one key at once, the unique constraint
   * fails the later one, whose transaction then changes nothing.
   */
  static async enqueue(dbTx: postgres.TransactionSql, item: NewItem, now: number): Promise<{ id: number; sequence: number }> {
    assert.ok(isTransaction(dbTx), 'an item is enqueued inside the database transaction that writes its cause');
    // A SELECT's parameters have no column to take their type from: each is cast.
    const [row] = await dbTx<{ id: string; sequence: number }[]>`
      INSERT INTO dispatch_items
        (operator_id, ordering_key, sequence, kind, path, body, after_refusal, status, next_attempt_at, created_at)
      SELECT ${item.operatorId}::text, ${item.orderingKey}::text, COALESCE(MAX(sequence), 0) + 1, ${item.kind}::text, ${item.path}::text,
        ${bodyBytes(item.body)}::bytea, ${item.afterRefusal ?? 'skip-rest'}::text, 'pending', ${now}::bigint, ${now}::bigint
      FROM dispatch_items WHERE operator_id = ${item.operatorId} AND ordering_key = ${item.orderingKey}
      RETURNING id, sequence`;
    assert.ok(row !== undefined, 'the insert answers its row');
    return { id: int(row.id), sequence: row.sequence };
  }

  /**
   * Runs `work` in a database transaction of its own, again up to
   * CONFLICT_RETRIES_MAX times if PostgreSQL aborts it for a serialization
   * failure or a deadlock; nothing of an aborted run was kept.
   */
  private async transaction<T>(work: (dbTx: postgres.TransactionSql) => Promise<T>, options = ''): Promise<T> {
    for (let retries = 0; ; retries += 1) {
      try {
        return (await this.sql.begin(options, work)) as T;
      } catch (error) {
        if (!isConflict(error) || retries >= CONFLICT_RETRIES_MAX) throw error;
      }
    }
  }

  /**
   * One database transaction:
   * 1. Lock the operators that have due items, each with
   *    `pg_try_advisory_xact_lock(hashtext(current_schema()),
   *    hashtext('dispatch:' || operator_id))`: advisory locks are the whole
   *    database's, and the schema keeps two outboxes in one database (two
   *    deployments, or test runs side by side) from holding up each other.
   *    The limit in flight is counted from the leases committed so far; two
   *    claims counting at once would each see room for the same slots, so
   *    the count and the leases of one operator are made by one claim at a
   *    time. An advisory lock rather than a row lock because no row stands
   *    for an operator (the outbox knows operators only as the items'
   *    `operator_id`), and one that lasts to the commit, which is when the
   *    leases become visible: the next claim to take it counts them. It is
   *    tried, not waited for: an operator another node is claiming for at
   *    this moment is left to that node, and this claim goes on with the
   *    others, so nodes never queue behind one another and no two claims
   *    can deadlock on the locks. The operator's items come up again at
   *    this node's next claim.
   * 2. Choose, among the locked operators, the due items that are the first
   *    undone item of their key (no earlier item pending or parked), not
   *    leased or whose lease ran out, at most `operatorInFlightMax` in
   *    flight per operator counting the leases already held, oldest due
   *    first, up to `batchSizeMax`. READ COMMITTED (asked for, whatever
   *    the database's default) takes a new snapshot for this statement,
   *    after the locks: it sees every lease committed before them.
   * 3. Lease them, `FOR UPDATE SKIP LOCKED`: a row whose outcome another
   *    transaction is applying at this moment is passed over, not waited
   *    for (it is leased, or its late answer is about to finish it). What
   *    was chosen can otherwise have changed only by becoming final or
   *    resolved (the lease's own conditions leave it then): earlier items
   *    of a key only become final, and no other claim of the same operator
   *    gets the lock before this one commits; so only the lowest unfinished
   *    item of a key is ever leased.
   */
  async claim(now: number, node: string, limits: ClaimLimits): Promise<OutboxItem[]> {
    assert.ok(limits.batchSizeMax >= 1 && limits.operatorInFlightMax >= 1 && limits.leaseMs >= 1, 'claim limits are positive');
    return this.transaction(async (dbTx) => {
      const locked = await dbTx<{ operator_id: string }[]>`
        SELECT operator_id FROM (
          SELECT DISTINCT operator_id FROM dispatch_items
          WHERE status = 'pending' AND next_attempt_at <= ${now} AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
        ) due
        WHERE pg_try_advisory_xact_lock(hashtext(current_schema()), hashtext('dispatch:' || operator_id))`;
      if (locked.length === 0) return [];
      const operators = locked.map((row) => row.operator_id);
      const chosen = await dbTx<{ id: string }[]>`
        WITH busy AS (
          SELECT operator_id, COUNT(*) AS n FROM dispatch_items
          WHERE status = 'pending' AND lease_expires_at > ${now} AND operator_id IN ${dbTx(operators)}
          GROUP BY operator_id
        ),
        due AS (
          SELECT i.id, i.operator_id, i.next_attempt_at,
                 ROW_NUMBER() OVER (PARTITION BY i.operator_id ORDER BY i.next_attempt_at, i.id) AS place
          FROM dispatch_items i
          WHERE i.status = 'pending' AND i.next_attempt_at <= ${now} AND i.operator_id IN ${dbTx(operators)}
            AND (i.lease_expires_at IS NULL OR i.lease_expires_at <= ${now})
            AND NOT EXISTS (
              SELECT 1 FROM dispatch_items e
              WHERE e.operator_id = i.operator_id AND e.ordering_key = i.ordering_key
                AND e.sequence < i.sequence AND e.status IN ('pending', 'parked'))
        )
        SELECT due.id FROM due LEFT JOIN busy USING (operator_id)
        WHERE due.place + COALESCE(busy.n, 0) <= ${limits.operatorInFlightMax}
        ORDER BY due.next_attempt_at, due.id
        LIMIT ${limits.batchSizeMax}`;
      if (chosen.length === 0) return [];
      const rows = await dbTx<Row[]>`
        WITH free AS (
          SELECT id FROM dispatch_items
          WHERE id IN ${dbTx(chosen.map((row) => row.id))} AND status = 'pending'
            AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
          FOR UPDATE SKIP LOCKED
        )
        UPDATE dispatch_items d SET lease_owner = ${node}, lease_expires_at = ${now + limits.leaseMs}, attempts = d.attempts + 1
        FROM free WHERE d.id = free.id
        RETURNING d.*`;
      const items = rows.map(itemOf).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
      const keys = new Set(items.map((one) => `${one.operatorId}\u0000${one.orderingKey}`));
      // Each chosen item is the first undone of its key, so a claim holds one item per key at most.
      assert.equal(keys.size, items.length, 'a claim leases one item per key at most');
      for (const one of items) assert.ok(one.leaseOwner === node && one.status === 'pending', `item ${one.id} is pending and leased to ${node}`);
      return items;
    }, 'isolation level read committed');
  }

  async renew(ids: readonly number[], node: string, until: number): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.sql`
      UPDATE dispatch_items SET lease_expires_at = ${until}
      WHERE id IN ${this.sql(ids)} AND status = 'pending' AND lease_owner = ${node}`;
    return result.count;
  }

  async releaseEarlierRuns(lastingName: string, node: string): Promise<number> {
    const prefix = `${lastingName}${LEASE_OWNER_SEPARATOR}`;
    // substr, not LIKE, so that no character of a name is a pattern.
    const result = await this.sql`
      UPDATE dispatch_items SET lease_owner = NULL, lease_expires_at = NULL
      WHERE status = 'pending' AND substr(lease_owner, 1, length(${prefix}::text)) = ${prefix}::text AND lease_owner <> ${node}`;
    return result.count;
  }

  /**
   * Applies `sent` or `refused` to a pending item, whoever holds its lease,
   * and calls the hook, in `dbTx`. Answers the item as it left it, or
   * undefined when it was no longer pending.
   */
  private async finishIn(dbTx: postgres.TransactionSql, id: number, outcome: 'sent' | 'refused', answer: Answer, now: number): Promise<OutboxItem | undefined> {
    const [row] = await dbTx<Row[]>`
      UPDATE dispatch_items SET status = ${outcome}, last_status = ${answer.status ?? null}, last_code = ${answer.code ?? null},
        last_detail = ${answer.detail}, lease_owner = NULL, lease_expires_at = NULL, finished_at = ${now}
      WHERE id = ${id} AND status = 'pending'
      RETURNING *`;
    if (row === undefined) return undefined;
    const item = itemOf(row);
    await this.onFinal(dbTx, { item, outcome, answer });
    return item;
  }

  async sent(id: number, _node: string, answer: Answer, now: number): Promise<boolean> {
    return this.transaction(async (dbTx) => (await this.finishIn(dbTx, id, 'sent', answer, now)) !== undefined);
  }

  async refused(id: number, _node: string, answer: Answer, now: number): Promise<{ applied: boolean; skipped: number }> {
    return this.transaction(async (dbTx) => {
      const refused = await this.finishIn(dbTx, id, 'refused', answer, now);
      if (refused === undefined) return { applied: false, skipped: 0 };
      if (refused.afterRefusal !== 'skip-rest') return { applied: true, skipped: 0 };
      const detail = `skipped: item ${id} of this key was refused (${answer.code ?? answer.status ?? 'no code'})`;
      const rows = await dbTx<Row[]>`
        UPDATE dispatch_items SET status = 'skipped', last_status = NULL, last_code = NULL, last_detail = ${detail}, finished_at = ${now}
        WHERE operator_id = ${refused.operatorId} AND ordering_key = ${refused.orderingKey} AND sequence > ${refused.sequence}
          AND status IN ('pending', 'parked')
        RETURNING *`;
      // RETURNING promises no order: the hook sees the key's items in theirs.
      const skipped = rows.map(itemOf).sort((a, b) => a.sequence - b.sequence);
      for (const one of skipped) await this.onFinal(dbTx, { item: one, outcome: 'skipped', answer: { detail } });
      return { applied: true, skipped: skipped.length };
    });
  }

  async retryLater(id: number, node: string, at: number, answer: Answer, notBefore?: number): Promise<boolean> {
    const result = await this.sql`
      UPDATE dispatch_items SET next_attempt_at = ${at}, not_before = ${notBefore ?? null}, last_status = ${answer.status ?? null},
        last_code = ${answer.code ?? null}, last_detail = ${answer.detail}, lease_owner = NULL, lease_expires_at = NULL
      WHERE id = ${id} AND status = 'pending' AND lease_owner = ${node}`;
    return result.count === 1;
  }

  async park(id: number, node: string, answer: Answer, now: number): Promise<boolean> {
    const result = await this.sql`
      UPDATE dispatch_items SET status = 'parked', last_status = ${answer.status ?? null}, last_code = ${answer.code ?? null},
        last_detail = ${answer.detail}, lease_owner = NULL, lease_expires_at = NULL, finished_at = ${now}
      WHERE id = ${id} AND status = 'pending' AND lease_owner = ${node}`;
    return result.count === 1;
  }

  async hasten(operatorId: string, now: number, limit?: number): Promise<number> {
    // LIMIT NULL is no limit. SKIP LOCKED: an item whose outcome is being applied right now is not waiting for a retry.
    const result = await this.sql`
      UPDATE dispatch_items SET next_attempt_at = ${now}
      WHERE id IN (SELECT id FROM dispatch_items
        WHERE status = 'pending' AND operator_id = ${operatorId} AND next_attempt_at > ${now}
          AND (not_before IS NULL OR not_before <= ${now}) AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
        ORDER BY next_attempt_at, id LIMIT ${limit ?? null}
        FOR UPDATE SKIP LOCKED)`;
    return result.count;
  }

  async item(id: number): Promise<OutboxItem | undefined> {
    const [row] = await this.sql<Row[]>`SELECT * FROM dispatch_items WHERE id = ${id}`;
    return row === undefined ? undefined : itemOf(row);
  }

  async list(filter: ListFilter): Promise<OutboxItem[]> {
    const limit = Math.min(filter.limit ?? LIST_MAX, LIST_MAX);
    const afterId = filter.afterId ?? 0;
    // A staff account's scope as JSON text: an empty one, which an array parameter cannot carry, lists nothing.
    const scope =
      filter.operatorIds === undefined
        ? this.sql`TRUE`
        : this.sql`operator_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(filter.operatorIds)}::text::jsonb))`;
    const rows =
      filter.operatorId === undefined
        ? await this.sql<Row[]>`SELECT * FROM dispatch_items WHERE status = ${filter.status} AND id > ${afterId} AND ${scope} ORDER BY id LIMIT ${limit}`
        : await this.sql<Row[]>`SELECT * FROM dispatch_items WHERE status = ${filter.status} AND operator_id = ${filter.operatorId} AND id > ${afterId}
            ORDER BY operator_id, id LIMIT ${limit}`;
    return rows.map(itemOf);
  }

  /** `alongside`: the caller's work in the retry's database transaction (see PostgresAlongside); without it, one statement. */
  async retryNow(id: number, now: number, alongside?: PostgresAlongside): Promise<boolean> {
    const retry = async (dbTx: postgres.Sql | postgres.TransactionSql) => {
      const result = await dbTx`
        UPDATE dispatch_items SET status = 'pending', next_attempt_at = ${now}, not_before = NULL, finished_at = NULL
        WHERE id = ${id} AND (status = 'parked' OR (status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})))`;
      return result.count === 1;
    };
    if (alongside === undefined) return retry(this.sql);
    return this.transaction(async (dbTx) => {
      const applied = await retry(dbTx);
      if (applied) await alongside(dbTx);
      return applied;
    });
  }

  /** `alongside`: the caller's work in the resolve's database transaction, after the final hook (see PostgresAlongside). */
  async resolve(id: number, reference: string, now: number, alongside?: PostgresAlongside): Promise<boolean> {
    assert.ok(reference.trim().length > 0, "an item is resolved with the operator's reference");
    return this.transaction(async (dbTx) => {
      const [row] = await dbTx<Row[]>`
        UPDATE dispatch_items SET status = 'resolved', resolution = ${reference}, lease_owner = NULL, lease_expires_at = NULL, finished_at = ${now}
        WHERE id = ${id} AND (status = 'parked' OR (status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})))
        RETURNING *`;
      if (row === undefined) return false;
      await this.onFinal(dbTx, { item: itemOf(row), outcome: 'resolved', answer: { detail: `resolved by hand: ${reference}` } });
      await alongside?.(dbTx);
      return true;
    });
  }

  async backlog(): Promise<BacklogEntry[]> {
    const rows = await this.sql<{ operator_id: string; status: 'pending' | 'parked'; count: string; oldest: string }[]>`
      SELECT operator_id, status, COUNT(*) AS count, MIN(created_at) AS oldest
      FROM dispatch_items WHERE status IN ('pending', 'parked') GROUP BY status, operator_id`;
    return rows.map((row) => ({ operatorId: row.operator_id, status: row.status, count: int(row.count), oldestCreatedAt: int(row.oldest) }));
  }
}
