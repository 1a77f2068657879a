import { describe, expect, it } from 'vitest';
import { leanHeap, leanHeapFlags } from './lean-heap.js';

describe('leanHeap', () => {
  it("reduces memory at every full collection only in a one-shot process (the CLI's search)", () => {
    expect(leanHeapFlags('one-shot')).toContain('--optimize-for-size');
    expect(leanHeapFlags('long-running')).not.toContain('--optimize-for-size');
  });

  it('keeps a server on its optimising compiler and gives both lives the same growth rates', () => {
    expect(leanHeapFlags('one-shot')).toContain('--max-opt=0');
    expect(leanHeapFlags('long-running')).not.toContain('--max-opt=0');
    for (const flag of leanHeapFlags('long-running')) expect(leanHeapFlags('one-shot')).toContain(flag);
  });

  it('sets each flag of its life, in order', () => {
    const set: string[] = [];
    leanHeap('one-shot', (flag) => set.push(flag));
    expect(set).toEqual([...leanHeapFlags('one-shot')]);
  });
});
