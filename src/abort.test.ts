import { describe, expect, it } from 'vitest';
import { untilAborted } from './abort.js';

describe('untilAborted', () => {
  it("gives the promise's answer, or the signal's reason once it aborts first", async () => {
    expect(await untilAborted(Promise.resolve(7), new AbortController().signal)).toBe(7);
    await expect(
      untilAborted(Promise.reject(new Error('failed')), new AbortController().signal),
    ).rejects.toThrow('failed');
    const early = new AbortController();
    early.abort(new Error('gone'));
    await expect(untilAborted(new Promise(() => {}), early.signal)).rejects.toThrow('gone');
    const late = new AbortController();
    const waiting = untilAborted(new Promise(() => {}), late.signal);
    late.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
  });
});
