import { describe, expect, it } from 'vitest';
import { budgetKey, CheckLimiter, politeOrigin } from '../../src/engine/limiter.js';
import { LocalRateBudget } from '../../src/engine/local-rate-budget.js';
import type { BudgetLimit, RateBudget, Reservation } from '../../src/engine/rate-budget.js';
import { catalogueOf, entry } from '../support/catalogue.js';

/** A task that records when it starts and finishes when `release` is called. */
function gatedTask(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    task: async () => {
      log.push(name);
      await done;
      return name;
    },
    release: () => release(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const unlimited = { limit: { perSecond: 1_000_000, burst: 1_000_000 }, maxWaitMs: 10_000 };

/** A budget that records every reservation asked for, and what it answered. */
class SpyBudget implements RateBudget {
  readonly calls: { keys: readonly string[]; limit: BudgetLimit; maxWaitMs: number; answer?: Reservation }[] =
    [];
  constructor(readonly inner: RateBudget) {}
  async reserve(keys: readonly string[], limit: BudgetLimit, maxWaitMs: number) {
    const answer = await this.inner.reserve(keys, limit, maxWaitMs);
    this.calls.push({ keys, limit, maxWaitMs, ...(answer ? { answer } : {}) });
    return answer;
  }
}

describe('CheckLimiter', () => {
  it('gives free global slots to higher priorities first, first come first served within one', async () => {
    const limiter = new CheckLimiter({ global: 1, perOrigin: 2 });
    const log: string[] = [];
    const blocker = gatedTask(log, 'blocker');
    const running: Promise<unknown>[] = [limiter.run('https://a.test', blocker.task, unlimited)];
    await tick();
    const order: string[] = [];
    for (const [name, priority] of [
      ['free-1', 0],
      ['pro-1', 1],
      ['free-2', 0],
      ['pro-2', 1],
    ] as const) {
      running.push(
        limiter.run(
          `https://${name}.test`,
          async () => {
            order.push(name);
            return name;
          },
          { ...unlimited, priority },
        ),
      );
    }
    await tick();
    expect(limiter.active).toBe(1);
    expect(limiter.pending).toBe(4);
    blocker.release();
    await Promise.all(running);
    expect(order).toEqual(['pro-1', 'pro-2', 'free-1', 'free-2']);
    expect(limiter.active).toBe(0);
  });

  it('never runs more than perOrigin checks per identity at once to one origin', async () => {
    const limiter = new CheckLimiter({ global: 10, perOrigin: 1, identities: ['one', 'two'] });
    const log: string[] = [];
    const tasks = ['1', '2', '3'].map((n) => gatedTask(log, n));
    const other = gatedTask(log, 'other');
    const running = tasks.map((t) => limiter.run('https://same.test', t.task, unlimited));
    running.push(limiter.run('https://other.test', other.task, unlimited));
    await tick();
    expect(log.sort()).toEqual(['1', '2', 'other']);
    tasks[0]!.release();
    await running[0];
    await tick();
    expect(log).toContain('3');
    for (const t of [...tasks, other]) t.release();
    const results = await Promise.all(running);
    expect(results.map((r) => (r.sent ? r.value : undefined))).toEqual(['1', '2', '3', 'other']);
  });

  it('passes a failing task\u2019s error to its caller and frees the slot', async () => {
    const limiter = new CheckLimiter({ global: 1, perOrigin: 1 });
    await expect(
      limiter.run(
        'https://a.test',
        async () => {
          throw new Error('boom');
        },
        unlimited,
      ),
    ).rejects.toThrow('boom');
    expect(await limiter.run('https://a.test', async () => 'next', unlimited)).toEqual({
      sent: true,
      value: 'next',
    });
  });

  it('reserves over one key per identity and sends through the identity it got', async () => {
    const spy = new SpyBudget(new LocalRateBudget());
    const limiter = new CheckLimiter({ global: 4, perOrigin: 4, identities: ['a', 'b'], budget: spy });
    const strict = { limit: { perSecond: 1, burst: 1 }, maxWaitMs: 10_000 };
    const used: number[] = [];
    const results = await Promise.all(
      [0, 1].map(() =>
        limiter.run(
          'https://x.test',
          async (identity) => {
            used.push(identity);
            return identity;
          },
          strict,
        ),
      ),
    );
    expect(spy.calls.map((c) => c.keys)).toEqual([
      [budgetKey('https://x.test', 'a'), budgetKey('https://x.test', 'b')],
      [budgetKey('https://x.test', 'a'), budgetKey('https://x.test', 'b')],
    ]);
    // One slot a second per identity: the second check goes at once, through the other identity.
    expect(used.sort()).toEqual([0, 1]);
    expect(spy.calls.map((c) => c.answer?.waitMs)).toEqual([0, 0]);
    expect(results.every((r) => r.sent)).toBe(true);
  });

  it('sleeps until the reserved slot before sending', async () => {
    const started = performance.now();
    const budget: RateBudget = { reserve: async () => ({ index: 0, waitMs: 120 }) };
    const limiter = new CheckLimiter({ global: 1, perOrigin: 1, budget });
    const sentAt = await limiter.run('https://a.test', async () => performance.now(), unlimited);
    expect(sentAt.sent && sentAt.value - started).toBeGreaterThanOrEqual(119);
  });

  it('sends nothing, and says how long it waited, when no slot comes within maxWaitMs', async () => {
    const limiter = new CheckLimiter({ global: 1, perOrigin: 4 });
    const strict = { limit: { perSecond: 1, burst: 1 }, maxWaitMs: 200 };
    let sent = 0;
    const task = async () => ++sent;
    expect(await limiter.run('https://a.test', task, strict)).toEqual({ sent: true, value: 1 });
    expect(await limiter.run('https://a.test', task, strict)).toEqual({ sent: false, waitedMs: 0 });
    expect(sent).toBe(1);
    // Another origin has its own budget.
    expect(await limiter.run('https://b.test', task, strict)).toEqual({ sent: true, value: 2 });
  });

  it('sleeps a long wait without its global slot; of the checks a stall made late, the first goes and the rest reserve again', async () => {
    const spy = new SpyBudget(new LocalRateBudget());
    const limiter = new CheckLimiter({ global: 1, perOrigin: 4, budget: spy });
    const limit = { perSecond: 10, burst: 2 };
    const sentAt = new Map<string, number>();
    // The first two checks take the burst; the next two's slots are 100 and 200 ms away.
    for (const name of ['first', 'burst'])
      expect(await limiter.run('https://late.test', async () => name, { limit, maxWaitMs: 10_000 })).toEqual({
        sent: true,
        value: name,
      });
    const late = ['second', 'third'].map((name) =>
      limiter.run(
        'https://late.test',
        async () => {
          sentAt.set(name, performance.now());
          return name;
        },
        { limit, maxWaitMs: 10_000 },
      ),
    );
    await tick();
    await tick();
    // While they sleep the global slot is free: another origin's check takes it and holds
    // it past both slots (by more than half an interval, 50 ms).
    const log: string[] = [];
    const blocker = gatedTask(log, 'blocker');
    const blocking = limiter.run('https://other.test', blocker.task, unlimited);
    await tick();
    expect(log).toEqual(['blocker']);
    await new Promise((resolve) => setTimeout(resolve, 350));
    blocker.release();
    expect(await Promise.all(late)).toEqual([
      { sent: true, value: 'second' },
      { sent: true, value: 'third' },
    ]);
    await blocking;
    // The second stood for its own slot, where nothing had gone; the third would have gone with
    // it, so it reserved again and waited for a slot of its own (the burst of 2 lets two go
    // within one interval once the queue is spent: 50 ms here).
    expect(sentAt.get('third')! - sentAt.get('second')!).toBeGreaterThanOrEqual(50 - 5);
    const mine = spy.calls.filter((c) => c.keys[0]!.startsWith('https://late.test'));
    // first, burst, second, third; the second's slot of now (the budget had one); the third's new slot.
    expect(mine).toHaveLength(6);
    expect(mine.every((c) => c.answer !== undefined)).toBe(true);
    expect(mine[4]!.maxWaitMs).toBe(0);
    expect(mine[5]!.answer!.waitMs).toBeGreaterThan(25);
  });

  it('reserves again a check a stall made late when its budget has no burst to absorb it', async () => {
    const spy = new SpyBudget(new LocalRateBudget());
    const limiter = new CheckLimiter({ global: 1, perOrigin: 4, budget: spy });
    const limit = { perSecond: 10, burst: 1 };
    await limiter.run('https://strict.test', async () => 'first', { limit, maxWaitMs: 10_000 });
    const late = limiter.run('https://strict.test', async () => 'sent', { limit, maxWaitMs: 10_000 });
    await tick();
    await tick();
    const blocker = gatedTask([], 'blocker');
    const blocking = limiter.run('https://other.test', blocker.task, unlimited);
    await new Promise((resolve) => setTimeout(resolve, 250));
    blocker.release();
    expect(await late).toEqual({ sent: true, value: 'sent' });
    await blocking;
    const mine = spy.calls.filter((c) => c.keys[0]!.startsWith('https://strict.test'));
    // first; the second's missed slot; its new slot, with a whole allowance.
    expect(mine).toHaveLength(3);
    expect(mine[2]!.maxWaitMs).toBeGreaterThan(9_000);
  });

  it('wakes from a long budget sleep early and holds a global slot to its send slot, so a busy moment costs it nothing', async () => {
    const spy = new SpyBudget(new LocalRateBudget());
    const limiter = new CheckLimiter({ global: 1, perOrigin: 4, budget: spy });
    // 0.8 a second: the second check's slot is 1250 ms away (a long sleep), its tolerance 625 ms.
    const limit = { perSecond: 0.8, burst: 1 };
    const log: string[] = [];
    await limiter.run('https://slow.test', async () => 'first', { limit, maxWaitMs: 10_000 });
    const started = performance.now();
    const second = limiter.run(
      'https://slow.test',
      async () => {
        log.push('second');
        return performance.now() - started;
      },
      { limit, maxWaitMs: 10_000 },
    );
    // Another origin's check asks for the only global slot just before the send slot and
    // would hold it 800 ms: the second would be late past its tolerance and reserve again.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const blocker = gatedTask(log, 'blocker');
    const blocking = limiter.run('https://other.test', blocker.task, unlimited);
    setTimeout(() => blocker.release(), 800);
    const sent = await second;
    await blocking;
    expect(sent).toMatchObject({ sent: true });
    expect(log).toEqual(['second', 'blocker']);
    // Sent on its slot (not before), from its one reservation.
    if (sent.sent) expect(sent.value).toBeGreaterThanOrEqual(1250 - 5);
    const mine = spy.calls.filter((c) => c.keys[0]!.startsWith('https://slow.test'));
    expect(mine).toHaveLength(2);
  });

  it('sends a check that missed its slot by our own delay, past its wait allowance, rather than not at all', async () => {
    const limiter = new CheckLimiter({ global: 1, perOrigin: 4 });
    const limit = { perSecond: 10, burst: 1 };
    await limiter.run('https://missed.test', async () => 'first', { limit, maxWaitMs: 300 });
    const log: string[] = [];
    // Its slot is 100 ms away, well within its 300 ms allowance; it sleeps without the global slot.
    const second = limiter.run(
      'https://missed.test',
      async () => {
        log.push('second');
        return 'sent';
      },
      { limit, maxWaitMs: 300 },
    );
    await tick();
    await tick();
    // Another origin's check takes the only global slot and holds it 400 ms, past the
    // second's slot and allowance: the budget was never short, the process was busy.
    const blocker = gatedTask(log, 'blocker');
    const blocking = limiter.run('https://other.test', blocker.task, unlimited);
    await new Promise((resolve) => setTimeout(resolve, 400));
    blocker.release();
    expect(await second).toEqual({ sent: true, value: 'sent' });
    await blocking;
    expect(log).toEqual(['blocker', 'second']);
  });

  it('paces a retry on its own identity’s budget, from the same slots as the checks', async () => {
    const spy = new SpyBudget(new LocalRateBudget());
    const limiter = new CheckLimiter({ global: 4, perOrigin: 4, identities: ['a', 'b'], budget: spy });
    const limit = { perSecond: 1, burst: 1 };
    // A check takes identity b's only token (a's is taken first).
    await limiter.run('https://x.test', async () => 0, { limit, maxWaitMs: 10_000 });
    await limiter.run('https://x.test', async () => 0, { limit, maxWaitMs: 10_000 });
    // A retry through b: no slot within 200 ms (the next is a second away), so nothing is reserved.
    expect(await limiter.pace('https://x.test', 1, limit, 200)).toBe(false);
    const retry = spy.calls.at(-1)!;
    expect(retry.keys).toEqual([budgetKey('https://x.test', 'b')]);
    expect(retry.answer).toBeUndefined();
    // Within a longer allowance it waits for b's next slot, and that slot is then taken.
    const started = performance.now();
    expect(await limiter.pace('https://x.test', 1, limit, 2_000)).toBe(true);
    expect(performance.now() - started).toBeGreaterThan(900);
    expect(spy.calls.at(-1)!.answer!.waitMs).toBeGreaterThan(900);
    expect(await limiter.pace('https://x.test', 1, limit, 200)).toBe(false);
  });

  it('says when a check leaves the line for global slots: once it holds one, or at once when its origin is full', async () => {
    const limiter = new CheckLimiter({ global: 1, perOrigin: 1 });
    const log: string[] = [];
    const left: string[] = [];
    const admission = (name: string) => ({ ...unlimited, leftLine: () => left.push(name) });
    const blocker = gatedTask(log, 'blocker');
    const running = [limiter.run('https://a.test', blocker.task, admission('blocker'))];
    await tick();
    expect(left).toEqual(['blocker']);
    // Its origin is full: it waits there, not in line, from the start.
    running.push(limiter.run('https://a.test', async () => 'same', admission('same origin')));
    // Another origin: in line for the only global slot.
    running.push(limiter.run('https://b.test', async () => 'other', admission('other origin')));
    await tick();
    expect(left).toEqual(['blocker', 'same origin']);
    blocker.release();
    await Promise.all(running);
    // Each is told once, whatever it waited for after.
    expect(left.sort()).toEqual(['blocker', 'other origin', 'same origin']);
  });

  it('stops waiting for a slot when its signal aborts', async () => {
    const budget: RateBudget = { reserve: async () => ({ index: 0, waitMs: 60_000 }) };
    const limiter = new CheckLimiter({ global: 1, perOrigin: 1, budget });
    const closing = new AbortController();
    const run = limiter.run('https://a.test', async () => 'sent', { ...unlimited, signal: closing.signal });
    await tick();
    closing.abort(new Error('engine closed'));
    await expect(run).rejects.toThrow('engine closed');
  });
});

describe('politeOrigin', () => {
  it('counts a platform whose host holds the username as one site, others by their host', () => {
    const [sub, path, plain] = catalogueOf([
      entry('Sub', { home: 'https://sub.test/', profile: 'https://{username}.Sub.test/' }),
      entry('Path', { home: 'https://path.test/', profile: 'https://path.test/{username}' }),
      entry('Plain', { home: 'http://path.test/', profile: 'http://path.test:8080/p/{username}' }),
    ]).platforms;
    expect(politeOrigin(sub!, 'https://alice.sub.test')).toBe('{username}.sub.test');
    expect(politeOrigin(path!, 'https://path.test')).toBe('path.test');
    // One host is one site, whatever the scheme or port: one budget (sites limit a client address).
    expect(politeOrigin(plain!, 'http://path.test:8080')).toBe('path.test');
  });

  describe('with limits learned from the sites', () => {
    const ceiling = { perSecond: 4, burst: 2 };
    const learned = (limit: BudgetLimit, quiet: Record<string, number> = {}) => ({
      limit: (origin: string, identity: string, c: BudgetLimit) =>
        origin === 'strict.test' && identity !== 'open' ? limit : c,
      quietMs: (_origin: string, identity: string) => quiet[identity] ?? 0,
    });

    it('reserves within the lower limit, for the checks and the retries of that site only', async () => {
      const budget = new SpyBudget(new LocalRateBudget());
      const limiter = new CheckLimiter({
        global: 4,
        perOrigin: 4,
        budget,
        limits: learned({ perSecond: 2, burst: 1 }),
      });
      await limiter.run('strict.test', async () => 'sent', { limit: ceiling, maxWaitMs: 10_000 });
      await limiter.run('other.test', async () => 'sent', { limit: ceiling, maxWaitMs: 10_000 });
      await limiter.pace('strict.test', 0, ceiling, 10_000);
      expect(budget.calls.map((c) => c.limit)).toEqual([
        { perSecond: 2, burst: 1 },
        ceiling,
        { perSecond: 2, burst: 1 },
      ]);
      expect(limiter.limitOf('strict.test', ceiling)).toEqual({ perSecond: 2, burst: 1 });
    });

    it('takes the strictest identity for a reservation over several', () => {
      const limiter = new CheckLimiter({
        global: 1,
        perOrigin: 1,
        identities: ['open', 'strict'],
        limits: learned({ perSecond: 1, burst: 1 }),
      });
      expect(limiter.limitOf('strict.test', ceiling)).toEqual({ perSecond: 1, burst: 1 });
    });

    it('sends through an identity the site has not asked to wait, and sends nothing when the wait passes the allowance', async () => {
      const budget = new SpyBudget(new LocalRateBudget());
      const limiter = new CheckLimiter({
        global: 2,
        perOrigin: 2,
        identities: ['quiet', 'open'],
        budget,
        limits: learned(ceiling, { quiet: 60_000 }),
      });
      const through = await limiter.run('strict.test', async (identity) => identity, {
        limit: ceiling,
        maxWaitMs: 1_000,
      });
      expect(through).toEqual({ sent: true, value: 1 });
      expect(budget.calls[0]!.keys).toEqual([budgetKey('strict.test', 'open')]);
      const hushed = new CheckLimiter({
        global: 1,
        perOrigin: 1,
        limits: learned(ceiling, { default: 60_000 }),
      });
      const held = await hushed.run('strict.test', async () => 'sent', { limit: ceiling, maxWaitMs: 1_000 });
      expect(held.sent).toBe(false);
      expect(await hushed.pace('strict.test', 0, ceiling, 1_000)).toBe(false);
    });
  });
});
