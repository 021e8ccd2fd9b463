/** UUIDs are stored as their 16 bytes: half the index of the text form, and case-free. */

/** The value of each hex digit by its character code, either case; -1 for any other character. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(digit)] = digit;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(digit)] = digit;
}
/** Where each byte's two hex digits start in the 8-4-4-4-12 form. */
const BYTE_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/**
 * Expects the canonical 8-4-4-4-12 form, which the wire schemas guarantee.
 * Decoded digit by digit rather than through a hex string without the
 * dashes: this runs several times per bet on the writer, and the string
 * slices and concatenation cost twice the time and most of its garbage.
 */
export function uuidToBytes(uuid: string): Buffer {
  const bytes = Buffer.allocUnsafe(16);
  for (let index = 0; index < 16; index++) {
    const at = BYTE_AT[index]!;
    bytes[index] = (HEX_VALUE[uuid.charCodeAt(at)]! << 4) | HEX_VALUE[uuid.charCodeAt(at + 1)]!;
  }
  return bytes;
}

export function bytesToUuid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
