/**
 * X-Server-Authorization (PROTOCOL.md §2): lowercase hex of
 * HMAC-SHA256(secret, rawBody), over the exact bytes sent on the wire.
 * Pure computation: crypto here is arithmetic, not I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-server-authorization';
const SIGNATURE_HEX_LENGTH = 64;

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
export function verifySignature(
  secrets: readonly SigningSecret[],
  header: string | string[] | undefined,
  rawBody: string | Uint8Array,
): boolean {
  if (typeof header !== 'string' || header.length !== SIGNATURE_HEX_LENGTH || !/^[0-9a-fA-F]+$/.test(header)) {
    return false;
  }
  const given = Buffer.from(header, 'hex');
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    if (timingSafeEqual(expected, given)) matched = true;
  }
  return matched;
}

/** Bearer tokens compared in constant time against the accepted set. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

export function tokenAccepted(accepted: readonly Buffer[], token: string | undefined): boolean {
  if (token === undefined) return false;
  const given = Buffer.from(token);
  let matched = false;
  for (const candidate of accepted) {
    if (candidate.length === given.length && timingSafeEqual(candidate, given)) matched = true;
  }
  return matched;
}
