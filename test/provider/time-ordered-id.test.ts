import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timeOrderedUuid } from '../../src/provider/time-ordered-id.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('time-ordered ids: version 7 with the RFC variant, the time in the first 48 bits, ordered by time, never repeated', () => {
  const start = Date.parse('2026-11-22T08:00:00Z');
  const seen = new Set<string>();
  let previous = '';
  for (let ms = 0; ms < 2_000; ms++) {
    for (let i = 0; i < 25; i++) {
      const id = timeOrderedUuid(start + ms);
      assert.match(id, UUID_V7);
      assert.equal(parseInt(id.slice(0, 8) + id.slice(9, 13), 16), start + ms);
      assert.ok(!seen.has(id), `${id} came twice`);
      seen.add(id);
      // A later millisecond sorts after every id of an earlier one, as text and as bytes.
      if (i === 0) assert.ok(id > previous, `${id} sorts before ${previous}`);
      previous = id;
    }
  }
  assert.match(timeOrderedUuid(), UUID_V7);
  assert.ok(Math.abs(parseInt(timeOrderedUuid().replace(/-/g, '').slice(0, 12), 16) - Date.now()) < 1_000);
  assert.equal(timeOrderedUuid(0).slice(0, 14), '00000000-0000-');
  assert.throws(() => timeOrderedUuid(-1), RangeError);
  assert.throws(() => timeOrderedUuid(2 ** 48), RangeError);
  assert.throws(() => timeOrderedUuid(1.5), RangeError);
});
