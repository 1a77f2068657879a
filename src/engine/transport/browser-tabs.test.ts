import { describe, expect, it } from 'vitest';
import type { ContextEnd } from './browser-pool.js';
import { IdleTabs, type Opened, type Tab } from './browser-tabs.js';

/** A tab over a context that closes at once; `ends` records how the pool was told it ended. */
function fakeTab(identity: number, ends: ContextEnd[], gone = false): Tab {
  const context = { close: async () => undefined };
  return {
    identity,
    pooled: { browser: {} as never, gone: () => gone },
    done: async (end) => {
      ends.push(end);
    },
    opening: Promise.resolve({ context, page: {} } as unknown as Opened),
    serving: {},
  };
}

const ORIGIN = 'https://site.test';
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('idle browser tabs', () => {
  it('hands a tab to a check of its own identity only', () => {
    const ends: ContextEnd[] = [];
    const idle = new IdleTabs(4);
    const first = fakeTab(0, ends);
    idle.put(first, ORIGIN);
    expect(idle.take(1)).toBeUndefined();
    const taken = idle.take(0);
    expect(taken?.tab).toBe(first);
    expect(taken?.origin).toBe(ORIGIN);
    expect(idle.take(0)).toBeUndefined();
  });

  it('keeps at most its cap in all, ending the oldest beyond it', async () => {
    const ends: ContextEnd[] = [];
    const idle = new IdleTabs(2);
    const [a, b, c] = [fakeTab(0, ends), fakeTab(1, ends), fakeTab(0, ends)];
    idle.put(a, ORIGIN);
    idle.put(b, ORIGIN);
    idle.put(c, ORIGIN);
    await settle();
    expect(ends).toEqual(['closed']);
    expect(idle.take(0)?.tab).toBe(c);
    expect(idle.take(1)?.tab).toBe(b);
  });

  it('ends a tab whose browser died instead of handing it out', async () => {
    const ends: ContextEnd[] = [];
    const idle = new IdleTabs(2);
    idle.put(fakeTab(0, ends, true), ORIGIN);
    expect(idle.take(0)).toBeUndefined();
    await settle();
    expect(ends).toEqual(['gone']);
  });

  it('ends its tabs once idle, and a tab put after it closed at once', async () => {
    const ends: ContextEnd[] = [];
    const idle = new IdleTabs(2, 20);
    idle.put(fakeTab(0, ends), ORIGIN);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ends).toEqual(['closed']);
    idle.put(fakeTab(1, ends), ORIGIN);
    await idle.close();
    expect(ends).toEqual(['closed', 'closed']);
    idle.put(fakeTab(2, ends), ORIGIN);
    await settle();
    expect(ends).toEqual(['closed', 'closed', 'closed']);
    expect(idle.take(2)).toBeUndefined();
  });

  it('takes a kept tab once cleared again, ends one that cannot be, and stops at the deadline', async () => {
    const ends: ContextEnd[] = [];
    const idle = new IdleTabs(4);
    const [failing, good] = [fakeTab(0, ends), fakeTab(0, ends)];
    idle.put(failing, ORIGIN);
    idle.put(good, ORIGIN);
    const cleared: Opened[] = [];
    const clear = async (opened: Opened, origin: string) => {
      expect(origin).toBe(ORIGIN);
      cleared.push(opened);
      return cleared.length > 1;
    };
    expect(await idle.takeCleared(0, new AbortController().signal, clear)).toBe(good);
    await settle();
    expect(ends).toEqual(['closed']);

    // A browser that no longer answers: each clearing would wait its own deadline; the check's ends the search.
    const [hung, next] = [fakeTab(1, ends), fakeTab(1, ends)];
    idle.put(hung, ORIGIN);
    idle.put(next, ORIGIN);
    const deadline = new AbortController();
    setTimeout(() => deadline.abort(new Error('deadline')), 20);
    const started = Date.now();
    expect(await idle.takeCleared(1, deadline.signal, () => new Promise<boolean>(() => {}))).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_000);
    await settle();
    expect(ends).toEqual(['closed', 'closed']);
    expect(idle.take(1)?.tab).toBe(next);
  });
});
