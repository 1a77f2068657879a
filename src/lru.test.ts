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

  it('keeps entries up to their weight when weighed, the least recently used going first', () => {
    const cache = new Lru<string, string>(10, (s) => s.length);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa'); // a is now newer than b
    cache.set('c', 'cccc'); // 12: b goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.weight).toBe(8);
    cache.set('a', 'aaaaaa'); // replacing a value counts its new weight only
    expect(cache.weight).toBe(10);
    expect(cache.get('c')).toBe('cccc');
    cache.delete('c');
    expect(cache.weight).toBe(6);
    expect(cache.size).toBe(1);
  });

  it('keeps no entry heavier than its weight', () => {
    const cache = new Lru<string, string>(3, (s) => s.length);
    cache.set('a', 'abc');
    cache.set('b', 'four');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('abc');
    expect(cache.weight).toBe(3);
  });
});
