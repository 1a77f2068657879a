import { describe, expect, it } from 'vitest';
import type { Category } from '../../src/catalogue/categories.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import {
  applyFilter,
  categoriesOf,
  countByStatus,
  DEFAULT_FILTER,
  emptyMessage,
  mergeOutcomes,
  pageOf,
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
    // No hit says no more: the summary above counts who answered, so it is not said twice.
    expect(emptyMessage(DEFAULT_FILTER, 5, false)).toBe(
      'No hits among the platforms that answered (the summary above counts them). Switch on “Show every outcome” to see each answer.',
    );
    expect(emptyMessage(DEFAULT_FILTER, 5, false)).not.toContain('no platform checked has this username');
  });
});

describe('pageOf', () => {
  const items = Array.from({ length: 121 }, (_, i) => i);
  it('cuts pages of 50 and clamps the index', () => {
    expect(pageOf(items, 0)).toMatchObject({ index: 0, count: 3 });
    expect(pageOf(items, 0).items).toEqual(items.slice(0, 50));
    expect(pageOf(items, 2).items).toEqual([
      100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120,
    ]);
    expect(pageOf(items, 9)).toMatchObject({ index: 2, count: 3 });
    expect(pageOf(items, -1).index).toBe(0);
    expect(pageOf([], 4)).toEqual({ items: [], index: 0, count: 1 });
  });
});
