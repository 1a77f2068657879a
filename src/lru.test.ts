import { describe, expect, it } from 'vitest';
import { Lru } from './lru.js';

describe('Lru', () => {
  it('keeps the most recently used entries up to its size', () => {
    const cache = new Lru<string, string>(2);
    cache.set('a', '1');
    cache.set('b', '2');
    expect(cache.get('a')).toBe('1'); // a is now newer than b
    cache.set('c', '3');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('1');
    expect(cache.get('c')).toBe('3');
    expect(cache.size).toBe(2);
  });

  it('keeps nothing with size 0', () => {
    const cache = new Lru<string, string>(0);
    cache.set('a', '1');
    expect(cache.get('a')).toBeUndefined();
  });
});
