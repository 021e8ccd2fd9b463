/**
 * Proves the seed keyring (src/provider/seed-keyring.ts): a sealed seed
 * opens to the seed under the key it names, and to nothing else: not for
 * another session, nonce or round (a sealed seed copied to another row, or
 * left at a nonce that has moved, is refused), not once altered, not under
 * another key of the same id; a seed under a key the ring does not hold
 * fails with the key's id; the sealed text shows neither the seed nor its
 * hash, and two seals of one seed differ; key texts are read as the config
 * documents them (base64 either alphabet, hex), and neither the keyring nor
 * a resolved config shows key material in JSON or util.inspect, nor does a
 * config error about a key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { commitment } from '../../src/game/fairness.js';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import { SeedKeyMissingError, SeedKeyring, sealedKeyId, seedKeyBytes } from '../../src/provider/seed-keyring.js';
import { testConfigFile } from './provider-helpers.js';

const SEED = 'ab'.repeat(32);
const keyA = randomBytes(32);
const keyB = randomBytes(32);
const ring = new SeedKeyring(
  new Map([
    ['a', keyA],
    ['b', keyB],
  ]),
  'a',
);
const place = { session: 'session-1', nonce: 4 };

test('a sealed seed opens to the seed for its place only, under the key it names', () => {
  const sealed = ring.seal(SEED, place);
  assert.equal(sealedKeyId(sealed), 'a');
  assert.equal(ring.open(sealed, place), SEED);
  assert.equal(new SeedKeyring(new Map([['a', keyA]]), 'a').open(sealed, place), SEED, 'a ring of other keys holding A opens it');
  for (const other of [{ session: 'session-2', nonce: 4 }, { session: 'session-1', nonce: 5 }, { round: 'session-1' }]) {
    assert.throws(() => ring.open(sealed, other), /does not open for its place/);
  }
  const round = ring.seal(SEED, { round: 'r-1' });
  assert.equal(ring.open(round, { round: 'r-1' }), SEED);
  assert.throws(() => ring.open(round, { round: 'r-2' }), /does not open for its place/);
  // A key of the same id with other bytes (a config edited wrongly) opens nothing.
  assert.throws(() => new SeedKeyring(new Map([['a', keyB]]), 'a').open(sealed, place), /does not open/);
  const body = Buffer.from(sealed.slice('v1.a.'.length), 'base64url');
  body[20] = body[20]! ^ 1;
  assert.throws(() => ring.open(`v1.a.${body.toString('base64url')}`, place), /does not open/);
});

test('a seed under a key the ring does not hold fails naming the key', () => {
  const sealed = new SeedKeyring(new Map([['gone', randomBytes(32)]]), 'gone').seal(SEED, place);
  assert.throws(
    () => ring.open(sealed, place),
    (error: unknown) =>
      error instanceof SeedKeyMissingError && error.keyId === 'gone' && /seed key "gone", which seedKeys\.keys no longer holds/.test(error.message),
  );
});

test('the sealed text shows neither the seed nor its hash, and each seal is new', () => {
  const one = ring.seal(SEED, place);
  const two = ring.seal(SEED, place);
  assert.notEqual(one, two);
  for (const sealed of [one, two]) {
    const bytes = Buffer.from(sealed.split('.')[2]!, 'base64url');
    assert.ok(!sealed.includes(SEED) && !sealed.includes(commitment(SEED)));
    assert.ok(!bytes.includes(Buffer.from(SEED, 'hex')));
  }
});

test('key texts: base64 in either alphabet, padded or not, or hex; 32 bytes exactly', () => {
  const key = randomBytes(32);
  for (const text of [
    key.toString('base64'),
    key.toString('base64').replace(/=$/, ''),
    key.toString('base64url'),
    key.toString('hex'),
    key.toString('hex').toUpperCase(),
  ]) {
    assert.deepEqual(seedKeyBytes(text), key, text);
  }
  for (const text of [randomBytes(31).toString('base64'), randomBytes(33).toString('base64'), randomBytes(31).toString('hex'), 'not a key at all', '']) {
    assert.equal(seedKeyBytes(text), undefined, text);
  }
});

test('neither the keyring nor a resolved config shows key material; a config error about a key does not quote it', () => {
  const file = testConfigFile();
  const key = randomBytes(32);
  file.seedKeys = { current: 'k1', keys: { k1: key.toString('base64') } };
  const config = resolveProviderConfig(file);
  const forms = [key.toString('base64'), key.toString('base64url'), key.toString('hex')];
  for (const shown of [JSON.stringify(config.seedKeys), inspect(config.seedKeys, { depth: 10, showHidden: true }), inspect(config, { depth: 10 })]) {
    for (const form of forms) assert.ok(!shown.includes(form), shown.slice(0, 200));
    assert.ok(!shown.includes(inspect(key)), 'no Buffer of the key');
  }
  assert.deepEqual(JSON.parse(JSON.stringify(config.seedKeys)), { current: 'k1', keys: ['k1'] });
  const bad = `${key.toString('hex')}00`;
  file.seedKeys = { current: 'k1', keys: { k1: bad } };
  assert.throws(
    () => resolveProviderConfig(file),
    (error: Error) => /^seedKeys\.keys\.k1: must be 32 bytes/.test(error.message) && !error.message.includes(bad),
  );
});
