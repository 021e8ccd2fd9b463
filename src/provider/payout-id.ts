/**
 * The id of a payout the back office did not name: derived from what makes
 * a prize one prize (its operator, its campaign, its player), so that a
 * leaderboard imported twice pays each player once. It is a name-based UUID
 * in the manner of RFC 9562's version 5: SHA-1 over a fixed namespace and
 * the name, cut to 128 bits, with the version and variant bits set.
 */
import { createHash } from 'node:crypto';

/** This project's namespace of payout names; fixed for good, or every derived id would change. */
export const PAYOUT_ID_NAMESPACE = '6f1c7b0e-4a52-4d0b-9a8e-3c1f2d7e5b94';

/**
 * The name is the JSON array [operatorId, campaignId, playerId], the
 * campaign id in lower case: unambiguous whatever characters the ids hold.
 */
export function derivedPayoutId(operatorId: string, campaignId: string, playerId: string): string {
  const namespace = Buffer.from(PAYOUT_ID_NAMESPACE.replaceAll('-', ''), 'hex');
  const name = Buffer.from(JSON.stringify([operatorId, campaignId.toLowerCase(), playerId]), 'utf8');
  const hash = createHash('sha1').update(namespace).update(name).digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
