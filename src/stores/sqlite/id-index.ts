/**
 * The unique index of one kind of id (transfer ids, round ids), kept so that
 * a bet writes no index page at a random place.
 *
 * Why: ids are random UUIDs. In a B-tree index each new id lands on a leaf
 * page at a random place, and each page a commit dirties is written whole to
 * the WAL, synced, and later copied into the database file. With a unique
 * index on each of the two ids a bet carries, those two random pages were
 * most of what a bet wrote: on this project's bench machine, the same server
 * without them served about a third more bets per second
 * (docs/performance.md).
 *
 * How: the rows themselves (transfers, rounds) are appended in id order and
 * carry their UUID, unindexed. The index has two parts:
 * - `merged`: a table keyed by the UUID (`transfer_ids`, `round_ids`), which
 *   holds every row up to a mark;
 * - `recent`: the rows above the mark, in this writer's memory, rebuilt from
 *   the table's tail whenever it may be wrong (at start, after a rollback,
 *   after another connection's commit).
 * When enough recent ids have gathered, they are written into the merged
 * table in UUID order, in the batch's own database transaction, and the
 * mark moves. Written in order, many ids share each leaf page they touch:
 * on a ledger of a million rounds, about one page for every ten ids instead
 * of one page for each.
 *
 * The marks are kept per bucket of the UUID space (its first byte), and one
 * bucket merges at a time, from memory: a merge then writes a few hundred
 * ids into 1/256 of the index, and the batch that carries it waits well
 * under a millisecond for it. (Merging a whole sixteenth at a time, 4,096
 * ids, made that wait about 6 ms, most of it reading the table for the
 * bucket's rows, and it set the bench's 99th percentile.)
 *
 * Uniqueness: an id is new if neither part holds it. Only the connection
 * that holds SQLite's write lock looks, and it looks in the database
 * transaction that then inserts the row, so no other writer can slip in
 * between; every insert of a transfer or a round goes through this class,
 * which refuses an id that either part holds; the merged table's primary
 * key, and `verify`, catch any id that got in twice all the same.
 */
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { bytesToUuid, uuidToBytes } from '../uuid-bytes.js';

/** Buckets of the UUID space, by its first byte. Fixed: migration 3 wrote a mark for each. */
export const ID_BUCKETS = 256;
/**
 * Recent ids of one bucket that make it merge (ids). What sets the pages
 * written per id is the ids held in memory against the size of the index
 * (ID_BUCKETS x MERGE_IDS, about 65,000 of each kind): merged into a
 * million rounds' index, a bucket's 256 ids fall on its about 30 leaf
 * pages, some nine ids to a page. What sets the wait of the batch that
 * merges is this number alone.
 */
export const MERGE_IDS = 256;
/** Ids inserted by one statement of a merge: fewer crossings into SQLite, and 128 parameters is far from its limit. */
const MERGE_ROWS_PER_STATEMENT = 64;
/**
 * Rows by which a bucket's mark may fall behind the newest row before it
 * merges whatever it holds (rows). Ids that are not uniformly random (time
 * ordered UUIDs, say) fill some buckets and leave others nearly empty; this
 * bounds the table's tail that a rebuild reads.
 */
export const MARK_LAG_ROWS_MAX = 4 * ID_BUCKETS * MERGE_IDS;

export type IndexedTable = 'transfers' | 'rounds';

export interface MergeLimits {
  mergeIds: number;
  markLagRowsMax: number;
}

const DEFAULT_LIMITS: MergeLimits = { mergeIds: MERGE_IDS, markLagRowsMax: MARK_LAG_ROWS_MAX };

export class IdIndex {
  /** Per bucket: canonical UUID text -> row id, for the rows above the bucket's mark. */
  private readonly recent = Array.from({ length: ID_BUCKETS }, () => new Map<string, bigint>());
  private readonly marks = new Array<bigint>(ID_BUCKETS).fill(0n);
  /** The table's newest row id. */
  private newest = 0n;
  private stale = true;
  private readonly sql;

  constructor(
    db: Database.Database,
    private readonly table: IndexedTable,
    private readonly limits: MergeLimits = DEFAULT_LIMITS,
  ) {
    const merged = table === 'transfers' ? 'transfer_ids' : 'round_ids';
    this.sql = {
      merged: db.prepare(`SELECT row_id FROM ${merged} WHERE uuid = ?`).pluck(true),
      marks: db.prepare('SELECT bucket, merged_upto FROM id_marks WHERE tbl = ?').raw(true),
      tail: db.prepare(`SELECT id, uuid FROM ${table} WHERE id > ? ORDER BY id`).raw(true),
      newest: db.prepare(`SELECT MAX(id) FROM ${table}`).pluck(true),
      insertOne: db.prepare(`INSERT INTO ${merged} (uuid, row_id) VALUES (?, ?)`),
      insertMany: db.prepare(`INSERT INTO ${merged} (uuid, row_id) VALUES ${Array(MERGE_ROWS_PER_STATEMENT).fill('(?, ?)').join(', ')}`),
      setMark: db.prepare('UPDATE id_marks SET merged_upto = ? WHERE tbl = ? AND bucket = ?'),
    };
  }

  /** The row that holds this id, if any. `key`: canonical UUID text; `bytes`: the same as stored. */
  find(key: string, bytes: Buffer): bigint | undefined {
    this.load();
    return this.recent[bucketOf(key)]!.get(key) ?? (this.sql.merged.get(bytes) as bigint | undefined);
  }

  /**
   * Records a row just inserted under `key`. The caller found the id free
   * in this database transaction (`find`); a second row under it is a bug.
   */
  added(key: string, rowId: bigint): void {
    this.load();
    const recent = this.recent[bucketOf(key)]!;
    const size = recent.size;
    recent.set(key, rowId);
    assert.ok(recent.size > size, `${this.table}: id ${key} was inserted twice`);
    assert.ok(rowId > this.newest, `${this.table}: rows are appended in id order`);
    this.newest = rowId;
  }

  /**
   * What is kept may not match the database: a call or a commit was rolled
   * back, or another connection committed. The next use reads it again.
   */
  forget(): void {
    this.stale = true;
  }

  /**
   * Merges at most one bucket that is due: the fullest of those holding
   * `mergeIds` or more, else the one whose mark lags furthest, if too far.
   * Runs in the database transaction of the batch that gathered the ids, so
   * the rows, the merged ids and the mark commit together or not at all.
   */
  mergeDue(): void {
    if (this.stale) return;
    let due = -1;
    for (let b = 0; b < ID_BUCKETS; b++) {
      const count = this.recent[b]!.size;
      if (count >= this.limits.mergeIds && (due < 0 || count > this.recent[due]!.size)) due = b;
    }
    if (due < 0) {
      // The bucket furthest behind: taking the first that lags would starve the later ones.
      let oldest = 0;
      for (let b = 1; b < ID_BUCKETS; b++) if (this.marks[b]! < this.marks[oldest]!) oldest = b;
      if (this.newest - this.marks[oldest]! > BigInt(this.limits.markLagRowsMax)) due = oldest;
    }
    if (due >= 0) this.merge(due);
  }

  private merge(bucket: number): void {
    const recent = this.recent[bucket]!;
    // Canonical UUID text sorts as its bytes do: the inserts walk the index in order.
    const entries = [...recent].sort(([a], [b]) => (a < b ? -1 : 1));
    try {
      let at = 0;
      const values: unknown[] = [];
      for (; at + MERGE_ROWS_PER_STATEMENT <= entries.length; at += MERGE_ROWS_PER_STATEMENT) {
        values.length = 0;
        for (let i = at; i < at + MERGE_ROWS_PER_STATEMENT; i++) values.push(uuidToBytes(entries[i]![0]), entries[i]![1]);
        this.sql.insertMany.run(values);
      }
      for (; at < entries.length; at++) this.sql.insertOne.run(uuidToBytes(entries[at]![0]), entries[at]![1]);
    } catch (error) {
      // Two rows under one id: the ledger is wrong, and nothing more may be booked on it.
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') assert.fail(`${this.table}: an id of bucket ${bucket} is held by two rows`);
      throw error;
    }
    this.sql.setMark.run(this.newest, this.table, bucket);
    this.marks[bucket] = this.newest;
    recent.clear();
  }

  /** Reads the marks and the rows above them, when what is kept may be wrong. */
  private load(): void {
    if (!this.stale) return;
    for (const recent of this.recent) recent.clear();
    const marks = this.sql.marks.all(this.table) as [bigint, bigint][];
    assert.equal(marks.length, ID_BUCKETS, `id_marks must hold a mark for each bucket of ${this.table}`);
    for (const [bucket, mark] of marks) this.marks[Number(bucket)] = mark;
    let lowest = this.marks[0]!;
    for (const mark of this.marks) if (mark < lowest) lowest = mark;
    this.newest = (this.sql.newest.get() as bigint | null) ?? 0n;
    for (const [id, uuid] of this.sql.tail.iterate(lowest) as IterableIterator<[bigint, Buffer]>) {
      const key = bytesToUuid(uuid);
      const bucket = bucketOf(key);
      if (id > this.marks[bucket]!) this.recent[bucket]!.set(key, id);
    }
    this.stale = false;
  }
}

/** The bucket of a canonical (lower-case) UUID: its first byte, from its first two hex digits. */
export function bucketOf(key: string): number {
  return hexDigit(key.charCodeAt(0)) * 16 + hexDigit(key.charCodeAt(1));
}

function hexDigit(code: number): number {
  return code <= 57 ? code - 48 : code - 87;
}
