/**
 * Platforms grouped by category, for the platforms page. Pure functions.
 */
import { CATEGORIES } from '../catalogue/categories.js';
import { compareNames } from '../engine/verdict/outcome.js';
import type { PlatformInfo } from './api-types.js';

export interface PlatformGroup {
  readonly category: string;
  readonly platforms: readonly PlatformInfo[];
  readonly enabled: number;
}

/** Groups in the catalogue's display order; platforms by name; `text` keeps names containing it. */
export function groupPlatforms(platforms: readonly PlatformInfo[], text = ''): PlatformGroup[] {
  const needle = text.trim().toLocaleLowerCase();
  const groups = new Map<string, PlatformInfo[]>();
  for (const p of platforms) {
    if (needle !== '' && !p.name.toLocaleLowerCase().includes(needle)) continue;
    const list = groups.get(p.category) ?? [];
    list.push(p);
    groups.set(p.category, list);
  }
  const order = CATEGORIES as readonly string[];
  const rank = (c: string) => (order.includes(c) ? order.indexOf(c) : order.length);
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([category, list]) => ({
      category,
      platforms: list.sort((a, b) => compareNames(a.name, b.name)),
      enabled: list.filter((p) => p.enabled).length,
    }));
}
