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
 * A Bloom filter in memory over the merged ids answers most lookups of a
 * new id without reading the merged table: every new bet looks up two ids,
 * and the read cost about 3 µs per bet. It must never miss an id that the
 * table holds, whoever merged it: it is built from the table when the
 * writer starts, takes every id this writer merges, and at each later load
 * takes the rows of any bucket whose mark another connection moved.
 *
 * Uniqueness (where a unique constraint used to claim each id): an id is
 * new if neither part holds it. Only the connection that holds SQLite's
 * write lock looks, and it looks in the database transaction that then
 * inserts the row, so no other writer can slip in between. Every insert of
 * a transfer or a round asks `find` first and reports the row to `added`,
 * which crashes on an id it already holds in memory; the merged table's
 * primary key crashes a merge of an id it holds, and `verify` finds any id
 * held twice all the same.
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

/** Bits of the merged-id filter per merged id it is sized for: with 7 hashes, about one new id in a hundred is looked up in vain. */
const FILTER_BITS_PER_ID = 10;
const FILTER_HASHES = 7;
/** The filter is sized at start for twice the merged ids, and never for fewer than this (ids: 1.25 MiB). */
const FILTER_IDS_MIN = 1 << 20;
/** And never larger (bits: 128 MiB); past what it was sized for, more new ids are looked up in vain, none is missed. */
const FILTER_BITS_MAX = 2 ** 30;

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
  /**
   * Every id the merged table holds, and maybe others (a Bloom filter): an
   * id it does not hold is new without a read. It covers, per bucket, the
   * rows up to `filterMarks`; built at the first load.
   */
  private filter: MergedIdFilter | undefined;
  private readonly filterMarks = new Array<bigint>(ID_BUCKETS).fill(0n);
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
      mergedCount: db.prepare(`SELECT COUNT(*) FROM ${merged}`).pluck(true),
      mergedIds: db.prepare(`SELECT uuid FROM ${merged}`).pluck(true),
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
    const recent = this.recent[bucketOf(key)]!.get(key);
    if (recent !== undefined || !this.filter!.mightHold(bytes)) return recent;
    return this.sql.merged.get(bytes) as bigint | undefined;
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
   * Reads what it keeps now rather than at its first use: on a ledger of a
   * million ids, building the filter takes about a second, which the first
   * bets would otherwise wait for. Call it inside a database transaction.
   */
  warm(): void {
    this.load();
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
      const bytesOf = (key: string) => {
        const bytes = uuidToBytes(key);
        this.filter!.add(bytes);
        return bytes;
      };
      for (; at + MERGE_ROWS_PER_STATEMENT <= entries.length; at += MERGE_ROWS_PER_STATEMENT) {
        values.length = 0;
        for (let i = at; i < at + MERGE_ROWS_PER_STATEMENT; i++) values.push(bytesOf(entries[i]![0]), entries[i]![1]);
        this.sql.insertMany.run(values);
      }
      for (; at < entries.length; at++) this.sql.insertOne.run(bytesOf(entries[at]![0]), entries[at]![1]);
    } catch (error) {
      // Two rows under one id: the ledger is wrong, and nothing more may be booked on it.
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') assert.fail(`${this.table}: an id of bucket ${bucket} is held by two rows`);
      throw error;
    }
    this.sql.setMark.run(this.newest, this.table, bucket);
    this.marks[bucket] = this.newest;
    this.filterMarks[bucket] = this.newest;
    recent.clear();
  }

  /**
   * Reads the marks and the rows above them, when what is kept may be
   * wrong; brings the filter up to the marks: a bucket whose mark moved
   * past the filter's was merged by another connection, and its rows
   * between the two marks are added. (A mark that moved back, a merge of
   * ours rolled back, leaves ids in the filter that the table does not
   * hold: they cost a read, and a merge adds them again.)
   */
  private load(): void {
    if (!this.stale) return;
    for (const recent of this.recent) recent.clear();
    const marks = this.sql.marks.all(this.table) as [bigint, bigint][];
    assert.equal(marks.length, ID_BUCKETS, `id_marks must hold a mark for each bucket of ${this.table}`);
    for (const [bucket, mark] of marks) this.marks[Number(bucket)] = mark;
    let lowest = this.marks[0]!;
    for (let b = 0; b < ID_BUCKETS; b++) {
      if (this.filter && this.filterMarks[b]! < lowest) lowest = this.filterMarks[b]!;
      if (this.marks[b]! < lowest) lowest = this.marks[b]!;
    }
    if (!this.filter) {
      this.filter = new MergedIdFilter(Number(this.sql.mergedCount.get() as bigint));
      for (const uuid of this.sql.mergedIds.iterate() as IterableIterator<Buffer>) this.filter.add(uuid);
      this.filterMarks.splice(0, ID_BUCKETS, ...this.marks);
    }
    this.newest = (this.sql.newest.get() as bigint | null) ?? 0n;
    for (const [id, uuid] of this.sql.tail.iterate(lowest) as IterableIterator<[bigint, Buffer]>) {
      const key = bytesToUuid(uuid);
      const bucket = bucketOf(key);
      if (id > this.marks[bucket]!) this.recent[bucket]!.set(key, id);
      else if (id > this.filterMarks[bucket]!) this.filter.add(uuid);
    }
    this.filterMarks.splice(0, ID_BUCKETS, ...this.marks);
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

/**
 * A Bloom filter over 16-byte ids: `mightHold` is true for every id added,
 * and for about one other id in a hundred while it holds no more ids than
 * it was sized for. Hashed rather than read straight from the bytes, so
 * that ids that are not random (time ordered, sequential) spread as well.
 */
export class MergedIdFilter {
  private readonly bits: Int32Array;
  private readonly mask: number;

  constructor(ids: number) {
    const wanted = Math.max(ids * 2, FILTER_IDS_MIN) * FILTER_BITS_PER_ID;
    let size = 32;
    while (size < wanted && size < FILTER_BITS_MAX) size *= 2;
    this.bits = new Int32Array(size / 32);
    this.mask = size - 1;
  }

  add(id: Uint8Array): void {
    hash(id);
    for (let i = 0; i < FILTER_HASHES; i++) {
      const bit = (hash1 + i * hash2) & this.mask;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  mightHold(id: Uint8Array): boolean {
    hash(id);
    for (let i = 0; i < FILTER_HASHES; i++) {
      const bit = (hash1 + i * hash2) & this.mask;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** The two hashes of the last `hash` call: module state rather than a returned pair, which would allocate on every bet. */
let hash1 = 0;
let hash2 = 0;

/** Two 32-bit hashes of 16 bytes (murmur3's finalizer, chained over their four words), for double hashing. */
function hash(id: Uint8Array): void {
  let h = mix32(word(id, 0) ^ 0x9e3779b9);
  h = mix32(h ^ word(id, 4));
  h = mix32(h ^ word(id, 8));
  h = mix32(h ^ word(id, 12));
  hash1 = h >>> 0;
  hash2 = (mix32(h ^ 0x85ebca6b) | 1) >>> 0;
}

function word(id: Uint8Array, at: number): number {
  return id[at]! | (id[at + 1]! << 8) | (id[at + 2]! << 16) | (id[at + 3]! << 24);
}

function mix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
