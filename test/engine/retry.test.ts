import { describe, expect, it } from 'vitest';
import { RETRY_ON } from '../../src/config.js';
import { type AttemptEnd, type RetryPolicy, withRetries, worthRetrying } from '../../src/engine/retry.js';

const answer = (status: number, explained = false): AttemptEnd => ({
  answered: true,
  status,
  explained,
  waitMs: undefined,
});

describe('worthRetrying with the configured policy', () => {
  it('retries a 429 whatever explains it, and a 503 only when nothing does', () => {
    expect(worthRetrying(answer(429), RETRY_ON)).toBe(true);
    expect(worthRetrying(answer(429, true), RETRY_ON)).toBe(true);
    expect(worthRetrying(answer(503), RETRY_ON)).toBe(true);
    expect(worthRetrying(answer(503, true), RETRY_ON)).toBe(false);
    expect(worthRetrying(answer(500), RETRY_ON)).toBe(false);
    expect(worthRetrying(answer(200), RETRY_ON)).toBe(false);
  });

  it('retries a broken connection, found anywhere in the cause chain, unless the deadline ended it', () => {
    const reset = new Error('fetch failed', {
      cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }),
    });
    expect(worthRetrying({ answered: false, error: reset, timedOut: false }, RETRY_ON)).toBe(true);
    expect(worthRetrying({ answered: false, error: reset, timedOut: true }, RETRY_ON)).toBe(false);
    const dns = Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    expect(worthRetrying({ answered: false, error: dns, timedOut: false }, RETRY_ON)).toBe(false);
  });

  it('does not retry a handshake the server refused, though its code is a reset: a defence, as a block page', () => {
    const closed = Object.assign(
      new Error('Client network socket disconnected before secure TLS connection was established'),
      { code: 'ECONNRESET' },
    );
    expect(worthRetrying({ answered: false, error: closed, timedOut: false, defended: true }, RETRY_ON)).toBe(
      false,
    );
  });
});

describe('withRetries', () => {
  const policy: RetryPolicy = { retries: 2, baseDelayMs: 1, maxDelayMs: 1, on: RETRY_ON };
  const clock = (deadline: number) => ({
    now: () => 0,
    random: () => 0,
    deadline,
    signal: new AbortController().signal,
  });

  it('tries again while worth it, at most `retries` more times, and returns the last result', async () => {
    const seen: number[] = [];
    const result = await withRetries(
      async (n) => {
        seen.push(n);
        return { end: answer(429), result: () => `attempt ${n}` };
      },
      policy,
      clock(1_000),
    );
    expect(seen).toEqual([1, 2, 3]);
    expect(result).toBe('attempt 3');
  });

  it('stops at the first end not worth retrying', async () => {
    const ends = [answer(503), answer(200)];
    const result = await withRetries(
      async (n) => ({ end: ends[n - 1]!, result: () => n }),
      policy,
      clock(1_000),
    );
    expect(result).toBe(2);
  });

  it('does not wait past the deadline', async () => {
    const result = await withRetries(async (n) => ({ end: answer(429), result: () => n }), policy, clock(0));
    expect(result).toBe(1);
  });

  it('takes a send slot before each retry, offering it the time left to the deadline', async () => {
    const asked: number[] = [];
    const result = await withRetries(async (n) => ({ end: answer(429), result: () => n }), policy, {
      ...clock(1_000),
      slot: async (maxWaitMs) => {
        asked.push(maxWaitMs);
        return true;
      },
    });
    expect(result).toBe(3);
    expect(asked).toEqual([1_000, 1_000]);
  });

  it('sends no retry when no slot comes before the deadline: the last result stands', async () => {
    const seen: number[] = [];
    const result = await withRetries(
      async (n) => {
        seen.push(n);
        return { end: answer(429), result: () => `attempt ${n}` };
      },
      policy,
      { ...clock(1_000), slot: async () => false },
    );
    expect(seen).toEqual([1]);
    expect(result).toBe('attempt 1');
  });

  it("waits as long as the site asked, within the policy's longest wait", async () => {
    const result = await withRetries(
      async (n) => ({ end: { ...answer(429), waitMs: n === 1 ? 1 : undefined }, result: () => n }),
      { ...policy, retries: 1 },
      clock(1_000),
    );
    expect(result).toBe(2);
  });

  it('sends no retry sooner than the site asked: a wait past the policy or the deadline ends the check', async () => {
    const long = await withRetries(
      async (n) => ({ end: { ...answer(429), waitMs: 5 }, result: () => n }),
      policy,
      clock(1_000),
    );
    expect(long).toBe(1);
    const late = await withRetries(
      async (n) => ({ end: { ...answer(429), waitMs: 1 }, result: () => n }),
      { ...policy, maxDelayMs: 10_000 },
      clock(1),
    );
    expect(late).toBe(1);
  });
});
