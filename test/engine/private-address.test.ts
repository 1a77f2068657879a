import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/engine/private-address.js';

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
    'fd00::1',
    '::ffff:127.0.0.1',
    '100.64.0.1',
  ])('%s is private', (a) => expect(isPrivateAddress(a)).toBe(true));
  it.each(['8.8.8.8', '140.82.112.3', '2606:4700::1111', '::ffff:1.1.1.1', 'example.com'])('%s is not', (a) =>
    expect(isPrivateAddress(a)).toBe(false),
  );
});
