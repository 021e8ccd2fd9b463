/**
 * Proves the address rules of docs/protocol.md §2 in isolation: IPv4 and IPv6
 * addresses and CIDR ranges, IPv4-mapped IPv6 on either side, strict
 * parsing, and X-Forwarded-For honoured through trusted proxies only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressSet, callerAddress, FORWARDED_HOPS_MAX, parseAddress, parseRange } from '../../src/access/address-ranges.js';

test('addresses and ranges, IPv4 and IPv6', () => {
  const set = addressSet(['127.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32', '::ffff:192.0.2.0/120']);
  const admitted = ['127.0.0.1', '10.255.0.1', '::1', '2001:db8:ffff::1', '192.0.2.77', '::ffff:192.0.2.77', '::ffff:127.0.0.1', '::ffff:10.1.2.3'];
  const refused = ['127.0.0.2', '11.0.0.1', '::2', '2001:db9::1', '192.0.3.1', '::ffff:11.0.0.1', '0.0.0.0'];
  for (const text of admitted) assert.equal(set.has(parseAddress(text)), true, text);
  for (const text of refused) assert.equal(set.has(parseAddress(text)), false, text);
  assert.equal(set.has(undefined), false);
});

test('IPv4 and IPv6 never match across kinds, except through IPv4 mapping', () => {
  assert.equal(addressSet(['0.0.0.0/0']).has(parseAddress('::1')), false);
  assert.equal(addressSet(['::/0']).has(parseAddress('1.2.3.4')), false);
  assert.equal(addressSet(['::/0']).has(parseAddress('::ffff:1.2.3.4')), false); // it is 1.2.3.4
  assert.equal(addressSet(['0.0.0.0/0']).has(parseAddress('::ffff:1.2.3.4')), true);
});

test('parsing is strict: only dotted quads for IPv4', () => {
  for (const text of ['127.1', '0x7f.0.0.1', '017.0.0.1', '1.2.3', '1.2.3.4.5', 'localhost', '', '::g', '10.0.0.0/33', '::/129', '1.2.3.4/']) {
    assert.equal(parseRange(text), undefined, text);
  }
  assert.throws(() => addressSet(['not-an-address']));
  assert.deepEqual(parseRange('::ffff:10.0.0.0/104')?.[1], 8);
});

test('X-Forwarded-For counts only through trusted proxies, read from the right', () => {
  const trusted = addressSet(['192.168.1.1', '192.168.1.2']);
  const caller = (peer: string, xff?: string) => callerAddress(peer, xff, trusted)?.toString();
  assert.equal(caller('203.0.113.5', '10.0.0.1'), '203.0.113.5'); // untrusted peer: header ignored
  assert.equal(caller('192.168.1.1'), '192.168.1.1'); // no header: the proxy is the caller
  assert.equal(caller('192.168.1.1', '10.0.0.1'), '10.0.0.1');
  assert.equal(caller('192.168.1.1', '10.0.0.1, 192.168.1.2'), '10.0.0.1'); // two proxies
  assert.equal(caller('192.168.1.1', '6.6.6.6, 10.0.0.1'), '10.0.0.1'); // a forged left part is not reached
  assert.equal(caller('192.168.1.1', 'garbage, 192.168.1.2'), '192.168.1.2'); // malformed hop stops the walk
  assert.equal(caller('::ffff:192.168.1.1', '::ffff:10.0.0.9'), '10.0.0.9');
  assert.equal(callerAddress(undefined, '10.0.0.1', trusted), undefined);
  const many = Array.from({ length: FORWARDED_HOPS_MAX + 5 }, () => '192.168.1.2').join(',');
  assert.equal(caller('192.168.1.1', `10.0.0.1,${many}`), '192.168.1.2'); // the walk is bounded
});
