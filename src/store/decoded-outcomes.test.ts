import { describe, expect, it } from 'vitest';
import type { Outcome } from '../engine/outcome.js';
import { DecodedOutcomes, decodedAt } from './decoded-outcomes.js';

const bytes = (...b: number[]) => Buffer.from(b);

function counting() {
  const calls: number[][] = [];
  const decode = (b: Uint8Array): Outcome => {
    calls.push([...b]);
    return { platformId: `p${b[0]}` } as Outcome;
  };
  return { calls, decode };
}

describe('DecodedOutcomes', () => {
  it('decodes an outcome once while its seq and bytes stay the same', () => {
    const cache = new DecodedOutcomes();
    const { calls, decode } = counting();
    const first = decodedAt(cache.of(1, 'alice'), 1, bytes(7, 1), decode);
    const again = decodedAt(cache.of(1, 'alice'), 1, bytes(7, 1), decode);
    expect(again).toBe(first);
    expect(calls).toEqual([[7, 1]]);
    // Shared by every read: frozen, so no reader can change what the next one gets.
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('decodes again when the bytes at a seq differ (a search created again under the same key)', () => {
    const cache = new DecodedOutcomes();
    const { calls, decode } = counting();
    decodedAt(cache.of(1, 'alice'), 1, bytes(7, 1), decode);
    expect(decodedAt(cache.of(1, 'alice'), 1, bytes(8, 1), decode).platformId).toBe('p8');
    expect(calls).toEqual([
      [7, 1],
      [8, 1],
    ]);
  });

  it('keeps nothing across usernames, nor across searches', () => {
    const cache = new DecodedOutcomes();
    const { calls, decode } = counting();
    decodedAt(cache.of(1, 'alice'), 1, bytes(7), decode);
    decodedAt(cache.of(1, 'Alice'), 1, bytes(7), decode);
    decodedAt(cache.of(2, 'Alice'), 1, bytes(7), decode);
    expect(calls).toHaveLength(3);
  });

  it('keeps the searches read most recently', () => {
    const cache = new DecodedOutcomes(2);
    const { calls, decode } = counting();
    decodedAt(cache.of(1, 'a'), 1, bytes(1), decode);
    decodedAt(cache.of(2, 'a'), 1, bytes(2), decode);
    cache.of(1, 'a'); // read again: 2 is now the oldest
    decodedAt(cache.of(3, 'a'), 1, bytes(3), decode);
    decodedAt(cache.of(1, 'a'), 1, bytes(1), decode);
    decodedAt(cache.of(2, 'a'), 1, bytes(2), decode);
    expect(calls).toEqual([[1], [2], [3], [2]]);
  });
});
