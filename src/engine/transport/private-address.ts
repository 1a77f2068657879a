/**
 * Is an IP address private, loopback, link-local or otherwise not on the public
 * internet? Pure. The ranges follow the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries (every block not globally reachable, plus multicast and the blocks
 * reserved for documentation), and an IPv6 address that embeds an IPv4 address
 * (IPv4-mapped, IPv4-translated, NAT64, 6to4) is judged by the IPv4 address it embeds.
 */
import { isIP } from 'node:net';

type Range = readonly [network: string, prefix: number];

/** IPv4 blocks that are not public destinations. */
export const PRIVATE_IPV4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private use
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private use
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private use
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 (limited broadcast) within it
];

/**
 * IPv6 blocks that are not public destinations. Besides these, anything outside
 * 2000::/3 (the only block IANA allocates as global unicast) is refused, which
 * takes in ::/128, ::1/128, the deprecated IPv4-compatible ::/96 (`::7f00:1`),
 * 100::/64 (discard-only), fc00::/7, fe80::/10, fec0::/10 and ff00::/8.
 */
export const PRIVATE_IPV6_RANGES: readonly Range[] = [
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation
  ['2001::', 23], // IETF protocol assignments, Teredo 2001::/32 among them
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
];

/** IPv6 prefixes whose addresses carry an IPv4 address: where it sits, in bits from the start. */
const EMBEDDING: readonly (readonly [network: string, prefix: number, at: number])[] = [
  ['::ffff:0:0', 96, 96], // IPv4-mapped
  ['::ffff:0:0:0', 96, 96], // IPv4-translated (RFC 2765)
  ['64:ff9b::', 96, 96], // NAT64 well-known prefix
  ['2002::', 16, 16], // 6to4
];

const GLOBAL_UNICAST: Range = ['2000::', 3];

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** An IPv6 address as a 128-bit integer; undefined when it is not one. */
function ipv6ToBigInt(address: string): bigint | undefined {
  const text = address.replace(/%.*$/, ''); // zone id: fe80::1%eth0
  if (isIP(text) !== 6) return undefined;
  let head = text;
  let tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = ipv4ToInt(dotted[1]);
    tail = [v4 >>> 16, v4 & 0xffff];
    // Keep a `::` just before the IPv4 part; drop a single `:`.
    head = text.slice(0, dotted.index + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left = '', right] = head.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  const before = words(left);
  const after = [...(right === undefined ? [] : words(right)), ...tail];
  const all =
    right === undefined
      ? [...before, ...tail]
      : [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  return all.reduce((n, w) => (n << 16n) | BigInt(w), 0n);
}

function inIpv4Range(address: number, [network, prefix]: Range): boolean {
  if (prefix === 0) return true;
  const shift = 32 - prefix;
  return address >>> shift === ipv4ToInt(network) >>> shift;
}

function inIpv6Range(address: bigint, network: string, prefix: number): boolean {
  const shift = BigInt(128 - prefix);
  return address >> shift === ipv6ToBigInt(network)! >> shift;
}

function isPrivateIpv4(address: number): boolean {
  return PRIVATE_IPV4_RANGES.some((range) => inIpv4Range(address, range));
}

function isPrivateIpv6(address: bigint): boolean {
  for (const [network, prefix, at] of EMBEDDING) {
    if (inIpv6Range(address, network, prefix)) {
      return isPrivateIpv4(Number((address >> BigInt(96 - at)) & 0xffffffffn));
    }
  }
  if (!inIpv6Range(address, ...GLOBAL_UNICAST)) return true;
  return PRIVATE_IPV6_RANGES.some(([network, prefix]) => inIpv6Range(address, network, prefix));
}

/** True for an address that is not a public destination; false for a public one and for what is no address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return isPrivateIpv4(ipv4ToInt(address));
  if (family === 6) return isPrivateIpv6(ipv6ToBigInt(address)!);
  return false;
}
