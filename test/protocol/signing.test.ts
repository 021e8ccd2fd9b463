/**
 * Proves X-Server-Authorization signing: the HMAC is over the exact bytes,
 * any change to body or secret fails, both secrets of a rotation pass, and
 * malformed headers never pass, upper-case hex included. Also bearer token
 * parsing, and that a token is compared in constant time whatever its length.
 */
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto, { createHmac } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import fc from 'fast-check';
import { bearerToken, sign, signingSecrets, tokenAccepted, verifySignature } from '../../src/protocol/signing.js';

test('the signature is lowercase hex HMAC-SHA256 of the raw body', () => {
  const body = '{"a":1}';
  assert.equal(sign('s', body), createHmac('sha256', 's').update(body).digest('hex'));
  assert.match(sign('s', body), /^[0-9a-f]{64}$/);
});

test('property: a signature verifies for its body and secret only', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string(), fc.string(), (secret, other, body, otherBody) => {
      const signature = sign(secret, body);
      assert.ok(verifySignature([secret], signature, body));
      assert.ok(verifySignature([other, secret], signature, body), 'the next secret of a rotation is accepted too');
      assert.ok(verifySignature(signingSecrets([other, secret]), signature, body), 'secrets kept as bytes verify the same');
      if (other !== secret) assert.ok(!verifySignature(signingSecrets([other]), signature, body));
      if (other !== secret) assert.ok(!verifySignature([other], signature, body));
      if (otherBody !== body) assert.ok(!verifySignature([secret], signature, otherBody));
    }),
    { numRuns: 500 },
  );
});

test('the exact bytes count: a re-serialised body does not verify', () => {
  const sent = '{ "amount": 1.50 }';
  const signature = sign('s', sent);
  assert.ok(verifySignature(['s'], signature, Buffer.from(sent)));
  assert.ok(!verifySignature(['s'], signature, JSON.stringify(JSON.parse(sent))));
});

test('malformed headers never verify', () => {
  const body = '{}';
  const good = sign('s', body);
  for (const header of [undefined, '', good.slice(1), `${good}0`, `sha256=${good}`, good.replace(/[0-9a-f]/, 'g'), [good, good]]) {
    assert.ok(!verifySignature(['s'], header as string | undefined, body), String(header));
  }
});

test('upper-case hex is refused: docs/protocol.md §2 says lowercase, so one HMAC has one spelling', () => {
  const body = '{}';
  const good = sign('s', body);
  assert.ok(verifySignature(['s'], good, body));
  assert.ok(!verifySignature(['s'], good.toUpperCase(), body));
  fc.assert(
    fc.property(fc.string(), fc.nat(63), (text, at) => {
      const signature = sign('s', text);
      const changed = signature.slice(0, at) + signature.charAt(at).toUpperCase() + signature.slice(at + 1);
      assert.equal(verifySignature(['s'], changed, text), changed === signature);
    }),
  );
});

test('bearer tokens', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer abc'), 'abc');
  assert.equal(bearerToken('Basic abc'), undefined);
  assert.equal(bearerToken('Bearer'), undefined);
  assert.equal(bearerToken(undefined), undefined);
  const accepted = [Buffer.from('one'), Buffer.from('two')];
  assert.ok(tokenAccepted(accepted, 'two'));
  assert.ok(!tokenAccepted(accepted, 'three'));
  assert.ok(!tokenAccepted(accepted, 'tw'));
  assert.ok(!tokenAccepted(accepted, undefined));
  assert.ok(!tokenAccepted(accepted, ''));
  assert.ok(!tokenAccepted(accepted, 'two '));
});

test('bearer tokens: every accepted token is compared in full, whatever the length of the one given', () => {
  // A comparison skipped for a length that differs would tell by its timing how long a token is.
  // timingSafeEqual is watched through the module object; syncBuiltinESMExports carries the watch to named imports.
  const compared: [number, number][] = [];
  const original = crypto.timingSafeEqual;
  const watch = mock.method(crypto, 'timingSafeEqual', (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    compared.push([a.byteLength, b.byteLength]);
    return original(a, b);
  });
  syncBuiltinESMExports();
  try {
    const accepted = [Buffer.from('short'), Buffer.from('a-much-longer-accepted-token')];
    for (const token of ['x', 'short', 'a-much-longer-accepted-token', 'z'.repeat(300)]) {
      compared.length = 0;
      const expected = accepted.some((candidate) => candidate.toString() === token);
      assert.equal(tokenAccepted(accepted, token), expected, token);
      assert.equal(compared.length, accepted.length, `${token}: every accepted token is tried`);
      for (const [a, b] of compared) assert.equal(a, b, `${token}: equal lengths are compared`);
      // Each accepted token over its own length, whatever was given: the work depends on the accepted tokens alone.
      assert.deepEqual(
        compared.map(([a]) => a),
        accepted.map((candidate) => candidate.length),
        `${token}: each token over its own length`,
      );
    }
  } finally {
    watch.mock.restore();
    syncBuiltinESMExports();
  }
});
