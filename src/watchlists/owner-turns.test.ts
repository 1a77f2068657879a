import { describe, expect, it } from 'vitest';
import { OwnerTurns } from './owner-turns.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('OwnerTurns', () => {
  it("runs one owner's turns one after another, in order, and other owners' alongside", async () => {
    const turns = new OwnerTurns();
    const log: string[] = [];
    const slow = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      await tick();
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      turns.run('a', slow('a1')),
      turns.run('a', slow('a2')),
      turns.run('b', slow('b1')),
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a2 start')).toBeGreaterThan(log.indexOf('a1 end'));
    expect(log.indexOf('b1 start')).toBeLessThan(log.indexOf('a1 end'));
  });

  it('goes on after a failed turn, passes its error to its caller, and forgets idle owners', async () => {
    const turns = new OwnerTurns();
    const failed = turns.run('a', async () => {
      throw new Error('no');
    });
    const next = turns.run('a', async () => 'yes');
    await expect(failed).rejects.toThrow('no');
    await expect(next).resolves.toBe('yes');
    await tick();
    expect(turns.size).toBe(0);
  });
});
