/**
 * The ids the provider makes (rounds, transactions, sessions, launches) are
 * UUID version 7 (RFC 9562): 48 bits of Unix time in milliseconds, then 74
 * random bits. Any UUID is valid on the wire; time-ordered ones keep every
 * index they land in, the provider's own round log and the operator's
 * ledger alike, appending near its right edge instead of dirtying a leaf at
 * a random place for each new id.
 */
import { randomUUID } from 'node:crypto';

/** Milliseconds that fit the 48-bit time field (until the year 10889). */
const TIME_MAX_MS = 2 ** 48 - 1;

/**
 * A version 7 UUID for the time `nowMs`. The random bits, and the variant
 * bits, are those of a version 4 UUID from the runtime's entropy pool; the
 * time replaces its first 48 bits and the version digit becomes 7. Ids of
 * the same millisecond order among themselves at random.
 */
export function timeOrderedUuid(nowMs: number = Date.now()): string {
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > TIME_MAX_MS) {
    throw new RangeError(`timeOrderedUuid: ${nowMs} is not a time in ms that fits 48 bits`);
  }
  const time = nowMs.toString(16).padStart(12, '0');
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
