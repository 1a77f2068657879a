import { describe, expect, it } from 'vitest';
import { isRateLimited, parseRetryAfter, rateSignals } from './rate-signals.js';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0);

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(parseRetryAfter('3', NOW)).toBe(3000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', NOW)).toBe(0);
    for (const bad of ['soon', '-1', '1.5', '', '0x10', '１２'])
      expect(parseRetryAfter(bad, NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('rateSignals', () => {
  it('reads nothing from an answer without rate-limit headers', () => {
    expect(rateSignals({ 'content-type': 'text/html' }, NOW)).toEqual({ present: false });
  });

  it('reads Retry-After as the wait, in seconds or as a date', () => {
    expect(rateSignals({ 'retry-after': '2' }, NOW)).toEqual({ present: true, waitMs: 2000 });
    expect(rateSignals({ 'retry-after': 'Mon, 23 Nov 2026 10:00:10 GMT' }, NOW)).toEqual({
      present: true,
      waitMs: 10_000,
    });
  });

  it('reads the structured RateLimit and RateLimit-Policy fields', () => {
    expect(
      rateSignals({ ratelimit: '"default";r=0;t=10', 'ratelimit-policy': '"default";q=100;w=60' }, NOW),
    ).toEqual({ present: true, waitMs: 10_000, statedPerSecond: 100 / 60 });
    // The strictest of several policies; one counted in bytes says nothing of our rate.
    expect(
      rateSignals(
        {
          'ratelimit-policy': '"burst";q=10;w=1, "daily";q=1000;w=86400, "bytes";q=1;w=1;qu="content-bytes"',
        },
        NOW,
      ).statedPerSecond,
    ).toBeCloseTo(1000 / 86400);
    // Quota left: no wait.
    expect(rateSignals({ ratelimit: '"default";r=5;t=10' }, NOW)).toEqual({ present: true });
  });

  it('reads the older RateLimit-Limit/-Remaining/-Reset and RateLimit-Policy forms', () => {
    expect(
      rateSignals(
        {
          'ratelimit-limit': '2',
          'ratelimit-remaining': '0',
          'ratelimit-reset': '1',
          'ratelimit-policy': '2;w=1',
        },
        NOW,
      ),
    ).toEqual({ present: true, waitMs: 1000, statedPerSecond: 2 });
    expect(rateSignals({ 'ratelimit-policy': '10, 10;w=1, 1000;w=3600' }, NOW).statedPerSecond).toBeCloseTo(
      1000 / 3600,
    );
    expect(rateSignals({ ratelimit: 'limit=100, remaining=0, reset=7' }, NOW).waitMs).toBe(7000);
  });

  it('reads X-RateLimit-* with the reset as seconds to wait or as a Unix time', () => {
    const x = { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0' };
    expect(rateSignals({ ...x, 'x-ratelimit-reset': '3' }, NOW)).toEqual({ present: true, waitMs: 3000 });
    expect(rateSignals({ ...x, 'x-ratelimit-reset': String(NOW / 1000 + 4) }, NOW).waitMs).toBe(4000);
    expect(rateSignals({ ...x, 'x-ratelimit-reset': String(NOW + 5000) }, NOW).waitMs).toBe(5000);
    // Quota left: no wait; X-RateLimit-Limit alone states no window, so no rate.
    expect(rateSignals({ ...x, 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '3' }, NOW)).toEqual({
      present: true,
    });
  });

  it('prefers Retry-After to a reset', () => {
    expect(rateSignals({ 'retry-after': '1', ratelimit: '"d";r=0;t=30' }, NOW).waitMs).toBe(1000);
  });

  it('ignores malformed values, never throwing', () => {
    const malformed: Record<string, string>[] = [
      { 'retry-after': 'later' },
      { 'retry-after': '99999999999' },
      { ratelimit: '"default";r=zero;t=10' },
      { ratelimit: '";;;===,,,"' },
      { 'ratelimit-policy': '"default";q=-1;w=60' },
      { 'ratelimit-policy': '"default";q=100;w=0' },
      { 'ratelimit-policy': '"default";q=100' },
      { 'ratelimit-policy': 'q=NaN;w=Infinity' },
      { 'ratelimit-remaining': '0', 'ratelimit-reset': '-5' },
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': 'tomorrow' },
      { 'x-ratelimit-remaining': 'none', 'x-ratelimit-reset': '3' },
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' + '0'.repeat(400) },
    ];
    for (const headers of malformed) expect(rateSignals(headers, NOW)).toEqual({ present: true });
  });
});

describe('isRateLimited', () => {
  it('takes every 429, and a 503 only when it carries a rate-limit header', () => {
    expect(isRateLimited(429, { present: false })).toBe(true);
    expect(isRateLimited(503, { present: false })).toBe(false);
    expect(isRateLimited(503, { present: true, waitMs: 1000 })).toBe(true);
    expect(isRateLimited(200, { present: true })).toBe(false);
  });
});
