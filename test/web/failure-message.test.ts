import { describe, expect, it } from 'vitest';
import { failureMessage, isRetryable, withoutRetryHint } from '../../src/web/failure-message.js';

const NOW = 1_000_000;
const at = (ms: number) => `T+${(ms - NOW) / 1000}`;

describe('failureMessage', () => {
  it('says when a rate-limited search may be retried', () => {
    expect(
      failureMessage(
        { kind: 'rate_limited', message: 'Search limit reached.', retryAt: NOW + 125_000 },
        NOW,
        at,
      ),
    ).toBe('Search limit reached. You can search again at T+125 (in 2 min 05 s).');
  });

  it('tells an unknown search from a malformed link', () => {
    expect(failureMessage({ kind: 'not_found', message: 'x' }, NOW, at)).toMatch(/^No search has this id/);
    expect(failureMessage({ kind: 'invalid', code: 'invalid_id', message: 'x' }, NOW, at)).toMatch(
      /does not hold a valid search id/,
    );
    expect(failureMessage({ kind: 'invalid', code: 'bad_request', message: 'as is' }, NOW, at)).toBe('as is');
  });

  it('explains network, server and busy failures', () => {
    expect(failureMessage({ kind: 'network', message: 'offline' }, NOW, at)).toBe(
      'Network problem: offline. Check your connection, then retry.',
    );
    expect(failureMessage({ kind: 'server', status: 500, message: 'boom' }, NOW, at)).toBe(
      'The service failed (500): boom',
    );
    expect(failureMessage({ kind: 'unavailable', message: 'Busy.', retryAt: NOW + 30_000 }, NOW, at)).toBe(
      'Busy. Try again at T+30.',
    );
  });
});

describe('isRetryable', () => {
  it('offers a retry only where waiting can help', () => {
    expect(isRetryable({ kind: 'network', message: '' })).toBe(true);
    expect(isRetryable({ kind: 'server', status: 502, message: '' })).toBe(true);
    expect(isRetryable({ kind: 'unavailable', message: '' })).toBe(true);
    expect(isRetryable({ kind: 'rate_limited', message: '', retryAt: 0 })).toBe(false);
    expect(isRetryable({ kind: 'not_found', message: '' })).toBe(false);
    expect(isRetryable({ kind: 'unauthorized', message: '' })).toBe(false);
  });
});

describe('the 429 message', () => {
  it('gives one time: the service\'s own "Retry in" is replaced by the time read from Retry-After', () => {
    const message =
      'Search limit reached: 2 searches per 15 minutes on the free tier. Retry in 15 minutes, or use a professional API key.';
    expect(failureMessage({ kind: 'rate_limited', message, retryAt: NOW + 892_000 }, NOW, at)).toBe(
      'Search limit reached: 2 searches per 15 minutes on the free tier. Use a professional API key. You can search again at T+892 (in 14 min 52 s).',
    );
    expect(withoutRetryHint('Too many requests: 60 per minute. Retry in 42 seconds.')).toBe(
      'Too many requests: 60 per minute.',
    );
  });

  it('counts down: the same failure read later says less time left, at the same moment', () => {
    const failure = {
      kind: 'rate_limited' as const,
      message: 'Search limit reached.',
      retryAt: NOW + 125_000,
    };
    expect(failureMessage(failure, NOW + 65_000, at)).toBe(
      'Search limit reached. You can search again at T+125 (in 1 min 00 s).',
    );
  });
});
