import { describe, expect, it } from 'vitest';
import { failureMessage, isRetryable } from '../../src/web/failure-message.js';

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
