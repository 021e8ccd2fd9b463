import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bytesToUuid, uuidToBytes } from '../../src/stores/uuid-bytes.js';

/** What the bytes of a UUID are, said the plain way: its hex digits without the dashes. */
function reference(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

test('uuid bytes: the 16 bytes of the hex digits, in either case, and back to the canonical lower-case text', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.boolean(), (raw, upper) => {
      const canonical = bytesToUuid(raw);
      assert.match(canonical, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const text = upper ? canonical.toUpperCase() : canonical;
      const bytes = uuidToBytes(text);
      assert.deepEqual(bytes, reference(text));
      assert.deepEqual(new Uint8Array(bytes), raw);
      assert.equal(bytesToUuid(bytes), canonical);
    }),
    { numRuns: 2_000 },
  );
  assert.equal(uuidToBytes('00000000-0000-0000-0000-000000000000').toString('hex'), '0'.repeat(32));
  assert.equal(uuidToBytes('FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF').toString('hex'), 'f'.repeat(32));
});

test('uuid bytes: every call answers a buffer of its own', () => {
  const first = uuidToBytes('0123abcd-0000-0000-0000-000000000001');
  const second = uuidToBytes('fedc4321-0000-0000-0000-000000000002');
  assert.equal(bytesToUuid(first), '0123abcd-0000-0000-0000-000000000001');
  assert.equal(bytesToUuid(second), 'fedc4321-0000-0000-0000-000000000002');
});
