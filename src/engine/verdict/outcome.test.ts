import { afterEach, describe, expect, it, vi } from 'vitest';

const OriginalCollator = Intl.Collator;

describe('compareNames', () => {
  afterEach(() => {
    Intl.Collator = OriginalCollator;
  });

  // A collator maps ICU's collation data; a CLI search should only pay for it once it lists results.
  it('makes its collator at the first comparison, not at import, and only one', async () => {
    let made = 0;
    Intl.Collator = class extends OriginalCollator {
      constructor(...args: ConstructorParameters<typeof Intl.Collator>) {
        super(...args);
        made++;
      }
    } as typeof Intl.Collator;
    vi.resetModules();
    const { compareNames, byPlatformName } = await import('./outcome.js');
    expect(made).toBe(0);
    expect(compareNames('b', 'a')).toBeGreaterThan(0);
    expect(compareNames('Éclair', 'eclair')).toBe(0);
    expect(byPlatformName({ platform: 'alpha' }, { platform: 'Beta' })).toBeLessThan(0);
    expect(made).toBe(1);
  });
});
