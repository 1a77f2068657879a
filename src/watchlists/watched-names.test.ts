import { describe, expect, it } from 'vitest';
import { lookalikeNames } from '../catalogue/lookalike-names.js';
import { watchedNames } from './watched-names.js';

describe('watchedNames', () => {
  it('is the names alone without variants', () => {
    expect(watchedNames({ names: ['alice', 'bob'] }, 10)).toEqual(['alice', 'bob']);
    expect(watchedNames({ names: ['alice'], variants: true }, 0)).toEqual(['alice']);
  });

  it("adds each name's lookalikes after the names, each once, deterministically", () => {
    const spec = { names: ['john.doe', 'johndoe'], variants: true };
    const first = watchedNames(spec, 5);
    expect(first.slice(0, 2)).toEqual(['john.doe', 'johndoe']);
    expect(first).toEqual(watchedNames(spec, 5));
    expect(new Set(first.map((n) => n.toLowerCase())).size).toBe(first.length);
    for (const v of lookalikeNames('john.doe', 5)) expect(first).toContain(v.username);
    expect(first.length).toBeLessThanOrEqual(2 + 2 * 5);
    expect(first.length).toBeGreaterThan(2);
  });
});
