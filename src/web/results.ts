/**
 * The result list of one search as the page shows it: merging outcomes as they
 * arrive, then filtering and sorting. Pure functions over plain data.
 */
import { CATEGORIES } from '../catalogue/categories.js';
import { byPlatformName, type Outcome, type OutcomeStatus } from '../engine/verdict/outcome.js';

export type SortKey = 'name' | 'responseTime';
export const SORT_KEYS: readonly SortKey[] = ['name', 'responseTime'];

export interface ResultFilter {
  /** Every outcome, or hits only. @default false */
  readonly showAll: boolean;
  /** Only this category; '' for every one. @default '' */
  readonly category: string;
  /** Only this outcome (when showAll); '' for every one. @default '' */
  readonly status: OutcomeStatus | '';
  /** Part of the platform name, any case. @default '' */
  readonly text: string;
  /** @default 'name' */
  readonly sort: SortKey;
}

export const DEFAULT_FILTER: ResultFilter = Object.freeze({
  showAll: false,
  category: '',
  status: '',
  text: '',
  sort: 'name',
});

function compareByResponseTime(a: Outcome, b: Outcome): number {
  return a.responseTime - b.responseTime || byPlatformName(a, b);
}

/** Adds outcomes to the map keyed by platform id; an outcome seen twice (replay, poll) replaces itself. */
export function mergeOutcomes(into: Map<string, Outcome>, outcomes: Iterable<Outcome>): Map<string, Outcome> {
  for (const outcome of outcomes) into.set(outcome.platformId, outcome);
  return into;
}

/** The outcomes the filter lets through, sorted. */
export function applyFilter(outcomes: Iterable<Outcome>, filter: ResultFilter): Outcome[] {
  const text = filter.text.trim().toLocaleLowerCase();
  const shown: Outcome[] = [];
  for (const o of outcomes) {
    if (!filter.showAll && o.status !== 'hit') continue;
    if (filter.showAll && filter.status !== '' && o.status !== filter.status) continue;
    if (filter.category !== '' && o.category !== filter.category) continue;
    if (text !== '' && !o.platform.toLocaleLowerCase().includes(text)) continue;
    shown.push(o);
  }
  return shown.sort(filter.sort === 'responseTime' ? compareByResponseTime : byPlatformName);
}

/** Categories present among the outcomes, in the catalogue's display order. */
export function categoriesOf(outcomes: Iterable<Outcome>): string[] {
  const present = new Set<string>();
  for (const o of outcomes) present.add(o.category);
  const order = CATEGORIES as readonly string[];
  return [...present].sort((a, b) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib) || a.localeCompare(b);
  });
}

export function countByStatus(outcomes: Iterable<Outcome>): Record<OutcomeStatus, number> {
  const counts: Record<OutcomeStatus, number> = { hit: 0, miss: 0, unknown: 0, error: 0, invalid: 0 };
  for (const o of outcomes) counts[o.status] += 1;
  return counts;
}

/** Rows per page: 321 hits on a phone would otherwise make a page tens of thousands of pixels long. */
export const PAGE_SIZE = 50;

export interface Page<T> {
  readonly items: readonly T[];
  /** 0-based, clamped to the pages there are. */
  readonly index: number;
  /** At least 1. */
  readonly count: number;
}

/** The `index`th page of `size` items (the last page when `index` is past the end). */
export function pageOf<T>(items: readonly T[], index: number, size = PAGE_SIZE): Page<T> {
  const count = Math.max(1, Math.ceil(items.length / size));
  const clamped = Math.min(Math.max(0, Math.floor(index)), count - 1);
  return { items: items.slice(clamped * size, (clamped + 1) * size), index: clamped, count };
}

/**
 * What to say when nothing is shown: nothing checked yet, filtered out, or no hit at all. "No
 * hit" says no more than that: the search's summary, above the list, says how many platforms
 * answered, so the list never reads as "not there" nor says it a second time.
 */
export function emptyMessage(filter: ResultFilter, checked: number, running: boolean): string {
  const filtered =
    filter.category !== '' || filter.text.trim() !== '' || (filter.showAll && filter.status !== '');
  if (checked === 0) return running ? 'No result yet.' : 'No result.';
  if (filtered) return 'No result matches the filters.';
  if (running) return 'No hit yet.';
  return 'No hits among the platforms that answered (the summary above counts them). Switch on “Show every outcome” to see each answer.';
}
