import { describe, expect, it } from 'vitest';
import { ConnectGate } from './connect-gate.js';

describe('ConnectGate', () => {
  it('begins at most `limit` at once, the rest in arrival order as turns free', () => {
    const gate = new ConnectGate(2);
    const begun: number[] = [];
    const done: (() => void)[] = [];
    for (let i = 0; i < 5; i++)
      gate.run((release) => {
        begun.push(i);
        done[i] = release;
      });
    expect(begun).toEqual([0, 1]);
    expect(gate.open).toBe(2);
    expect(gate.waiting).toBe(3);
    done[1]!();
    expect(begun).toEqual([0, 1, 2]);
    done[0]!();
    done[2]!();
    expect(begun).toEqual([0, 1, 2, 3, 4]);
    expect(gate.waiting).toBe(0);
    done[3]!();
    done[4]!();
    expect(gate.open).toBe(0);
  });

  it('frees a turn once however often it is released', () => {
    const gate = new ConnectGate(1);
    const begun: number[] = [];
    let first: (() => void) | undefined;
    gate.run((release) => {
      begun.push(0);
      first = release;
    });
    gate.run(() => begun.push(1));
    gate.run(() => begun.push(2));
    first!();
    first!();
    expect(begun).toEqual([0, 1]);
    expect(gate.open).toBe(1);
  });

  it('begins one started synchronously released without recursion limits', () => {
    const gate = new ConnectGate(1);
    let count = 0;
    let held: (() => void) | undefined;
    gate.run((release) => {
      held = release;
    });
    for (let i = 0; i < 20_000; i++)
      gate.run((release) => {
        count++;
        release();
      });
    held!();
    expect(count).toBe(20_000);
    expect(gate.open).toBe(0);
  });

  it('refuses a limit under 1', () => {
    expect(() => new ConnectGate(0)).toThrow(RangeError);
  });
});
