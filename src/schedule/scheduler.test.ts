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

  it('admits a search’s requests at a site only when they and those counted ahead fit the allowance', async () => {
    const { clock, scheduler, sends, check } = setup({ admitWithinMs: 1000 });
    // 4 a second for 1 s: the first search's 3 fit, the second's 3 only once some are sent.
    const first = await scheduler.admit(demand('s', 3));
    const second = await scheduler.admit(demand('s', 3));
    expect([first.admitted('s'), second.admitted('s')]).toEqual([true, false]);
    expect(scheduler.unsent('s')).toBe(3);
    // Booked before its site admits it, the second's check waits there, its wait allowance unspent.
    const early = second.book({ site: 's', ceiling: FOUR, maxWaitMs: 900, run: check('x') });
    await settle();
    expect(sends).toEqual([]);
    const done = ['a', 'b', 'c'].map((l) =>
      first.book({ site: 's', ceiling: FOUR, maxWaitMs: 900, run: check(l) }),
    );
    await runOut(clock);
    expect(await Promise.all(done)).toEqual(['a', 'b', 'c'].map((value) => ({ sent: true, value })));
    expect(second.admitted('s')).toBe(true);
    expect(await early).toEqual({ sent: true, value: 'x' });
    expect(sends.map((s) => s.label)).toEqual(['a', 'b', 'c', 'x']);
    second.close();
    expect(scheduler.sites).toBe(0);
  });

  it('counts a due control for one search at a time, until its check ends or its search does', async () => {
    const { scheduler } = setup();
    // Alpha's control is due through one identity, Bravo's through none.
    const withControls = () =>
      new Map([
        [
          's',
          {
            requests: 2,
            ceiling: FOUR,
            controls: new Map([
              ['alpha', 1],
              ['bravo', 0],
            ]),
          },
        ],
      ]);
    const first = await scheduler.admit(withControls());
    expect(scheduler.unsent('s')).toBe(3);
    // Started beside it, a second search finds Alpha's control counted: its checks alone.
    const second = await scheduler.admit(withControls());
    expect(scheduler.unsent('s')).toBe(5);
    // The second's check of Alpha ending releases nothing it did not count.
    second.checkEnded('alpha');
    expect(scheduler.unsent('s')).toBe(5);
    // The first's does: its control leaves the site's count, and the next search counts it again.
    first.checkEnded('alpha');
    first.checkEnded('alpha');
    expect(scheduler.unsent('s')).toBe(4);
    const third = await scheduler.admit(withControls());
    expect(scheduler.unsent('s')).toBe(7);
    // A search that ends releases the control it counted, with its other requests.
    third.close();
    expect(scheduler.unsent('s')).toBe(4);
    const fourth = await scheduler.admit(withControls());
    expect(scheduler.unsent('s')).toBe(7);
    for (const admission of [first, second, fourth]) admission.close();
    expect(scheduler.unsent('s')).toBe(0);
  });

  it('leaves nothing counted by a search whose admission failed part-way', async () => {
    let broken = false;
    const { scheduler } = setup({
      limits: {
        limitOf: (site, _identity, ceiling) => {
          if (broken && site === 't') throw new Error('limit source down');
          return ceiling;
        },
      },
    });
    const controls = new Map([['alpha', 1]]);
    // Requests ahead at t, so admitting there reads its limit.
    const ahead = await scheduler.admit(demand('t', 1));
    broken = true;
    const both = new Map<string, SiteDemand>([
      ['s', { requests: 2, ceiling: FOUR, controls }],
      ['t', { requests: 1, ceiling: FOUR }],
    ]);
    expect(() => scheduler.admit(both)).toThrow('limit source down');
    expect([scheduler.unsent('s'), scheduler.unsent('t'), scheduler.waitingClaims]).toEqual([0, 1, 0]);
    // Alpha's control was released too: the next search counts it.
    broken = false;
    const next = await scheduler.admit(new Map([['s', { requests: 2, ceiling: FOUR, controls }]]));
    expect(scheduler.unsent('s')).toBe(3);
    next.close();
    ahead.close();
  });

  it('starts a search at once: its checks to sites with room go while its busy site admits it later', async () => {
    const { clock, scheduler, sends, check } = setup({ admitWithinMs: 1000 });
    const ahead = await scheduler.admit(demand('busy', 4));
    const both = new Map([
      ['busy', { requests: 1, ceiling: FOUR }],
      ['quiet', { requests: 1, ceiling: FOUR }],
    ]);
    const search = await scheduler.admit(both);
    expect([search.admitted('busy'), search.admitted('quiet')]).toEqual([false, true]);
    const mine = ['busy', 'quiet'].map((site) =>
      search.book({ site, ceiling: FOUR, maxWaitMs: 900, run: check(site) }),
    );
    const theirs = ['1', '2', '3', '4'].map((l) =>
      ahead.book({ site: 'busy', ceiling: FOUR, maxWaitMs: 2000, run: check(`ahead ${l}`) }),
    );
    await runOut(clock);
    await Promise.all([...mine, ...theirs]);
    expect(
      sends
        .map((s) => [s.label, s.at])
        .sort((a, b) => Number(a[1]) - Number(b[1]) || String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ['ahead 1', 0],
      ['quiet', 0],
      ['ahead 2', 250],
      ['ahead 3', 500],
      ['ahead 4', 750],
      ['busy', 1000],
    ]);
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
    const second = await scheduler.admit(demand('s', 4));
    await settle();
    expect(second.admitted('s')).toBe(false);
    cancel.abort(new Error('cancelled'));
    for (const handle of handles) handle.cancel?.(new Error('cancelled'));
    first.close();
    await settle();
    // 'a' went at once; 'b' was cancelled in line and the two never booked were released.
    expect(second.admitted('s')).toBe(true);
    await cancelled;
    second.close();
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

  it('holds no in-flight slot while a check waits for its send time', async () => {
    const { clock, scheduler, sends, check } = setup({ global: 1 });
    const slow = { perSecond: 1, burst: 1 };
    const many = { perSecond: 1000, burst: 1000 };
    // 's' sends at once then waits a second for its next time; meanwhile 't' uses the one slot.
    const booked = [
      scheduler.book({ site: 's', ceiling: slow, maxWaitMs: 10_000, run: check('s1', 10) }),
      scheduler.book({ site: 's', ceiling: slow, maxWaitMs: 10_000, run: check('s2', 10) }),
      scheduler.book({ site: 't', ceiling: many, maxWaitMs: 10_000, run: check('t1', 100) }),
      scheduler.book({ site: 't', ceiling: many, maxWaitMs: 10_000, run: check('t2', 100) }),
    ];
    await runOut(clock);
    await Promise.all(booked);
    expect(Object.fromEntries(sends.map((s) => [s.label, s.at]))).toEqual({
      s1: 0,
      t1: 10,
      t2: 110,
      s2: 1000,
    });
  });

  it('serves checks whose send time has come first come, first served at a full in-flight cap, without slowing their site', async () => {
    const { clock, scheduler, sends, check } = setup({ global: 1 });
    const many = { perSecond: 1000, burst: 1000 };
    const hold = scheduler.book({ site: 'h', ceiling: many, maxWaitMs: 10_000, run: check('h', 100) });
    await settle();
    // All are due while 'h' holds the slot: 'idle' came first, then 'busy's three, each at its own send time.
    const booked = [
      scheduler.book({ site: 'idle', ceiling: many, maxWaitMs: 10_000, run: check('i1', 10) }),
      ...['b1', 'b2', 'b3'].map((l) =>
        scheduler.book({ site: 'busy', ceiling: many, maxWaitMs: 10_000, run: check(l, 10) }),
      ),
    ];
    await runOut(clock);
    await Promise.all([hold, ...booked]);
    expect(sends.map((s) => [s.label, s.at])).toEqual([
      ['h', 0],
      ['i1', 100],
      ['b1', 110],
      ['b2', 120],
      ['b3', 130],
    ]);
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
      const second = await scheduler.admit(demand('s', 4));
      // 4 a second per identity: 8 within 1 s need both.
      expect(second.admitted('s')).toBe(identities.length === 2);
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

  it('admits at a site the highest priority waiting search first, and none ahead of the first in line', async () => {
    const { scheduler } = setup({ admitWithinMs: 1000 });
    const first = await scheduler.admit(demand('s', 3));
    const free = await scheduler.admit(demand('s', 2), 0);
    const pro = await scheduler.admit(demand('s', 2), 1);
    // Would fit alone, but waits its turn behind the first in line.
    const small = await scheduler.admit(demand('s', 1), 0);
    const other = await scheduler.admit(demand('t', 1), 0);
    const admitted = () => [free, pro, small, other].map((a) => a.admitted(a === other ? 't' : 's'));
    expect(admitted()).toEqual([false, false, false, true]);
    first.release('s');
    expect(admitted()).toEqual([false, true, false, true]);
    first.close();
    // The free search's 2 fit beside the professional's, the small one's 1 not yet: 4 a second for 1 s.
    expect(admitted()).toEqual([true, true, false, true]);
    pro.close();
    expect(admitted()).toEqual([true, true, true, true]);
    for (const a of [free, small, other]) a.close();
    expect(scheduler.sites).toBe(0);
  });

  it('withdraws a waiting search that ends, cancelling its waiting checks, and moves the line on', async () => {
    const { scheduler } = setup({ admitWithinMs: 1000 });
    const first = await scheduler.admit(demand('s', 4));
    const given = await scheduler.admit(demand('s', 4), 1);
    const next = await scheduler.admit(demand('s', 1));
    const handle: Cancellation = {};
    const waiting = given.book({
      site: 's',
      ceiling: FOUR,
      maxWaitMs: 900,
      cancel: handle,
      run: async () => 1,
    });
    expect(scheduler.waitingClaims).toBe(2);
    handle.cancel?.(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    given.close();
    expect(scheduler.waitingClaims).toBe(1);
    first.close();
    expect(next.admitted('s')).toBe(true);
    next.close();
    expect(scheduler.waitingClaims).toBe(0);
    expect(scheduler.sites).toBe(0);
  });

  it('books on its own a waiting check another caller still needs when its search ends', async () => {
    const { clock, scheduler, sends, check } = setup({ admitWithinMs: 1000 });
    const first = await scheduler.admit(demand('s', 4));
    const ended = await scheduler.admit(demand('s', 1));
    const shared = ended.book({ site: 's', ceiling: FOUR, maxWaitMs: 5000, run: check('shared') });
    ended.close();
    first.close();
    await runOut(clock);
    expect(await shared).toEqual({ sent: true, value: 'shared' });
    expect(sends.map((s) => s.label)).toEqual(['shared']);
    expect(scheduler.sites).toBe(0);
  });

  it('rejects a search whose signal has already aborted, counting nothing', async () => {
    const { scheduler } = setup();
    const cancel = new AbortController();
    cancel.abort(new Error('gone'));
    await expect(async () => scheduler.admit(demand('s', 1), 0, cancel.signal)).rejects.toThrow('gone');
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
