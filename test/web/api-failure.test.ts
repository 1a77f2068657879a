import { describe, expect, it } from 'vitest';
import { classifyFailure, parseRateLimit, retryAfterSeconds } from '../../src/web/api-failure.js';

const headers = (values: Record<string, string>) => new Headers(values);
const NOW = Date.parse('2025-01-01T12:00:00Z');

describe('classifyFailure', () => {
  it('reads when to retry a 429 from the body, else from Retry-After', () => {
    const body = { error: 'Search limit reached', code: 'rate_limited', requestId: 'r', retryAfter: 90 };
    expect(classifyFailure(429, body, headers({ 'retry-after': '5' }), NOW)).toEqual({
      kind: 'rate_limited',
      message: 'Search limit reached',
      retryAt: NOW + 90_000,
    });
    expect(classifyFailure(429, {}, headers({ 'retry-after': '5' }), NOW)).toMatchObject({
      kind: 'rate_limited',
      retryAt: NOW + 5000,
    });
  });

  it('names unknown ids, bad requests, refused keys and server failures', () => {
    const err = (code: string) => ({ error: `says ${code}`, code, requestId: 'r' });
    expect(classifyFailure(404, err('search_not_found'), headers({}), NOW)).toEqual({
      kind: 'not_found',
      message: 'says search_not_found',
    });
    expect(classifyFailure(400, err('invalid_id'), headers({}), NOW)).toEqual({
      kind: 'invalid',
      code: 'invalid_id',
      message: 'says invalid_id',
    });
    expect(classifyFailure(401, err('unauthorized'), headers({}), NOW).kind).toBe('unauthorized');
    expect(classifyFailure(503, err('queue_full'), headers({ 'retry-after': '30' }), NOW)).toEqual({
      kind: 'unavailable',
      message: 'says queue_full',
      retryAt: NOW + 30_000,
    });
    expect(classifyFailure(502, 'Bad gateway', headers({}), NOW)).toEqual({
      kind: 'server',
      status: 502,
      message: 'The service answered 502',
    });
  });
});

describe('retryAfterSeconds', () => {
  it('takes seconds or an HTTP date', () => {
    expect(retryAfterSeconds('120', NOW)).toBe(120);
    expect(retryAfterSeconds(new Date(NOW + 61_000).toUTCString(), NOW)).toBe(61);
    expect(retryAfterSeconds(null, NOW)).toBeUndefined();
    expect(retryAfterSeconds('soon', NOW)).toBeUndefined();
  });
});

describe('parseRateLimit', () => {
  it('reads the draft RateLimit headers', () => {
    expect(
      parseRateLimit(
        headers({ 'ratelimit-limit': '10', 'ratelimit-remaining': '7', 'ratelimit-reset': '840' }),
      ),
    ).toEqual({ limit: 10, remaining: 7, resetSeconds: 840 });
    expect(
      parseRateLimit(
        headers({ 'ratelimit-limit': '10, 10;w=900', 'ratelimit-remaining': '0', 'ratelimit-reset': '3' }),
      ),
    ).toEqual({ limit: 10, remaining: 0, resetSeconds: 3 });
  });

  it('gives nothing when a header is missing or not a number', () => {
    expect(parseRateLimit(headers({ 'ratelimit-limit': '10', 'ratelimit-remaining': '7' }))).toBeUndefined();
    expect(
      parseRateLimit(headers({ 'ratelimit-limit': 'x', 'ratelimit-remaining': '7', 'ratelimit-reset': '1' })),
    ).toBeUndefined();
  });
});
