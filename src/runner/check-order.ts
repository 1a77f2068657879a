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
  const expected = expectedAnswerMs(recentMs, unmeasuredMs);
  return platforms
    .map((platform, index) => ({ platform, index, ms: expected(platform) }))
    .sort((a, b) => b.ms - a.ms || a.index - b.index)
    .map((entry) => entry.platform);
}

/** A platform's expected answer time: its measured recent latency, or `unmeasuredMs`. */
export function expectedAnswerMs(
  recentMs: ReadonlyMap<string, number>,
  unmeasuredMs: number,
): (platform: Pick<Platform, 'id'>) => number {
  return (platform) => recentMs.get(platform.id) ?? unmeasuredMs;
}
