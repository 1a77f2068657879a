import { describe, expect, it } from 'vitest';
import { breakerResult, OriginBreaker } from '../../src/engine/origin-breaker.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';

function breaker(threshold = 3, cooldownMs = 1000) {
  const clock = { now: 0 };
  return { clock, b: new OriginBreaker({ threshold, cooldownMs, now: () => clock.now }) };
}

const A = 'https://a.test';
const B = 'https://b.test';

describe('OriginBreaker', () => {
  it('lets checks through until the threshold of timeouts in a row, then refuses them for the cooldown', () => {
    const { b, clock } = breaker(3, 1000);
    for (let i = 0; i < 2; i++) {
      expect(b.admit(A)).toBeUndefined();
      b.record(A, 'timeout');
    }
    expect(b.refusal(A)).toBeUndefined();
    expect(b.admit(A)).toBeUndefined();
    b.record(A, 'timeout');
    clock.now = 400;
    expect(b.refusal(A)).toEqual({ timeouts: 3, retryInMs: 600 });
    expect(b.admit(A)).toEqual({ timeouts: 3, retryInMs: 600 });
    // Other origins are not affected.
    expect(b.admit(B)).toBeUndefined();
  });

  it('lets one probe through after the cooldown: an answer closes it, another timeout reopens it', () => {
    const { b, clock } = breaker(2, 1000);
    b.record(A, 'timeout');
    b.record(A, 'timeout');
    clock.now = 1000;
    expect(b.admit(A)).toBeUndefined(); // the probe
    expect(b.admit(A)).toEqual({ timeouts: 2, retryInMs: 0 }); // only one at a time
    b.record(A, 'timeout');
    expect(b.refusal(A)).toEqual({ timeouts: 3, retryInMs: 1000 });
    clock.now = 2000;
    expect(b.admit(A)).toBeUndefined();
    b.record(A, 'answered');
    expect(b.refusal(A)).toBeUndefined();
  });

  it('resets the count on any answer, and ignores failures that are not timeouts', () => {
    const { b } = breaker(2);
    b.record(A, 'timeout');
    b.record(A, 'answered');
    b.record(A, 'timeout');
    expect(b.refusal(A)).toBeUndefined();
    b.record(A, 'other');
    expect(b.refusal(A)).toBeUndefined();
  });

  it('never refuses when the threshold is 0', () => {
    const { b } = breaker(0);
    for (let i = 0; i < 10; i++) b.record(A, 'timeout');
    expect(b.admit(A)).toBeUndefined();
  });
});

describe('breakerResult', () => {
  const outcome = (status: Outcome['status'], reason?: string) => ({ status, reason }) as unknown as Outcome;
  it('counts only timeouts against an origin, and any answer for it', () => {
    expect(breakerResult(outcome('error', 'timeout'))).toBe('timeout');
    expect(breakerResult(outcome('error', 'connection'))).toBe('other');
    expect(breakerResult(outcome('invalid', 'username_rule'))).toBe('other');
    expect(breakerResult(outcome('hit'))).toBe('answered');
    expect(breakerResult(outcome('miss'))).toBe('answered');
    expect(breakerResult(outcome('unknown', 'waf'))).toBe('answered');
  });
});
