import { describe, expect, it } from 'vitest';
import type { StoredOutcome } from '../store/store.js';
import { EventBacklog } from './event-backlog.js';

function fakeStore() {
  const outcomes: StoredOutcome[] = [];
  const reads: number[] = [];
  return {
    outcomes,
    reads,
    listOutcomes: async (_id: string, options?: { afterSeq?: number }) => {
      reads.push(options?.afterSeq ?? 0);
      await new Promise((r) => setTimeout(r, 5));
      return outcomes.filter((o) => o.seq > (options?.afterSeq ?? 0));
    },
  };
}
const stored = (seq: number): StoredOutcome => ({ seq, outcome: { platform: `P${seq}` } as never });

describe('EventBacklog', () => {
  it('reads each stored result once for every stream that opens, and only newer ones later', async () => {
    const store = fakeStore();
    store.outcomes.push(stored(1), stored(2), stored(3));
    const backlog = new EventBacklog(store);
    const opened = await Promise.all(Array.from({ length: 50 }, () => backlog.after('s', 0)));
    expect(new Set(opened.map((o) => o.text)).size).toBe(1);
    expect(opened[0]!.lastSeq).toBe(3);
    expect(opened[0]!.text.match(/^id: \d+$/gm)).toEqual(['id: 1', 'id: 2', 'id: 3']);
    expect(store.reads.length).toBeLessThanOrEqual(2);

    store.outcomes.push(stored(4));
    const resumed = await backlog.after('s', 2);
    expect(resumed.text.match(/^id: \d+$/gm)).toEqual(['id: 3', 'id: 4']);
    expect(store.reads.at(-1)).toBe(3);
    expect(await backlog.after('s', 4)).toEqual({ text: '', lastSeq: 4 });

    backlog.forget('s');
    await backlog.after('s', 0);
    expect(store.reads.at(-1)).toBe(0);
  });
});
