import { describe, expect, it } from 'vitest';
import { decodeCacheRow, encodeCacheRow } from './cache-refs.js';

const T0 = Date.UTC(2026, 11, 6, 2, 0, 0);

describe('cache rows', () => {
  it('give back every entry exactly: positions, check times and expiries to the millisecond', () => {
    const refs = [
      { position: 0, cachedAt: T0 + 40, expiresAt: T0 + 40 + 86_400_000 },
      { position: 1257, cachedAt: T0, expiresAt: T0 + 3_600_000 },
      { position: 7, cachedAt: T0 + 1_234, expiresAt: T0 + 1_234 + 1 },
      { position: 7, cachedAt: T0 + 5, expiresAt: T0 + 5 + 999_999 },
    ];
    const { row, expiresAt } = encodeCacheRow('search-é-1', refs);
    expect(expiresAt).toBe(T0 + 40 + 86_400_000);
    // In the order of their positions (of two at one position, as given).
    const byPosition = [refs[0], refs[2], refs[3], refs[1]];
    expect(decodeCacheRow(row)).toEqual({ searchId: 'search-é-1', expiresAt, refs: byPosition });
  });

  it('cost a few bytes an entry: a batch of a search of 1,258 platforms, checked within 100 ms', () => {
    const refs = Array.from({ length: 64 }, (_, i) => ({
      position: (i * 787) % 1_258,
      cachedAt: T0 + i,
      expiresAt: T0 + i + (i % 3 === 0 ? 86_400_000 : 3_600_000),
    }));
    const { row } = encodeCacheRow('0b6f2c1e-8a8d-4a51-9d0c-3c7f0e0f5a11', refs);
    expect(decodeCacheRow(row).refs).toEqual([...refs].sort((a, b) => a.position - b.position));
    expect(row.length).toBeLessThan(4 * refs.length + 60);
  });

  it('refuse no entries, and an entry that expires before it was checked', () => {
    expect(() => encodeCacheRow('s', [])).toThrow(RangeError);
    expect(() => encodeCacheRow('s', [{ position: 0, cachedAt: T0, expiresAt: T0 }])).toThrow(RangeError);
  });

  it('throw RangeError on bytes that are not a row, whole or cut short', () => {
    const { row } = encodeCacheRow('s1', [{ position: 3, cachedAt: T0, expiresAt: T0 + 1_000 }]);
    const damaged = [
      new Uint8Array(0),
      Uint8Array.of(2, ...row.subarray(1)),
      row.subarray(0, row.length - 1),
      Uint8Array.of(...row, 0),
      Uint8Array.of(1, 1, 1, 0x61),
      Uint8Array.of(1, 2, 1, 0xff, 1, 0),
      Uint8Array.of(1, 2, 0, 11, ...Array(10).fill(0xff), 1, 1, 1),
      // A lifetime index past the lifetimes given.
      Uint8Array.of(1, 2, 1, 0x73, 7, 10, 10, 1, 3, 0, 0, 5),
    ];
    for (const bytes of damaged) expect(() => decodeCacheRow(bytes), `${[...bytes]}`).toThrow(RangeError);
  });
});
