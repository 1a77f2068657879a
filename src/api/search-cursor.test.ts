import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './search-cursor.js';

describe('search cursor', () => {
  it('reads back what it wrote, in URL-safe characters', () => {
    const cursor = { createdAt: 1_764_000_000_123, id: '5b0f3c1e-8d1a-4b7e-9c1d-0a1b2c3d4e5f' };
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it('refuses text it did not write with a 400', () => {
    for (const text of ['', 'abc', encodeCursor({ createdAt: 1, id: 'x' }).slice(0, -2) + '!!']) {
      expect(() => decodeCursor(text)).toThrow(expect.objectContaining({ code: 'bad_request' }));
    }
  });
});
