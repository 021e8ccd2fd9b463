/**
 * Address ranges and the caller's address: the one reading of an IP
 * whitelist, used by the provider's whitelists (docs/protocol.md §2.5) and
 * the operator's integrations' caller ranges (integrations.ts). Pure.
 *
 * Entries are IPv4 or IPv6 addresses or CIDR ranges. An IPv4-mapped IPv6
 * address (::ffff:1.2.3.4) is the IPv4 address it carries, on both sides of
 * the comparison. The caller is the socket's peer, unless that peer is a
 * trusted proxy: then X-Forwarded-For is read from the right, skipping
 * trusted proxies, and the first address that is not one is the caller.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** X-Forwarded-For hops read at most: a longer chain is not believed further. */
export const FORWARDED_HOPS_MAX = 16;

/** Parses an address, turning IPv4-mapped IPv6 into IPv4. Undefined if it is not one. */
export function parseAddress(text: string): Address | undefined {
  const trimmed = text.trim();
  // Only the dotted-quad form of IPv4: "127.1" or "0x7f.0.0.1" are not addresses here.
  if (ipaddr.IPv4.isValidFourPartDecimal(trimmed)) return ipaddr.IPv4.parse(trimmed);
  if (!ipaddr.IPv6.isValid(trimmed)) return undefined;
  return ipaddr.process(trimmed);
}

/** Parses a whitelist entry: an address (a range of one) or a CIDR range. */
export function parseRange(text: string): Range | undefined {
  const trimmed = text.trim();
  if (trimmed.includes('/')) {
    const valid = ipaddr.IPv4.isValidCIDRFourPartDecimal(trimmed) || ipaddr.IPv6.isValidCIDR(trimmed);
    if (!valid) return undefined;
    const [address, bits] = ipaddr.parseCIDR(trimmed);
    // ::ffff:10.0.0.0/104 is 10.0.0.0/8.
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
    }
    return [address, bits];
  }
  const address = parseAddress(trimmed);
  if (!address) return undefined;
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

export interface AddressSet {
  has(address: Address | undefined): boolean;
}

/** A set of ranges; throws on an entry that is not an address or range (config is checked first). */
export function addressSet(entries: readonly string[]): AddressSet {
  const ranges = entries.map((entry) => {
    const range = parseRange(entry);
    if (!range) throw new Error(`not an IP address or CIDR range: ${entry}`);
    return range;
  });
  return {
    has(address) {
      if (!address) return false;
      // ipaddr.js's match() requires both sides to be of one kind.
      return ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
    },
  };
}

/**
 * The caller's address: the peer, or, when the peer is a trusted proxy, the
 * nearest address of X-Forwarded-For that is not a trusted proxy. A
 * malformed hop stops the walk at the last trusted hop, which is then the
 * caller (and is most likely not whitelisted).
 */
export function callerAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: AddressSet): Address | undefined {
  let caller = peer === undefined ? undefined : parseAddress(peer);
  if (!caller || !trusted.has(caller) || forwardedFor === undefined) return caller;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  for (let i = hops.length - 1, read = 0; i >= 0 && read < FORWARDED_HOPS_MAX; i--, read++) {
    const hop = parseAddress(hops[i]!);
    if (!hop) return caller;
    caller = hop;
    if (!trusted.has(hop)) return hop;
  }
  return caller;
}
