/**
 * The order a search sends its checks in: slowest platform first (by its
 * measured recent latency), so the long waits start at once and overlap the
 * many short ones, instead of starting last when slots are scarce. Platforms
 * never measured count as `unmeasuredMs`. Ties keep catalogue order. Pure.
 */
import type { Platform } from '../catalogue/platform.js';

export function slowestFirst<P extends Pick<Platform, 'id'>>(
  platforms: readonly P[],
  recentMs: ReadonlyMap<string, number>,
  unmeasuredMs: number,
): P[] {
  return platforms
    .map((platform, index) => ({ platform, index, ms: recentMs.get(platform.id) ?? unmeasuredMs }))
    .sort((a, b) => b.ms - a.ms || a.index - b.index)
    .map((entry) => entry.platform);
}
