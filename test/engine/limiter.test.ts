import { describe, expect, it } from 'vitest';
import { CheckLimiter } from '../../src/engine/limiter.js';

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
});
