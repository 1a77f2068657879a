import { describe, expect, it } from 'vitest';
import { TierQueue } from '../../src/runner/priority-queue.js';

function drain<T>(queue: TierQueue<T>): T[] {
  const out: T[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) out.push(item);
  return out;
}

describe('TierQueue', () => {
  it('keeps arrival order within a tier', () => {
    const q = new TierQueue<string>();
    for (const id of ['f1', 'f2', 'f3']) q.push('free', id);
    expect(drain(q)).toEqual(['f1', 'f2', 'f3']);
  });

  it('starts professional searches before free ones that waited longer', () => {
    const q = new TierQueue<string>();
    q.push('free', 'f1');
    q.push('free', 'f2');
    q.push('professional', 'p1');
    expect(q.ahead('professional')).toBe(1);
    expect(q.ahead('free')).toBe(3);
    expect(drain(q)).toEqual(['p1', 'f1', 'f2']);
  });

  it('lets a free search through after a burst of professional ones, so free always progresses', () => {
    const q = new TierQueue<string>(3);
    q.push('free', 'f1');
    q.push('free', 'f2');
    for (let i = 1; i <= 7; i++) q.push('professional', `p${i}`);
    expect(drain(q)).toEqual(['p1', 'p2', 'p3', 'f1', 'p4', 'p5', 'p6', 'f2', 'p7']);
  });

  it('removes queued items and reports its size', () => {
    const q = new TierQueue<string>();
    q.push('free', 'f1');
    q.push('professional', 'p1');
    q.push('free', 'f2');
    q.remove((id) => id === 'f1');
    expect(q.size).toBe(2);
    expect(drain(q)).toEqual(['p1', 'f2']);
    expect(q.shift()).toBeUndefined();
  });
});
