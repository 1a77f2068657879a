import { describe, expect, it } from 'vitest';
import { CheckLimiter } from '../../src/engine/limiter.js';
import { LocalRateBudget } from '../../src/engine/local-budget.js';

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

describe('CheckLimiter', () => {
  it('gives free global slots to higher priorities first, first come first served within one', async () => {
    const limiter = new CheckLimiter(1, 2);
    const log: string[] = [];
    const blocker = gatedTask(log, 'blocker');
    const running = [limiter.run('https://a.test', blocker.task)];
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
          priority,
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

  it('never runs more than perHost checks at once to one origin', async () => {
    const limiter = new CheckLimiter(10, 2);
    const log: string[] = [];
    const tasks = ['1', '2', '3'].map((n) => gatedTask(log, n));
    const other = gatedTask(log, 'other');
    const running = tasks.map((t) => limiter.run('https://same.test', t.task));
    running.push(limiter.run('https://other.test', other.task));
    await tick();
    expect(log.sort()).toEqual(['1', '2', 'other']);
    tasks[0]!.release();
    await running[0];
    await tick();
    expect(log).toContain('3');
    for (const t of [...tasks, other]) t.release();
    expect(await Promise.all(running)).toEqual(['1', '2', '3', 'other']);
  });

  it('passes a failing task\u2019s error to its caller and frees the slot', async () => {
    const limiter = new CheckLimiter(1, 1);
    await expect(
      limiter.run('https://a.test', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await limiter.run('https://a.test', async () => 'next')).toBe('next');
  });

  it('sends each origin at its budget\u2019s pace, waiting as long as the budget says', async () => {
    const limit = { perSecond: 20, burst: 1 }; // 50 ms apart
    const limiter = new CheckLimiter(10, 4, { budget: new LocalRateBudget(), limit, maxWaitMs: 10_000 });
    const started: number[] = [];
    const task = async () => {
      started.push(performance.now());
    };
    await Promise.all([1, 2, 3].map(() => limiter.run('https://paced.test', task)));
    await limiter.run('https://other.test', task); // another origin has a budget of its own
    started.sort((a, b) => a - b);
    // The first goes at once; each later one no sooner than its slot (a timer may fire late,
    // so two neighbours can be closer than 50 ms, never ahead of their slots).
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(49);
    expect(started[2]! - started[0]!).toBeGreaterThanOrEqual(99);
  });

  it('answers with `refused` and sends nothing when the budget has no slot in time', async () => {
    const limit = { perSecond: 0.1, burst: 1 }; // one every 10 s
    const limiter = new CheckLimiter(10, 4, { budget: new LocalRateBudget(), limit, maxWaitMs: 1_000 });
    const sent: string[] = [];
    const task = (name: string) => async () => {
      sent.push(name);
      return name;
    };
    expect(await limiter.run('https://strict.test', task('first'), 0, () => 'refused')).toBe('first');
    expect(await limiter.run('https://strict.test', task('second'), 0, () => 'refused')).toBe('refused');
    expect(sent).toEqual(['first']);
  });
});
