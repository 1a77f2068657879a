import { describe, expect, it } from 'vitest';
import { Slots } from './slots.js';

/** A task that runs until `finish` is called; `order` records when each started. */
function gated(order: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const task = () => {
    order.push(name);
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { task, finish: () => finish(name), fail: (error: Error) => fail(error) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Slots', () => {
  it('starts a task at once while a slot is free, and counts running and waiting tasks', async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => gated(order, name));
    const done = [slots.run(a!.task), slots.run(b!.task), slots.run(c!.task)];
    expect(order).toEqual(['a', 'b']);
    expect([slots.running, slots.waiting]).toEqual([2, 1]);
    a!.finish();
    await turn();
    expect(order).toEqual(['a', 'b', 'c']);
    expect([slots.running, slots.waiting]).toEqual([2, 0]);
    b!.finish();
    c!.finish();
    expect(await Promise.all(done)).toEqual(['a', 'b', 'c']);
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });

  it('gives a freed slot to the highest priority waiting, first come first served within one', async () => {
    const slots = new Slots(1);
    const order: string[] = [];
    const tasks = new Map<string, ReturnType<typeof gated>>();
    const add = (name: string, priority: number) => {
      const task = gated(order, name);
      tasks.set(name, task);
      return slots.run(task.task, priority);
    };
    const done = [
      add('first', 0),
      add('low1', 0),
      add('high1', 5),
      add('low2', 0),
      add('mid', 3),
      add('high2', 5),
      add('top', Number.MAX_SAFE_INTEGER),
    ];
    // Each task ends once it has started: the next to start is the one the line serves next.
    for (let k = 0; k < done.length; k++) {
      await turn();
      tasks.get(order[k]!)!.finish();
    }
    await Promise.all(done);
    expect(order).toEqual(['first', 'top', 'high1', 'high2', 'mid', 'low1', 'low2']);
  });

  it('frees the slot of a task that fails, and passes its error on', async () => {
    const slots = new Slots(1);
    const order: string[] = [];
    const [a, b] = ['a', 'b'].map((name) => gated(order, name));
    const failed = slots.run(a!.task);
    const next = slots.run(b!.task);
    a!.fail(new Error('boom'));
    await expect(failed).rejects.toThrow('boom');
    await turn();
    expect(order).toEqual(['a', 'b']);
    b!.finish();
    expect(await next).toBe('b');
  });

  it('frees the slot of a task that throws before its promise', async () => {
    const slots = new Slots(1);
    await expect(
      slots.run(() => {
        throw new Error('at once');
      }),
    ).rejects.toThrow('at once');
    await turn();
    expect(slots.running).toBe(0);
    expect(await slots.run(async () => 'after')).toBe('after');
  });

  it('refuses a concurrency below 1', () => {
    expect(() => new Slots(0)).toThrow(RangeError);
  });
});
