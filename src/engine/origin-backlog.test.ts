import { describe, expect, it } from 'vitest';
import { OriginBacklog, type SiteLoad } from './origin-backlog.js';

const BUDGET = { perSecond: 4, burst: 2 };
const loads = (entries: Record<string, number>, limit = BUDGET): Map<string, SiteLoad> =>
  new Map(Object.entries(entries).map(([site, requests]) => [site, { requests, limit }]));
/** Whether the promise has settled after the microtasks queued so far. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('OriginBacklog', () => {
  it('starts searches while their requests fit the deadline at the budget, then holds the next', async () => {
    // 9 s at 4/s: 36 requests to one site (its burst spent once requests are ahead).
    const backlog = new OriginBacklog({ identities: 1, withinMs: 9000 });
    const leases = [];
    for (let i = 0; i < 4; i++)
      leases.push(await backlog.start(loads({ 'archive.org': 9, [`s${i}.test`]: 1 })));
    expect(backlog.committed('archive.org')).toBe(36);
    const fifth = backlog.start(loads({ 'archive.org': 9 }));
    expect(await settled(fifth)).toBe(false);
    expect(backlog.waiting).toBe(1);
    // Sent requests no longer count: 36 - 9 + 9 = 36 fits.
    for (let i = 0; i < 8; i++) leases[0]!.release('archive.org');
    expect(await settled(fifth)).toBe(false);
    leases[0]!.release('archive.org');
    expect(await settled(fifth)).toBe(true);
    expect(backlog.committed('archive.org')).toBe(36);
    expect(backlog.waiting).toBe(0);
  });

  it('spreads the requests over the identities: twice as many fit with two', async () => {
    const one = new OriginBacklog({ identities: 1, withinMs: 9000 });
    const two = new OriginBacklog({ identities: 2, withinMs: 9000 });
    let started = 0;
    for (const backlog of [one, two]) {
      started = 0;
      for (;;) {
        const next = backlog.start(loads({ 'archive.org': 9 }));
        if (!(await settled(next))) break;
        started++;
      }
      expect(started).toBe(backlog === one ? 4 : 8);
    }
  });

  it('reads a site by its own budget', async () => {
    const backlog = new OriginBacklog({ identities: 1, withinMs: 9000 });
    const strict = { perSecond: 1, burst: 1 };
    await backlog.start(loads({ 'api.test': 5 }, strict));
    expect(await settled(backlog.start(loads({ 'api.test': 4 }, strict)))).toBe(true); // 9 at 1/s: 9 s
    expect(await settled(backlog.start(loads({ 'api.test': 1 }, strict)))).toBe(false);
  });

  it('lets a search larger than the deadline allows start once its site has nothing ahead', async () => {
    const backlog = new OriginBacklog({ identities: 1, withinMs: 9000 });
    const big = await backlog.start(loads({ 'archive.org': 100 }));
    const other = backlog.start(loads({ 'archive.org': 100 }));
    expect(await settled(other)).toBe(false);
    big.close();
    expect(await settled(other)).toBe(true);
  });

  it('starts the highest priority first, and none ahead of the first in line', async () => {
    const backlog = new OriginBacklog({ identities: 1, withinMs: 9000 });
    const running = await backlog.start(loads({ 'archive.org': 36 }));
    const order: string[] = [];
    const free = backlog.start(loads({ 'archive.org': 9 }), 0).then((l) => {
      order.push('free');
      return l;
    });
    const pro = backlog.start(loads({ 'archive.org': 9 }), 1).then((l) => {
      order.push('pro');
      return l;
    });
    // Fits on its own site, but waits behind the first in line.
    const small = backlog.start(loads({ 'elsewhere.test': 1 }), 0).then((l) => {
      order.push('small');
      return l;
    });
    await settled(small);
    expect(order).toEqual([]);
    for (let i = 0; i < 9; i++) running.release('archive.org');
    await settled(pro);
    expect(order).toEqual(['pro']);
    running.close();
    await Promise.all([free, small]);
    expect(order).toEqual(['pro', 'free', 'small']);
  });

  it('gives a waiting search up when its signal aborts, and moves the line on', async () => {
    const backlog = new OriginBacklog({ identities: 1, withinMs: 9000 });
    const running = await backlog.start(loads({ 'archive.org': 36 }));
    const controller = new AbortController();
    const cancelled = backlog.start(loads({ 'archive.org': 9 }), 0, controller.signal);
    const next = backlog.start(loads({ 'other.test': 1 }));
    controller.abort(new Error('cancelled'));
    await expect(cancelled).rejects.toThrow('cancelled');
    expect(await settled(next)).toBe(true);
    expect(backlog.committed('archive.org')).toBe(36);
    running.close();
    expect(backlog.committed('archive.org')).toBe(0);
  });

  it('counts each request off once: releases past its own count and a second close change nothing', async () => {
    const backlog = new OriginBacklog({ identities: 1, withinMs: 9000 });
    const a = await backlog.start(loads({ 'archive.org': 2 }));
    const b = await backlog.start(loads({ 'archive.org': 3 }));
    a.release('archive.org');
    a.release('archive.org');
    a.release('archive.org');
    a.release('nowhere.test');
    expect(backlog.committed('archive.org')).toBe(3);
    a.close();
    b.close();
    b.close();
    expect(backlog.committed('archive.org')).toBe(0);
  });

  it('refuses settings it cannot use', () => {
    expect(() => new OriginBacklog({ identities: 0, withinMs: 9000 })).toThrow(/identities/);
    expect(() => new OriginBacklog({ identities: 1, withinMs: 0 })).toThrow(/withinMs/);
  });
});
