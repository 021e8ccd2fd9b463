/**
 * Proves the pure layer of integrations (src/access/integrations.ts) and
 * the sealing it shares with the provider's seeds (src/access/keyring.ts):
 * a token is `wli_` and 32 bytes of the randomness given, stored by its
 * SHA-256; a secret sealed for one integration and slot opens there and
 * nowhere else (another integration, the other slot, another key of the
 * same id); the sealed text holds neither the secret nor its bytes, and a
 * keyring shows no key in JSON or util.inspect;
 * WAGERLINK_INTEGRATION_KEYS is read as documented, its first key
 * sealing; the checks of ids, names, ranges and provider URLs refuse what
 * they name, `default` among the ids; a change makes the next revision.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import {
  checkIntegrationId,
  checkIntegrationName,
  checkProviderUrl,
  checkRanges,
  INTEGRATION_RANGES_MAX,
  integrationKeyring,
  integrationTokenHash,
  IntegrationKeyMissingError,
  newIntegrationSecret,
  newIntegrationToken,
  openSecret,
  parseIntegrationKeys,
  sealSecret,
  withChanges,
  type StoredIntegration,
} from '../../src/access/integrations.js';
import { addressSet, parseAddress } from '../../src/access/address-ranges.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const ring = integrationKeyring(
  new Map([
    ['a', keyA],
    ['b', keyB],
  ]),
  'a',
);

test('a token is wli_ and 32 bytes of the randomness given, base64url, and is kept by its SHA-256', () => {
  const bytes = Buffer.alloc(32, 7);
  const made = newIntegrationToken(() => bytes);
  assert.equal(made.token, `wli_${bytes.toString('base64url')}`);
  assert.match(made.token, /^wli_[A-Za-z0-9_-]{43}$/);
  assert.equal(made.tokenHash, createHash('sha256').update(made.token).digest('hex'));
  assert.equal(integrationTokenHash(made.token), made.tokenHash);
  assert.equal(
    newIntegrationSecret(() => bytes),
    bytes.toString('base64url'),
  );
});

test('a sealed secret opens for its integration and slot only, and holds nothing of the secret in clear', () => {
  const secret = newIntegrationSecret(randomBytes);
  const sealed = sealSecret(ring, 'studio-a', 'current', secret);
  assert.equal(openSecret(ring, 'studio-a', 'current', sealed), secret);
  assert.ok(!sealed.includes(secret));
  assert.ok(!Buffer.from(sealed).includes(Buffer.from(secret)));
  assert.notEqual(sealSecret(ring, 'studio-a', 'current', secret), sealed, 'two seals differ: a fresh salt each');
  assert.throws(() => openSecret(ring, 'studio-b', 'current', sealed), /does not open for its place/);
  assert.throws(() => openSecret(ring, 'studio-a', 'next', sealed), /does not open for its place/);
  const otherA = integrationKeyring(new Map([['a', keyB]]), 'a');
  assert.throws(() => openSecret(otherA, 'studio-a', 'current', sealed), /does not open/);
  const withoutA = integrationKeyring(new Map([['b', keyB]]), 'b');
  assert.throws(
    () => openSecret(withoutA, 'studio-a', 'current', sealed),
    (error) => error instanceof IntegrationKeyMissingError && error.keyId === 'a',
  );
  assert.equal(openSecret(integrationKeyring(new Map([['a', keyA]]), 'a'), 'studio-a', 'current', sealed), secret);
});

test('a keyring shows its key ids, never a key', () => {
  for (const shown of [JSON.stringify(ring), inspect(ring, { showHidden: true, depth: 10 })]) {
    assert.ok(!shown.includes(keyA.toString('hex')) && !shown.includes(keyA.toString('base64')), shown);
    assert.ok(shown.includes('a'));
  }
  assert.deepEqual(JSON.parse(JSON.stringify(ring)), { current: 'a', keys: ['a', 'b'] });
});

test('WAGERLINK_INTEGRATION_KEYS: id:key pairs, hex or base64, the first sealing and every one opening', () => {
  const text = `k2:${keyB.toString('base64')}, k1:${keyA.toString('hex')}`;
  const parsed = parseIntegrationKeys(text);
  assert.equal(parsed.currentId, 'k2');
  assert.deepEqual(parsed.ids, ['k2', 'k1']);
  const sealed = sealSecret(integrationKeyring(new Map([['k1', keyA]]), 'k1'), 'x', 'current', 's3cret');
  assert.equal(openSecret(parsed, 'x', 'current', sealed), 's3cret');
  assert.throws(() => parseIntegrationKeys(''), /holds no key/);
  assert.throws(() => parseIntegrationKeys('k1:short'), /not 32 bytes/);
  assert.throws(() => parseIntegrationKeys(`bad id:${keyA.toString('hex')}`), /each entry is id:key/);
  assert.throws(() => parseIntegrationKeys(`k1:${keyA.toString('hex')},k1:${keyB.toString('hex')}`), /given twice/);
  try {
    parseIntegrationKeys(`k1:${keyA.toString('hex').slice(2)}`);
  } catch (error) {
    assert.ok(!(error as Error).message.includes(keyA.toString('hex').slice(2)), 'an error names no key material');
  }
});

test('ids, names, ranges and provider URLs are checked; `default` is the environment integration', () => {
  assert.equal(checkIntegrationId('studio-a'), undefined);
  assert.equal(checkIntegrationId('9lives'), undefined);
  for (const bad of ['', '-a', 'A', 'a_b', 'a'.repeat(64)]) assert.match(checkIntegrationId(bad) ?? '', /must be/, bad);
  assert.match(checkIntegrationId('default') ?? '', /never stored/);
  assert.equal(checkIntegrationName('Studio A'), undefined);
  assert.match(checkIntegrationName(' ') ?? '', /1 to/);
  assert.match(checkIntegrationName('a\nb') ?? '', /control/);
  assert.equal(checkRanges(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']), undefined);
  assert.match(checkRanges(['10.0.0.0/33']) ?? '', /not an IP address/);
  assert.match(checkRanges(Array.from({ length: INTEGRATION_RANGES_MAX + 1 }, () => '10.0.0.1')) ?? '', /at most/);
  assert.equal(checkProviderUrl('https://studio.example/api'), undefined);
  for (const bad of ['ftp://x', 'not a url', 'https://u:p@x', 'https://x/?q=1']) assert.ok(checkProviderUrl(bad), bad);
});

test('caller ranges: the one matcher of address ranges, an IPv4-mapped address matching its IPv4 range', () => {
  const set = addressSet(['10.1.0.0/16', '2001:db8::/32']);
  assert.ok(set.has(parseAddress('10.1.2.3')));
  assert.ok(set.has(parseAddress('::ffff:10.1.2.3')));
  assert.ok(set.has(parseAddress('2001:db8::1')));
  assert.ok(!set.has(parseAddress('10.2.0.1')));
  assert.ok(!set.has(undefined));
});

test('a change makes the next revision, at its time, keeping what it does not name', () => {
  const stored: StoredIntegration = {
    id: 'a',
    name: 'A',
    state: 'active',
    secretSealed: 's',
    secretNextSealed: null,
    tokenHashes: ['h'],
    ranges: [],
    providerUrl: null,
    createdAt: 1,
    updatedAt: 1,
    revision: 3,
  };
  assert.deepEqual(withChanges(stored, { state: 'paused', name: undefined }, 9), { ...stored, state: 'paused', updatedAt: 9, revision: 4 });
});
