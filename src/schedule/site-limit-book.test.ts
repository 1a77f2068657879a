import { describe, expect, it } from 'vitest';
import type { LearnedLimitEntry } from './learned-limit.js';
import { type LearnedLimitShelf, MemoryLimitShelf, SiteLimitBook } from './site-limit-book.js';

const CEILING = { perSecond: 4, burst: 2 };
const SETTINGS = { floor: 0.1, recoveryPerMinute: 0, ttlMs: 60_000 };
const STATED = { present: true, statedPerSecond: 2 } as const;

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('SiteLimitBook', () => {
  it('lowers the limit of the origin and identity that answered 429, and of no other', () => {
    const time = clock();
    const book = new SiteLimitBook({ settings: SETTINGS, clock: time.now });
    book.heard('a.example', 'default', 429, STATED, time.now(), CEILING);
    expect(book.limit('a.example', 'default', CEILING)).toEqual({ perSecond: 2, burst: 1 });
    expect(book.limit('a.example', 'proxy-1', CEILING)).toBe(CEILING);
    expect(book.limit('b.example', 'default', CEILING)).toBe(CEILING);
  });

  it('learns a stated policy from any answer, and nothing else from answers that are not rate limits', () => {
    const time = clock();
    const book = new SiteLimitBook({ settings: SETTINGS, clock: time.now });
    book.heard('a.example', 'default', 200, { present: true, waitMs: 5000 }, time.now(), CEILING);
    book.heard('a.example', 'default', 503, { present: false }, time.now(), CEILING);
    expect(book.limit('a.example', 'default', CEILING)).toBe(CEILING);
    book.heard('a.example', 'default', 200, STATED, time.now(), CEILING);
    expect(book.limit('a.example', 'default', CEILING)).toEqual({ perSecond: 2, burst: 1 });
  });

  it('learns nothing when learning is off', () => {
    const time = clock();
    const off = new SiteLimitBook({ settings: { ...SETTINGS, ttlMs: 0 }, clock: time.now });
    off.heard('a.example', 'default', 429, STATED, time.now(), CEILING);
    expect(off.limit('a.example', 'default', CEILING)).toBe(CEILING);
  });

  it("shares what it learns through the shelf, and reads another book's lessons back", async () => {
    const time = clock();
    const shelf = new MemoryLimitShelf();
    const one = new SiteLimitBook({ settings: SETTINGS, shelf, clock: time.now });
    const two = new SiteLimitBook({ settings: SETTINGS, shelf, clock: time.now });
    await two.fresh();
    one.heard('a.example', 'default', 429, STATED, time.now(), CEILING);
    await Promise.resolve();
    // Read again only once its copy is older than the refresh interval.
    await two.fresh();
    expect(two.limit('a.example', 'default', CEILING)).toBe(CEILING);
    time.advance(5_000);
    await two.fresh();
    expect(two.limit('a.example', 'default', CEILING)).toEqual({ perSecond: 2, burst: 1 });
  });

  it('forgets a limit once it expires', async () => {
    const time = clock();
    const book = new SiteLimitBook({ settings: SETTINGS, clock: time.now });
    book.heard('a.example', 'default', 429, STATED, time.now(), CEILING);
    time.advance(SETTINGS.ttlMs);
    expect(book.limit('a.example', 'default', CEILING)).toBe(CEILING);
  });

  it('goes on with its own copy when the shelf fails, and says so', async () => {
    const time = clock();
    const errors: unknown[] = [];
    const broken: LearnedLimitShelf = {
      learned: async () => {
        throw new Error('store down');
      },
      keep: async (_: LearnedLimitEntry) => {
        throw new Error('store down');
      },
    };
    const book = new SiteLimitBook({
      settings: SETTINGS,
      shelf: broken,
      clock: time.now,
      onError: (e) => errors.push(e),
    });
    await book.fresh();
    book.heard('a.example', 'default', 429, STATED, time.now(), CEILING);
    await new Promise((resolve) => setImmediate(resolve));
    expect(book.limit('a.example', 'default', CEILING)).toEqual({ perSecond: 2, burst: 1 });
    expect(errors).toHaveLength(2);
  });

  it('waits a bounded time for a shelf that does not answer', async () => {
    const time = clock();
    const silent: LearnedLimitShelf = { learned: () => new Promise(() => {}), keep: async () => {} };
    const book = new SiteLimitBook({ settings: SETTINGS, shelf: silent, clock: time.now });
    await book.fresh();
    expect(book.limit('a.example', 'default', CEILING)).toBe(CEILING);
  });
});
