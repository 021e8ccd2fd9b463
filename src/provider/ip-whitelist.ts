/**
 * The provider's IP whitelists (docs/protocol.md §2.5) read with the one
 * parser and matcher of address ranges, which the operator's integrations
 * share (src/access/address-ranges.ts): the provider's modules name it
 * here, by its place in the provider's folder.
 */
export { addressSet, callerAddress, FORWARDED_HOPS_MAX, parseAddress, parseRange, type AddressSet } from '../access/address-ranges.js';
