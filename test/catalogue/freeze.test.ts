import { describe, expect, it } from 'vitest';
import { freezeCatalogue } from '../../src/catalogue/freeze.js';
import type { Catalogue } from '../../src/catalogue/platform.js';
import { catalogueFromClone } from '../../src/catalogue/thread-copy.js';
import { catalogueOf, entry } from '../support/catalogue.js';

/** Every object reachable from `value` that is not frozen, by path. */
function unfrozen(value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  const own = Object.isFrozen(value) ? [] : [path || '/'];
  return [
    ...own,
    ...Reflect.ownKeys(value).flatMap((k) =>
      unfrozen((value as Record<PropertyKey, unknown>)[k], `${path}/${String(k)}`),
    ),
  ];
}

describe('freezeCatalogue', () => {
  const catalogue = catalogueOf([
    entry('Regexy', {
      detect: { exists: [{ regex: 'profile of \\w+', flags: 'i' }], missing: [{ status: [404] }] },
    }),
  ]);

  it('leaves nothing of a loaded catalogue unfrozen, regexes included', () => {
    expect(unfrozen(catalogue)).toEqual([]);
    const signal = catalogue.platforms[0]!.detect.exists[0]!;
    expect(signal.kind === 'regex' && Object.isFrozen(signal.re)).toBe(true);
  });

  it('freezes a structured clone (as a search thread receives it) all the way down', () => {
    const copy = structuredClone(catalogue) as Catalogue;
    expect(unfrozen(copy)).not.toEqual([]);
    expect(unfrozen(freezeCatalogue(copy))).toEqual([]);
  });

  it('compiles the regexes of a structured clone again (catalogueFromClone)', () => {
    const copy = catalogueFromClone(structuredClone(catalogue) as Catalogue);
    expect(unfrozen(copy)).toEqual([]);
    const signal = copy.platforms[0]!.detect.exists[0]!;
    expect(signal.kind === 'regex' && signal.re.test('Profile of alice')).toBe(true);
  });
});
