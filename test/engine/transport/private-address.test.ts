import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/engine/transport/private-address.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fd00::1',
    '::ffff:127.0.0.1',
    '100.64.0.1',
  ])('%s is private', (a) => expect(isPrivateAddress(a)).toBe(true));
  it.each(['8.8.8.8', '140.82.112.3', '2606:4700::1111', '::ffff:1.1.1.1', 'example.com', ''])(
    '%s is not',
    (a) => expect(isPrivateAddress(a)).toBe(false),
  );
});

/**
 * The IANA IPv4 Special-Purpose Address Registry (and multicast, from the IPv4
 * address space registry), written out here independently of the module under test.
 * `refused: false` for the blocks the registry marks globally reachable.
 */
const IPV4_REGISTRY: readonly { cidr: string; name: string; refused: boolean }[] = [
  { cidr: '0.0.0.0/8', name: 'this network', refused: true },
  { cidr: '10.0.0.0/8', name: 'private use', refused: true },
  { cidr: '100.64.0.0/10', name: 'shared address space', refused: true },
  { cidr: '127.0.0.0/8', name: 'loopback', refused: true },
  { cidr: '169.254.0.0/16', name: 'link local', refused: true },
  { cidr: '172.16.0.0/12', name: 'private use', refused: true },
  // 192.0.0.9 and 192.0.0.10 (PCP and TURN anycast) are globally reachable; the
  // whole /24 is refused anyway: no platform is checked through them.
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments', refused: true },
  { cidr: '192.0.2.0/24', name: 'documentation (TEST-NET-1)', refused: true },
  { cidr: '192.31.196.0/24', name: 'AS112-v4', refused: false },
  { cidr: '192.52.193.0/24', name: 'AMT', refused: false },
  { cidr: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast', refused: true },
  { cidr: '192.168.0.0/16', name: 'private use', refused: true },
  { cidr: '192.175.48.0/24', name: 'direct delegation AS112', refused: false },
  { cidr: '198.18.0.0/15', name: 'benchmarking', refused: true },
  { cidr: '198.51.100.0/24', name: 'documentation (TEST-NET-2)', refused: true },
  { cidr: '203.0.113.0/24', name: 'documentation (TEST-NET-3)', refused: true },
  { cidr: '224.0.0.0/4', name: 'multicast', refused: true },
  { cidr: '240.0.0.0/4', name: 'reserved', refused: true },
  { cidr: '255.255.255.255/32', name: 'limited broadcast', refused: true },
];

const toInt = (ip: string) => ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);
const toIp = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

function bounds(cidr: string): [first: number, last: number] {
  const [ip, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const first = toInt(ip!) - (toInt(ip!) % size);
  return [first, first + size - 1];
}

/** What the registry table says of an address: refused when any refused block holds it. */
function refusedByTable(n: number): boolean {
  return IPV4_REGISTRY.some((r) => {
    const [first, last] = bounds(r.cidr);
    return r.refused && n >= first && n <= last;
  });
}

describe('isPrivateAddress against the IANA IPv4 special-purpose registry', () => {
  for (const { cidr, name, refused } of IPV4_REGISTRY) {
    it(`${cidr} (${name}): first and last ${refused ? 'refused' : 'allowed'}, neighbours outside as the table says`, () => {
      const [first, last] = bounds(cidr);
      expect(isPrivateAddress(toIp(first)), toIp(first)).toBe(refused);
      expect(isPrivateAddress(toIp(last)), toIp(last)).toBe(refused);
      for (const outside of [first - 1, last + 1].filter((n) => n >= 0 && n <= 0xffffffff)) {
        expect(isPrivateAddress(toIp(outside)), toIp(outside)).toBe(refusedByTable(outside));
      }
    });
  }

  it('allows ordinary public addresses next to the private blocks', () => {
    for (const ip of [
      '1.0.0.0',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
    ])
      expect(isPrivateAddress(ip), ip).toBe(false);
    for (const ip of ['128.0.0.0', '172.15.255.255', '172.32.0.0', '223.255.255.255'])
      expect(isPrivateAddress(ip), ip).toBe(false);
  });
});

/**
 * The IANA IPv6 Special-Purpose Address Registry, each block with its first and last
 * address and the addresses just outside it, and what each must be. Blocks that embed
 * an IPv4 address are judged by it.
 */
const IPV6_REGISTRY: readonly {
  cidr: string;
  name: string;
  refused: Readonly<Record<string, boolean>>;
}[] = [
  { cidr: '::/128', name: 'unspecified', refused: { '::': true, '::2': true } },
  { cidr: '::1/128', name: 'loopback', refused: { '::1': true, '::2': true } },
  {
    cidr: '::/96',
    name: 'IPv4-compatible (deprecated): refused whatever it embeds',
    refused: { '::7f00:1': true, '::127.0.0.1': true, '::a00:1': true, '::808:808': true, '::1:0:0': true },
  },
  {
    cidr: '::ffff:0:0/96',
    name: 'IPv4-mapped',
    refused: {
      '::ffff:0.0.0.0': true,
      '::ffff:255.255.255.255': true,
      '::ffff:7f00:1': true,
      '::ffff:169.254.169.254': true,
      '::ffff:8.8.8.8': false,
      '::fffe:ffff:ffff': true, // outside: IPv4-compatible
      '::1:0:0:0': true, // outside: reserved, not global unicast
    },
  },
  {
    cidr: '::ffff:0:0:0/96',
    name: 'IPv4-translated',
    refused: {
      '::ffff:0:0.0.0.0': true,
      '::ffff:0:7f00:1': true,
      '::ffff:0:a00:1': true,
      '::ffff:0:808:808': false,
      '::ffff:0:255.255.255.255': true,
    },
  },
  {
    cidr: '64:ff9b::/96',
    name: 'NAT64 well-known prefix',
    refused: {
      '64:ff9b::': true,
      '64:ff9b::7f00:1': true,
      '64:ff9b::127.0.0.1': true,
      '64:ff9b::c0a8:101': true,
      '64:ff9b::8.8.8.8': false,
      '64:ff9b::ffff:ffff': true,
      '64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff': true, // outside: not global unicast
      '64:ff9b::1:0:0': true,
    },
  },
  {
    cidr: '64:ff9b:1::/48',
    name: 'local-use IPv4/IPv6 translation',
    refused: {
      '64:ff9b:1::': true,
      '64:ff9b:1::808:808': true,
      '64:ff9b:1:ffff:ffff:ffff:ffff:ffff': true,
      '64:ff9b:2::': true,
    },
  },
  {
    cidr: '100::/64',
    name: 'discard-only',
    refused: { '100::': true, '100::ffff:ffff:ffff:ffff': true, '100:0:0:1::': true },
  },
  {
    cidr: '2001::/23',
    name: 'IETF protocol assignments (Teredo 2001::/32 among them)',
    refused: {
      '2001::': true,
      '2001:0:4136:e378:8000:63bf:3fff:fdd2': true, // Teredo
      '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff': true,
      '2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff': false,
      '2001:200::': false,
    },
  },
  {
    cidr: '2001:db8::/32',
    name: 'documentation',
    refused: {
      '2001:db8::': true,
      '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff': true,
      '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff': false,
      '2001:db9::': false,
    },
  },
  {
    cidr: '2002::/16',
    name: '6to4',
    refused: {
      '2002::': true, // 0.0.0.0
      '2002:7f00:1::': true,
      '2002:c0a8:101::1': true,
      '2002:a9fe:a9fe::': true,
      '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff': true, // 255.255.255.255
      '2002:808:808::1': false,
      '2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff': false,
      '2003::': false,
    },
  },
  {
    cidr: '2620:4f:8000::/48',
    name: 'direct delegation AS112 (globally reachable)',
    refused: { '2620:4f:8000::': false, '2620:4f:8000:ffff:ffff:ffff:ffff:ffff': false },
  },
  {
    cidr: '3fff::/20',
    name: 'documentation',
    refused: {
      '3fff::': true,
      '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff': true,
      '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff': false,
      '3fff:1000::': false,
    },
  },
  {
    cidr: '5f00::/16',
    name: 'segment routing (SRv6) SIDs',
    refused: { '5f00::': true, '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff': true },
  },
  {
    cidr: 'fc00::/7',
    name: 'unique local',
    refused: { 'fc00::': true, 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff': true, 'fe00::': true },
  },
  {
    cidr: 'fe80::/10',
    name: 'link-local unicast',
    refused: { 'fe80::': true, 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff': true, 'fec0::': true },
  },
  {
    cidr: 'ff00::/8',
    name: 'multicast',
    refused: {
      'ff00::': true,
      'ff02::1': true,
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff': true,
      'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff': true,
    },
  },
  {
    cidr: '2000::/3',
    name: 'global unicast: the only block public destinations live in',
    refused: {
      '2000::': false,
      '3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff': false,
      '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff': true,
      '4000::': true,
    },
  },
];

describe('isPrivateAddress against the IANA IPv6 special-purpose registry', () => {
  for (const { cidr, name, refused } of IPV6_REGISTRY) {
    it(`${cidr} (${name})`, () => {
      for (const [address, expected] of Object.entries(refused))
        expect(isPrivateAddress(address), address).toBe(expected);
    });
  }

  it('judges the same address alike however it is written', () => {
    for (const form of ['::ffff:7f00:1', '::FFFF:127.0.0.1', '0:0:0:0:0:ffff:7f00:0001', '0::ffff:127.0.0.1'])
      expect(isPrivateAddress(form), form).toBe(true);
    for (const form of ['64:ff9b::808:808', '64:FF9B:0:0:0:0:8.8.8.8', '0064:ff9b::0808:0808'])
      expect(isPrivateAddress(form), form).toBe(false);
  });
});
