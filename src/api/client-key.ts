/**
 * What a keyless client is counted as: its IPv4 address, or the prefix of its
 * IPv6 address (USERSCOUT_IPV6_PREFIX, a /64 by default): one host is routinely
 * given a whole /64 and could take a new address for every search. Pure; the one
 * place the free tier's limits, quotas and stream caps get their client from.
 */
import { isIP } from 'node:net';

/** `ip:ADDRESS` for IPv4 (and an IPv4-mapped IPv6 address), `ip:PREFIX/BITS` for IPv6. */
export function clientKey(address: string, ipv6Prefix: number): string {
  const text = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  if (mapped?.[1]) return `ip:${mapped[1]}`;
  if (isIP(text) !== 6 || ipv6Prefix >= 128) return `ip:${text}`;
  return `ip:${ipv6Network(text, ipv6Prefix)}/${ipv6Prefix}`;
}

/** The first `bits` of an IPv6 address, the rest zeroed, in canonical form (RFC 5952: `::`, lower case). */
function ipv6Network(address: string, bits: number): string {
  let value = 0n;
  for (const word of expand(address)) value = (value << 16n) | BigInt(word);
  const mask = ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits);
  value &= mask;
  const words = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // The longest run (two or more) of zero words becomes `::`.
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

/** The eight 16-bit words of an IPv6 address (an embedded dotted IPv4 tail included). */
function expand(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  const before = words(left);
  if (right === undefined) return before;
  const after = words(right);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}
