import { describe, expect, it } from 'vitest';
import { slowestFirst } from '../../src/runner/check-order.js';

const p = (id: string) => ({ id });

describe('slowestFirst', () => {
  it('puts the slowest measured platforms first, unmeasured ones at the given latency, ties in catalogue order', () => {
    const platforms = ['a', 'b', 'c', 'd', 'e'].map(p);
    const recent = new Map([
      ['a', 200],
      ['b', 9000],
      ['d', 200],
      ['e', 3000],
    ]);
    expect(slowestFirst(platforms, recent, 1000).map((x) => x.id)).toEqual(['b', 'e', 'c', 'a', 'd']);
    expect(slowestFirst(platforms, recent, 5000).map((x) => x.id)).toEqual(['b', 'c', 'e', 'a', 'd']);
  });

  it('keeps the catalogue order when nothing is measured, and does not change its input', () => {
    const platforms = ['x', 'y', 'z'].map(p);
    expect(slowestFirst(platforms, new Map(), 1000)).toEqual(platforms);
    expect(slowestFirst(platforms, new Map([['z', 50]]), 1000).map((x) => x.id)).toEqual(['x', 'y', 'z']);
    expect(platforms.map((x) => x.id)).toEqual(['x', 'y', 'z']);
  });
});
