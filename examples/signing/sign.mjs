// X-Server-Authorization (docs/protocol.md §2.1) in Node.js, checked against
// the vectors of Appendix A: node sign.mjs vectors.json
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

// --- the snippet -------------------------------------------------------
/** The signature of the exact bytes sent (a Buffer), under the secret's UTF-8 bytes. */
export function sign(secret, body) {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** A received signature checked in constant time: exactly 64 characters 0-9a-f, and equal. */
export function verify(secret, body, signature) {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature)) return false;
  return timingSafeEqual(Buffer.from(sign(secret, body), 'hex'), Buffer.from(signature, 'hex'));
}
// -----------------------------------------------------------------------

const { vectors } = JSON.parse(readFileSync(process.argv[2] ?? 'vectors.json', 'utf8'));
let failed = 0;
for (const vector of vectors) {
  const body = Buffer.from(vector.body, 'utf8');
  const ok =
    sign(vector.secret, body) === vector.signature &&
    verify(vector.secret, body, vector.signature) &&
    !verify(vector.secret, body, vector.signature.toUpperCase());
  console.log(`${ok ? 'ok' : 'FAILED'} ${vector.name}`);
  if (!ok) failed++;
}
process.exit(failed === 0 ? 0 : 1);
