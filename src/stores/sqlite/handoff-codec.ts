/**
 * The contract of the hand-off's codecs: what an operation declares about
 * how it crosses between the HTTP thread and the writer (sqlite-operations.ts),
 * what the packed codecs implement (packed-codecs.ts), and what the hand-off
 * itself reads (handoff.ts). Types only, so that the three read it without
 * importing each other.
 */

/** A packed item: [operation index, call id, ...the codec's fields]. */
export type Packed = (string | number | boolean | null)[];

/**
 * Writes values of one type as a flat array, for the values it `packs`;
 * the others cross as their objects. Items 0 and 1 of the array are the
 * hand-off's (the operation's index and the call id), the rest the codec's.
 */
export interface PackedCodec<T, P extends T = T> {
  /** True if the packed form carries `value` whole (it holds no member the codec does not list). */
  packs(value: T): value is P;
  /** [op, id, ...the fields of `value`]. */
  pack(value: P, op: number, id: number): Packed;
  /** The value whose fields follow the hand-off's two items in `packed`. */
  unpack(packed: Packed): P;
}

/** How one operation's calls and answers cross. */
export interface HandoffCodec<Args, Outcome> {
  /** JSON carries its arguments and outcome exactly; a batch holding a call that it does not is cloned. */
  json: boolean;
  args?: PackedCodec<Args>;
  outcome?: PackedCodec<Outcome>;
}
