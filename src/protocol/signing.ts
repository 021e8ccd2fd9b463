/**
 * X-Server-Authorization (docs/protocol.md §2): lowercase hex of
 * HMAC-SHA256(secret, rawBody), over the exact bytes sent on the wire.
 * Pure computation: crypto here is arithmetic, not I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-server-authorization';
/** docs/protocol.md §2: 64 lowercase hex digits, and nothing else, so that one HMAC has one spelling. */
const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;

export function sign(secret: string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * A shared secret. A server that checks every request keeps its secrets as
 * bytes (signingSecrets): HMAC then skips encoding the text on each call,
 * a quarter of its cost for a body of a few hundred bytes.
 */
export type SigningSecret = string | Uint8Array;

export function signingSecrets(secrets: readonly string[]): readonly Uint8Array[] {
  return secrets.map((secret) => Buffer.from(secret, 'utf8'));
}

/**
 * True if the header is the HMAC of the body under one of the secrets (the
 * current one, or the next one during a rotation). Every secret is tried, so
 * the time taken does not tell which one matched.
 */
export function verifySignature(secrets: readonly SigningSecret[], header: string | string[] | undefined, rawBody: string | Uint8Array): boolean {
  if (typeof header !== 'string' || !SIGNATURE_PATTERN.test(header)) return false;
  const given = Buffer.from(header, 'hex');
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    if (timingSafeEqual(expected, given)) matched = true;
  }
  return matched;
}

/** The token of an `Authorization: Bearer` header, or undefined if there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

/**
 * True if the token is one of the accepted ones. Every accepted token is
 * compared in full, over its own length, whatever the length of the one
 * given (a shorter or longer one is compared as if cut or padded to it), so
 * the time taken depends on the accepted tokens alone: it tells neither
 * which token matched, nor whether any did, nor how close the given one came.
 * (Hashing both sides to compare digests does the same for about 0.6 µs
 * more per call, on the thread that every wallet call waits for.)
 */
export function tokenAccepted(accepted: readonly Buffer[], token: string | undefined): boolean {
  if (token === undefined) return false;
  const given = Buffer.from(token);
  let matched = false;
  for (const candidate of accepted) {
    const sameLength = given.length === candidate.length;
    const window = sameLength ? given : fitted(given, candidate.length);
    if (timingSafeEqual(candidate, window) && sameLength) matched = true;
  }
  return matched;
}

/** `bytes` cut or zero-padded to `length`: what a token of another length is compared as. */
function fitted(bytes: Buffer, length: number): Buffer {
  const window = Buffer.alloc(length);
  bytes.copy(window, 0, 0, Math.min(bytes.length, length));
  return window;
}
