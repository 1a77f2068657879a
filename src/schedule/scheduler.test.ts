/**
 * The scheduler's rules one at a time, on a fake clock: the priority order,
 * admission within the allowance, cancellation freeing what was counted, no
 * send past a deadline, retries and controls ahead of checks, identities sharing
 * a site, and a learned limit taking the catalogue's place.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, runOut, settle } from '../../test/support/fake-clock.js';
import { sleep } from './clock.js';
import { type Cancellation, Scheduler, type SchedulerOptions, type SiteDemand } from './scheduler.js';

const FOUR = { perSecond: 4, burst: 1 };

function setup(options: Partial<SchedulerOptions> = {}) {
  const clock = new FakeClock();
  const scheduler = new Scheduler({ global: 8, perSite: 8, admitWithinMs: 10_000, clock, ...options });
  const sends: { label: string; at: number; identity: number }[] = [];
  /** A check answered after `ms`, logged as it is sent. */
  const check =
    (label: string, ms = 10) =>
    async (identity: number) => {
      sends.push({ label, at: clock.now(), identity });
      await sleep(clock, ms);
      return label;
    };
  return { clock, scheduler, sends, check };
}

function demand(site: string, requests: number): Map<string, SiteDemand> {
  return new Map([[site, { requests, ceiling: FOUR }]]);
}

describe('Scheduler', () => {
  it('sends at the budget’s pace, a professional search’s checks before a free one’s booked earlier', async () => {
    const { clock, scheduler, sends, check } = setup();
    const booked = [
      ...['f1', 'f2', 'f3'].map((l) =>
        scheduler.book({ site: 's', ceiling: FOUR, maxWaitMs: 10_000, run: check(l) }),
      ),
      ...['p1', 'p2'].map((l) =>
        scheduler.book({ site: 's', ceiling: FOUR, priority: 1, maxWaitMs: 10_000, run: check(l) }),
      ),
    ];
    await runOut(clock);
    await Promise.all(booked);
    // Each send time goes to the first in line when it comes.
    expect(sends.map((s) => s.label)).toEqual(['p1', 'p2', 'f1', 'f2', 'f3']);
    expect(sends.map((s) => s.at)).toEqual([0, 250, 500, 750, 1000]);
  });

  it('admits a search only when its requests and those counted ahead fit the allowance', async () => {
    const { clock, scheduler } = setup({ admitWithinMs: 1000 });
    // 4 a second for 1 s: the first search's 3 fit, the second's 3 only once some are sent.
    const first = await scheduler.admit(demand('s', 3));
    let second = false;
    void scheduler.admit(demand('s', 3)).then(() => {
      second = true;
    });
    await settle();
    expect(second).toBe(false);
    expect(scheduler.unsent('s')).toBe(3);
    const done = ['a', 'b', 'c'].map((l) =>
      first.book({ site: 's', ceiling: FOUR, maxWaitMs: 900, run: async () => l }),
    );
    await runOut(clock);
    expect(await Promise.all(done)).toEqual(['a', 'b', 'c'].map((value) => ({ sent: true, value })));
    expect(second).toBe(true);
  });

  it('frees what a cancelled search counted and booked, and never sends it', async () => {
    const { clock, scheduler, sends, check } = setup({ admitWithinMs: 1000 });
    const cancel = new AbortController();
    const first = await scheduler.admit(demand('s', 4), 0, cancel.signal);
    const handles = ['a', 'b'].map(() => ({}) as Cancellation);
    const booked = ['a', 'b'].map((l, i) =>
      first.book({ site: 's', ceiling: FOUR, maxWaitMs: 5000, cancel: handles[i], run: check(l) }),
    );
    const cancelled = expect(booked[1]).rejects.toThrow('cancelled');
    const second = scheduler.admit(demand('s', 4));
    let started = false;
    void second.then(() => {
      started = true;
    });
    await settle();
    expect(started).toBe(false);
    cancel.abort(new Error('cancelled'));
    for (const handle of handles) handle.cancel?.(new Error('cancelled'));
    first.close();
    await settle();
    // 'a' went at once; 'b' was cancelled in line and the two never booked were released.
    expect(started).toBe(true);
    await cancelled;
    (await second).close();
    await runOut(clock);
    expect(sends.map((s) => s.label)).toEqual(['a']);
    expect(scheduler.sites).toBe(0);
  });

  it('sends nothing when no send time comes within the wait allowed, and says how long it waited', async () => {
    const { clock, scheduler, sends, check } = setup();
    const slow = { perSecond: 0.5, burst: 1 };
    const results = ['a', 'b', 'c'].map((l) =>
      scheduler.book({ site: 's', ceiling: slow, maxWaitMs: 300, run: check(l) }),
    );
    await runOut(clock);
    expect(await Promise.all(results)).toEqual([
      { sent: true, value: 'a' },
      { sent: false, waitedMs: 0 },
      { sent: false, waitedMs: 0 },
    ]);
    expect(sends).toHaveLength(1);
  });

  it('gives a retry of a check in flight the next send time of its identity, ahead of every check in line', async () => {
    const { clock, scheduler, sends, check } = setup();
    const log: string[] = [];
    const first = scheduler.book({
      site: 's',
      ceiling: FOUR,
      maxWaitMs: 10_000,
      run: async (identity) => {
        log.push(`first@${clock.now()}`);
        expect(await scheduler.pace('s', identity, FOUR, 5000)).toBe(true);
        log.push(`retry@${clock.now()}`);
      },
    });
    const other = scheduler.book({ site: 's', ceiling: FOUR, maxWaitMs: 10_000, run: check('other') });
    await runOut(clock);
    await Promise.all([first, other]);
    expect(log).toEqual(['first@0', 'retry@250']);
    expect(sends).toEqual([{ label: 'other', at: 500, identity: 0 }]);
  });

  it('spreads a site’s checks over its identities, each on its own budget', async () => {
    const { clock, scheduler, sends, check } = setup({ identities: ['a', 'b'] });
    const booked = Array.from({ length: 6 }, (_, i) =>
      scheduler.book({ site: 's', ceiling: FOUR, maxWaitMs: 10_000, run: check(`c${i}`) }),
    );
    await runOut(clock);
    await Promise.all(booked);
    const on = (identity: number) => sends.filter((s) => s.identity === identity).map((s) => s.at);
    expect(on(0)).toEqual([0, 250, 500]);
    expect(on(1)).toEqual([0, 250, 500]);
  });

  it('takes each (site, identity)’s budget from its limit source, never above the catalogue’s', async () => {
    const learned = {
      limitOf: (site: string, identity: string) =>
        site === 's' && identity === 'default' ? { perSecond: 1, burst: 1 } : { perSecond: 100, burst: 100 },
    };
    const { clock, scheduler, sends, check } = setup({ limits: learned });
    const booked = ['a', 'b', 't1', 't2'].map((l) =>
      scheduler.book({
        site: l.startsWith('t') ? 't' : 's',
        ceiling: FOUR,
        maxWaitMs: 10_000,
        run: check(l),
      }),
    );
    await runOut(clock);
    await Promise.all(booked);
    const at = Object.fromEntries(sends.map((s) => [s.label, s.at]));
    // 's' learned 1 a second; 't' was offered more than the catalogue's 4 and keeps 4.
    expect(at).toEqual({ a: 0, b: 1000, t1: 0, t2: 250 });
  });

  it('keeps at most `global` checks in flight, and at most `perSite` per site and identity', async () => {
    const { clock, scheduler, check } = setup({ global: 2, perSite: 1 });
    const many = { perSecond: 1000, burst: 1000 };
    let most = 0;
    const booked = ['s', 's', 't', 'u', 'u'].map((site) =>
      scheduler.book({
        site,
        ceiling: many,
        maxWaitMs: 10_000,
        run: async (identity) => {
          most = Math.max(most, scheduler.inFlight);
          await check(site, 100)(identity);
        },
      }),
    );
    await runOut(clock);
    await Promise.all(booked);
    expect(most).toBe(2);
    expect(clock.now()).toBe(300);
  });

  it('passes a failing check’s error to its caller and frees its slots', async () => {
    const { clock, scheduler, sends, check } = setup({ global: 1 });
    const many = { perSecond: 1000, burst: 1000 };
    const failing = scheduler.book({
      site: 's',
      ceiling: many,
      maxWaitMs: 1000,
      run: () => {
        throw new Error('boom');
      },
    });
    const next = scheduler.book({ site: 's', ceiling: many, maxWaitMs: 1000, run: check('next') });
    await expect(failing).rejects.toThrow('boom');
    await runOut(clock);
    expect(await next).toEqual({ sent: true, value: 'next' });
    expect(sends).toHaveLength(1);
  });

  it('spreads a site’s admission over the identities: twice as many requests fit with two', async () => {
    for (const identities of [['a'], ['a', 'b']]) {
      const { scheduler } = setup({ identities, admitWithinMs: 1000 });
      await scheduler.admit(demand('s', 4));
      let started = false;
      void scheduler.admit(demand('s', 4)).then(() => {
        started = true;
      });
      await settle();
      // 4 a second per identity: 8 within 1 s need both.
      expect(started).toBe(identities.length === 2);
    }
  });

  it('lets a search larger than the allowance start once its site has nothing ahead', async () => {
    const { scheduler } = setup({ admitWithinMs: 1000 });
    const large = await scheduler.admit(demand('s', 40));
    expect(scheduler.unsent('s')).toBe(40);
    large.close();
    expect(scheduler.unsent('s')).toBe(0);
    expect(scheduler.sites).toBe(0);
  });

  it('starts the highest priority waiting search first, and none ahead of the first in line', async () => {
    const { scheduler } = setup({ admitWithinMs: 1000 });
    const first = await scheduler.admit(demand('s', 4));
    const order: string[] = [];
    const waiting = [
      scheduler.admit(demand('s', 1), 0).then((a) => {
        order.push('free');
        return a;
      }),
      scheduler.admit(demand('s', 1), 1).then((a) => {
        order.push('pro');
        return a;
      }),
      // Fits now (another site), but waits its turn behind the first in line.
      scheduler.admit(demand('t', 1), 0).then((a) => {
        order.push('other');
        return a;
      }),
    ];
    await settle();
    expect(order).toEqual([]);
    first.close();
    for (const a of await Promise.all(waiting)) a.close();
    expect(order).toEqual(['pro', 'free', 'other']);
  });

  it('gives a waiting search up when its signal aborts, and moves the line on', async () => {
    const { scheduler } = setup({ admitWithinMs: 1000 });
    const first = await scheduler.admit(demand('s', 4));
    const cancel = new AbortController();
    const given = scheduler.admit(demand('s', 4), 1, cancel.signal);
    const next = scheduler.admit(demand('t', 1));
    cancel.abort(new Error('gone'));
    await expect(given).rejects.toThrow('gone');
    (await next).close();
    first.close();
    expect(scheduler.waitingSearches).toBe(0);
    expect(scheduler.sites).toBe(0);
  });

  it('counts each request off once: releases past its count and a second close change nothing', async () => {
    const { scheduler } = setup();
    const a = await scheduler.admit(demand('s', 2));
    const b = await scheduler.admit(demand('s', 1));
    a.release('s');
    a.release('s');
    a.release('s');
    expect(scheduler.unsent('s')).toBe(1);
    a.close();
    a.close();
    expect(scheduler.unsent('s')).toBe(1);
    b.close();
    expect(scheduler.unsent('s')).toBe(0);
  });

  it('refuses settings it cannot use', () => {
    expect(() => new Scheduler({ global: 0, perSite: 1, admitWithinMs: 1 })).toThrow(RangeError);
    expect(() => new Scheduler({ global: 1, perSite: 0, admitWithinMs: 1 })).toThrow(RangeError);
    expect(() => new Scheduler({ global: 1, perSite: 1, admitWithinMs: 0 })).toThrow(RangeError);
  });
});
