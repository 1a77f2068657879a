import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/loader.js';
import { catalogueOf, entry } from '../support/catalogue.js';

describe('a platform’s own request budget', () => {
  it('is loaded with a burst of 1 unless it says otherwise, and absent means the default', () => {
    const [strict, bursty, plain] = catalogueOf([
      entry('Strict', { budget: { perSecond: 1 } }),
      entry('Bursty', { budget: { perSecond: 0.2, burst: 3 } }),
      entry('Plain'),
    ]).platforms;
    expect(strict!.budget).toEqual({ perSecond: 1, burst: 1 });
    expect(bursty!.budget).toEqual({ perSecond: 0.2, burst: 3 });
    expect(plain!.budget).toBeUndefined();
    expect(Object.isFrozen(strict!.budget)).toBe(true);
  });

  it('refuses a rate of zero, a fractional burst and unknown fields, naming the platform', () => {
    for (const budget of [{ perSecond: 0 }, { perSecond: 1, burst: 1.5 }, { perSecond: 1, every: 2 }]) {
      const { problems, catalogue } = loadCatalogue({ platforms: [entry('Odd', { budget } as never)] });
      expect(catalogue.platforms).toHaveLength(0);
      expect(problems.map((p) => p.platform)).toEqual(['Odd']);
    }
  });
});
