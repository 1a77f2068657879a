import { describe, expect, it } from 'vitest';
import { joinLengthPrefixed, splitLengthPrefixed } from './compact-outcome.js';
import { decodeCompactPage, encodeCompactPage, FORMAT_COMPACT_PAGE } from './compact-page.js';

/** Byte strings of the lengths given, each filled from a seed so no two are alike. */
function parts(lengths: readonly number[]): Uint8Array[] {
  return lengths.map((n, i) => Uint8Array.from({ length: n }, (_, j) => (i * 31 + j * 7) % 256));
}

describe('compact pages', () => {
  it('gives back every outcome’s bytes, in order, whatever their lengths (varint lengths past one byte)', async () => {
    for (const lengths of [
      [],
      [0],
      [1, 2, 3],
      [127, 128, 129, 0, 16_384],
      Array.from({ length: 300 }, (_, i) => i),
    ]) {
      const encoded = parts(lengths);
      const page = await encodeCompactPage(encoded);
      expect(page[0]).toBe(FORMAT_COMPACT_PAGE);
      expect(decodeCompactPage(page).map((p) => [...p])).toEqual(encoded.map((p) => [...p]));
    }
  });

  it('compresses what a search’s outcomes repeat', async () => {
    const hit = new TextEncoder().encode(
      '…ipsum dolor sit amet, consectetur adipiscing elit.</p> <div>[x]</div>',
    );
    const page = await encodeCompactPage(Array.from({ length: 500 }, () => hit));
    expect(page.length).toBeLessThan((hit.length * 500) / 20);
  });

  it('refuses another format, a truncated page and trailing bytes', async () => {
    const page = await encodeCompactPage(parts([5, 6]));
    expect(() => decodeCompactPage(Uint8Array.of(1, ...page.subarray(1)))).toThrow(/unknown format 1/);
    expect(() => decodeCompactPage(page.subarray(0, page.length - 2))).toThrow();
    const joined = joinLengthPrefixed(parts([3]));
    expect(() => splitLengthPrefixed(Uint8Array.of(...joined, 9))).toThrow(/trailing/);
    expect(() => splitLengthPrefixed(joined.subarray(0, joined.length - 1))).toThrow(/truncated/);
  });
});
