import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../test/support/catalogue.js';
import type { Catalogue, ExtractRule, Signal } from './platform.js';
import { catalogueFromClone } from './thread-copy.js';

describe('catalogueFromClone', () => {
  const catalogue = catalogueOf([
    entry('Regexy', {
      detect: {
        exists: [{ status: [200] }, { regex: 'profile of \\w+', flags: 'i' }],
        missing: [{ all: [{ status: [200] }, { not: { regex: 'profile of' } }] }],
      },
      extract: { ids: { userId: { regex: '"id":(?<value>\\d+)' } } },
    }),
  ]);

  it('compiles every regex of a structured clone again: signals, parts of compounds, extract rules', () => {
    const clone = structuredClone(catalogue) as Catalogue;
    const cloned = clone.platforms[0]!.detect.exists[1] as Extract<Signal, { kind: 'regex' }>;
    expect(typeof (cloned.re as { test?: unknown }).test).toBe('undefined');

    const platform = catalogueFromClone(clone).platforms[0]!;
    const exists = platform.detect.exists[1] as Extract<Signal, { kind: 'regex' }>;
    expect(exists.re.test('Profile of alice')).toBe(true);
    const missing = platform.detect.missing[0] as Extract<Signal, { kind: 'all' }>;
    const not = missing.parts[1]!;
    expect(not.kind === 'not' && not.signal.kind === 'regex' && not.signal.re.test('profile of')).toBe(true);
    const rule = platform.extract!.ids.userId as Extract<ExtractRule, { kind: 'regex' }>;
    expect(rule.re.exec('{"id":42}')?.groups.value).toBe('42');
    expect(Object.isFrozen(platform)).toBe(true);
  });
});
