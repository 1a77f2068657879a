/**
 * Which platforms a search covers: the catalogue's enabled platforms narrowed
 * by category, name and NSFW choice. Pure.
 */
import type { Category } from './categories.js';
import type { Catalogue, Platform } from './platform.js';

export interface PlatformFilter {
  /** Only these categories (all when empty or absent). */
  readonly categories?: readonly Category[] | undefined;
  /** Include NSFW platforms. @default false */
  readonly includeNsfw?: boolean | undefined;
  /** Only these platform ids or names (case-insensitive). */
  readonly platforms?: readonly string[] | undefined;
  /** Platform ids to leave out (already checked, or known broken). */
  readonly exclude?: ReadonlySet<string> | undefined;
}

/** Enabled platforms that pass the filter, in catalogue order. A platform asked for by name is included even when NSFW. */
export function selectPlatforms(catalogue: Catalogue, filter: PlatformFilter = {}): Platform[] {
  const categories = filter.categories?.length ? new Set(filter.categories) : undefined;
  const names = filter.platforms?.length ? new Set(filter.platforms.map((n) => n.toLowerCase())) : undefined;
  return catalogue.platforms.filter(
    (p) =>
      p.enabled &&
      (filter.includeNsfw || !p.nsfw || names?.has(p.id) || names?.has(p.name.toLowerCase())) &&
      (!categories || categories.has(p.category)) &&
      (!names || names.has(p.id) || names.has(p.name.toLowerCase())) &&
      !filter.exclude?.has(p.id),
  );
}
