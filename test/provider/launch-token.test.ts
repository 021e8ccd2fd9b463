/**
 * Proves the launch token (src/provider/launch-token.ts): what is sealed
 * opens unchanged, nothing inside can be read, any altered byte or another
 * provider's secret opens nothing, and a previous secret still opens
 * tokens during a rotation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { launchTokens, OPENED_TOKENS_KEPT_MAX, TOKEN_LENGTH_MAX, type LaunchClaims } from '../../src/provider/launch-token.js';

const CLAIMS: LaunchClaims = {
  launchId: '0b7d8f0e-1f1a-4f7b-9a53-3c2f2c9d7e11',
  mode: 'real',
  game: 'dice',
  operatorId: 'casino-1',
  walletId: 'wallet-1',
  key: 'the-operators-launch-key',
  country: 'DE',
  language: 'de-DE',
  urls: { lobby: 'https://casino.example/lobby' },
  expiresAt: 1_800_000_000_000,
};

const SECRET = 'provider-launch-token-secret-1';

test('a sealed token opens to the same claims, and reveals none of them', () => {
  const tokens = launchTokens([SECRET], randomBytes);
  const token = tokens.seal(CLAIMS);
  assert.match(token, /^v1\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(tokens.open(token), CLAIMS);
  const bytes = Buffer.from(token.slice(3), 'base64url').toString('latin1');
  for (const value of [CLAIMS.key!, CLAIMS.operatorId, CLAIMS.game, 'casino.example', SECRET]) assert.equal(bytes.includes(value), false, value);
  // Each seal uses a fresh IV: two tokens of the same claims differ.
  assert.notEqual(tokens.seal(CLAIMS), token);
});

test('any changed character opens nothing', () => {
  const tokens = launchTokens([SECRET], randomBytes);
  const token = tokens.seal(CLAIMS);
  // Opened once, its claims are kept: that must not make a token close to it open.
  assert.ok(tokens.open(token));
  for (let i = 3; i < token.length; i += 7) {
    const swapped = token[i] === 'A' ? 'B' : 'A';
    const altered = token.slice(0, i) + swapped + token.slice(i + 1);
    if (Buffer.from(altered.slice(3), 'base64url').equals(Buffer.from(token.slice(3), 'base64url'))) continue; // same bytes (padding bits)
    assert.equal(tokens.open(altered), undefined, `position ${i}`);
  }
  assert.equal(tokens.open(token.slice(0, -4)), undefined);
  assert.equal(tokens.open(`v2${token.slice(2)}`), undefined);
  assert.equal(tokens.open(''), undefined);
  assert.equal(tokens.open('v1.'), undefined);
  assert.equal(tokens.open(`v1.${'A'.repeat(TOKEN_LENGTH_MAX)}`), undefined);
});

test("another provider's secret opens nothing; a previous secret still opens during a rotation", () => {
  const old = launchTokens([SECRET], randomBytes);
  const token = old.seal(CLAIMS);
  assert.equal(launchTokens(['some-other-provider-secret'], randomBytes).open(token), undefined);
  const rotated = launchTokens(['provider-launch-token-secret-2', SECRET], randomBytes);
  assert.deepEqual(rotated.open(token), CLAIMS);
  // New tokens are sealed with the new secret only.
  assert.equal(old.open(rotated.seal(CLAIMS)), undefined);
});

test('opened claims are kept for the most recently used tokens, frozen, and a kept token opens as before', () => {
  const tokens = launchTokens([SECRET], randomBytes);
  const first = tokens.seal(CLAIMS);
  const claims = tokens.open(first)!;
  assert.ok(Object.isFrozen(claims) && Object.isFrozen(claims.urls), 'a caller cannot change what the next request reads');
  assert.equal(tokens.open(first), claims, 'opened once');
  // More tokens than are kept, the first used again between them: it stays; the others still open when no longer kept.
  const others = Array.from({ length: OPENED_TOKENS_KEPT_MAX + 10 }, (_, i) => tokens.seal({ ...CLAIMS, launchId: `launch-${i}` }));
  others.forEach((token, i) => {
    assert.equal(tokens.open(token)!.launchId, `launch-${i}`);
    if (i % 1_000 === 0) assert.equal(tokens.open(first), claims);
  });
  assert.equal(tokens.open(first), claims, 'recently used: still kept');
  assert.equal(tokens.open(others[0]!)!.launchId, 'launch-0', 'evicted, opened again');
});

test('a secret is required', () => {
  assert.throws(() => launchTokens([], randomBytes));
  assert.throws(() => launchTokens([''], randomBytes));
});
