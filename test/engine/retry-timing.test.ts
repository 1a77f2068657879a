import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelay } from '../../src/engine/retry-timing.js';

const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 2000 };

describe('retry timing', () => {
  it('parses Retry-After seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('honours Retry-After up to the cap', () => {
    expect(retryDelay(0, '1', policy, 0, 0.5)).toBe(1000);
    expect(retryDelay(0, '120', policy, 0, 0.5)).toBe(2000);
  });

  it('backs off exponentially with jitter between 50% and 100% of the step', () => {
    expect(retryDelay(0, undefined, policy, 0, 0)).toBe(50);
    expect(retryDelay(0, undefined, policy, 0, 1)).toBe(100);
    expect(retryDelay(2, undefined, policy, 0, 1)).toBe(400);
    expect(retryDelay(10, undefined, policy, 0, 1)).toBe(2000);
    expect(retryDelay(3, undefined, policy, 0, 0.5)).toBe(600);
  });
});
