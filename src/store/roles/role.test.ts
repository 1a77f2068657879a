import { describe, expect, it } from 'vitest';
import { type RoleMethods, roleOf } from './role.js';

interface Counter {
  add(n: number): number;
  read(): number;
}

const COUNTER_METHODS: RoleMethods<Counter> = { add: true, read: true };

/** Plays Counter and more, keeping its count in a private field (so a method must be bound to it). */
class Tally implements Counter {
  #count = 0;
  add(n: number): number {
    this.#count += n;
    return this.#count;
  }
  read(): number {
    return this.#count;
  }
  reset(): void {
    this.#count = 0;
  }
}

describe('roleOf', () => {
  it('takes the role’s methods, bound to the object that plays it, and nothing more', () => {
    const tally = new Tally();
    const counter = roleOf<Counter>(tally, COUNTER_METHODS);
    const { add } = counter;
    expect(add(2)).toBe(2);
    expect(counter.add(3)).toBe(5);
    expect(tally.read()).toBe(5);
    expect(Object.keys(counter).sort()).toEqual(['add', 'read']);
    expect('reset' in counter).toBe(false);
  });
});
