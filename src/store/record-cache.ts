/**
 * The outcome cache read from the searches' records: a backend keeps rows of references
 * (cache-refs.ts) by username, and a cached outcome is the outcome the referred search
 * stored, with the time it was checked. Composed over any backend's rows and any store of
 * searches, so a split store keeps its rows in Redis and its records in PostgreSQL.
 */
import type { Outcome } from '../engine/verdict/outcome.js';
import { Lru } from '../lru.js';
import { decodeCacheRow, encodeCacheRow } from './cache-refs.js';
import type { CacheEntry, CacheRows, OutcomeCache } from './roles/outcome-cache.js';
import type { SearchStore } from './roles/search-store.js';

/** Searches whose platform positions writes keep at hand: a few run at once per process. */
const POSITIONS_KEPT = 64;

type Records = Pick<SearchStore, 'getSearch' | 'listOutcomes'>;

interface Candidate {
  readonly searchId: string;
  readonly position: number;
  readonly cachedAt: number;
}

/** A search as the cache uses it: its username, its platforms in order and by position. */
interface Referred {
  readonly username: string;
  readonly platformIds: readonly string[];
  readonly of: ReadonlyMap<string, number>;
}

export function recordCache(rows: CacheRows, records: Records): OutcomeCache {
  /** Searches as the cache uses them, kept for writes and reads alike: a search's selection never changes. */
  const positions = new Lru<string, Referred>(POSITIONS_KEPT);

  const positionsOf = async (searchId: string): Promise<Referred | undefined> => {
    const kept = positions.get(searchId);
    if (kept) return kept;
    const search = await records.getSearch(searchId);
    const known = search && {
      username: search.username,
      platformIds: search.platformIds,
      of: new Map([...search.platformIds.entries()].reverse().map(([i, id]) => [id, i])),
    };
    // A search not stored yet may be soon: only one found is kept.
    if (known) positions.set(searchId, known);
    return known;
  };

  return {
    async putCachedOutcomes(username: string, entries: readonly CacheEntry[]): Promise<void> {
      const bySearch = new Map<string, CacheEntry[]>();
      for (const entry of entries) {
        const list = bySearch.get(entry.searchId);
        if (list) list.push(entry);
        else bySearch.set(entry.searchId, [entry]);
      }
      for (const [searchId, list] of bySearch) {
        const search = await positionsOf(searchId);
        // The record decodes its outcomes with its own username: another name's would read wrong.
        if (search?.username !== username) continue;
        const refs = list.flatMap(({ platformId, cachedAt, expiresAt }) => {
          const position = search.of.get(platformId);
          return position === undefined || expiresAt <= cachedAt ? [] : [{ position, cachedAt, expiresAt }];
        });
        if (refs.length === 0) continue;
        const { row, expiresAt } = encodeCacheRow(searchId, refs);
        await rows.addCacheRow(username, row, expiresAt);
      }
    },

    async getCachedOutcomes(
      username: string,
      platformIds: readonly string[],
      now: number,
    ): Promise<Map<string, Outcome>> {
      const found = new Map<string, Outcome>();
      const wanted = new Set(platformIds);
      if (wanted.size === 0) return found;
      const candidates: Candidate[] = [];
      for (const bytes of await rows.cacheRowsOf(username, now)) {
        let row: ReturnType<typeof decodeCacheRow>;
        try {
          row = decodeCacheRow(bytes);
        } catch (error) {
          // A damaged row is a miss: the platforms it named are checked again.
          if (error instanceof RangeError) continue;
          throw error;
        }
        for (const ref of row.refs)
          if (ref.expiresAt > now)
            candidates.push({ searchId: row.searchId, position: ref.position, cachedAt: ref.cachedAt });
      }
      // The latest check of a platform first; an older one counts only when the latest cannot be read.
      candidates.sort((a, b) => b.cachedAt - a.cachedAt);
      const referred = new Map<string, Referred | undefined>();
      const outcomesOf = new Map<string, Map<string, Outcome>>();
      for (const { searchId, position, cachedAt } of candidates) {
        if (!referred.has(searchId)) referred.set(searchId, await positionsOf(searchId));
        const search = referred.get(searchId);
        if (search?.username !== username) continue;
        const platformId = search.platformIds[position];
        if (platformId === undefined || !wanted.has(platformId) || found.has(platformId)) continue;
        let outcomes = outcomesOf.get(searchId);
        if (!outcomes) {
          outcomes = new Map(
            (await records.listOutcomes(searchId)).map((s) => [s.outcome.platformId, s.outcome]),
          );
          outcomesOf.set(searchId, outcomes);
        }
        const outcome = outcomes.get(platformId);
        // One reused already is not the check this entry noted.
        if (outcome === undefined || outcome.evidence.cachedAt !== undefined) continue;
        found.set(platformId, { ...outcome, evidence: { ...outcome.evidence, cachedAt } });
      }
      return found;
    },
  };
}
