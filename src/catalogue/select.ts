/**
 * Which platforms a search covers: the catalogue's enabled platforms narrowed
 * by category, tag, the curated top set, name and NSFW choice. Pure.
 * A platform marked `onRequest` joins only a search that names it or one of its tags.
 */
import type { Category } from './categories.js';
import type { Catalogue, Platform } from './platform.js';
import { TOP_PLATFORMS } from './top.js';

const TOP = new Set(TOP_PLATFORMS);

export interface PlatformFilter {
  /** Only these categories (all when empty or absent). */
  readonly categories?: readonly Category[] | undefined;
  /** Include NSFW platforms. @default false */
  readonly includeNsfw?: boolean | undefined;
  /** Include the platforms marked `onRequest` without naming them (a self-check of every entry). @default false */
  readonly includeOnRequest?: boolean | undefined;
  /** Only platforms with at least one of these tags (case-insensitive; all when empty or absent). */
  readonly tags?: readonly string[] | undefined;
  /** Only the curated set of the platforms most searched on (top.ts). @default false */
  readonly top?: boolean | undefined;
  /** Only these platform ids or names (case-insensitive). */
  readonly platforms?: readonly string[] | undefined;
  /** Platform ids to leave out (already checked, or known broken). */
  readonly exclude?: ReadonlySet<string> | undefined;
}

/**
 * Enabled platforms that pass the filter, in catalogue order. A platform asked for by name is
 * included even when NSFW; one marked `onRequest` only when asked for by name or by one of its
 * tags (a category or the top set alone does not bring it in).
 */
export function selectPlatforms(catalogue: Catalogue, filter: PlatformFilter = {}): Platform[] {
  const categories = filter.categories?.length ? new Set(filter.categories) : undefined;
  const names = filter.platforms?.length ? new Set(filter.platforms.map((n) => n.toLowerCase())) : undefined;
  const tags = filter.tags?.length ? new Set(filter.tags.map((t) => t.toLowerCase())) : undefined;
  const named = (p: Platform) => names?.has(p.id) || names?.has(p.name.toLowerCase()) || false;
  const tagged = (p: Platform) => tags !== undefined && p.tags.some((t) => tags.has(t.toLowerCase()));
  return catalogue.platforms.filter(
    (p) =>
      p.enabled &&
      (filter.includeNsfw || !p.nsfw || named(p)) &&
      (filter.includeOnRequest || !p.onRequest || named(p) || tagged(p)) &&
      (!categories || categories.has(p.category)) &&
      (!tags || tagged(p)) &&
      (!filter.top || TOP.has(p.id)) &&
      (!names || named(p)) &&
      !filter.exclude?.has(p.id),
  );
}
