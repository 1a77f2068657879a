import { describe, expect, it } from 'vitest';
import { sharedCells, sharedCellsBuffer } from './shared-cells.js';

describe('shared cells', () => {
  it('gives two views of one buffer the same counters, and refuses a buffer too small', () => {
    const buffer = sharedCellsBuffer(3);
    const a = sharedCells(buffer, 3, 'a tally');
    const b = sharedCells(buffer, 3, 'a tally');
    Atomics.add(a, 2, 5n);
    expect(Atomics.load(b, 2)).toBe(5n);
    expect(() => sharedCells(sharedCellsBuffer(2), 3, 'a tally')).toThrow('a tally needs 24 bytes (got 16)');
  });
});
