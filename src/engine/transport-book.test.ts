import { describe, expect, it } from 'vitest';
import {
  MemoryTransportShelf,
  type RememberedTransport,
  TransportBook,
  type TransportShelf,
} from './transport-book.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const SITE = 'https://guarded.example';

function clock(start = T0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TransportBook', () => {
  it('remembers the transport a site needed per identity, until it expires', () => {
    const time = clock();
    const book = new TransportBook({ ttlMs: 60_000, clock: time.now });
    expect(book.needed(SITE, 'default')).toBeUndefined();
    book.learned(SITE, 'default', 'impersonate');
    expect(book.needed(SITE, 'default')).toBe('impersonate');
    expect(book.needed(SITE, 'addr:10.0.0.2')).toBeUndefined();
    expect(book.needed('https://other.example', 'default')).toBeUndefined();
    time.advance(59_999);
    expect(book.needed(SITE, 'default')).toBe('impersonate');
    time.advance(1);
    expect(book.needed(SITE, 'default')).toBeUndefined();
  });

  it('shares what one process learns with another through the shelf, the later lesson standing', async () => {
    const time = clock();
    const shelf = new MemoryTransportShelf();
    const first = new TransportBook({ ttlMs: 60_000, clock: time.now, shelf, refreshMs: 1_000 });
    const second = new TransportBook({ ttlMs: 60_000, clock: time.now, shelf, refreshMs: 1_000 });
    await second.fresh();
    first.learned(SITE, 'default', 'impersonate');
    // The other process reads the shelf again once its copy is older than the refresh interval.
    expect(second.needed(SITE, 'default')).toBeUndefined();
    time.advance(1_000);
    await second.fresh();
    expect(second.needed(SITE, 'default')).toBe('impersonate');
    time.advance(10);
    second.learned(SITE, 'default', 'browser');
    time.advance(1_000);
    await first.fresh();
    expect(first.needed(SITE, 'default')).toBe('browser');
    expect(await shelf.remembered(time.now())).toEqual([
      { origin: SITE, identity: 'default', transport: 'browser', at: T0 + 1_010, expiresAt: T0 + 61_010 },
    ]);
  });

  it('goes on from its own copy when the shelf cannot be read or written, and says so', async () => {
    const errors: unknown[] = [];
    const broken: TransportShelf = {
      remembered: () => Promise.reject(new Error('store down')),
      keep: (_entry: RememberedTransport) => Promise.reject(new Error('store down')),
    };
    const book = new TransportBook({ ttlMs: 60_000, shelf: broken, onError: (e) => errors.push(e) });
    await book.fresh();
    book.learned(SITE, 'default', 'browser');
    expect(book.needed(SITE, 'default')).toBe('browser');
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((e) => (e as Error).message)).toEqual(['store down', 'store down']);
  });
});
