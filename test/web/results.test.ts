import { describe, expect, it } from 'vitest';
import type { Category } from '../../src/catalogue/categories.js';
import type { Outcome } from '../../src/engine/outcome.js';
import {
  applyFilter,
  categoriesOf,
  countByStatus,
  DEFAULT_FILTER,
  emptyMessage,
  mergeOutcomes,
} from '../../src/web/results.js';

const outcome = (
  platform: string,
  status: Outcome['status'],
  category: Category,
  responseTime: number,
): Outcome => ({
  platform,
  platformId: platform.toLowerCase(),
  category,
  url: `https://${platform.toLowerCase()}.test/u/alice`,
  status,
  ...(status === 'unknown' ? { reason: 'waf' as const } : {}),
  responseTime,
  evidence: { rule: 'test', attempts: 1 },
});

const all = [
  outcome('zeta', 'hit', 'social', 300),
  outcome('Alpha', 'miss', 'coding', 100),
  outcome('beta', 'hit', 'coding', 50),
  outcome('Gamma', 'unknown', 'gaming', 100),
  outcome('delta', 'error', 'social', 900),
];

describe('applyFilter', () => {
  it('shows hits only by default, by name regardless of case', () => {
    expect(applyFilter(all, DEFAULT_FILTER).map((o) => o.platform)).toEqual(['beta', 'zeta']);
  });

  it('shows every outcome when asked, by name', () => {
    expect(applyFilter(all, { ...DEFAULT_FILTER, showAll: true }).map((o) => o.platform)).toEqual([
      'Alpha',
      'beta',
      'delta',
      'Gamma',
      'zeta',
    ]);
  });

  it('filters by category, outcome and part of the name', () => {
    const f = { ...DEFAULT_FILTER, showAll: true };
    expect(applyFilter(all, { ...f, category: 'coding' }).map((o) => o.platform)).toEqual(['Alpha', 'beta']);
    expect(applyFilter(all, { ...f, status: 'unknown' }).map((o) => o.platform)).toEqual(['Gamma']);
    expect(applyFilter(all, { ...f, text: '  ELT ' }).map((o) => o.platform)).toEqual(['delta']);
    expect(applyFilter(all, { ...f, category: 'social', text: 'a' }).map((o) => o.platform)).toEqual([
      'delta',
      'zeta',
    ]);
  });

  it('ignores the outcome filter while only hits are shown', () => {
    expect(applyFilter(all, { ...DEFAULT_FILTER, status: 'miss' }).map((o) => o.platform)).toEqual([
      'beta',
      'zeta',
    ]);
  });

  it('sorts by response time, then name', () => {
    expect(
      applyFilter(all, { ...DEFAULT_FILTER, showAll: true, sort: 'responseTime' }).map((o) => o.platform),
    ).toEqual(['beta', 'Alpha', 'Gamma', 'zeta', 'delta']);
  });

  it('does not change its input', () => {
    const copy = [...all];
    applyFilter(all, { ...DEFAULT_FILTER, showAll: true, sort: 'responseTime' });
    expect(all).toEqual(copy);
  });
});

describe('mergeOutcomes', () => {
  it('keeps one outcome per platform, the latest', () => {
    const map = mergeOutcomes(new Map(), all);
    mergeOutcomes(map, [outcome('Gamma', 'hit', 'gaming', 120)]);
    expect(map.size).toBe(all.length);
    expect(map.get('gamma')?.status).toBe('hit');
  });
});

describe('categoriesOf and countByStatus', () => {
  it('lists present categories in the catalogue order', () => {
    expect(categoriesOf(all)).toEqual(['social', 'coding', 'gaming']);
    expect(categoriesOf([outcome('x', 'hit', 'zzz-new' as Category, 1), ...all])).toEqual([
      'social',
      'coding',
      'gaming',
      'zzz-new',
    ]);
  });

  it('counts every status', () => {
    expect(countByStatus(all)).toEqual({ hit: 2, miss: 1, unknown: 1, error: 1, invalid: 0 });
  });
});

describe('emptyMessage', () => {
  it('tells nothing checked, filtered out and no hit apart', () => {
    expect(emptyMessage(DEFAULT_FILTER, 0, true)).toBe('No result yet.');
    expect(emptyMessage(DEFAULT_FILTER, 0, false)).toBe('No result.');
    expect(emptyMessage({ ...DEFAULT_FILTER, category: 'coding' }, 5, false)).toBe(
      'No result matches the filters.',
    );
    expect(emptyMessage({ ...DEFAULT_FILTER, showAll: true, status: 'hit' }, 5, false)).toBe(
      'No result matches the filters.',
    );
    expect(emptyMessage(DEFAULT_FILTER, 5, true)).toBe('No hit yet.');
    expect(emptyMessage(DEFAULT_FILTER, 5, false)).toMatch(/^No hit: no platform checked has this username/);
  });
});
