import { describe, expect, it } from 'vitest';
import { isUserscoutError } from '../errors.js';
import { StreamLimits } from './stream-limits.js';

const limits = () => new StreamLimits({ streamLimit: 2, proStreamLimit: 3, searchStreamLimit: 4 });

function refusal(run: () => unknown): { code: string; details: unknown } | undefined {
  try {
    run();
  } catch (error) {
    if (isUserscoutError(error)) return { code: error.code, details: error.details };
    throw error;
  }
  return undefined;
}

describe('StreamLimits', () => {
  it('caps streams per client by tier, and per search over all clients', () => {
    const l = limits();
    l.admit('ip:a', 'free', 's1');
    l.admit('ip:a', 'free', 's2');
    expect(refusal(() => l.admit('ip:a', 'free', 's3'))).toEqual({
      code: 'too_many_streams',
      details: { limit: 2, scope: 'client' },
    });
    l.admit('key:k', 'professional', 's1');
    l.admit('key:k', 'professional', 's1');
    l.admit('ip:b', 'free', 's1');
    expect(refusal(() => l.admit('key:k', 'professional', 's1'))).toEqual({
      code: 'too_many_streams',
      details: { limit: 4, scope: 'search' },
    });
    expect(l.openOn('s1')).toBe(4);
  });

  it('gives the place back once, however often release is called', () => {
    const l = limits();
    const release = l.admit('ip:a', 'free', 's1');
    l.admit('ip:a', 'free', 's1');
    release();
    release();
    expect(l.openFor('ip:a')).toBe(1);
    expect(l.openOn('s1')).toBe(1);
    expect(refusal(() => l.admit('ip:a', 'free', 's2'))).toBeUndefined();
    expect(l.openFor('ip:a')).toBe(2);
  });
});
