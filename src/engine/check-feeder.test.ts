import { describe, expect, it } from 'vitest';
import { CheckFeeder, type FeedSource } from './check-feeder.js';

/** A source whose started items wait in line until `leave(item)` is called. */
function source(name: string, count: number, priority = 0, started: string[] = []) {
  const leaving = new Map<string, () => void>();
  const items = Array.from({ length: count }, (_, i) => `${name}${i}`);
  const feed: FeedSource<string> = {
    priority,
    items,
    start: (item, leftLine) => {
      started.push(item);
      leaving.set(item, leftLine);
    },
  };
  return { feed, started, leave: (item: string) => leaving.get(item)!() };
}

describe('CheckFeeder', () => {
  it('starts no more than `ahead` checks in line, and the next as soon as one leaves it', () => {
    const feeder = new CheckFeeder(2);
    const a = source('a', 5);
    const fed = feeder.add(a.feed);
    expect(a.started).toEqual(['a0', 'a1']);
    expect(fed.unstarted).toBe(3);
    a.leave('a1');
    expect(a.started).toEqual(['a0', 'a1', 'a2']);
    // A second call for the same check is ignored.
    a.leave('a1');
    expect(a.started).toEqual(['a0', 'a1', 'a2']);
    expect(feeder.inLine()).toBe(2);
  });

  it('serves the search that came first, then the next, in each search’s own order', () => {
    const feeder = new CheckFeeder(1);
    const started: string[] = [];
    const a = source('a', 2, 0, started);
    const b = source('b', 2, 0, started);
    feeder.add(a.feed);
    feeder.add(b.feed);
    expect(started).toEqual(['a0']);
    a.leave('a0');
    a.leave('a1');
    expect(started).toEqual(['a0', 'a1', 'b0']);
    b.leave('b0');
    expect(started).toEqual(['a0', 'a1', 'b0', 'b1']);
  });

  it('starts a higher priority’s checks at once, however many lower ones are in line, and first', () => {
    const feeder = new CheckFeeder(2);
    const started: string[] = [];
    const free = source('free', 10, 0, started);
    const pro = source('pro', 3, 1, started);
    feeder.add(free.feed);
    feeder.add(pro.feed);
    expect(started).toEqual(['free0', 'free1', 'pro0', 'pro1']);
    expect(feeder.inLine(1)).toBe(2);
    expect(feeder.inLine()).toBe(4);
    // The free ones count the professional ones in line ahead of them.
    free.leave('free0');
    expect(started).toHaveLength(4);
    pro.leave('pro0');
    expect(started.at(-1)).toBe('pro2');
    pro.leave('pro1');
    expect(started).toHaveLength(5);
    pro.leave('pro2');
    expect(started.at(-1)).toBe('free2');
  });

  it('never starts what is left of a closed source', () => {
    const feeder = new CheckFeeder(1);
    const started: string[] = [];
    const a = source('a', 3, 0, started);
    const b = source('b', 1, 0, started);
    const fed = feeder.add(a.feed);
    feeder.add(b.feed);
    fed.close();
    expect(fed.unstarted).toBe(0);
    a.leave('a0');
    expect(started).toEqual(['a0', 'b0']);
  });

  it('goes on at once when a check ends as soon as it is started (a name the platform refuses)', () => {
    const feeder = new CheckFeeder(1);
    const started: string[] = [];
    feeder.add({
      priority: 0,
      items: Array.from({ length: 1000 }, (_, i) => i),
      start: (item, leftLine) => {
        started.push(String(item));
        leftLine();
      },
    });
    expect(started).toHaveLength(1000);
    expect(feeder.inLine()).toBe(0);
  });

  it('refuses a line of less than one', () => {
    expect(() => new CheckFeeder(0)).toThrow('ahead must be a whole number of at least 1; received 0');
  });
});
