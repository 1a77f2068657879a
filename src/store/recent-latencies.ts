/**
 * The latency per platform that estimates and the order of checks read, from the platforms'
 * statistics (roles/stats-store.ts).
 */

import { RECENT_LATENCIES_MAX_AGE_MS } from '../tuning.js';
import { ANSWERED_STATUSES, type PlatformStats, type StatsStore } from './roles/stats-store.js';

/**
 * What a platform that has been checked but never answered counts as (every check an error:
 * a timeout, a refused connection): the slowest, as its check may last to the timeout. Its
 * `recentMs` (0: no answer to weigh) would have ordered its check last, so a search waited
 * for the timeout of a check started after all the others.
 */
export const NEVER_ANSWERED_MS = Number.POSITIVE_INFINITY;

/**
 * Each measured platform's `recentMs` by platform id (NEVER_ANSWERED_MS when no check of it
 * got an answer): what estimates and the order of checks use.
 */
export async function recentLatencies(
  store: Pick<StatsStore, 'platformStats'>,
): Promise<Map<string, number>> {
  return new Map((await store.platformStats()).map((s) => [s.platformId, recentLatencyOf(s)]));
}

/**
 * `recentLatencies`, read again only once the last read is `maxAgeMs` old (by `clock`, a
 * monotonic one): they order a search's checks and estimate its time, for which latencies a few
 * seconds old serve as well, and a whole read at every POST and every search start makes
 * every platform's row an object each time. Reads asked for meanwhile share one; a failed
 * read is not kept.
 */
export function recentLatenciesReader(
  store: Pick<StatsStore, 'platformStats'>,
  maxAgeMs = RECENT_LATENCIES_MAX_AGE_MS,
  clock: () => number = performance.now.bind(performance),
): () => Promise<ReadonlyMap<string, number>> {
  let last: { readonly at: number; readonly read: Promise<Map<string, number>> } | undefined;
  return () => {
    const at = clock();
    if (last === undefined || at - last.at >= maxAgeMs) {
      const read = recentLatencies(store);
      const kept = { at, read };
      last = kept;
      read.catch(() => {
        if (last === kept) last = undefined;
      });
    }
    return last.read;
  };
}

/** One platform's entry in `recentLatencies`. */
export function recentLatencyOf(stats: Pick<PlatformStats, 'recentMs' | 'byStatus'>): number {
  const answered = [...ANSWERED_STATUSES].some((status) => stats.byStatus[status] > 0);
  return answered || stats.byStatus.error === 0 ? stats.recentMs : NEVER_ANSWERED_MS;
}
